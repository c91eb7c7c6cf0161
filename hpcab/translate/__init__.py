"""NumPy reference → C, C++ and Fortran, through one loop-nest IR.

    translate(kernel, language, flagset) -> Translation
    lint(kernel) -> list[Diagnostic]

A hand-written file beside the kernel with the canonical name (<kernel>_c.c,
<kernel>_cpp.cpp, <kernel>_fortran.f90) replaces the generated source and is reported as
hand-written. Generated code is a build artifact, never committed.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from hpcab.errors import HpcabError
from hpcab.kernel import Kernel

LANGUAGES = ("c", "cpp", "fortran")
OVERRIDE_SUFFIX = {"c": "_c.c", "cpp": "_cpp.cpp", "fortran": "_fortran.f90"}


@attrs.frozen
class Diagnostic:
    path: str
    line: int
    message: str
    hint: str = ""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" + (f" (hint: {self.hint})" if self.hint else "")


class TranslateError(HpcabError):
    """The reference is outside the canonical subset; carries every diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


@attrs.frozen
class Translation:
    kernel_id: str
    language: str
    flagset: str
    source: str
    hand_written: bool
    origin: str          # the override's path, or "generated"


def override_path(kernel: Kernel, language: str) -> Path:
    return kernel.directory / f"{kernel.name}{OVERRIDE_SUFFIX[language]}"


def translate(kernel: Kernel, language: str = "c", flagset: str = "opt") -> Translation:
    if language not in LANGUAGES:
        raise HpcabError(f"translate: unknown language {language!r}; expected one of {', '.join(LANGUAGES)}")
    path = override_path(kernel, language)
    if path.is_file():
        return Translation(kernel.id, language, flagset, path.read_text(), True, str(path))
    from hpcab.translate.lower import lower
    function = lower(kernel)
    if language == "fortran":
        from hpcab.translate.emit_fortran import emit_fortran
        source = emit_fortran(function, kernel)
    else:
        from hpcab.translate.emit_c import emit_c
        source = emit_c(function, kernel, language=language, parallel=(flagset == "autopar"))
    return Translation(kernel.id, language, flagset, source, False, "generated")


def lint(kernel: Kernel) -> list[Diagnostic]:
    from hpcab.translate.lower import collect_diagnostics
    return collect_diagnostics(kernel)
