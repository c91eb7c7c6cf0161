"""The judge's cases: public ones, which an agent is told, and hidden ones it is not.

Hidden cases are, per preset, a scored case at secret sizes with a secret seed, plus one
edge shape. The scored case's sizes are fuzzed: each size symbol drawn log-uniformly between
the preset below and the preset itself (the M case between S and M, the L case between M and
L, the S case between S and as far below S as M is above it; a symbol equal in both, between
half its value and its value), inside the manifest's `ranges` and meeting its constraints.
So a candidate specialised to the public sizes is timed, and checked, on sizes it was never
shown, and no hidden case costs more to grade than its preset. The edge shape draws every size symbol (secretly)
among 1, a small odd number, a prime and a number that is not a power of two, no larger
than the preset, within the ranges and constraints; it is checked for correctness only (it
is too small to time meaningfully). Seeds and draws are HMACs of the kernel under the
judge's secret, so the repository alone does not tell an agent a hidden input. The secret is per deployment: a file beside the judge
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
FUZZ_DRAWS = 64             # attempts at fuzzed sizes that meet them
BELOW = {"M": "S", "L": "M"}     # the preset below each; S's is S mirrored below it (S * S / M)


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
        sizes = fuzzed_sizes(kernel, p, secret) or preset_case(kernel, p).sizes
        cases.append(Case(kernel.id, sizes, seed, "hidden", f"hidden-{p}1"))
        sizes = edge_sizes(kernel, p, secret)
        if sizes is not None:
            seed = int.from_bytes(_mac(secret, kernel.id, p, "edge-seed")[:8], "little") >> 1
            cases.append(Case(kernel.id, sizes, seed, "hidden", f"hidden-{p}-edge", scored=False))
    return cases


def _rng(secret: bytes, *parts: str) -> np.random.Generator:
    return np.random.default_rng(int.from_bytes(_mac(secret, *parts)[:16], "little"))


def _within(kernel: Kernel, sizes: dict[str, int]) -> bool:
    """The sizes lie inside the manifest's ranges and meet its constraints."""
    if any(not kernel.ranges[s][0] <= v <= kernel.ranges[s][1] for s, v in sizes.items()):
        return False
    try:
        return all(expr.evaluate(c, sizes) for c in kernel.constraints)
    except (expr.ExprError, ArithmeticError):
        return False


def _construct(kernel: Kernel, sizes: dict[str, int]) -> dict[str, int]:
    """Meet by construction the constraints a sampler need not leave to luck: a symbol equal
    to an expression of others is set to it, a symbol that must be a multiple of one is
    rounded to the nearest (twice over, for constraints that chain)."""
    sizes = dict(sizes)
    forms = [f for f in (expr.solved_for(c, set(kernel.sizes)) for c in kernel.constraints) if f]
    for _ in range(2):
        for kind, sym, other in forms:
            try:
                value = expr.evaluate(other, sizes)
            except (expr.ExprError, ArithmeticError):
                continue
            if kind == "equals":
                sizes[sym] = int(value)
            elif value > 0:
                sizes[sym] = max(int(value), int(round(sizes[sym] / value)) * int(value))
    return sizes


@functools.lru_cache(maxsize=256)
def fuzzed_sizes(kernel: Kernel, preset: str, secret: bytes) -> dict[str, int] | None:
    """The secret sizes of the preset's scored hidden case (see the module's docstring); None
    when no draw meets the ranges and constraints, or every draw is the preset itself."""
    rng = _rng(secret, kernel.id, preset, "fuzz")
    top = kernel.presets[preset]
    bounds = {}
    for s in kernel.sizes:
        if preset in BELOW:
            low = kernel.presets[BELOW[preset]][s]
        else:
            low = top[s] * top[s] // max(kernel.presets["M"][s], 1)
        a, b = min(low, top[s]), top[s]
        if a == b:
            a = b // 2
        r_low, r_high = kernel.ranges[s]
        bounds[s] = (max(a, r_low, 1), min(b, r_high))
    for _ in range(FUZZ_DRAWS):
        sizes = {}
        for s, (a, b) in bounds.items():
            u = rng.uniform(np.log(a), np.log(b)) if b > a else np.log(max(a, b))
            sizes[s] = int(min(max(round(float(np.exp(u))), min(a, b)), max(a, b)))
        sizes = _construct(kernel, sizes)
        if _within(kernel, sizes) and sizes not in kernel.presets.values():
            return sizes
    return None


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
    rng = _rng(secret, kernel.id, preset, "edge")
    top = kernel.presets[preset]
    for _ in range(EDGE_DRAWS):
        sizes = {s: _draw(rng, top[s]) for s in kernel.sizes}
        if not _within(kernel, sizes):
            continue
        probe = Case(kernel.id, sizes, 0, "hidden", "edge")
        try:
            run_oracle(kernel, probe, make_inputs(kernel, probe))
        except Exception:   # the reference does not take this shape: draw again
            continue
        return sizes
    return None
