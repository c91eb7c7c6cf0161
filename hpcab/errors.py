"""Errors that carry where the bad input is: a file, and a field inside it."""

from __future__ import annotations


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
