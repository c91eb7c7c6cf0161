"""Integer index arithmetic for the IR: constant folding and affine normal form.

Index and extent expressions are built through add/sub/mul/neg here, so that e.g. the
extent of `k:k+1` is recognised as 1 (broadcasting) and emitted code stays readable.
"""

from __future__ import annotations

from hpcab.translate.ir import INT, Bin, Const, Expr, Un, Var


def _key(e: Expr) -> str:
    return repr(e)


def affine(e: Expr) -> tuple[dict[str, tuple[int, Expr]], int] | None:
    """e as (terms, constant) with terms {key: (coefficient, atom)}; None if not affine in int64."""
    if isinstance(e, Const) and isinstance(e.value, (int, bool)) and not isinstance(e.value, bool):
        return {}, int(e.value)
    if e.dtype != INT:
        return None
    if isinstance(e, Bin) and e.op in ("+", "-"):
        a, b = affine(e.a), affine(e.b)
        if a is None or b is None:
            return {_key(e): (1, e)}, 0
        sign = 1 if e.op == "+" else -1
        terms = dict(a[0])
        for k, (c, atom) in b[0].items():
            terms[k] = (terms.get(k, (0, atom))[0] + sign * c, atom)
        return {k: v for k, v in terms.items() if v[0] != 0}, a[1] + sign * b[1]
    if isinstance(e, Bin) and e.op == "*":
        a, b = affine(e.a), affine(e.b)
        if a is not None and b is not None:
            if not a[0]:
                a, b = b, a
            if not b[0]:
                return {k: (c * b[1], atom) for k, (c, atom) in a[0].items() if c * b[1]}, a[1] * b[1]
    if isinstance(e, Un) and e.op == "neg":
        a = affine(e.a)
        if a is not None:
            return {k: (-c, atom) for k, (c, atom) in a[0].items()}, -a[1]
    return {_key(e): (1, e)}, 0


def rebuild(terms: dict[str, tuple[int, Expr]], const: int) -> Expr:
    out: Expr | None = None
    for _, (c, atom) in sorted(terms.items(), key=lambda kv: kv[0]):
        term = atom if abs(c) == 1 else Bin("*", Const(abs(c), INT), atom, INT)
        if out is None:
            out = term if c > 0 else Un("neg", term, INT)
        else:
            out = Bin("+" if c > 0 else "-", out, term, INT)
    if out is None:
        return Const(const, INT)
    if const:
        out = Bin("+" if const > 0 else "-", out, Const(abs(const), INT), INT)
    return out


def simplify(e: Expr) -> Expr:
    a = affine(e)
    return e if a is None else rebuild(*a)


def const_value(e: Expr) -> int | None:
    a = affine(e)
    if a is not None and not a[0]:
        return a[1]
    return None


def add(a: Expr, b: Expr) -> Expr:
    return simplify(Bin("+", a, b, INT))


def sub(a: Expr, b: Expr) -> Expr:
    return simplify(Bin("-", a, b, INT))


def mul(a: Expr, b: Expr) -> Expr:
    return simplify(Bin("*", a, b, INT))


def num(v: int) -> Const:
    return Const(int(v), INT)


def var(name: str) -> Var:
    return Var(name, INT)


def product(extents) -> Expr:
    out: Expr = num(1)
    for e in extents:
        out = mul(out, e)
    return out


def same(a: Expr, b: Expr) -> bool:
    return simplify(a) == simplify(b)
