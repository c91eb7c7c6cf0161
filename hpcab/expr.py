"""Safe evaluation of the small integer expressions manifests use for shapes and constraints."""

from __future__ import annotations

import ast
import operator

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
    ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
}
_FUNCS = {"min": min, "max": max}


class ExprError(ValueError):
    pass


def symbols(text: str | int) -> set[str]:
    if isinstance(text, int):
        return set()
    tree = _parse(text)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in _FUNCS}


def _parse(text: str) -> ast.Expression:
    try:
        return ast.parse(str(text), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"cannot parse {text!r}: {exc.msg}") from None


def evaluate(text: str | int, env: dict[str, int]) -> int:
    """Evaluate an integer (or boolean) expression over size symbols; nothing else is reachable."""
    if isinstance(text, int):
        return text

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, bool)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise ExprError(f"unknown symbol {node.id!r} in {text!r}")
            return env[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            return ~ev(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not ev(node.operand)
        if isinstance(node, ast.BoolOp):
            values = [ev(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.Compare):
            left = ev(node.left)
            for op, comp in zip(node.ops, node.comparators):
                right = ev(comp)
                if type(op) not in _CMPOPS or not _CMPOPS[type(op)](left, right):
                    return False
                left = right
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _FUNCS and not node.keywords):
            return _FUNCS[node.func.id](*(ev(a) for a in node.args))
        raise ExprError(f"unsupported construct {ast.dump(node)[:40]!r} in {text!r}")

    return ev(_parse(text))


def solved_for(text: str, names: set[str]) -> tuple[str, str, str] | None:
    """A constraint a sampler can meet by construction instead of by luck:
    ("equals", S, e) for `S == e` or `e == S` (S a size symbol: S := e), and
    ("multiple", S, e) for `S % e == 0` (S rounded to a multiple of e); else None."""
    body = _parse(text).body
    if not (isinstance(body, ast.Compare) and len(body.ops) == 1 and isinstance(body.ops[0], ast.Eq)):
        return None
    left, right = body.left, body.comparators[0]
    if isinstance(right, ast.Name) and right.id in names:
        return ("equals", right.id, ast.unparse(left))
    if isinstance(left, ast.Name) and left.id in names:
        return ("equals", left.id, ast.unparse(right))
    if (isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod) and isinstance(left.left, ast.Name)
            and left.left.id in names and isinstance(right, ast.Constant) and right.value == 0):
        return ("multiple", left.left.id, ast.unparse(left.right))
    return None
