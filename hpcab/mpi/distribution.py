"""How a kernel's arrays are dealt out among R ranks (docs/mpi.md).

The manifest's `mpi:` block names the arrays that may be split, the axis of each and the
distributions allowed; the implementation declares which it uses, on a line of its source:

    // hpcab-distribution: A=block B=cyclic x=replicated C=block-cyclic:16

(any comment syntax: the judge reads the line as text, never loads the candidate to ask).
An array the line does not name gets the manifest's default; an array the manifest does not
split (and every returned value) is replicated. Along the split axis of extent n, rank r of
R owns the indices

    block           [first, first + count): the first n % R ranks one more than the rest
    cyclic          r, r + R, r + 2R, ...
    block-cyclic:b  the blocks of b indices k with k % R == r, in order
    replicated      all of them (every rank gets the whole array)

and its tile is the array with only those indices along the axis, in that order.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import attrs

from hpcab.errors import InputError

if TYPE_CHECKING:
    import numpy as np

DISTRIBUTIONS = ("block", "cyclic", "block-cyclic", "replicated")
DECLARATION = re.compile(r"hpcab-distribution:([^\n]*)")
MAX_BLOCK = 1 << 30


@attrs.frozen
class Split:
    """One array the manifest allows to split."""
    array: str
    axis: int
    allowed: tuple[str, ...] = DISTRIBUTIONS
    default: str = "block"


@attrs.frozen
class MpiSpec:
    """A kernel's `mpi:` block."""
    scaling: str
    ranks: int
    split: tuple[Split, ...]
    work_exponent: float = 1.0

    def split_of(self, array: str) -> Split | None:
        return next((s for s in self.split if s.array == array), None)


def mpi_spec(doc: dict) -> MpiSpec:
    return MpiSpec(doc["scaling"], int(doc["ranks"]),
                   tuple(Split(name, int(v["axis"]), tuple(v.get("distributions", DISTRIBUTIONS)),
                               v.get("default", "block")) for name, v in doc["split"].items()),
                   float(doc.get("work_exponent", 1.0)))


def check_spec(kernel, source: str) -> None:
    """The block's meaning, beyond the schema: each split array exists and has the axis, and
    its default is among its allowed distributions."""
    arrays = {a.name: a for a in kernel.arrays}
    for s in kernel.mpi.split:
        where = f"mpi.split.{s.array}"
        if s.array not in arrays:
            raise InputError(source, where, f"names no array of the kernel (arrays: {', '.join(arrays)})")
        if s.axis >= len(arrays[s.array].shape):
            raise InputError(source, f"{where}.axis", f"is {s.axis}, but {s.array} has "
                                                      f"{len(arrays[s.array].shape)} axis/axes")
        if s.default not in s.allowed:
            raise InputError(source, f"{where}.default", f"{s.default!r} is not among its distributions "
                                                         f"{list(s.allowed)}")


@attrs.frozen
class Layout:
    """One split array's distribution as the implementation declared it."""
    kind: str                 # block | cyclic | block-cyclic | replicated
    block: int = 1            # block-cyclic only

    def __str__(self) -> str:
        return f"{self.kind}:{self.block}" if self.kind == "block-cyclic" else self.kind

    def owned(self, n: int, ranks: int, rank: int) -> np.ndarray:
        """The indices along the split axis that `rank` of `ranks` owns, in tile order."""
        import numpy as np
        if self.kind == "replicated":
            return np.arange(n, dtype=np.int64)
        if self.kind == "block":
            q, extra = divmod(n, ranks)
            first = rank * q + min(rank, extra)
            return np.arange(first, first + q + (rank < extra), dtype=np.int64)
        if self.kind == "cyclic":
            return np.arange(rank, n, ranks, dtype=np.int64)
        idx = np.arange(n, dtype=np.int64)
        return idx[(idx // self.block) % ranks == rank]

    def first(self, n: int, ranks: int, rank: int) -> int:
        """The first global index the rank owns (its `<array>_first` argument): where it
        would start even when it owns none."""
        if self.kind == "replicated":
            return 0
        if self.kind == "block":
            q, extra = divmod(n, ranks)
            return rank * q + min(rank, extra)
        return rank * (self.block if self.kind == "block-cyclic" else 1)


def _parse_one(text: str, where: str) -> Layout:
    kind, _, block = text.partition(":")
    if kind not in DISTRIBUTIONS:
        raise InputError(where, "hpcab-distribution", f"{text!r}: expected one of {', '.join(DISTRIBUTIONS)} "
                                                     "(block-cyclic as block-cyclic:B)")
    if kind == "block-cyclic":
        if not block.isdigit() or not 1 <= int(block) <= MAX_BLOCK:
            raise InputError(where, "hpcab-distribution", f"{text!r}: block-cyclic needs its block size, "
                                                         "block-cyclic:B with B a positive integer")
        return Layout(kind, int(block))
    if block:
        raise InputError(where, "hpcab-distribution", f"{text!r}: only block-cyclic takes a block size")
    return Layout(kind)


def declared(spec: MpiSpec, text: str | dict[str, str] | None, where: str = "the candidate") -> dict[str, Layout]:
    """Every split array's layout: from the source's `hpcab-distribution:` line (text: the
    source) or a mapping given outright (array → distribution), else the manifest's default.
    A name the manifest does not split, or a distribution it does not allow, is an error."""
    given: dict[str, str] = {}
    if isinstance(text, dict):
        given = dict(text)
    elif text:
        lines = DECLARATION.findall(text)
        if len(lines) > 1:
            raise InputError(where, "hpcab-distribution", "declared more than once; one line names every array")
        for item in (lines[0].replace(",", " ").split() if lines else []):
            if item in ("*/", "-->"):
                break
            name, eq, value = item.partition("=")
            if not eq:
                raise InputError(where, "hpcab-distribution", f"{item!r}: expected ARRAY=DISTRIBUTION")
            given[name] = value
    out = {}
    for name, value in given.items():
        s = spec.split_of(name)
        if s is None:
            raise InputError(where, "hpcab-distribution", f"{name!r} is not split in this kernel's manifest "
                                                         f"(split: {', '.join(x.array for x in spec.split)})")
        layout = _parse_one(value, where)
        if layout.kind not in s.allowed:
            raise InputError(where, "hpcab-distribution", f"{name}={value}: the manifest allows "
                                                         f"{', '.join(s.allowed)} for {name}")
        out[name] = layout
    return {s.array: out.get(s.array, Layout(s.default) if s.default != "block-cyclic" else Layout(s.default, 1))
            for s in spec.split}
