"""Print the IR as a Fortran 2008 subroutine with a bind(C) interface matching the ABI.

Arrays are declared with 0-based bounds and their dimensions reversed (Fortran is
column-major, the ABI row-major): C's A[i][j] is A(j, i) here, the same memory. Fortran has
no unsigned integers: unsigned buffers are declared with the signed kind of the same width
and widened with a mask when read; arithmetic directly on unsigned values is refused.
"""

from __future__ import annotations

import math

import numpy as np

from hpcab.abi import FORTRAN_TYPES, fortran_value_declarations, free_form_lines, params
from hpcab.kernel import Kernel
from hpcab.translate import simplify as S
from hpcab.translate.diagnostics import Diagnostic, TranslateError
from hpcab.translate.ir import (Allocate, Assign, Bin, Call, Cast, Const, Expr, For, Function, If, Load, Select,
                                Store, Un, Var)

KIND = {"float32": "c_float", "float64": "c_double", "complex64": "c_float", "complex128": "c_double",
        "int8": "c_int8_t", "int16": "c_int16_t", "int32": "c_int32_t", "int64": "c_int64_t",
        "uint8": "c_int8_t", "uint16": "c_int16_t", "uint32": "c_int32_t", "uint64": "c_int64_t", "bool": "c_bool"}


def _kind(dtype: str) -> str:
    return np.dtype(dtype).kind


def _bits(dtype: str) -> int:
    return np.dtype(dtype).itemsize * 8


def _paren_int(v: int) -> str:
    return f"({v})" if v < 0 else str(v)


