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
from hpcab.translate.diagnostics import Diagnostic, TranslateError
from hpcab.translate.emit_c import emit_c
from hpcab.translate.emit_fortran import emit_fortran
from hpcab.translate.lower import collect_diagnostics, lower

# Diagnostic and TranslateError live in hpcab.translate.diagnostics (which the stages import); re-exported here.
__all__ = ["LANGUAGES", "OVERRIDE_SUFFIX", "Diagnostic", "TranslateError", "Translation", "lint", "override_path",
           "translate"]

LANGUAGES = ("c", "cpp", "fortran")
OVERRIDE_SUFFIX = {"c": "_c.c", "cpp": "_cpp.cpp", "fortran": "_fortran.f90"}


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
    function = lower(kernel)
    if language == "fortran":
        source = emit_fortran(function, kernel)
    else:
        source = emit_c(function, kernel, language=language, parallel=(flagset == "autopar"))
    return Translation(kernel.id, language, flagset, source, False, "generated")


def lint(kernel: Kernel) -> list[Diagnostic]:
    return collect_diagnostics(kernel)
