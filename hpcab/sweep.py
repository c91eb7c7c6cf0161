"""The corpus sweep: every kernel's baselines checked against its reference, in one process.

What the corpus promises of each kernel (CORPUS.md item 5) is that its track's baseline and
the translator's output build and are correct. Grading each one through the judge costs a
measuring driver, runners and, for numba, a compile per grade: seconds per kernel, an hour
over hundreds. The sweep instead builds the translator's C and Fortran with the judge's own
toolchains and calls the libraries here, through ctypes, on the case's inputs, and jits the
reference with numba here too, then checks every output with the judge's own check.

Only trusted code runs in this process: the translator's output and the reference. A
candidate is never called here (the judge runs those sandboxed, hpcab/timing/trusted/driver.py).
"""

from __future__ import annotations

import ctypes
import time

import attrs
import numpy as np

from hpcab import expr
from hpcab.abi import params
from hpcab.build import Candidate, build
from hpcab.case import Case, make_inputs, preset_case, reference_args, run_oracle
from hpcab.check import check_outputs
from hpcab.kernel import Kernel
from hpcab.toolchain import Toolchains

# (language, flag set): what the translator's baselines are built as.
TRANSLATIONS = (("c", "opt"), ("c", "autopar"), ("fortran", "opt"))

_CTYPES = {
    "float32": ctypes.c_float, "float64": ctypes.c_double,
    "int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
    "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64,
    "bool": ctypes.c_bool,
}


@attrs.frozen
class Finding:
    kernel: str
    target: str           # c/opt, fortran/opt, numba, ...
    ok: bool
    message: str = ""
    fastest_ns: float | None = None     # with timed=True: the fastest of a few calls (fastest_ns)

    def __str__(self) -> str:
        return f"{self.kernel} {self.target}: {'ok' if self.ok else self.message}"


def call_library(kernel: Kernel, library, values: dict[str, np.ndarray], sizes: dict[str, int]) -> dict:
    """Call a built kernel library with the C ABI on copies of `values`; its outputs by name.
    Trusted libraries only (the translator's): it runs in this process, unsandboxed."""
    call, outs = bind_library(kernel, library, values, sizes)
    call()
    return outs


def bind_library(kernel: Kernel, library, values: dict[str, np.ndarray], sizes: dict[str, int]):
    """(call, outputs): a no-argument call of the library on copies of `values`, and the
    buffers it writes its outputs into."""
    lib = ctypes.CDLL(str(library))
    fn = getattr(lib, kernel.name)
    fn.restype = None
    bufs = {k: v.copy() for k, v in values.items()}
    for r in kernel.returns:
        bufs[r.name] = np.zeros(kernel.shape_of(r, sizes) or (1,), dtype=r.dtype)
    workspace_bytes = int(expr.evaluate(kernel.workspace_bytes, sizes))
    workspace = np.zeros(max(workspace_bytes, 1), dtype=np.uint8)
    args, types = [], []
    for p in params(kernel):
        if p.role in ("array", "return"):
            args.append(bufs[p.name].ctypes.data_as(ctypes.c_void_p))
            types.append(ctypes.c_void_p)
        elif p.role == "workspace":
            args.append(workspace.ctypes.data_as(ctypes.c_void_p))
            types.append(ctypes.c_void_p)
        elif p.name == "workspace_size":
            args.append(ctypes.c_int64(workspace_bytes))
            types.append(ctypes.c_int64)
        elif p.role == "size":
            args.append(ctypes.c_int64(sizes[p.name]))
            types.append(ctypes.c_int64)
        else:
            ctype = _CTYPES.get(p.dtype)
            if ctype is None:
                raise TypeError(f"a {p.dtype} scalar cannot be passed by value through ctypes")
            args.append(ctype(values[p.name][()]))
            types.append(ctype)
    fn.argtypes = types
    outs = {a.name: bufs[a.name] for a in kernel.arrays if a.is_output}
    for r in kernel.returns:
        outs[r.name] = bufs[r.name].reshape(kernel.shape_of(r, sizes) or (1,))

    def call():
        fn(*args)
    return call, outs


