"""What the translator says about a reference outside the canonical subset.

Its own home, below the package's face (hpcab.translate) and the stages that raise it
(lower, emit_fortran), so that neither has to import the other.
"""

from __future__ import annotations

import attrs

from hpcab.errors import HpcabError


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
