"""The translator's loop-nest IR: the single place where a kernel's semantics live.

Lowering (hpcab/translate/lower.py) turns a NumPy reference into a Function of these
nodes; emitters (emit_c.py, emit_fortran.py) only print them. Every expression carries
its dtype (a NumPy dtype name); indices and extents are int64 expressions; arrays are
row-major and indexed with one expression per dimension.
"""

from __future__ import annotations

from typing import Union

import attrs

INT = "int64"
BOOL = "bool"


# ---- expressions -------------------------------------------------------------------

@attrs.frozen
class Const:
    value: Union[int, float, complex, bool]
    dtype: str


@attrs.frozen
class Var:
    """A scalar: a parameter, size symbol, loop index or local."""
    name: str
    dtype: str


@attrs.frozen
class Load:
    array: str
    index: tuple["Expr", ...]
    dtype: str


@attrs.frozen
class Bin:
    """Arithmetic (+ - * / // % **), bitwise (& | ^ << >>), comparisons (< <= > >= == !=),
    logical (and or). Both operands already have the dtype the operation computes in,
    except comparisons and shifts (see lower.py)."""
    op: str
    a: "Expr"
    b: "Expr"
    dtype: str


@attrs.frozen
class Un:
    op: str          # neg | not | invert
    a: "Expr"
    dtype: str


@attrs.frozen
class Call:
    """A math function on operands of the result's dtype (abs of complex: real result).
    fn: exp log sqrt abs sin cos tan tanh sinh cosh asin acos atan atan2 hypot floor ceil maximum minimum real
    imag conj"""
    fn: str
    args: tuple["Expr", ...]
    dtype: str


@attrs.frozen
class Cast:
    a: "Expr"
    dtype: str


@attrs.frozen
class Select:
    cond: "Expr"
    a: "Expr"
    b: "Expr"
    dtype: str


Expr = Union[Const, Var, Load, Bin, Un, Call, Cast, Select]


# ---- statements --------------------------------------------------------------------

@attrs.frozen
class Assign:
    var: str
    value: Expr


@attrs.frozen
class Store:
    array: str
    index: tuple[Expr, ...]
    value: Expr


@attrs.frozen
class For:
    """for var in [lo, hi) step 1. parallel: iterations are independent (may be
    distributed over threads); work: an int64 expression estimating the nest's work,
    used to keep small loops serial."""
    var: str
    lo: Expr
    hi: Expr
    body: tuple["Stmt", ...]
    parallel: bool = False
    work: Expr | None = None


@attrs.frozen
class If:
    cond: Expr
    then: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...] = ()


@attrs.frozen
class Allocate:
    """(Re)allocate a temporary array with the given extents (its previous contents are gone)."""
    array: str
    shape: tuple[Expr, ...]


Stmt = Union[Assign, Store, For, If, Allocate]


# ---- declarations ------------------------------------------------------------------

@attrs.frozen
class ArrayDecl:
    name: str
    dtype: str
    shape: tuple[Expr, ...]     # for params: the manifest's; for temps: as last allocated
    kind: str                   # param | temp
    intent: str = "inout"       # for params: in | out | inout


@attrs.frozen
class Function:
    name: str
    params: tuple                       # hpcab.abi.Param, in ABI order
    arrays: dict[str, ArrayDecl]
    scalars: dict[str, str]             # locals and loop indices: name -> dtype
    body: tuple[Stmt, ...]
    source: str = ""                    # the reference file, for comments


def walk_exprs(e: Expr):
    yield e
    for child in attrs.astuple(e, recurse=False):
        if isinstance(child, tuple):
            for c in child:
                if isinstance(c, (Const, Var, Load, Bin, Un, Call, Cast, Select)):
                    yield from walk_exprs(c)
        elif isinstance(child, (Const, Var, Load, Bin, Un, Call, Cast, Select)):
            yield from walk_exprs(child)