def fastest_ns(call, calls: int = 5) -> float:
    """The fastest of a few calls after a first one, in ns: what a roofline bound must stay
    below (the fastest honest time is the one a bound could wrongly beat). Inputs repeat,
    so this is for bounds, never for speedups."""
    call()
    best = float("inf")
    for _ in range(calls):
        t0 = time.perf_counter_ns()
        call()
        best = min(best, time.perf_counter_ns() - t0)
    return float(best)


def _judge(kernel: Kernel, expected: dict, got: dict, target: str) -> Finding:
    result = check_outputs(kernel, got, expected)
    return Finding(kernel.name, target, bool(result.correct), "" if result.correct else result.message)


def check_translation(kernel: Kernel, language: str, flagset: str, toolchains: Toolchains,
                      case: Case, values: dict, expected: dict, timed: bool = False) -> Finding:
    """The translator's `language` at `flagset` builds and agrees with the reference."""
    from hpcab.translate import TranslateError, translate
    target = f"{language}/{flagset}"
    try:
        t = translate(kernel, language, flagset)
    except TranslateError as exc:
        return Finding(kernel.name, target, False, f"does not translate: {exc}")
    b = build(Candidate(t.source, language, label=f"sweep-{language}-{flagset}"), toolchains, flagset)
    if not b.ok:
        return Finding(kernel.name, target, False, f"does not build: {b.diagnostics[:2000]}")
    try:
        call, got = bind_library(kernel, b.library, values, case.sizes)
    except TypeError as exc:
        return Finding(kernel.name, target, True, f"not called here ({exc})")
    call()
    found = _judge(kernel, expected, got, target)
    if timed and found.ok and flagset != "autopar":      # one thread: the bound's own machine figures
        found = attrs.evolve(found, fastest_ns=fastest_ns(call))
    return found


def check_numba(kernel: Kernel, case: Case, values: dict, expected: dict) -> Finding:
    """numba compiles the reference and its jit agrees with the reference (the numba baseline)."""
    import numba

    from hpcab.case import collect_outputs
    from hpcab.timing.untrusted.runner import _cast_returns
    jitted = numba.njit(kernel.reference().function)
    copies = {k: v.copy() for k, v in values.items()}
    try:
        returned = jitted(*reference_args(kernel, copies, case.sizes))
    except Exception as exc:      # numba's typing and lowering errors have no common base
        first = str(exc).strip().splitlines()
        return Finding(kernel.name, "numba", False, f"numba cannot compile it: {type(exc).__name__}: "
                                                    f"{first[0] if first else ''}")
    if kernel.returns:          # numba boxes a returned scalar: the runner's own cast
        returned = _cast_returns(returned, kernel.returns, scalars_only=False)
    got = collect_outputs(kernel, copies, returned, case.sizes, "numba")
    return _judge(kernel, expected, got, "numba")


def time_reference(kernel: Kernel, case: Case, values: dict) -> Finding:
    """The NumPy reference's fastest call on the case (a Finding with target numpy)."""
    fn = kernel.reference().function
    copies = {k: v.copy() for k, v in values.items()}
    args = reference_args(kernel, copies, case.sizes)
    return Finding(kernel.name, "numpy", True, fastest_ns=fastest_ns(lambda: fn(*args), calls=3))


def sweep_kernel(kernel: Kernel, toolchains: Toolchains, preset: str = "S", numba: bool | None = None,
                 translations=TRANSLATIONS, timed: bool = False) -> list[Finding]:
    """Every baseline of one kernel checked at one preset: the translations, and numba for
    the loop-level track (numba=None) or when asked. timed: the NumPy reference and the
    one-thread translations also carry their fastest call (for the roofline's check)."""
    case = preset_case(kernel, preset)
    values = make_inputs(kernel, case)
    expected = run_oracle(kernel, case, values)
    found = [check_translation(kernel, lang, fs, toolchains, case, values, expected, timed)
             for lang, fs in translations]
    if timed:
        found.append(time_reference(kernel, case, values))
    if numba or (numba is None and kernel.track == "loop_level_reasoning"):
        found.append(check_numba(kernel, case, values, expected))
    return found

