"""Toolchains: schema-checked TOML, the only place compiler flags are written."""

import re
import shutil
from pathlib import Path

import pytest

from hpcab.errors import InputError
from hpcab.toolchain import load_toolchains

ROOT = Path(__file__).resolve().parent.parent


def test_required_compilers_and_flagsets(toolchains):
    assert {"gcc", "gxx", "gfortran", "clang", "nvcc", "hipcc"} <= set(toolchains.compilers)
    assert {"opt", "autopar", "debug"} <= set(toolchains.flagsets)
    assert toolchains.default_flagset == "opt"
    for name in ("gcc", "gxx", "gfortran"):
        c = toolchains.compilers[name]
        assert c.nix and c.version and c.version_command
        assert c.installed_version() not in ("missing", "unknown")


def test_opt_keeps_ieee_semantics(toolchains):
    for family, flags in toolchains.flagsets["opt"].by_family.items():
        assert "-ffast-math" not in flags and "-Ofast" not in flags, family


def test_compile_command_comes_from_the_files(toolchains):
    gcc = toolchains.compiler("c")
    cmd = toolchains.compile_command(gcc, toolchains.flagset("opt"), Path("x.c"), Path("x.so"))
    assert cmd[0] == "gcc"
    for flag in (*gcc.base_flags, *toolchains.flagsets["opt"].by_family["gnu"], *gcc.shared_flags):
        assert flag in cmd


def test_unknown_flagset_and_compiler(toolchains):
    with pytest.raises(InputError, match="unknown flag set 'turbo'"):
        toolchains.flagset("turbo")
    with pytest.raises(InputError, match="unknown compiler or language 'cobol'"):
        toolchains.compiler("cobol")


def _copy(tmp_path):
    dest = tmp_path / "toolchains"
    shutil.copytree(ROOT / "toolchains", dest)
    return dest


def test_bad_toolchain_file_names_file_and_field(tmp_path):
    d = _copy(tmp_path)
    (d / "gnu.toml").write_text((d / "gnu.toml").read_text().replace('family = "gnu"', 'family = "gcc"', 1))
    with pytest.raises(InputError) as err:
        load_toolchains(d)
    assert err.value.source.endswith("gnu.toml") and err.value.field == "compilers.gcc.family"


def test_duplicate_compiler_across_files(tmp_path):
    d = _copy(tmp_path)
    (d / "extra.toml").write_text((d / "gnu.toml").read_text())
    with pytest.raises(InputError, match="already defined"):
        load_toolchains(d)


def test_no_compiler_flag_written_in_python_code():
    flag = re.compile(r"""['"]-(O[0-3s]|Ofast|march=|mtune=|ffast-math|fopenmp|fPIC|shared|std=)""")
    offenders = [f"{p}:{i}" for p in (ROOT / "hpcab").rglob("*.py")
                 for i, line in enumerate(p.read_text().splitlines(), 1) if flag.search(line)]
    assert not offenders, offenders
