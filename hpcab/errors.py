"""Errors that carry where the bad input is: a file, and a field inside it."""

from __future__ import annotations

import difflib
from typing import Iterable


class HpcabError(Exception):
    """Base of every error hpcab raises on purpose (the CLI prints these without a traceback)."""


class InputError(HpcabError):
    """Bad input from a file or request: names the source, the field and what was expected."""

    def __init__(self, source: str, field: str, message: str):
        self.source = source
        self.field = field
        self.message = message
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {message}")


def closest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The choice closest to a mistyped word, or None when none is close."""
    choices = sorted({c for c in choices if c})
    close = difflib.get_close_matches(word, choices, n=1, cutoff=cutoff)
    if not close:    # case alone ('s' for 'S', 'GEMM' for 'gemm') is below difflib's cutoff on short words
        close = [c for c in choices if c.lower() == word.lower()][:1]
    return close[0] if close else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """'; did you mean X?' when a choice is close to a mistyped word, else ''. Appended to
    a one-line error, so a typo's fix is on the line that reports it."""
    close = closest(word, choices)
    return f"; did you mean {close}?" if close else ""
