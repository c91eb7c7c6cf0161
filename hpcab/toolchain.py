"""Toolchains: compilers and named flag sets from toolchains/*.toml, the one home of compiler flags."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import attrs

from hpcab.errors import InputError
from hpcab.paths import toolchains_dir
from hpcab.schema import validate

# A command (or version command) "{python}" is the judge's own interpreter, sys.executable:
# a Python framework must be checked and built by the Python that imports the result in
# its runner (an extension module built for another one does not load).
PYTHON = "{python}"


def _program(name: str) -> str:
    return sys.executable if name == PYTHON else name


@attrs.frozen
class Compiler:
    name: str
    language: str
    family: str
    command: str
    version: str            # what the images pin
    version_command: tuple[str, ...]
    nix: str
    source_suffix: str
    base_flags: tuple[str, ...]
    shared_flags: tuple[str, ...]
    link_flags: tuple[str, ...]
    # What the build produces: "candidate" + this. The source's own suffix: the compile
    # only checks the source (Python), which is then the product itself.
    output_suffix: str = ".so"
    # Another compiler this one drives (pythran → g++): its version is part of every build's identity.
    backend: str | None = None

    @property
    def executable(self) -> str:
        return _program(self.command)

    @property
    def runs_in_python(self) -> bool:
        """Run by the judge's interpreter: sandboxed, it needs that Python's installation."""
        return self.command == PYTHON

    def available(self) -> bool:
        if shutil.which(self.executable) is None:
            return False
        # The interpreter is always there; the module it runs (pythran) may not be.
        return not self.runs_in_python or self.installed_version() != "missing"

    def installed_version(self) -> str:
        """The version of the compiler on PATH, or of the module the judge's Python runs
        ('missing' if there is none)."""
        return probe_version(tuple(_program(c) for c in self.version_command))


@attrs.frozen
class FlagSet:
    name: str
    description: str
    by_family: dict[str, tuple[str, ...]]

    def flags_for(self, compiler: Compiler) -> tuple[str, ...]:
        if compiler.family not in self.by_family:
            raise InputError("toolchains", f"flagsets.{self.name}.{compiler.family}",
                             f"flag set {self.name!r} has no flags for compiler family {compiler.family!r}")
        return self.by_family[compiler.family]

    def plus(self, other: FlagSet) -> FlagSet:
        """This flag set with another's flags after its own (the compiler report's: opt+report)."""
        return FlagSet(f"{self.name}+{other.name}", f"{self.description} With {other.name}: {other.description}",
                       {fam: flags + other.by_family.get(fam, ()) for fam, flags in self.by_family.items()})


@attrs.frozen
class Image:
    """A role × hardware image the Nix flake builds (toolchains/images.toml)."""
    name: str
    role: str
    hardware: str
    description: str = ""


@attrs.frozen
class Toolchains:
    compilers: dict[str, Compiler]
    flagsets: dict[str, FlagSet]
    default_flagset: str
    default_compilers: dict[str, str]
    files: tuple[Path, ...]
    # The images (toolchains/images.toml): hardware → compiler families, runtimes
    # (name → {version, nix}), the SIF conversion's settings, and the images themselves.
    hardware: dict[str, tuple[str, ...]] = attrs.field(factory=dict)
    runtimes: dict[str, dict] = attrs.field(factory=dict)
    sif: dict = attrs.field(factory=dict)
    images: dict[str, Image] = attrs.field(factory=dict)

    def version_warnings(self, used: dict[str, str]) -> list[str]:
        """used: compiler name → the version that built a grade's code. One line per compiler
        whose major version is not the one toolchains/ pins: the same source's speedup can
        differ by an order of magnitude between gcc 12 and 14 (an if-converted loop or not),
        so such a grade is not comparable with figures measured on the images."""
        out = []
        for name, version in sorted(used.items()):
            pinned = self.compilers[name].version if name in self.compilers else ""
            if pinned and version not in ("", "missing") and version.split(".")[0] != pinned.split(".")[0]:
                out.append(f"{name} {version} is not the {name} {pinned} that toolchains/ pins: speedups are not "
                           f"comparable with figures measured with the images' compilers")
        return out

    def compiler(self, name_or_language: str) -> Compiler:
        """A compiler by name, or the default one for a language."""
        name = self.default_compilers.get(name_or_language, name_or_language)
        if name not in self.compilers:
            raise InputError("toolchains", "compiler", f"unknown compiler or language {name_or_language!r}; "
                             f"expected one of: {', '.join(sorted(set(self.compilers) | set(self.default_compilers)))}")
        return self.compilers[name]

    def flagset(self, name: str | None) -> FlagSet:
        name = name or self.default_flagset
        if name not in self.flagsets:
            raise InputError("toolchains", "flagset", f"unknown flag set {name!r}; expected one of: "
                             f"{', '.join(sorted(self.flagsets))}")
        return self.flagsets[name]

    def compile_command(self, compiler: Compiler, flagset: FlagSet, source: Path, output: Path) -> list[str]:
        # A check whose product is the source itself (Python) names no output.
        out = [] if output == source else ["-o", str(output)]
        return [compiler.executable, *compiler.base_flags, *flagset.flags_for(compiler), *compiler.shared_flags,
                *out, str(source), *compiler.link_flags]

    def image_compilers(self, image: Image) -> list[str]:
        """The compilers an image carries: those of its hardware's families."""
        families = self.hardware[image.hardware]
        return sorted(n for n, c in self.compilers.items() if c.family in families)

    def matrix(self) -> dict:
        """The role × hardware × toolchain matrix as plain data. nix/matrix.nix computes the
        same from the same files (tests/test_nix.py checks that they agree)."""
        images = {}
        for name, image in sorted(self.images.items()):
            compilers = self.image_compilers(image)
            images[name] = {
                "role": image.role, "hardware": image.hardware, "compilers": compilers,
                "runtimes": sorted(self.runtimes),
                "nix": sorted({self.compilers[c].nix for c in compilers} | {r["nix"] for r in self.runtimes.values()}),
                "versions": dict(sorted({**{c: self.compilers[c].version for c in compilers},
                                         **{r: v["version"] for r, v in self.runtimes.items()}}.items())),
            }
        return {
            "compilers": {n: {"language": c.language, "family": c.family, "version": c.version, "nix": c.nix}
                          for n, c in sorted(self.compilers.items())},
            "flagsets": {n: {fam: list(fl) for fam, fl in sorted(f.by_family.items())}
                         for n, f in sorted(self.flagsets.items())},
            "defaults": {"flagset": self.default_flagset, "compilers": dict(sorted(self.default_compilers.items()))},
            "hardware": {h: {"families": sorted(f)} for h, f in sorted(self.hardware.items())},
            "runtimes": {n: dict(sorted(r.items())) for n, r in sorted(self.runtimes.items())},
            "sif": dict(sorted(self.sif.items())),
            "images": images,
        }


