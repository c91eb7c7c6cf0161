"""The C ABI of a kernel, derived from its manifest alone (docs/abi_contract.md).

void <name>(<pointers in manifest order, returned values last>,
            <scalars in manifest order>, <size symbols in manifest order>,
            uint8_t *workspace, int64_t workspace_size);

Python frameworks (python, pythran) have the NumPy reference's own signature instead:
def <name>(<arrays>, <scalars>, <size symbols>), outputs written in place and values
returned as the reference does; pythran adds the `#pythran export` line of those types.
"""

from __future__ import annotations

import ast

import attrs

from hpcab.errors import InputError
from hpcab.kernel import Kernel

C_TYPES = {
    "float32": "float", "float64": "double",
    "complex64": "float _Complex", "complex128": "double _Complex",
    "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
    "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
    "bool": "bool",
}
CPP_TYPES = {**C_TYPES, "complex64": "std::complex<float>", "complex128": "std::complex<double>"}
FORTRAN_TYPES = {
    "float32": "real(c_float)", "float64": "real(c_double)",
    "complex64": "complex(c_float_complex)", "complex128": "complex(c_double_complex)",
    "int8": "integer(c_int8_t)", "int16": "integer(c_int16_t)", "int32": "integer(c_int32_t)",
    "int64": "integer(c_int64_t)",
    # Fortran has no unsigned integers: the same bits in the signed type of that width.
    "uint8": "integer(c_int8_t)", "uint16": "integer(c_int16_t)", "uint32": "integer(c_int32_t)",
    "uint64": "integer(c_int64_t)",
    "bool": "logical(c_bool)",
}
LANGUAGES = ("c", "cpp", "fortran", "cuda", "python", "pythran")


@attrs.frozen
class Param:
    name: str
    dtype: str
    pointer: bool
    const: bool = False
    shape: tuple[str | int, ...] = ()
    role: str = ""   # array | return | scalar | size | workspace


def params(kernel: Kernel) -> tuple[Param, ...]:
    """Every argument of the kernel's C function, in order."""
    out = [Param(a.name, a.dtype, True, a.intent == "in", a.shape, "array") for a in kernel.arrays]
    out += [Param(r.name, r.dtype, True, False, r.shape or (1,), "return") for r in kernel.returns]
    out += [Param(s.name, s.dtype, False, role="scalar") for s in kernel.scalars]
    out += [Param(s, "int64", False, role="size") for s in kernel.sizes]
    out += [Param("workspace", "uint8", True, False, ("workspace_size",), "workspace"),
            Param("workspace_size", "int64", False, role="size")]
    return tuple(out)


def _c_param(p: Param, types: dict[str, str], restrict: str) -> str:
    if not p.pointer:
        return f"{types[p.dtype]} {p.name}"
    const = "const " if p.const else ""
    return f"{const}{types[p.dtype]} *{restrict} {p.name}"


def _shape_comment(kernel: Kernel) -> list[str]:
    lines = []
    for p in params(kernel):
        if p.pointer and p.role != "workspace":
            dims = "".join(f"[{d}]" for d in p.shape)
            what = ("out (returned value)" if p.role == "return"
                    else next(a.intent for a in kernel.arrays if a.name == p.name))
            lines.append(f"  {p.name:<12} {p.dtype:<10} {dims:<20} {what}")
    return lines


def c_prototype(kernel: Kernel, language: str = "c") -> str:
    """The declaration a C, C++ or CUDA (host entry point) implementation must define."""
    types = C_TYPES if language == "c" else CPP_TYPES
    restrict = "restrict" if language == "c" else "__restrict__"
    args = ",\n    ".join(_c_param(p, types, restrict) for p in params(kernel))
    linkage = "" if language == "c" else 'extern "C" '
    return f"{linkage}void {kernel.name}(\n    {args});"


def c_header(kernel: Kernel, language: str = "c") -> str:
    if language == "c":
        includes = ["#include <stdbool.h>", "#include <stdint.h>"]
        if any(p.dtype.startswith("complex") for p in params(kernel)):
            includes.append("#include <complex.h>")
    else:
        includes = ["#include <cstdint>", "#include <complex>"]
    shapes = "\n".join(_shape_comment(kernel))
    note = ("/* CUDA: a host function; pointers are host memory. Copy to the device inside it. */\n"
            if language == "cuda" else "")
    return (f"/* hpcab ABI for {kernel.id}: arrays are contiguous row-major (C order).\n"
            f"{shapes}\n"
            f"   Outputs are written in place; read-only arrays are const. */\n"
            + note + "\n".join(includes) + "\n\n" + c_prototype(kernel, language) + "\n")


def fortran_expr(text: str | int) -> str:
    """A manifest shape expression in Fortran syntax (integer arithmetic)."""
    if isinstance(text, int):
        return str(text)

    def ff(node) -> str:
        if isinstance(node, ast.Expression):
            return ff(node.body)
        if isinstance(node, ast.Constant):
            return str(node.value) + "_c_int64_t"
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"(-{ff(node.operand)})"
        if isinstance(node, ast.BinOp):
            a, b = ff(node.left), ff(node.right)
            op = type(node.op)
            if op is ast.Mod:
                return f"mod({a}, {b})"
            if op is ast.LShift:
                return f"shiftl({a}, {b})"
            if op is ast.RShift:
                return f"shiftr({a}, {b})"
            if op in (ast.BitAnd, ast.BitOr, ast.BitXor):
                return f"{ {ast.BitAnd: 'iand', ast.BitOr: 'ior', ast.BitXor: 'ieor'}[op]}({a}, {b})"
            sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/", ast.Pow: "**"}[op]
            return f"({a} {sym} {b})"
        if isinstance(node, ast.Call) and node.func.id in ("min", "max"):
            return f"{node.func.id}({', '.join(ff(a) for a in node.args)})"
        raise ValueError(f"cannot express {text!r} in Fortran")

    out = ff(ast.parse(str(text), mode="eval"))
    return out[1:-1] if out.startswith("(") and out.endswith(")") else out


