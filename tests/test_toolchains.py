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


def _pinned(toolchains, name: str, version: str):
    import attrs
    return attrs.evolve(toolchains, compilers={**toolchains.compilers,
                                               name: attrs.evolve(toolchains.compilers[name], version=version)})


def test_a_major_version_other_than_the_pinned_one_is_a_warning(toolchains):
    pinned = toolchains.compilers["gcc"].version
    assert toolchains.version_warnings({"gcc": f"{pinned}.2.1"}) == []
    assert toolchains.version_warnings({"gcc": "missing", "nonesuch": "1.0"}) == []
    (line,) = toolchains.version_warnings({"gcc": "1.2.0"})
    assert line.startswith(f"gcc 1.2.0 is not the gcc {pinned} that toolchains/ pins") and "not comparable" in line


def test_a_grade_names_its_compilers_and_warns_of_a_major_version_off_the_pin(corpus, toolchains, fast_policy):
    import io

    from rich.console import Console

    from hpcab.build import candidate_from_file
    from hpcab.case import preset_case
    from hpcab.grade import grade
    from hpcab.gradedoc import grade_document, print_grade
    from hpcab.schema import validate
    from tests.conftest import EXAMPLES
    installed = toolchains.compilers["gcc"].installed_version()
    k = corpus.get("gemm")
    cases = [preset_case(k, "S")]
    for pin, warned in ((installed.split(".")[0], False), ("1", True)):
        g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), cases, _pinned(toolchains, "gcc", pin),
                  policy=fast_policy)
        doc = grade_document(g)
        validate(doc, "grade", "the grade")
        assert doc["compilers"]["gcc"] == installed == doc["compiler_version"]
        assert any(w.startswith("gcc ") for w in doc["compiler_warnings"]) is warned
        out = Console(record=True, width=200, file=io.StringIO())
        print_grade(doc, out)
        assert (f"warning: gcc {installed} is not the gcc 1 that toolchains/ pins" in out.export_text()) is warned
