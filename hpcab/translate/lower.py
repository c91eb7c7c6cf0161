"""Lowering: a NumPy reference (canonical form) → the loop-nest IR.

Array expressions are scalarised: every array-valued expression is a Value with a shape
and a function from an index tuple to a scalar IR expression. Broadcasting, slicing,
transposes, reshape views and gathers are all compositions of these functions. What
cannot be scalarised in place (matmul, reductions) is hoisted: computed by its own loop
nest into a temporary before the statement that uses it, which is also NumPy's order of
evaluation. A store whose right-hand side reads the stored array at another index goes
through a temporary, as NumPy's evaluate-then-assign semantics require.

Anything outside docs/canonical_numpy_form.md raises Unsupported with file:line and a
rewrite hint; nothing is guessed.
"""

from __future__ import annotations

import ast
import itertools
from typing import Callable

import attrs
import numpy as np

from hpcab.abi import params
from hpcab.kernel import Kernel
from hpcab.translate import simplify as S
from hpcab.translate.diagnostics import Diagnostic, TranslateError
from hpcab.translate.ir import (BOOL, INT, Allocate, ArrayDecl, Assign, Bin, Call, Cast, Const, Expr, For, Function,
                                If, Load, Select, Store, Un, Var, walk_exprs)

FLOATS = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
DTYPE_NAMES = {"float32", "float64", "complex64", "complex128", "int8", "int16", "int32", "int64",
               "uint8", "uint16", "uint32", "uint64", "bool"}
UNARY_MATH = {"exp", "log", "sqrt", "abs", "sin", "cos", "tan", "tanh", "sinh", "cosh", "floor", "ceil", "conj",
              "absolute", "fabs", "conjugate", "arcsin", "arccos", "arctan", "asin", "acos", "atan"}
BINARY_MATH = {"arctan2", "atan2", "hypot"}      # real floats only, like C's and Fortran's
ALIASES = {"absolute": "abs", "fabs": "abs", "conjugate": "conj",
           "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2"}
REDUCTIONS = {"sum", "max", "min", "prod", "amax", "amin", "argmax", "argmin"}
RESERVED = {  # C and Fortran words a local may not take
    "int", "double", "float", "char", "long", "short", "void", "if", "else", "for", "while", "do", "return",
    "case", "switch", "break", "continue", "goto", "static", "const", "restrict", "auto", "register",
    "struct", "union", "enum", "typedef", "sizeof", "volatile", "extern", "signed", "unsigned", "default",
    "end", "then", "program", "subroutine", "function", "module", "real", "integer", "complex", "logical",
    "allocate", "deallocate", "call", "stop", "exit", "cycle", "where", "result", "bool", "inline",
    # Fortran intrinsics the emitter calls: a local of that name would shadow them
    "exp", "log", "sqrt", "abs", "sin", "cos", "tan", "tanh", "floor", "ceiling", "conjg", "aimag", "merge",
    "sinh", "cosh", "asin", "acos", "atan", "atan2", "hypot",
    "modulo", "iand", "ior", "ieor", "shiftl", "shifta", "not", "cmplx", "max", "min", "allocated", "huge",
    "ieee_value", "free", "malloc",
}


class Unsupported(Exception):
    def __init__(self, node: ast.AST | None, message: str, hint: str = "", cascade: bool = False):
        super().__init__(message)
        self.node, self.message, self.hint = node, message, hint
        self.cascade = cascade   # a consequence of an error already reported: not shown


# ---- types -------------------------------------------------------------------------

@attrs.frozen
class Ty:
    dtype: str
    weak: bool = False     # a Python literal, size symbol or loop index (NumPy 2's "weak" scalars)


_WEAK_STANDIN = {"bool": True, "int64": 1, "float64": 1.0, "complex128": 1j}
_KIND_ORDER = ["bool", "int64", "float64", "complex128"]


def promote(a: Ty, b: Ty) -> Ty:
    """NumPy 2 promotion, with Python scalars weak."""
    if a.weak and b.weak:
        return Ty(max(a.dtype, b.dtype, key=_KIND_ORDER.index), True)
    if a.weak:
        a, b = b, a
    if b.weak:
        return Ty(np.result_type(np.dtype(a.dtype), _WEAK_STANDIN[b.dtype]).name)
    return Ty(np.result_type(a.dtype, b.dtype).name)


def kind(dtype: str) -> str:
    return np.dtype(dtype).kind   # b i u f c


# ---- values ------------------------------------------------------------------------

@attrs.frozen
class Value:
    """An array-valued (shape non-empty) or scalar (shape ()) expression."""
    shape: tuple[Expr, ...]
    ty: Ty
    at: Callable[[tuple[Expr, ...]], Expr]
    array: str | None = None                               # the storage it reads, when it is a view
    index_of: Callable[[tuple[Expr, ...]], tuple[Expr, ...]] | None = None   # view index → storage index
    transposed: bool = False
    gathered: bool = False

    @property
    def scalar(self) -> bool:
        return not self.shape

    def expr(self) -> Expr:
        return self.at(())


def scalar(e: Expr, weak: bool = False) -> Value:
    return Value((), Ty(e.dtype, weak), lambda idx, e=e: e)


def cast(e: Expr, dtype: str) -> Expr:
    if e.dtype == dtype:
        return e
    if isinstance(e, Const):
        k = kind(dtype)
        v = e.value
        if k == "b":
            return Const(bool(v), dtype)
        if k in "iu" and not isinstance(v, complex):
            return Const(int(v), dtype)
        if k == "f" and not isinstance(v, complex):
            return Const(float(v), dtype)
        if k == "c":
            return Const(complex(v), dtype)
    return Cast(e, dtype)


def broadcast_shape(node, a: tuple[Expr, ...], b: tuple[Expr, ...]) -> tuple[Expr, ...]:
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else None
        db = b[-i] if i <= len(b) else None
        if da is None or S.const_value(da) == 1:
            out.append(db if db is not None else da)
        elif db is None or S.const_value(db) == 1:
            out.append(da)
        else:
            ca, cb = S.const_value(da), S.const_value(db)
            if ca is not None and cb is not None and ca != cb:
                raise Unsupported(node, f"shapes do not broadcast ({ca} vs {cb})")
            out.append(da)
    return tuple(reversed(out))