def fortran_value_declarations(kernel: Kernel) -> list[str]:
    """The by-value arguments, size symbols first: array bounds may only use variables
    declared before them."""
    ps = params(kernel)
    return ([f"  {FORTRAN_TYPES[p.dtype]}, value, intent(in) :: {p.name}" for p in ps
             if not p.pointer and p.role == "size"]
            + [f"  {FORTRAN_TYPES[p.dtype]}, value, intent(in) :: {p.name}" for p in ps
               if not p.pointer and p.role == "scalar"])


FREE_FORM_WIDTH = 132       # Fortran 2008 free form: a line holds at most 132 characters


def free_form_lines(line: str, width: int = FREE_FORM_WIDTH) -> list[str]:
    """One emitted line as standard free-form lines: a longer statement is broken at spaces
    between tokens and continued with `&`, a longer comment goes on as further comments, so the
    source compiles on compilers that enforce the limit (gfortran without -ffree-line-length-none)."""
    if len(line) <= width:
        return [line]
    pad = line[:len(line) - len(line.lstrip())]
    comment = line.lstrip().startswith("!")
    lead = pad + ("! " if comment else "    ")      # what each continuation line starts with
    room = width - (0 if comment else 2)             # ... and the " &" a statement line ends with
    out, rest, first = [], line, True
    while len(rest) > width:
        cut = rest.rfind(" ", len(lead) + 1 if not first else len(pad) + 1, room)
        if cut < 0:
            raise ValueError(f"cannot break a Fortran line of {len(line)} characters at a space: {line[:60]}...")
        out.append(rest[:cut] + ("" if comment else " &"))
        rest, first = lead + rest[cut + 1:].lstrip(), False
    return out + [rest]


def fortran_interface(kernel: Kernel) -> str:
    """A bind(C) subroutine header matching the C ABI.

    Fortran is column-major: an array that is [N][M] in C order is declared A(M, N), so
    A(j+1, i+1) is the element C calls A[i][j].
    """
    ps = params(kernel)
    names = ", ".join(p.name for p in ps)
    lines = [f"subroutine {kernel.name}({names}) &", f"    bind(C, name=\"{kernel.name}\")",
             "  use, intrinsic :: iso_c_binding", "  implicit none", *fortran_value_declarations(kernel)]
    for p in ps:
        if p.pointer:
            intent = "in" if p.const else ("inout" if p.role in ("array", "workspace") else "out")
            if p.role == "array":
                intent = {"in": "in", "out": "out", "inout": "inout"}[
                    next(a.intent for a in kernel.arrays if a.name == p.name)]
            dims = ", ".join(fortran_expr(d) for d in reversed(p.shape))
            lines.append(f"  {FORTRAN_TYPES[p.dtype]}, intent({intent}) :: {p.name}({dims})")
    lines.append(f"end subroutine {kernel.name}")
    return "\n".join(out for ln in lines for out in free_form_lines(ln)) + "\n"


def reference_def(kernel: Kernel) -> str:
    """The NumPy reference's def line (its name and arguments), on one line."""
    tree = ast.parse(kernel.reference_path.read_text())
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == kernel.name), None)
    if node is None:
        raise InputError(str(kernel.reference_path), kernel.name, "no such function in the reference")
    return f"def {node.name}({ast.unparse(node.args)}):"


def pythran_export(kernel: Kernel) -> str:
    """The `#pythran export` line of the reference's arguments (hpcab.case.reference_args'
    order): arrays by dtype and rank, scalars by dtype, size symbols int64. The manifest's
    dtype names are pythran's too."""
    types = ([f"{a.dtype}[{','.join(':' for _ in a.shape)}]" for a in kernel.arrays]
             + [s.dtype for s in kernel.scalars] + ["int64" for _ in kernel.sizes])
    return f"#pythran export {kernel.name}({', '.join(types)})"


def python_prototype(kernel: Kernel, language: str = "python") -> str:
    """What a python or pythran candidate defines: the reference's def line (pythran: after
    its export line), under a comment saying what it must write and return."""
    duties = []
    outs = [a.name for a in kernel.arrays if a.is_output]
    if outs:
        duties.append(f"write {', '.join(outs)} in place")
    if kernel.returns:
        names = ", ".join(f"{r.name} ({r.dtype})" for r in kernel.returns)
        duties.append(f"return {names}" if len(kernel.returns) == 1 else f"return the tuple ({names})")
    lines = [f"# hpcab ABI for {kernel.id}: the NumPy reference's name and arguments; "
             f"{' and '.join(duties)}, as the reference does."]
    if language == "pythran":
        lines.append(pythran_export(kernel))
    return "\n".join(lines + [reference_def(kernel)]) + "\n"


def show_abi(kernel: Kernel, language: str) -> str:
    if language in ("python", "pythran"):
        return python_prototype(kernel, language)
    if language == "fortran":
        return (f"! hpcab ABI for {kernel.id}: dimensions are reversed from the manifest's\n"
                f"! row-major shapes (Fortran is column-major); the memory is the same.\n"
                + fortran_interface(kernel))
    return c_header(kernel, language)
