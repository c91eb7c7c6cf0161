"""The judge's cases: public ones, which an agent is told, and hidden ones it is not.

A hidden case's seed is an HMAC of the kernel and preset under the judge's secret, so the
repository alone does not tell an agent a hidden input. The secret is per deployment: a
file beside the judge database, created (mode 600) on first start, unless --secret-file
names another.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from hpcab.case import Case, preset_case
from hpcab.errors import InputError
from hpcab.kernel import Kernel

PUBLIC_SEED = 0
HIDDEN_PER_PRESET = 1


def load_secret(path: Path) -> bytes:
    """The judge's secret, created on first use."""
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass      # another judge on this database made it first
        else:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
    text = path.read_text().strip()
    if len(text) < 32:
        raise InputError(str(path), "", "the judge secret must be at least 32 characters")
    return text.encode()


def public_cases(kernel: Kernel, presets: tuple[str, ...]) -> list[Case]:
    return [preset_case(kernel, p, seed=PUBLIC_SEED) for p in presets]


def hidden_cases(kernel: Kernel, presets: tuple[str, ...], secret: bytes) -> list[Case]:
    cases = []
    for p in presets:
        for i in range(HIDDEN_PER_PRESET):
            mac = hmac.new(secret, f"{kernel.id}\0{p}\0{i}".encode(), hashlib.sha256).digest()
            seed = int.from_bytes(mac[:8], "little") >> 1      # fits SQLite's signed 64-bit integer
            case = preset_case(kernel, p, seed=seed, visibility="hidden")
            cases.append(Case(case.kernel_id, case.sizes, seed, "hidden", f"hidden-{p}{i + 1}"))
    return cases