def bare(text: str) -> str:
    """Drop one pair of parentheses around a whole expression, when they match each other."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(text) - 1:
            return text
    return text[1:-1]


class FortranEmitter:
    def __init__(self, fn: Function, kernel: Kernel):
        self.fn, self.kernel = fn, kernel
        self.uses_ieee = False

    def refuse(self, message: str):
        raise TranslateError([Diagnostic(self.fn.source, 1, f"Fortran: {message}",
                                         "use signed integer types, or the C translation")])

    # -- expressions --
    def index(self, array: str, idx) -> str:
        return f"{array}({', '.join(bare(self.operand(S.simplify(i))) for i in reversed(idx))})"

    def const(self, c: Const) -> str:
        k, v = _kind(c.dtype), c.value
        if k == "b":
            return ".true." if v else ".false."
        if k in "iu":
            v = int(v)
            bits = _bits(c.dtype)
            if k == "u" and v >= 2 ** (bits - 1):
                v -= 2 ** bits
            kind = KIND[c.dtype]
            if v == -(2 ** (bits - 1)):
                return f"(-huge(0_{kind}) - 1_{kind})"
            return f"{v}_{kind}" if v >= 0 else f"(-{-v}_{kind})"
        if k == "f":
            return self.real(float(v), KIND[c.dtype])
        v = complex(v)
        kind = KIND[c.dtype]
        return f"cmplx({self.real(v.real, kind)}, {self.real(v.imag, kind)}, kind={kind})"

    def real(self, v: float, kind: str) -> str:
        if math.isnan(v) or math.isinf(v):
            self.uses_ieee = True
            which = "ieee_quiet_nan" if math.isnan(v) else ("ieee_positive_inf" if v > 0 else "ieee_negative_inf")
            return f"ieee_value(0.0_{kind}, {which})"
        text = repr(abs(float(v)))
        if "e" not in text and "." not in text:
            text += ".0"
        return f"{text}_{kind}" if v >= 0 else f"(-{text}_{kind})"

    def operand(self, e: Expr) -> str:
        """An operand of arithmetic or a comparison: small int64 constants print bare there
        (mixed-kind integer arithmetic widens to int64); intrinsics need the exact kind."""
        if isinstance(e, Const) and e.dtype == "int64" and abs(int(e.value)) < 2 ** 31:
            return str(int(e.value)) if e.value >= 0 else f"({int(e.value)})"
        return self.expr(e)

    def expr(self, e: Expr) -> str:
        if isinstance(e, Const):
            return self.const(e)
        if isinstance(e, Var):
            return e.name
        if isinstance(e, Load):
            return self.index(e.array, e.index)
        if isinstance(e, Cast):
            return self.cast(e)
        if isinstance(e, Select):
            return f"merge({self.expr(e.a)}, {self.expr(e.b)}, {self.expr(e.cond)})"
        if isinstance(e, Un):
            if _kind(e.a.dtype) == "u":
                self.refuse("arithmetic on unsigned integers")
            a = self.expr(e.a)
            return {"neg": f"(-{a})", "not": f"(.not. {a})", "invert": f"not({a})"}[e.op]
        if isinstance(e, Bin):
            return self.binary(e)
        if isinstance(e, Call):
            return self.call(e)
        raise TypeError(f"cannot print {e!r}")

    def cast(self, e: Cast) -> str:
        src, dst = e.a.dtype, e.dtype
        a = self.expr(e.a)
        ks, kd = _kind(src), _kind(dst)
        if ks == "u" and kd != "u":
            if _bits(src) == 64:
                self.refuse("converting uint64 values")
            a = f"iand(int({a}, c_int64_t), {2 ** _bits(src) - 1}_c_int64_t)"
            src, ks = "int64", "i"
        if kd == "b":
            if ks == "b":
                return f"logical({a}, c_bool)"
            zero = self.const(Const(0, src))
            return f"logical({a} /= {zero}, c_bool)"
        if ks == "b":
            one, zero = self.const(Const(1, dst)), self.const(Const(0, dst))
            return f"merge({one}, {zero}, {a})"
        if kd in "iu":
            return f"int({a}, {KIND[dst]})"
        if kd == "f":
            return f"real({a}, {KIND[dst]})"
        return f"cmplx({a}, kind={KIND[dst]})"

    def binary(self, e: Bin) -> str:
        ka = _kind(e.a.dtype)
        if ka == "u":
            self.refuse("arithmetic or comparison on unsigned integers")
        a, b = self.expr(e.a), self.expr(e.b)
        op = e.op
        if op in ("and", "or"):
            return f"({a} .{op}. {b})"
        if ka == "b" and op in ("==", "!="):
            return f"({a} {'.eqv.' if op == '==' else '.neqv.'} {b})"
        if op in ("+", "-", "*", "/", "**", "<", "<=", ">", ">=", "==", "!=") \
                and not (isinstance(e.a, Const) and isinstance(e.b, Const)):
            # (two bare constants would compute in default-kind integers: 7 ** 3 is not int64)
            a, b = self.operand(e.a), self.operand(e.b)
        if op == "!=":
            return f"({a} /= {b})"
        if op == "//":
            if ka in "i":
                return f"(({a} - modulo({a}, {b})) / {b})"
            return f"real(floor({a} / {b}, c_int64_t), {KIND[e.dtype]})"
        if op == "%":
            return f"modulo({a}, {b})"
        if op in ("&", "|", "^"):
            return f"{ {'&': 'iand', '|': 'ior', '^': 'ieor'}[op]}({a}, {b})"
        if op == "<<":
            return f"shiftl({a}, int({b}))"
        if op == ">>":
            return f"shifta({a}, int({b}))"
        if op == "**" and ka == "f" and isinstance(e.b, Const) and float(e.b.value).is_integer() \
                and abs(e.b.value) < 2 ** 31:
            # x ** 2.0 with x < 0 is fine in NumPy, but Fortran prohibits a negative real to a real
            # power (gfortran rejects it when x is a constant); to an integer power it is defined.
            return f"({a} ** {_paren_int(int(e.b.value))})"
        return f"({a} {op} {b})"

    def call(self, e: Call) -> str:
        args = [self.expr(a) for a in e.args]
        src = e.args[0].dtype
        if e.fn in ("maximum", "minimum"):
            if _kind(e.dtype) == "f":   # NaN propagates, as in NumPy
                cmp = ">" if e.fn == "maximum" else "<"
                return f"merge({args[0]}, {args[1]}, ({args[0]} /= {args[0]}) .or. ({args[0]} {cmp} {args[1]}))"
            if _kind(e.dtype) == "u":
                self.refuse("max/min of unsigned integers")
            return f"{'max' if e.fn == 'maximum' else 'min'}({args[0]}, {args[1]})"
        if e.fn == "conj":
            return f"conjg({args[0]})"
        if e.fn == "real":
            return f"real({args[0]}, {KIND[e.dtype]})"
        if e.fn == "imag":
            return f"aimag({args[0]})"
        if e.fn in ("floor", "ceil"):
            intrinsic = "floor" if e.fn == "floor" else "ceiling"
            return f"real({intrinsic}({args[0]}, c_int64_t), {KIND[e.dtype]})"
        if e.fn == "abs" and _kind(src) == "u":
            self.refuse("abs of unsigned integers")
        return f"{e.fn}({', '.join(args)})"

    # -- statements --
    def stmts(self, stmts, depth: int) -> list[str]:
        out = []
        pad = "  " * depth
        for s in stmts:
            if isinstance(s, Assign):
                out.append(f"{pad}{s.var} = {bare(self.expr(s.value))}")
            elif isinstance(s, Store):
                out.append(f"{pad}{self.index(s.array, s.index)} = {bare(self.expr(s.value))}")
            elif isinstance(s, For):
                hi = bare(self.operand(S.sub(s.hi, S.num(1))))
                out.append(f"{pad}do {s.var} = {bare(self.operand(s.lo))}, {hi}")
                out += self.stmts(s.body, depth + 1)
                out.append(f"{pad}end do")
            elif isinstance(s, If):
                out.append(f"{pad}if ({self.expr(s.cond)}) then")
                out += self.stmts(s.then, depth + 1)
                if s.orelse:
                    out.append(f"{pad}else")
                    out += self.stmts(s.orelse, depth + 1)
                out.append(f"{pad}end if")
            elif isinstance(s, Allocate):
                dims = ", ".join(f"0:{bare(self.operand(S.sub(d, S.num(1))))}" for d in reversed(s.shape))
                out.append(f"{pad}if (allocated({s.array})) deallocate({s.array})")
                out.append(f"{pad}allocate({s.array}({dims}))")
            else:
                raise TypeError(f"cannot print {s!r}")
        return out

    def declare_array(self, p, intent: str) -> str:
        dims = ", ".join(f"0:{bare(self.operand(S.sub(d, S.num(1))))}" for d in reversed(self.fn.arrays[p.name].shape))
        return f"  {FORTRAN_TYPES[p.dtype]}, intent({intent}) :: {p.name}({dims})"

    def emit(self) -> str:
        fn, k = self.fn, self.kernel
        ps = params(k)
        body = self.stmts(fn.body, 1)
        decls = fortran_value_declarations(k)
        for p in ps:
            if p.role == "array":
                decls.append(self.declare_array(p, fn.arrays[p.name].intent))
            elif p.role == "return":
                decls.append(self.declare_array(p, "out"))
            elif p.role == "workspace":
                decls.append("  integer(c_int8_t), intent(inout) :: workspace(0:workspace_size - 1)")
        for name, dtype in sorted(fn.scalars.items()):
            decls.append(f"  {FORTRAN_TYPES[dtype]} :: {name}")
        for a in fn.arrays.values():
            if a.kind == "temp":
                dims = ", ".join(":" for _ in a.shape)
                decls.append(f"  {FORTRAN_TYPES[a.dtype]}, allocatable :: {a.name}({dims})")
        uses = ["  use, intrinsic :: iso_c_binding"]
        if self.uses_ieee:
            uses.append("  use, intrinsic :: ieee_arithmetic")
        names = ", ".join(p.name for p in ps)
        lines = [f"! Generated by hpcab from {k.id} (Fortran 2008). A build artifact: do not edit or commit.",
                 f"subroutine {k.name}({names}) &", f"    bind(C, name=\"{k.name}\")", *uses, "  implicit none",
                 *decls, *body]
        # allocatable locals are deallocated automatically on return
        lines.append(f"end subroutine {k.name}")
        return "\n".join(out for ln in lines for out in free_form_lines(ln)) + "\n"


def emit_fortran(fn: Function, kernel: Kernel) -> str:
    return FortranEmitter(fn, kernel).emit()