def strided_extent(lo: Expr, hi: Expr, step: int) -> Expr:
    """len(range(lo, hi, step)) for a positive step, as an index expression (ceil((hi - lo) / step);
    a negative value where hi < lo, which a loop runs zero times)."""
    span = S.sub(hi, lo)
    if step == 1:
        return span
    c = S.const_value(span)
    if c is not None:
        return S.num(max(0, -(-c // step)))
    return Bin("//", S.add(span, S.num(step - 1)), S.num(step), INT)


def broadcast_to(v: Value, shape: tuple[Expr, ...]) -> Callable[[tuple[Expr, ...]], Expr]:
    """v's element for an index into the (larger) broadcast shape."""
    n = len(v.shape)
    if n == 0:
        return lambda idx: v.at(())
    ones = [S.const_value(d) == 1 for d in v.shape]

    def at(idx):
        mine = idx[len(idx) - n:]
        return v.at(tuple(S.num(0) if one else i for one, i in zip(ones, mine)))
    return at


# ---- the lowerer -------------------------------------------------------------------

class Lowerer:
    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.path = str(kernel.reference_path)
        self.arrays: dict[str, ArrayDecl] = {}
        self.views: dict[str, Value] = {}
        self.scalars: dict[str, Ty] = {}          # locals and loop indices
        self.param_scalars: dict[str, Ty] = {}
        self.locals: dict[str, str] = {}          # every scalar the function declares
        self.loop_vars: set[str] = set()
        self.counter = itertools.count()
        self.blocks: list[list] = [[]]
        self.failed: set[str] = set()             # names whose definition was reported as unsupported
        for a in kernel.arrays:
            shape = tuple(self.size_expr(d) for d in a.shape)
            self.arrays[a.name] = ArrayDecl(a.name, a.dtype, shape, "param", a.intent)
        for r in kernel.returns:
            shape = tuple(self.size_expr(d) for d in (r.shape or (1,)))
            self.arrays[r.name] = ArrayDecl(r.name, r.dtype, shape, "param", "out")
        for s in kernel.scalars:
            self.param_scalars[s.name] = Ty(s.dtype)
        for s in kernel.sizes:
            self.param_scalars[s] = Ty(INT, weak=True)

    # -- helpers --
    def size_expr(self, text) -> Expr:
        if isinstance(text, int):
            return S.num(text)
        return self._int_expr(ast.parse(str(text), mode="eval").body)

    def _int_expr(self, node) -> Expr:
        if isinstance(node, ast.Constant):
            return S.num(node.value)
        if isinstance(node, ast.Name):
            return S.var(node.id)
        if isinstance(node, ast.BinOp):
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
                  ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
                  ast.BitXor: "^"}[type(node.op)]
            return S.simplify(Bin(op, self._int_expr(node.left), self._int_expr(node.right), INT))
        raise Unsupported(node, "unsupported shape expression")

    def fresh(self, stem: str) -> str:
        return f"hp_{stem}{next(self.counter)}"

    def emit(self, stmt) -> None:
        self.blocks[-1].append(stmt)

    def declare_local(self, name: str, dtype: str, node=None) -> None:
        if name in self.locals and self.locals[name] != dtype:
            raise Unsupported(node, f"local {name!r} changes type from {self.locals[name]} to {dtype}",
                              "use a new name, or cast with np.<dtype>(...) so the type stays the same")
        self.locals[name] = dtype

    def check_name(self, node, name: str) -> None:
        lower = name.lower()
        if lower in RESERVED:
            raise Unsupported(node, f"the name {name!r} is a C or Fortran keyword", "rename it")
        taken = {n.lower(): n for n in [*self.arrays, *self.param_scalars, *self.locals, *self.views]}
        if lower in taken and taken[lower] != name:
            raise Unsupported(node, f"{name!r} and {taken[lower]!r} differ only in case",
                              "rename one: Fortran does not tell them apart")

    def loop(self, extents: tuple[Expr, ...], body: Callable[[tuple[Expr, ...]], list], parallel: bool = True,
             inner_work: Expr | None = None) -> None:
        """A perfect nest over extents (outermost first); the outermost loop may run in parallel.
        inner_work: the iterations of the body's own loops (matmul, reductions), for the
        work estimate that keeps small nests serial."""
        names = [self.fresh("i") for _ in extents]
        for n in names:
            self.locals[n] = INT
        idx = tuple(S.var(n) for n in names)
        stmts = body(idx)
        work = S.product(extents)
        if inner_work is not None:
            work = S.mul(work, inner_work)
        for depth in reversed(range(len(extents))):
            stmts = [For(names[depth], S.num(0), extents[depth], tuple(stmts),
                         parallel=parallel and depth == 0, work=work if depth == 0 else None)]
        for s in stmts:
            self.emit(s)

    # -- entry --
    def lower(self, fn: ast.FunctionDef) -> Function:
        body = list(fn.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]   # docstring
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.Return) and i != len(body) - 1:
                raise Unsupported(stmt, "return before the end of the function", "return once, at the end")
        self.block(body)
        return Function(self.kernel.name, params(self.kernel), dict(self.arrays), dict(self.locals),
                        tuple(self.blocks[0]), self.path)

    def block(self, stmts: list[ast.stmt]) -> None:
        errors = []
        for stmt in stmts:
            try:
                self.statement(stmt)
            except Unsupported as exc:
                if exc.node is None:
                    exc.node = stmt
                if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                    self.failed.add(stmt.targets[0].id)   # later uses would only repeat this error
                if not exc.cascade:
                    errors.append(exc)
            except MultipleUnsupported as exc:
                errors.extend(exc.errors)
        if errors:
            raise MultipleUnsupported(errors)

    def nested(self, stmts: list[ast.stmt]) -> tuple:
        self.blocks.append([])
        try:
            self.block(stmts)
        finally:
            out = self.blocks.pop()
        return tuple(out)

    # -- statements --
    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Pass):
            return
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1 or isinstance(node.targets[0], ast.Tuple):
                raise Unsupported(node, "multiple or tuple assignment", "assign one name per statement")
            return self.assign(node, node.targets[0], node.value)
        if isinstance(node, ast.AugAssign):
            op = ast.BinOp(left=_load_copy(node.target), op=node.op, right=node.value)
            ast.copy_location(op, node)
            return self.assign(node, node.target, op)
        if isinstance(node, ast.AnnAssign):
            raise Unsupported(node, "annotated assignment", "drop the annotation")
        if isinstance(node, ast.For):
            return self.for_loop(node)
        if isinstance(node, ast.If):
            cond = self.value(node.test)
            if not cond.scalar:
                raise Unsupported(node.test, "an if condition must be a scalar", "use np.where for arrays")
            then = self.nested(node.body)
            orelse = self.nested(node.orelse)
            return self.emit(If(cast(cond.expr(), BOOL), then, orelse))
        if isinstance(node, ast.Return):
            return self.return_(node)
        if isinstance(node, ast.While):
            raise Unsupported(node, "while loops are outside the subset", "use for ... in range(...) with a fixed trip count")
        if isinstance(node, (ast.Break, ast.Continue)):
            raise Unsupported(node, f"{type(node).__name__.lower()} is outside the subset",
                              "restructure the loop with if statements")
        if isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            raise Unsupported(node, "nested functions and classes are outside the subset", "inline the code")
        if isinstance(node, (ast.Try, ast.Raise, ast.With, ast.Assert)):
            raise Unsupported(node, f"{type(node).__name__} is outside the subset", "remove it")
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            raise Unsupported(node, "a call whose result is discarded (in-place methods, print, ...)",
                              "assign results into an output with slice assignment")
        raise Unsupported(node, f"{type(node).__name__} statement is outside the subset")

    def for_loop(self, node: ast.For) -> None:
        if not isinstance(node.target, ast.Name):
            raise Unsupported(node, "the loop variable must be a single name")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and not it.keywords and 1 <= len(it.args) <= 3):
            raise Unsupported(it, "for loops must iterate over range(...)",
                              "iterate over indices: for i in range(n)")
        if node.orelse:
            raise Unsupported(node, "for ... else is outside the subset")
        bounds = [self.value(a) for a in it.args]
        for b, a in zip(bounds, it.args):
            if not b.scalar or kind(b.ty.dtype) not in "iu":
                raise Unsupported(a, "range bounds must be integer scalars")
        step = 1
        if len(bounds) == 3:
            step = S.const_value(cast(bounds[2].expr(), INT))
            if step is None or step < 1:
                raise Unsupported(it, "range with a step that is not a positive integer constant",
                                  "loop with step 1 and compute the index")
        lo = cast(bounds[0].expr(), INT) if len(bounds) > 1 else S.num(0)
        hi = cast(bounds[-1 if len(bounds) < 3 else 1].expr(), INT)
        if len(bounds) == 1:
            hi = cast(bounds[0].expr(), INT)
        name = node.target.id
        self.check_name(node, name)
        if name in self.arrays or name in self.param_scalars or name in self.views:
            raise Unsupported(node, f"the loop variable {name!r} shadows an array or parameter")
        for inner in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if isinstance(inner, (ast.Assign, ast.AugAssign)):
                targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    raise Unsupported(inner, f"the loop variable {name!r} is assigned in its loop",
                                      "use another name for the computed value")
        self.declare_local(name, INT, node)
        self.scalars[name] = Ty(INT, weak=True)
        self.loop_vars.add(name)
        body = self.nested(node.body)
        if step == 1:
            self.emit(For(name, lo, hi, body, parallel=False))
            return
        # range(lo, hi, step): a unit-step counter over its length, the variable computed from it
        counter = self.fresh("t")
        self.declare_local(counter, INT, node)
        self.emit(For(counter, S.num(0), strided_extent(lo, hi, step),
                      [Assign(name, S.add(lo, S.mul(S.num(step), S.var(counter)))), *body], parallel=False))

    def return_(self, node: ast.Return) -> None:
        returns = self.kernel.returns
        if node.value is None:
            if returns:
                raise Unsupported(node, "the manifest declares returned values but the function returns nothing")
            return
        values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        if len(values) != len(returns):
            raise Unsupported(node, f"returns {len(values)} value(s); the manifest declares {len(returns)}")
        for r, vnode in zip(returns, values):
            v = self.value(vnode)
            decl = self.arrays[r.name]
            if v.scalar:
                self.emit(Store(r.name, (S.num(0),) * len(decl.shape), cast(v.expr(), decl.dtype)))
            else:
                self.store_into(vnode, self.array_value(r.name), v)

    def assign(self, node, target, value_node) -> None:
        if isinstance(target, ast.Name):
            name = target.id
            if name in self.arrays or name in self.views:
                if self.arrays.get(name, None) is not None and self.arrays[name].kind == "param":
                    raise Unsupported(node, f"rebinding the parameter {name!r}",
                                      f"write into it with slice assignment: {name}[...] = ...")
            if name in self.param_scalars:
                raise Unsupported(node, f"rebinding the parameter {name!r}", "use a new local name")
            if name in self.loop_vars:
                raise Unsupported(node, f"assigning the loop variable {name!r}", "use a new local name")
            if _is_np_call(value_node, ("empty", "zeros")):
                return self.declare_temp(node, name, value_node)
            if (isinstance(value_node, ast.Call) and isinstance(value_node.func, ast.Attribute)
                    and value_node.func.attr == "reshape"):
                return self.declare_view(node, name, value_node)
            if name in self.arrays or name in self.views:
                raise Unsupported(node, f"rebinding the array {name!r}",
                                  f"write into it with slice assignment: {name}[...] = ...")
            v = self.value(value_node)
            if not v.scalar:
                raise Unsupported(node, f"binding an array expression to the name {name!r}",
                                  f"declare it first: {name} = np.empty(shape, dtype=...), then {name}[...] = ...")
            self.check_name(node, name)
            dtype = v.ty.dtype
            if name in self.locals:
                dtype = self.locals[name]
                old = self.scalars[name]
                if kind(dtype) != kind(v.ty.dtype) and not (kind(dtype) in "iu" and kind(v.ty.dtype) in "iu"):
                    raise Unsupported(node, f"local {name!r} changes type from {dtype} to {v.ty.dtype}",
                                      "use a new name, or cast explicitly")
                self.scalars[name] = Ty(dtype, old.weak and v.ty.weak)
            else:
                self.declare_local(name, dtype, node)
                self.scalars[name] = v.ty
            return self.emit(Assign(name, cast(v.expr(), dtype)))
        if isinstance(target, ast.Subscript):
            dest = self.value(target)
            if dest.array is None or dest.index_of is None or dest.gathered:
                raise Unsupported(target, "this subscript cannot be assigned to",
                                  "assign into a slice or element of a declared array")
            if self.arrays.get(dest.array) and self.arrays[dest.array].intent == "in":
                raise Unsupported(target, f"writing into {dest.array!r}, a read-only input")
            v = self.value(value_node)
            return self.store_into(node, dest, v)
        raise Unsupported(node, "only names and subscripts can be assigned")

    def declare_temp(self, node, name: str, call: ast.Call) -> None:
        self.check_name(node, name)
        if len(call.args) != 1:
            raise Unsupported(call, "np.empty/np.zeros take exactly one shape argument")
        dtype = self.dtype_keyword(call)
        shape_node = call.args[0]
        shape = self.extents(shape_node.elts if isinstance(shape_node, ast.Tuple) else [shape_node], "array")
        old = self.arrays.get(name)
        if old is not None and (old.kind != "temp" or old.dtype != dtype or len(old.shape) != len(shape)
                                or any(not S.same(a, b) for a, b in zip(old.shape, shape))):
            raise Unsupported(node, f"the temporary {name!r} is declared again with another dtype or shape",
                              "use a new name")
        self.arrays[name] = ArrayDecl(name, dtype, shape, "temp")
        self.emit(Allocate(name, shape))
        if _is_np_call(call, ("zeros",)):
            self.loop(shape, lambda idx: [Store(name, idx, cast(Const(0, INT), dtype))])

    def extents(self, dims: list, what: str) -> tuple[Expr, ...]:
        shape = []
        for d in dims:
            v = self.value(d)
            if not v.scalar or kind(v.ty.dtype) not in "iu":
                raise Unsupported(d, f"{what} extents must be integer scalars")
            shape.append(S.simplify(cast(v.expr(), INT)))
        return tuple(shape)

    def declare_view(self, node, name: str, call: ast.Call) -> None:
        self.check_name(node, name)
        base = self.value(call.func.value)
        if base.array is None or len(base.shape) != 1 or base.gathered or base.transposed:
            raise Unsupported(call, "reshape is supported on 1-D arrays (or contiguous 1-D slices) only",
                              "index the multi-dimensional array directly")
        dims = call.args[0].elts if len(call.args) == 1 and isinstance(call.args[0], ast.Tuple) else call.args
        shape = self.extents(dims, "reshape")
        strides = [S.product(shape[i + 1:]) for i in range(len(shape))]

        def index_of(idx, base=base, strides=strides):
            lin = S.num(0)
            for i, st in zip(idx, strides):
                lin = S.add(lin, S.mul(i, st))
            return base.index_of((lin,))
        arr = base.array
        dtype = base.ty.dtype
        self.views[name] = Value(shape, Ty(dtype), lambda idx: Load(arr, index_of(idx), dtype), arr, index_of)

    def dtype_keyword(self, call: ast.Call) -> str:
        for kw in call.keywords:
            if kw.arg == "dtype":
                return self.dtype_of(kw.value)
        raise Unsupported(call, "temporaries need an explicit dtype", "np.empty(shape, dtype=np.float64)")

    def dtype_of(self, node) -> str:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "np" \
                and node.attr in DTYPE_NAMES:
            return node.attr
        if isinstance(node, ast.Constant) and node.value in DTYPE_NAMES:
            return node.value
        if isinstance(node, ast.Name) and node.id in ("float", "int", "complex", "bool"):
            return {"float": "float64", "int": "int64", "complex": "complex128", "bool": "bool"}[node.id]
        raise Unsupported(node, "dtype must be written as np.<name> (e.g. np.float32)")

    # -- stores --
    def store_into(self, node, dest: Value, v: Value) -> None:
        arr = dest.array
        dtype = self.arrays[arr].dtype
        if not v.scalar:
            broadcast_shape(node, dest.shape, v.shape)
            if len(v.shape) > len(dest.shape):
                raise Unsupported(node, "the value has more dimensions than the destination")
        if not dest.shape:
            return self.emit(Store(arr, dest.index_of(()), cast(v.expr(), dtype)))
        at = broadcast_to(v, dest.shape)
        probe = tuple(S.var(f"hp_probe{d}") for d in range(len(dest.shape)))
        target_index = dest.index_of(probe)
        reads_other = any(isinstance(e, Load) and e.array == arr
                          and not all(S.same(a, b) for a, b in zip(e.index, target_index))
                          for e in walk_exprs(at(probe)))
        if reads_other:
            # NumPy computes the whole right-hand side before assigning: keep that order.
            tmp = self.fresh("t")
            self.arrays[tmp] = ArrayDecl(tmp, v.ty.dtype if not v.scalar else dtype, dest.shape, "temp")
            self.emit(Allocate(tmp, dest.shape))
            self.loop(dest.shape, lambda idx: [Store(tmp, idx, cast(at(idx), self.arrays[tmp].dtype))])
            tdt = self.arrays[tmp].dtype
            at = lambda idx, tmp=tmp, tdt=tdt: Load(tmp, idx, tdt) 
        self.loop(dest.shape, lambda idx: [Store(arr, dest.index_of(idx), cast(at(idx), dtype))])

    # -- expressions --
    def array_value(self, name: str) -> Value:
        if name in self.views:
            return self.views[name]
        decl = self.arrays[name]
        return Value(decl.shape, Ty(decl.dtype), lambda idx: Load(name, tuple(idx), decl.dtype), name,
                     lambda idx: tuple(idx))

    def value(self, node) -> Value:
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                return scalar(Const(v, BOOL), weak=True)
            if isinstance(v, int):
                return scalar(Const(v, INT), weak=True)
            if isinstance(v, float):
                return scalar(Const(v, "float64"), weak=True)
            if isinstance(v, complex):
                return scalar(Const(v, "complex128"), weak=True)
            raise Unsupported(node, f"the constant {v!r} is outside the subset")
        if isinstance(node, ast.Name):
            n = node.id
            if n in self.arrays or n in self.views:
                return self.array_value(n)
            if n in self.param_scalars:
                t = self.param_scalars[n]
                return scalar(Var(n, t.dtype), weak=t.weak)
            if n in self.scalars:
                t = self.scalars[n]
                return scalar(Var(n, self.locals[n]), weak=t.weak)
            if n in self.failed:
                raise Unsupported(node, f"{n!r} could not be defined", cascade=True)
            raise Unsupported(node, f"unknown name {n!r}", "only parameters, size symbols and locals assigned "
                                                           "earlier are visible")
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.UnaryOp):
            return self.unaryop(node)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.BoolOp):
            vals = [self.value(v) for v in node.values]
            if not all(v.scalar for v in vals):
                raise Unsupported(node, "and/or on arrays", "use & and | on boolean arrays")
            op = "and" if isinstance(node.op, ast.And) else "or"
            out = cast(vals[0].expr(), BOOL)
            for v in vals[1:]:
                out = Bin(op, out, cast(v.expr(), BOOL), BOOL)
            return scalar(out)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.IfExp):
            raise Unsupported(node, "conditional expressions (a if c else b)", "use np.where(c, a, b) or an if statement")
        if isinstance(node, (ast.List, ast.ListComp, ast.Dict, ast.Set, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            raise Unsupported(node, f"{type(node).__name__} is outside the subset",
                              "use declared arrays (np.empty) and loops")
        raise Unsupported(node, f"{type(node).__name__} expression is outside the subset")

    def attribute(self, node: ast.Attribute) -> Value:
        if isinstance(node.value, ast.Name) and node.value.id == "np":
            if node.attr == "pi":
                return scalar(Const(float(np.pi), "float64"), weak=True)
            if node.attr == "e":
                return scalar(Const(float(np.e), "float64"), weak=True)
            raise Unsupported(node, f"np.{node.attr} used as a value")
        base = self.value(node.value)
        if node.attr == "T":
            if len(base.shape) != 2:
                raise Unsupported(node, ".T is supported on 2-D arrays only")
            idx_of = base.index_of
            return Value((base.shape[1], base.shape[0]), base.ty, lambda idx: base.at((idx[1], idx[0])), base.array,
                         (lambda idx: idx_of((idx[1], idx[0]))) if idx_of else None, not base.transposed, base.gathered)
        if node.attr in ("real", "imag"):
            if kind(base.ty.dtype) != "c":
                raise Unsupported(node, f".{node.attr} of a non-complex value")
            out = "float32" if base.ty.dtype == "complex64" else "float64"
            return Value(base.shape, Ty(out), lambda idx: Call(node.attr, (base.at(idx),), out))
        if node.attr == "shape":
            raise Unsupported(node, ".shape is outside the subset", "use the size symbols")
        raise Unsupported(node, f"the attribute .{node.attr} is outside the subset")

    def subscript(self, node: ast.Subscript) -> Value:
        base = self.value(node.value)
        if base.scalar:
            raise Unsupported(node, "indexing a scalar")
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(items) > len(base.shape):
            raise Unsupported(node, f"{len(items)} indices for a {len(base.shape)}-D array")
        items = list(items) + [ast.Slice(None, None, None)] * (len(base.shape) - len(items))
        # Single 1-D index array on a 1-D base: a gather.
        if len(items) == 1 and not isinstance(items[0], ast.Slice):
            iv = self.value(items[0])
            if not iv.scalar and kind(iv.ty.dtype) == "b":
                raise Unsupported(node, "boolean-mask indexing (its shape depends on the data)",
                                  "keep the shape static: y[:] = np.where(mask, a, y)")
            if not iv.scalar:
                if len(iv.shape) != 1 or kind(iv.ty.dtype) not in "iu":
                    raise Unsupported(node, "fancy indexing beyond one 1-D integer index array",
                                      "write a loop over the index array")
                return Value(iv.shape, base.ty, lambda idx: base.at((cast(iv.at(idx), INT),)), base.array,
                             None, gathered=True)
        fixed: list = []      # per base dim: ("int", expr) or ("slice", lo, extent)
        shape = []
        for d, it in enumerate(items):
            ext = base.shape[d]
            if isinstance(it, ast.Slice):
                step = 1
                if it.step is not None:
                    sv = self.value(it.step)
                    step = S.const_value(cast(sv.expr(), INT)) if sv.scalar and kind(sv.ty.dtype) in "iu" else None
                    if step is None or step < 1:
                        raise Unsupported(it, "a slice step that is not a positive integer constant",
                                          "loop over the indices instead")
                lo = self.bound(it.lower, ext, S.num(0))
                hi = self.bound(it.upper, ext, ext)
                fixed.append(("slice", lo, step))
                shape.append(strided_extent(lo, hi, step))
            else:
                iv = self.value(it)
                if not iv.scalar or kind(iv.ty.dtype) not in "iu":
                    raise Unsupported(it, "an index must be an integer scalar or a slice",
                                      "boolean masks and index arrays other than one 1-D gather are outside the subset")
                e = cast(iv.expr(), INT)
                c = S.const_value(e)
                if c is not None and c < 0:
                    e = S.add(ext, e)
                fixed.append(("int", e))

        def map_index(idx):
            out, k = [], 0
            for f in fixed:
                if f[0] == "int":
                    out.append(f[1])
                else:
                    out.append(S.add(f[1], S.mul(S.num(f[2]), idx[k])))
                    k += 1
            return tuple(out)
        idx_of = base.index_of
        return Value(tuple(shape), base.ty, lambda idx: base.at(map_index(idx)), base.array,
                     (lambda idx: idx_of(map_index(idx))) if idx_of else None, base.transposed, base.gathered)

    def bound(self, node, extent: Expr, default: Expr) -> Expr:
        if node is None:
            return default
        v = self.value(node)
        if not v.scalar or kind(v.ty.dtype) not in "iu":
            raise Unsupported(node, "slice bounds must be integer scalars")
        e = cast(v.expr(), INT)
        c = S.const_value(e)
        if c is not None and c < 0:
            return S.add(extent, e)
        return S.simplify(e)

    def binop(self, node: ast.BinOp) -> Value:
        if isinstance(node.op, ast.MatMult):
            return self.matmul(node, self.value(node.left), self.value(node.right))
        op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
              ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
              ast.RShift: ">>"}.get(type(node.op))
        if op is None:
            raise Unsupported(node, f"the operator {type(node.op).__name__} is outside the subset")
        return self.elementwise2(node, op, self.value(node.left), self.value(node.right))

    def elementwise2(self, node, op: str, a: Value, b: Value) -> Value:
        ty = promote(a.ty, b.ty)
        dt = ty.dtype
        if op == "/" and kind(dt) in "biu":
            ty = Ty("float64", ty.weak)
            dt = "float64"
        if op in ("&", "|", "^", "<<", ">>") and kind(dt) not in "biu":
            raise Unsupported(node, f"bitwise {op} on {dt}")
        if op in ("//", "%") and kind(dt) == "c":
            raise Unsupported(node, f"{op} on complex values")
        shape = broadcast_shape(node, a.shape, b.shape)
        fa, fb = broadcast_to(a, shape), broadcast_to(b, shape)
        if kind(dt) == "b" and op in ("&", "|", "^"):
            irop = {"&": "and", "|": "or", "^": "!="}[op]
            return Value(shape, ty, lambda idx: Bin(irop, cast(fa(idx), BOOL), cast(fb(idx), BOOL), BOOL))
        return Value(shape, ty, lambda idx: _fold(Bin(op, cast(fa(idx), dt), cast(fb(idx), dt), dt)))

    def unaryop(self, node: ast.UnaryOp) -> Value:
        v = self.value(node.operand)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.USub):
            if kind(v.ty.dtype) == "b":
                raise Unsupported(node, "negating a boolean")
            return Value(v.shape, v.ty, lambda idx: _fold(Un("neg", v.at(idx), v.ty.dtype)))
        if isinstance(node.op, ast.Not):
            if not v.scalar:
                raise Unsupported(node, "not on an array", "use ~ on boolean arrays")
            return scalar(Un("not", cast(v.expr(), BOOL), BOOL))
        if isinstance(node.op, ast.Invert):
            if kind(v.ty.dtype) == "b":
                return Value(v.shape, v.ty, lambda idx: Un("not", v.at(idx), BOOL))
            if kind(v.ty.dtype) not in "iu":
                raise Unsupported(node, "~ on a non-integer value")
            return Value(v.shape, v.ty, lambda idx: Un("invert", v.at(idx), v.ty.dtype))
        raise Unsupported(node, "unsupported unary operator")

    def compare(self, node: ast.Compare) -> Value:
        if len(node.ops) != 1:
            raise Unsupported(node, "chained comparisons", "write (a < b) & (b < c)")
        op = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}.get(
            type(node.ops[0]))
        if op is None:
            raise Unsupported(node, f"the comparison {type(node.ops[0]).__name__} is outside the subset")
        a, b = self.value(node.left), self.value(node.comparators[0])
        dt = promote(a.ty, b.ty).dtype
        if kind(dt) == "c" and op not in ("==", "!="):
            raise Unsupported(node, "ordering comparison of complex values")
        shape = broadcast_shape(node, a.shape, b.shape)
        fa, fb = broadcast_to(a, shape), broadcast_to(b, shape)
        return Value(shape, Ty(BOOL), lambda idx: Bin(op, cast(fa(idx), dt), cast(fb(idx), dt), BOOL))

    # -- calls --
    def call(self, node: ast.Call) -> Value:
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "np":
            return self.np_call(node, f.attr, node.args, node.keywords)
        if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute)
                and isinstance(f.value.value, ast.Name) and f.value.value.id == "np"):
            raise Unsupported(node, f"np.{f.value.attr}.{f.attr} hides an algorithm (library calls are outside "
                                    "the subset)", "spell the algorithm out with loops, so the baseline and the "
                                                   "optimizer start from the same code")
        if isinstance(f, ast.Attribute):
            # methods: x.astype(dt), x.sum(axis=...), x.max(), x.conj(), x.reshape (only in assignments)
            if f.attr == "astype":
                v = self.value(f.value)
                if len(node.args) != 1:
                    raise Unsupported(node, "astype takes one dtype")
                dt = self.dtype_of(node.args[0])
                return Value(v.shape, Ty(dt), lambda idx: cast(v.at(idx), dt))
            if f.attr in REDUCTIONS or f.attr in ("conj", "dot"):
                return self.np_call(node, f.attr, [f.value, *node.args], node.keywords)
            if f.attr == "copy":
                raise Unsupported(node, ".copy() is outside the subset",
                                  "declare a temporary (np.empty) and assign into it")
            raise Unsupported(node, f"the method .{f.attr}() is outside the subset")
        if isinstance(f, ast.Name):
            if f.id in ("abs", "min", "max") and len(node.args) >= 1 and not node.keywords:
                vals = [self.value(a) for a in node.args]
                if not all(v.scalar for v in vals):
                    raise Unsupported(node, f"the builtin {f.id}() on an array",
                                      f"use np.{'abs' if f.id == 'abs' else f.id}")
                if f.id == "abs":
                    return self.math1(node, "abs", vals[0])
                out = vals[0]
                for v in vals[1:]:
                    out = self.math2(node, "maximum" if f.id == "max" else "minimum", out, v)
                return out
            if f.id in ("float", "int", "complex", "bool"):
                v = self.value(node.args[0])
                dt = self.dtype_of(f)
                return Value(v.shape, Ty(dt), lambda idx: cast(v.at(idx), dt))
            if f.id == "range":
                raise Unsupported(node, "range(...) outside a for statement")
            if f.id == "len":
                raise Unsupported(node, "len() is outside the subset", "use the size symbols")
            raise Unsupported(node, f"the call {f.id}() is outside the subset",
                              "helpers are not translated; inline them")
        raise Unsupported(node, "this call is outside the subset")

    def np_call(self, node, name: str, args: list, keywords: list) -> Value:
        name = ALIASES.get(name, name)
        kw = {k.arg: k.value for k in keywords}
        if name in DTYPE_NAMES:
            if len(args) != 1 or kw:
                raise Unsupported(node, f"np.{name}() takes one value")
            v = self.value(args[0])
            return Value(v.shape, Ty(name), lambda idx: cast(v.at(idx), name))
        if name in UNARY_MATH:
            if len(args) != 1 or kw:
                raise Unsupported(node, f"np.{name} takes one argument (no out=, where=)")
            return _strong(self.math1(node, name, self.value(args[0])))
        if name in BINARY_MATH:
            if len(args) != 2 or kw:
                raise Unsupported(node, f"np.{name} takes two arguments (no out=, where=)")
            a, b = self.value(args[0]), self.value(args[1])
            if kind(promote(a.ty, b.ty).dtype) in "biu":   # NumPy computes these in float64
                a, b = (Value(v.shape, Ty("float64"), lambda idx, v=v: cast(v.at(idx), "float64")) for v in (a, b))
            return _strong(self.math2(node, name, a, b))
        if name in ("maximum", "minimum", "fmax", "fmin"):
            if len(args) != 2 or kw:
                raise Unsupported(node, f"np.{name} takes two arguments")
            return _strong(self.math2(node, {"fmax": "maximum", "fmin": "minimum"}.get(name, name),
                                      self.value(args[0]), self.value(args[1])))
        if name == "where":
            if len(args) != 3:
                raise Unsupported(node, "np.where takes three arguments here", "np.where(cond, a, b)")
            c, a, b = (self.value(x) for x in args)
            ty = Ty(promote(a.ty, b.ty).dtype)   # an array even of Python scalars: never weak
            shape = broadcast_shape(node, broadcast_shape(node, c.shape, a.shape), b.shape)
            fc, fa, fb = (broadcast_to(v, shape) for v in (c, a, b))
            return Value(shape, ty, lambda idx: Select(cast(fc(idx), BOOL), cast(fa(idx), ty.dtype),
                                                       cast(fb(idx), ty.dtype), ty.dtype))
        if name in REDUCTIONS:
            return self.reduction(node, name, args, kw)
        if name in ("dot", "matmul"):
            if len(args) != 2:
                raise Unsupported(node, f"np.{name} takes two arguments")
            return self.matmul(node, self.value(args[0]), self.value(args[1]))
        if name == "arange":
            vals = [self.value(a) for a in args]
            if not 1 <= len(vals) <= 2 or not all(v.scalar and kind(v.ty.dtype) in "iu" for v in vals):
                raise Unsupported(node, "np.arange takes integer start and stop (step 1)")
            dt = self.dtype_of(kw["dtype"]) if "dtype" in kw else INT
            lo = cast(vals[0].expr(), INT) if len(vals) == 2 else S.num(0)
            hi = cast(vals[-1].expr(), INT)
            return Value((S.sub(hi, lo),), Ty(dt), lambda idx: cast(S.add(lo, idx[0]), dt))
        if name in ("empty", "zeros"):
            raise Unsupported(node, f"np.{name} inside an expression", f"bind it to a name: t = np.{name}(...)")
        if name in ("linalg", "fft") or name.startswith(("linalg", "fft")):
            raise Unsupported(node, f"np.{name} hides an algorithm", "spell the algorithm out with loops")
        raise Unsupported(node, f"np.{name} is outside the subset",
                          "see docs/canonical_numpy_form.md for what is supported")

    def math1(self, node, fn: str, v: Value) -> Value:
        fn = ALIASES.get(fn, fn)
        dt = v.ty.dtype
        if fn == "abs":
            out = {"complex64": "float32", "complex128": "float64"}.get(dt, dt)
            if kind(dt) == "b":
                raise Unsupported(node, "abs of a boolean")
            return Value(v.shape, Ty(out, v.ty.weak), lambda idx: Call("abs", (v.at(idx),), out))
        if fn == "conj":
            return Value(v.shape, v.ty, lambda idx: Call("conj", (v.at(idx),), dt) if kind(dt) == "c" else v.at(idx))
        if fn in ("floor", "ceil") and kind(dt) == "c":
            raise Unsupported(node, f"np.{fn} of complex values")
        if kind(dt) in "biu":
            dt = "float64"
        return Value(v.shape, Ty(dt), lambda idx: Call(fn, (cast(v.at(idx), dt),), dt))

    def math2(self, node, fn: str, a: Value, b: Value) -> Value:
        ty = promote(a.ty, b.ty)
        if kind(ty.dtype) == "c":
            raise Unsupported(node, f"np.{fn} of complex values")
        shape = broadcast_shape(node, a.shape, b.shape)
        fa, fb = broadcast_to(a, shape), broadcast_to(b, shape)
        return Value(shape, ty, lambda idx: Call(fn, (cast(fa(idx), ty.dtype), cast(fb(idx), ty.dtype)), ty.dtype))

    def reduction(self, node, name: str, args: list, kw: dict) -> Value:
        name = {"amax": "max", "amin": "min"}.get(name, name)
        if len(args) != 1:
            raise Unsupported(node, f"np.{name} takes one array (axis= and keepdims= as keywords)")
        extra = set(kw) - {"axis", "keepdims"}
        if extra:
            raise Unsupported(node, f"np.{name} with {', '.join(sorted(extra))}=")
        x = self.value(args[0])
        if x.scalar:
            return x
        axis = None
        if "axis" in kw and not (isinstance(kw["axis"], ast.Constant) and kw["axis"].value is None):
            if not isinstance(kw["axis"], (ast.Constant, ast.UnaryOp)):
                raise Unsupported(node, "axis must be an integer constant")
            axis = int(ast.literal_eval(kw["axis"]))
            if axis < 0:
                axis += len(x.shape)
            if not 0 <= axis < len(x.shape):
                raise Unsupported(node, f"axis {axis} out of range")
        keepdims = bool(ast.literal_eval(kw["keepdims"])) if "keepdims" in kw else False
        xdt = x.ty.dtype
        if name in ("sum", "prod"):
            dt = "int64" if kind(xdt) in "bi" else ("uint64" if kind(xdt) == "u" else xdt)
        elif name in ("argmax", "argmin"):
            dt = INT
        else:
            dt = xdt
        if name in ("max", "min", "argmax", "argmin") and kind(xdt) == "c":
            raise Unsupported(node, f"np.{name} of complex values")
        red_axes = list(range(len(x.shape))) if axis is None else [axis]
        keep_axes = [d for d in range(len(x.shape)) if d not in red_axes]
        out_shape = tuple(x.shape[d] for d in keep_axes)
        acc = self.fresh("acc")
        self.locals[acc] = dt
        best = self.fresh("arg") if name in ("argmax", "argmin") else None
        if best:
            self.locals[best] = xdt
        counter = self.fresh("k") if best else None
        if counter:
            self.locals[counter] = INT

        def body(out_idx):
            red_names = [self.fresh("r") for _ in red_axes]
            for n in red_names:
                self.locals[n] = INT

            def full_index():
                idx = [None] * len(x.shape)
                for d, i in zip(keep_axes, out_idx):
                    idx[d] = i
                for d, n in zip(red_axes, red_names):
                    idx[d] = S.var(n)
                return tuple(idx)
            elem = cast(x.at(full_index()), dt if not best else xdt)
            accv = Var(acc, dt)
            if name == "sum":
                init, update = cast(Const(0, INT), dt), [Assign(acc, Bin("+", accv, elem, dt))]
            elif name == "prod":
                init, update = cast(Const(1, INT), dt), [Assign(acc, Bin("*", accv, elem, dt))]
            elif name in ("max", "min"):
                init = _extreme(dt, name == "max")
                update = [Assign(acc, Call("maximum" if name == "max" else "minimum", (accv, elem), dt))]
            else:
                bv = Var(best, xdt)
                lin = S.num(0)
                for n, d in zip(red_names, red_axes):
                    lin = S.add(S.mul(lin, x.shape[d]), S.var(n))
                better = Bin(">" if name == "argmax" else "<", elem, bv, BOOL)
                init = Const(-1, INT)
                update = [If(Bin("or", Bin("<", accv, Const(0, INT), BOOL), better, BOOL),
                             (Assign(best, elem), Assign(acc, lin)))]
            nest: list = update
            for n, d in reversed(list(zip(red_names, red_axes))):
                nest = [For(n, S.num(0), x.shape[d], tuple(nest))]
            stmts = [Assign(acc, init)] + nest
            if out_shape:
                stmts.append(Store(tmp, tuple(out_idx), Var(acc, dt)))
            return stmts

        if not out_shape:
            for s in body(()):
                self.emit(s)
            result = scalar(Var(acc, dt))
        else:
            tmp = self.fresh("red")
            self.arrays[tmp] = ArrayDecl(tmp, dt, out_shape, "temp")
            self.emit(Allocate(tmp, out_shape))
            self.loop(out_shape, body, inner_work=S.product(x.shape[d] for d in red_axes))
            result = Value(out_shape, Ty(dt), lambda idx: Load(tmp, tuple(idx), dt), tmp, lambda idx: tuple(idx))
        if keepdims:
            full = tuple(S.num(1) if d in red_axes else x.shape[d] for d in range(len(x.shape)))
            inner = result

            def at(idx):
                return inner.at(tuple(i for d, i in enumerate(idx) if d not in red_axes))
            return Value(full, Ty(dt), at)
        return result

    def matmul(self, node, a: Value, b: Value) -> Value:
        if a.scalar or b.scalar:
            raise Unsupported(node, "@ with a scalar operand", "use *")
        if len(a.shape) > 2 or len(b.shape) > 2:
            raise Unsupported(node, "@ on arrays of more than 2 dimensions", "loop over the leading dimension")
        dt = promote(a.ty, b.ty).dtype
        if kind(dt) in "b":
            raise Unsupported(node, "@ on booleans")
        zero = cast(Const(0, INT), dt)
        kdim = a.shape[-1]
        if len(a.shape) == 1 and len(b.shape) == 1:
            acc = self.fresh("dot")
            self.locals[acc] = dt
            r = self.fresh("r")
            self.locals[r] = INT
            k = S.var(r)
            self.emit(Assign(acc, zero))
            self.emit(For(r, S.num(0), kdim, (Assign(acc, Bin("+", Var(acc, dt), Bin(
                "*", cast(a.at((k,)), dt), cast(b.at((k,)), dt), dt), dt)),)))
            return scalar(Var(acc, dt))
        if len(a.shape) == 1:          # (k,) @ (k, m) == (b.T @ a)
            return self.matmul_2d1d(node, b_t(b), a, dt, zero)
        if len(b.shape) == 1:
            return self.matmul_2d1d(node, a, b, dt, zero)
        n, m = a.shape[0], b.shape[1]
        tmp = self.fresh("mm")
        self.arrays[tmp] = ArrayDecl(tmp, dt, (n, m), "temp")
        self.emit(Allocate(tmp, (n, m)))
        if b.transposed:
            # b's rows are contiguous in k: a dot product per output element.
            acc = self.fresh("acc")
            self.locals[acc] = dt

            def body(idx):
                i, j = idx
                r = self.fresh("r")
                self.locals[r] = INT
                k = S.var(r)
                return [Assign(acc, zero),
                        For(r, S.num(0), kdim, (Assign(acc, Bin("+", Var(acc, dt), Bin(
                            "*", cast(a.at((i, k)), dt), cast(b.at((k, j)), dt), dt), dt)),)),
                        Store(tmp, (i, j), Var(acc, dt))]
            self.loop((n, m), body, inner_work=kdim)
        else:
            # i-k-j: the innermost loop streams a row of b and of the result.
            aik = self.fresh("a")
            self.locals[aik] = dt

            def body(idx):
                (i,) = idx
                j1, r, j2 = self.fresh("j"), self.fresh("r"), self.fresh("j")
                for v in (j1, r, j2):
                    self.locals[v] = INT
                k = S.var(r)
                return [For(j1, S.num(0), m, (Store(tmp, (i, S.var(j1)), zero),)),
                        For(r, S.num(0), kdim, (
                            Assign(aik, cast(a.at((i, k)), dt)),
                            For(j2, S.num(0), m, (Store(tmp, (i, S.var(j2)), Bin(
                                "+", Load(tmp, (i, S.var(j2)), dt),
                                Bin("*", Var(aik, dt), cast(b.at((k, S.var(j2))), dt), dt), dt)),)))),
                        ]
            self.loop((n,), body, inner_work=S.mul(m, kdim))
        return Value((n, m), Ty(dt), lambda idx: Load(tmp, tuple(idx), dt), tmp, lambda idx: tuple(idx))

    def matmul_2d1d(self, node, a: Value, x: Value, dt: str, zero: Expr) -> Value:
        n, kdim = a.shape
        tmp = self.fresh("mv")
        self.arrays[tmp] = ArrayDecl(tmp, dt, (n,), "temp")
        self.emit(Allocate(tmp, (n,)))
        if a.transposed:
            # a is stored transposed: accumulate whole rows of storage (k outer, i inner).
            xk = self.fresh("x")
            self.locals[xk] = dt
            self.loop((n,), lambda idx: [Store(tmp, idx, zero)])
            r, i = self.fresh("r"), self.fresh("i")
            self.locals[r] = INT
            self.locals[i] = INT
            k, iv = S.var(r), S.var(i)
            self.emit(For(r, S.num(0), kdim, (
                Assign(xk, cast(x.at((k,)), dt)),
                For(i, S.num(0), n, (Store(tmp, (iv,), Bin("+", Load(tmp, (iv,), dt), Bin(
                    "*", cast(a.at((iv, k)), dt), Var(xk, dt), dt), dt)),), parallel=False))))
        else:
            acc = self.fresh("acc")
            self.locals[acc] = dt

            def body(idx):
                (i,) = idx
                r = self.fresh("r")
                self.locals[r] = INT
                k = S.var(r)
                return [Assign(acc, zero),
                        For(r, S.num(0), kdim, (Assign(acc, Bin("+", Var(acc, dt), Bin(
                            "*", cast(a.at((i, k)), dt), cast(x.at((k,)), dt), dt), dt)),)),
                        Store(tmp, (i,), Var(acc, dt))]
            self.loop((n,), body, inner_work=kdim)
        return Value((n,), Ty(dt), lambda idx: Load(tmp, tuple(idx), dt), tmp, lambda idx: tuple(idx))