_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?|\d+")


@functools.lru_cache(maxsize=None)
def probe_version(command: tuple[str, ...]) -> str:
    if shutil.which(command[0]) is None:
        return "missing"
    try:
        proc = subprocess.run(list(command), capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    if proc.returncode != 0:      # e.g. the judge's Python without the pythran module
        return "missing"
    out = proc.stdout
    # nvcc-style banners carry the version on a 'release' line; others print just the version.
    release = re.search(r"release (\d+\.\d+)", out)
    if release:
        return release.group(1)
    match = _VERSION.search(out)
    return match.group(0) if match else "unknown"


def load_toolchains(directory: Path | None = None) -> Toolchains:
    directory = Path(directory) if directory else toolchains_dir()
    files = tuple(sorted(directory.glob("*.toml")))
    if not files:
        raise InputError(str(directory), "", "no toolchain files (*.toml)")
    compilers: dict[str, Compiler] = {}
    flagsets: dict[str, FlagSet] = {}
    hardware: dict[str, tuple[str, ...]] = {}
    runtimes: dict[str, dict] = {}
    images: dict[str, Image] = {}
    sif: dict = {}
    defaults: dict | None = None
    origin: dict[str, Path] = {}
    for path in files:
        try:
            doc = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise InputError(str(path), "", f"not valid TOML: {exc}") from None
        validate(doc, "toolchains", path)
        for name, c in doc.get("compilers", {}).items():
            key = f"compilers.{name}"
            if key in origin:
                raise InputError(str(path), key, f"already defined in {origin[key]}")
            origin[key] = path
            compilers[name] = Compiler(name=name, **{k: tuple(v) if isinstance(v, list) else v for k, v in c.items()})
        for name, f in doc.get("flagsets", {}).items():
            key = f"flagsets.{name}"
            if key in origin:
                raise InputError(str(path), key, f"already defined in {origin[key]}")
            origin[key] = path
            flagsets[name] = FlagSet(name, f["description"],
                                     {fam: tuple(v) for fam, v in f.items() if fam != "description"})
        for table, into, make in (("hardware", hardware, lambda n, d: tuple(d["families"])),
                                  ("runtimes", runtimes, lambda n, d: dict(d)),
                                  ("images", images, lambda n, d: Image(n, **d))):
            for name, d in doc.get(table, {}).items():
                key = f"{table}.{name}"
                if key in origin:
                    raise InputError(str(path), key, f"already defined in {origin[key]}")
                origin[key] = path
                into[name] = make(name, d)
        for single in ("defaults", "sif"):
            if single in doc:
                if single in origin:
                    raise InputError(str(path), single, f"already defined in {origin[single]}")
                origin[single] = path
        if "defaults" in doc:
            defaults = doc["defaults"]
        sif = dict(doc.get("sif", sif))
    if defaults is None:
        raise InputError(str(directory), "defaults", "no file defines [defaults]")
    src = str(origin["defaults"])
    if defaults["flagset"] not in flagsets:
        raise InputError(src, "defaults.flagset", f"names unknown flag set {defaults['flagset']!r}")
    for lang, name in defaults["compilers"].items():
        if name not in compilers:
            raise InputError(src, f"defaults.compilers.{lang}", f"names unknown compiler {name!r}")
        if compilers[name].language != lang:
            raise InputError(src, f"defaults.compilers.{lang}", f"{name!r} compiles {compilers[name].language}, not {lang}")
    for name, c in compilers.items():
        if c.backend is not None and c.backend not in compilers:
            raise InputError(str(origin[f"compilers.{name}"]), f"compilers.{name}.backend",
                             f"names unknown compiler {c.backend!r}")
    for name, image in images.items():
        if image.hardware not in hardware:
            raise InputError(str(origin[f"images.{name}"]), f"images.{name}.hardware",
                             f"no [hardware.{image.hardware}] table says which compiler families it carries")
    return Toolchains(compilers, flagsets, defaults["flagset"], dict(defaults["compilers"]), files,
                      hardware, runtimes, sif, images)
