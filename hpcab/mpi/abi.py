"""The distributed prototype (docs/mpi.md): the C ABI of docs/abi_contract.md, each split
array's pointer its rank's tile, with after the size symbols each split array's
`<array>_first` and `<array>_count` (the first global index the rank owns along the split
axis, and how many it owns), then the communicator as an `MPI_Fint` (C and Fortran agree on
it; C gets its handle with MPI_Comm_f2c), then the workspace pair.

    void jacobi_2d(double *restrict A, double *restrict B, int64_t TSTEPS, int64_t N,
                   int64_t A_first, int64_t A_count, int64_t B_first, int64_t B_count,
                   MPI_Fint comm, uint8_t *restrict workspace, int64_t workspace_size);
"""

from __future__ import annotations

from hpcab.abi import C_TYPES, CPP_TYPES, FORTRAN_TYPES, Param, _c_param, fortran_expr, free_form_lines, params
from hpcab.errors import InputError
from hpcab.kernel import Kernel

COMM = "comm"


def mpi_params(kernel: Kernel) -> tuple[Param, ...]:
    """Every argument of the distributed function, in order (a split array's shape is its
    tile's: the split axis's extent is `<array>_count`)."""
    if kernel.mpi is None:
        raise InputError(str(kernel.manifest_path), "mpi", "this kernel has no mpi: block; it is not in the "
                                                           "distributed track (hpcab list --mpi)")
    out = []
    for p in params(kernel):
        if p.role == "workspace" or p.name == "workspace_size":
            continue
        s = kernel.mpi.split_of(p.name) if p.role == "array" else None
        if s is not None:
            shape = tuple(f"{p.name}_count" if i == s.axis else d for i, d in enumerate(p.shape))
            p = Param(p.name, p.dtype, True, p.const, shape, "array")
        out.append(p)
    for s in kernel.mpi.split:
        out += [Param(f"{s.array}_first", "int64", False, role="tile"),
                Param(f"{s.array}_count", "int64", False, role="tile")]
    out.append(Param(COMM, "int32", False, role="comm"))
    base = params(kernel)
    return tuple(out) + base[-2:]


def _c_arg(p: Param, types: dict, restrict: str) -> str:
    return f"MPI_Fint {p.name}" if p.role == "comm" else _c_param(p, types, restrict)


def c_prototype(kernel: Kernel, language: str = "c") -> str:
    types = C_TYPES if language == "c" else CPP_TYPES
    restrict = "restrict" if language == "c" else "__restrict__"
    args = ",\n    ".join(_c_arg(p, types, restrict) for p in mpi_params(kernel))
    linkage = "" if language == "c" else 'extern "C" '
    return f"{linkage}void {kernel.name}(\n    {args});"


def _about(kernel: Kernel, prefix: str) -> list[str]:
    spec = kernel.mpi
    lines = [f"hpcab distributed ABI for {kernel.id} ({spec.scaling} scaling, {spec.ranks} ranks by default).",
             "Each rank gets its tiles: a split array holds only the indices its rank owns along",
             "the split axis (<array>_first: the first of them, <array>_count: how many), in order.",
             "Declare the distribution on one line of the source (default: the manifest's):",
             "  hpcab-distribution: " + " ".join(f"{s.array}={s.default}" for s in spec.split),
             "block: contiguous, the first N % R ranks one more; cyclic: r, r+R, ...;",
             "block-cyclic:B: blocks of B dealt round-robin; replicated: the whole array.",
             "Arrays not split, and returned values, are whole on every rank; rank 0's outputs count."]
    for s in spec.split:
        a = next(x for x in kernel.arrays if x.name == s.array)
        dims = "".join(f"[{d}]" for d in a.shape)
        lines.append(f"  {s.array:<10} {dims:<16} split along axis {s.axis}: {', '.join(s.allowed)}")
    return [prefix + ln for ln in lines]


def c_header(kernel: Kernel, language: str = "c") -> str:
    includes = ["#include <mpi.h>"] + (["#include <stdbool.h>", "#include <stdint.h>"] if language == "c"
                                       else ["#include <cstdint>", "#include <complex>"])
    if language == "c" and any(p.dtype.startswith("complex") for p in mpi_params(kernel)):
        includes.append("#include <complex.h>")
    about = "\n".join(_about(kernel, "   "))
    return ("/*" + about[2:] + "\n   Arrays are contiguous row-major (C order); outputs are written in place.\n"
            "   MPI_Comm c = MPI_Comm_f2c(comm): every rank calls with the same communicator. */\n"
            + "\n".join(includes) + "\n\n" + c_prototype(kernel, language) + "\n")


def fortran_interface(kernel: Kernel) -> str:
    ps = mpi_params(kernel)
    names = ", ".join(p.name for p in ps)
    lines = [*_about(kernel, "! "), "! Dimensions are reversed from the manifest's row-major shapes.",
             f"subroutine {kernel.name}({names}) &", f"    bind(C, name=\"{kernel.name}\")",
             "  use, intrinsic :: iso_c_binding", "  implicit none"]
    lines += [f"  {FORTRAN_TYPES[p.dtype]}, value, intent(in) :: {p.name}" for p in ps
              if not p.pointer and p.role in ("size", "tile")]
    lines += [f"  integer(c_int), value, intent(in) :: {p.name}" for p in ps if p.role == "comm"]
    lines += [f"  {FORTRAN_TYPES[p.dtype]}, value, intent(in) :: {p.name}" for p in ps
              if not p.pointer and p.role == "scalar"]
    intents = {a.name: a.intent for a in kernel.arrays}
    for p in ps:
        if p.pointer:
            intent = intents.get(p.name, "inout" if p.role == "workspace" else "out")
            dims = ", ".join(fortran_expr(d) for d in reversed(p.shape))
            lines.append(f"  {FORTRAN_TYPES[p.dtype]}, intent({intent}) :: {p.name}({dims})")
    lines.append(f"end subroutine {kernel.name}")
    return "\n".join(out for ln in lines for out in free_form_lines(ln)) + "\n"


def show_mpi_abi(kernel: Kernel, language: str) -> str:
    if language == "fortran":
        return fortran_interface(kernel)
    if language in ("c", "cpp"):
        return c_header(kernel, language)
    raise InputError("--abi", language, "the distributed ABI is for c, cpp and fortran")