def _strong(v: Value) -> Value:
    """A NumPy function's result: a NumPy scalar or array even when its operands are Python
    scalars, so never weak (np.maximum(1e8, 0.0) + x32 computes in float64)."""
    return attrs.evolve(v, ty=Ty(v.ty.dtype)) if v.ty.weak else v


def b_t(v: Value) -> Value:
    """The transpose of a 2-D value (for (k,) @ (k, m))."""
    return Value((v.shape[1], v.shape[0]), v.ty, lambda idx: v.at((idx[1], idx[0])), v.array,
                 None, not v.transposed, v.gathered)


def _extreme(dt: str, for_max: bool) -> Const:
    k = kind(dt)
    if k == "f":
        return Const(float("-inf") if for_max else float("inf"), dt)
    info = np.iinfo(np.dtype(dt)) if k in "iu" else None
    if info is not None:
        return Const(int(info.min) if for_max else int(info.max), dt)
    return Const(False if for_max else True, dt)


def _fold(e: Expr) -> Expr:
    """Fold integer index arithmetic into affine form; leave everything else alone."""
    if e.dtype == INT and isinstance(e, (Bin, Un)) and getattr(e, "op", "") in ("+", "-", "*", "neg"):
        return S.simplify(e)
    return e


def _load_copy(target: ast.expr) -> ast.expr:
    """The target of an augmented assignment, as an expression that reads it."""
    import copy
    node = copy.deepcopy(target)
    for n in ast.walk(node):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return node


