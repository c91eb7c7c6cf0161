"""The judge's cases: public ones, which an agent is told, and hidden ones it is not.

Hidden cases are, per preset, the preset's sizes with a secret seed, plus one edge shape:
every size symbol drawn (secretly) among 1, a small odd number, a prime and a number that
is not a power of two, no larger than the preset, within the manifest's constraints. The
edge shape is checked for correctness only (it is too small to time meaningfully). Seeds
and draws are HMACs of the kernel under the judge's secret, so the repository alone does
not tell an agent a hidden input. The secret is per deployment: a file beside the judge
database, created (mode 600) on first start, unless --secret-file names another.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
from pathlib import Path

import numpy as np

from hpcab import expr
from hpcab.case import Case, make_inputs, preset_case, run_oracle
from hpcab.errors import InputError
from hpcab.kernel import Kernel

PUBLIC_SEED = 0
HIDDEN_PER_PRESET = 2       # the preset's sizes, and an edge shape
EDGE_DRAWS = 64             # attempts at an edge shape that meets the constraints


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


def _mac(secret: bytes, *parts: str) -> bytes:
    return hmac.new(secret, "\0".join(parts).encode(), hashlib.sha256).digest()


def hidden_cases(kernel: Kernel, presets: tuple[str, ...], secret: bytes) -> list[Case]:
    cases = []
    for p in presets:
        seed = int.from_bytes(_mac(secret, kernel.id, p, "0")[:8], "little") >> 1   # SQLite's signed 64 bits
        case = preset_case(kernel, p, seed=seed, visibility="hidden")
        cases.append(Case(case.kernel_id, case.sizes, seed, "hidden", f"hidden-{p}1"))
        sizes = edge_sizes(kernel, p, secret)
        if sizes is not None:
            seed = int.from_bytes(_mac(secret, kernel.id, p, "edge-seed")[:8], "little") >> 1
            cases.append(Case(kernel.id, sizes, seed, "hidden", f"hidden-{p}-edge", scored=False))
    return cases


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, int(n ** 0.5) + 1))


def _draw(rng: np.random.Generator, top: int) -> int:
    """1, a small odd number, a prime, or a number that is not a power of two, at most top."""
    kind = rng.integers(4)
    if kind == 0 or top < 3:
        return 1
    if kind == 1:
        return int(min(top, 2 * rng.integers(1, 17) + 1))
    low, high = max(2, top // 4), max(3, top // 2)
    start = int(rng.integers(low, high + 1))
    if kind == 2:
        n = start
        while n <= top and not _is_prime(n):
            n += 1
        return n if n <= top else 1
    return start + 1 if start & (start - 1) == 0 else start


@functools.lru_cache(maxsize=256)
def edge_sizes(kernel: Kernel, preset: str, secret: bytes) -> dict[str, int] | None:
    """A secret edge shape for the kernel no larger than the preset, meeting the manifest's
    constraints and accepted by the reference; None when no draw qualifies."""
    rng = np.random.default_rng(int.from_bytes(_mac(secret, kernel.id, preset, "edge")[:16], "little"))
    top = kernel.presets[preset]
    for _ in range(EDGE_DRAWS):
        sizes = {s: _draw(rng, top[s]) for s in kernel.sizes}
        if not all(expr.evaluate(c, sizes) for c in kernel.constraints):
            continue
        probe = Case(kernel.id, sizes, 0, "hidden", "edge")
        try:
            run_oracle(kernel, probe, make_inputs(kernel, probe))
        except Exception:   # the reference does not take this shape: draw again
            continue
        return sizes
    return None