def _is_np_call(node, names) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" and node.func.attr in names)


class MultipleUnsupported(Exception):
    def __init__(self, errors: list[Unsupported]):
        super().__init__(f"{len(errors)} construct(s) outside the subset")
        self.errors = errors


def _function_node(kernel: Kernel) -> tuple[ast.FunctionDef, list[Diagnostic]]:
    path = str(kernel.reference_path)
    tree = ast.parse(kernel.reference_path.read_text(), filename=path)
    diags = []
    fn = None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == kernel.name:
            fn = node
        elif isinstance(node, ast.FunctionDef) and node.name != "initialize" and not node.name.startswith("_"):
            diags.append(Diagnostic(path, node.lineno, f"public function {node.name!r} besides the kernel",
                                    "make helpers private (_name); they are not translated, so inline them"))
    if fn is None:
        diags.append(Diagnostic(path, 1, f"no function named {kernel.name!r}"))
    elif fn.decorator_list:
        diags.append(Diagnostic(path, fn.lineno, "decorators on the kernel function", "remove them"))
    return fn, diags


def _diagnostics(kernel: Kernel, errors: list) -> list[Diagnostic]:
    """Unsupported errors (nested MultipleUnsupported flattened) as file:line diagnostics."""
    path = str(kernel.reference_path)
    out: list[Diagnostic] = []
    for e in errors:
        if isinstance(e, MultipleUnsupported):
            out += _diagnostics(kernel, e.errors)
        else:
            out.append(Diagnostic(path, getattr(e.node, "lineno", 1), e.message, e.hint))
    return out


def lower(kernel: Kernel) -> Function:
    fn, diags = _function_node(kernel)
    if fn is None or diags:
        raise TranslateError(diags)
    try:
        return Lowerer(kernel).lower(fn)
    except MultipleUnsupported as exc:
        raise TranslateError(_diagnostics(kernel, [exc])) from None
    except Unsupported as exc:
        raise TranslateError(_diagnostics(kernel, [exc])) from None


def collect_diagnostics(kernel: Kernel) -> list[Diagnostic]:
    try:
        lower(kernel)
    except TranslateError as exc:
        return exc.diagnostics
    return []
