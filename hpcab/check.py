"""Check: numerical validation of a candidate's outputs against the NumPy oracle.

The rules (docs/numerical_validation.md): shapes and dtypes exact; integers and booleans
exact; NaN and ±Inf at the same positions; for floating point, every element inside a band
|got − ref| ≤ rtol·|ref| + atol·max|ref| AND a normwise relative error
‖got − ref‖₂ / ‖ref‖₂ ≤ normwise.
"""

from __future__ import annotations

import attrs
import numpy as np

from hpcab.kernel import Kernel, Tolerance

# Per precision: (rtol, atol relative to the output's largest magnitude, normwise).
BANDS = {
    "float64": Tolerance(rtol=1e-9, atol=1e-12, normwise=1e-10),
    "float32": Tolerance(rtol=1e-4, atol=1e-5, normwise=1e-4),
}


@attrs.frozen
class OutputCheck:
    name: str
    ok: bool
    max_abs_err: float = 0.0
    max_rel_err: float = 0.0
    normwise_err: float = 0.0
    mismatches: int = 0
    message: str = ""


@attrs.frozen
class Check:
    correct: bool
    outputs: tuple[OutputCheck, ...]
    message: str = ""

    @property
    def max_abs_err(self) -> float:
        return max((o.max_abs_err for o in self.outputs), default=0.0)

    @property
    def max_rel_err(self) -> float:
        return max((o.max_rel_err for o in self.outputs), default=0.0)

    @property
    def normwise_err(self) -> float:
        return max((o.normwise_err for o in self.outputs), default=0.0)


def tolerance_for(kernel: Kernel) -> Tolerance:
    """The precision's band, with the manifest's override (if any) on top."""
    band = BANDS.get(kernel.precision, Tolerance(0.0, 0.0, 0.0))
    o = kernel.tolerance
    if o is None:
        return band
    return Tolerance(rtol=o.rtol if o.rtol is not None else band.rtol,
                     atol=o.atol if o.atol is not None else band.atol,
                     normwise=o.normwise if o.normwise is not None else band.normwise, reason=o.reason)


def _index(flat: int, shape: tuple[int, ...]) -> str:
    return str(tuple(int(i) for i in np.unravel_index(flat, shape))) if shape else "()"


def check_output(name: str, got: np.ndarray, ref: np.ndarray, tol: Tolerance) -> OutputCheck:
    got, ref = np.asarray(got), np.asarray(ref)
    if got.shape != ref.shape:
        return OutputCheck(name, False, message=f"{name}: shape {got.shape}, expected {ref.shape}")
    if got.dtype != ref.dtype:
        return OutputCheck(name, False, message=f"{name}: dtype {got.dtype}, expected {ref.dtype}")
    if ref.size == 0:
        return OutputCheck(name, True)

    if ref.dtype.kind not in "fc":
        wrong = got != ref
        count = int(np.count_nonzero(wrong))
        if not count:
            return OutputCheck(name, True)
        first = int(np.flatnonzero(wrong)[0])
        diff = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64)))) if ref.dtype.kind != "b" else 1.0
        return OutputCheck(name, False, max_abs_err=diff, mismatches=count,
                           message=f"{name}: {count} of {ref.size} values differ (exact comparison); first at "
                                   f"{_index(first, ref.shape)}: got {got.flat[first].item()!r}, expected {ref.flat[first].item()!r}")

    # Non-finite values must sit at the same places (NaN vs NaN, +Inf vs +Inf). Most outputs
    # are finite everywhere: then no element is masked out, and no masked copy is made.
    rf = np.isfinite(ref)
    finite = bool(rf.all())
    if not (finite and bool(np.isfinite(got).all())):
        gf = np.isfinite(got)
        same_special = (np.isnan(ref) == np.isnan(got)) & ((rf | np.isnan(ref)) | (got == ref))
        bad = ~same_special | (rf != gf)
        if np.any(bad):
            count = int(np.count_nonzero(bad))
            first = int(np.flatnonzero(bad)[0])
            return OutputCheck(name, False, max_abs_err=float("inf"), max_rel_err=float("inf"),
                               normwise_err=float("inf"), mismatches=count,
                               message=f"{name}: {count} of {ref.size} values are NaN/Inf where the reference's "
                                       f"are not (or the reverse); first at {_index(first, ref.shape)}: got "
                                       f"{got.flat[first].item()!r}, expected {ref.flat[first].item()!r}")

    # Every pass below is over float64 (complex128) values, made once: the error, the
    # magnitude, then the band in place.
    r, g = (ref.ravel(), got.ravel()) if finite else (ref[rf], got[rf])
    if ref.dtype.kind == "c":
        err = np.abs(np.subtract(g, r, dtype=np.complex128))
        mag = np.abs(r.astype(np.complex128, copy=False))
    else:
        err = np.subtract(g, r, dtype=np.float64)
        np.abs(err, out=err)
        mag = np.abs(r, dtype=np.float64)
    scale = float(mag.max()) if mag.size else 0.0
    limit = np.multiply(mag, tol.rtol)
    limit += tol.atol * (scale if scale > 0 else 1.0)
    excess = np.subtract(err, limit, out=limit)     # > 0 exactly where err > limit
    count = int(np.count_nonzero(excess > 0))
    max_abs = float(err.max()) if err.size else 0.0
    nz = mag > 0
    if nz.any():
        max_rel = float((err / mag if nz.all() else np.divide(err, mag, out=np.zeros_like(err), where=nz)).max())
    else:
        max_rel = 0.0 if max_abs == 0 else float("inf")
    rnorm = float(np.linalg.norm(mag))
    enorm = float(np.linalg.norm(err))
    normwise = enorm / rnorm if rnorm > 0 else enorm
    ok = count == 0 and normwise <= tol.normwise
    message = ""
    if not ok:
        worst = int(np.argmax(excess))
        pos = worst if finite else int(np.flatnonzero(rf)[worst])
        message = (f"{name}: max abs error {max_abs:.3g}, max rel error {max_rel:.3g}, normwise {normwise:.3g} "
                   f"(allowed rtol {tol.rtol:g}, atol {tol.atol:g}×max|ref|, normwise {tol.normwise:g}); "
                   f"{count} of {ref.size} elements outside the band; worst at {_index(int(pos), ref.shape)}: "
                   f"got {got.flat[pos].item()!r}, expected {ref.flat[pos].item()!r}")
    return OutputCheck(name, ok, max_abs, max_rel, normwise, count, message)


def check_outputs(kernel: Kernel, got: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> Check:
    tol = tolerance_for(kernel)
    results = []
    for name in kernel.outputs:
        if name not in got:
            results.append(OutputCheck(name, False, message=f"{name}: missing from the candidate's outputs"))
            continue
        results.append(check_output(name, got[name], expected[name], tol))
    failed = [o.message for o in results if not o.ok]
    return Check(not failed, tuple(results), "; ".join(failed))


# ---- the fast path, for checking every timed call ----------------------------------------
# The driver checks every answer of every target. Most are right, and the full check above
# (which locates the worst element, counts, formats) makes several passes over float64
# copies of the output; an answer within the band everywhere and within the normwise bound
# is right whatever that check would say. So each expected output's scale and norm are made
# once per input set (on first need: Expected), and an answer is checked in chunks that stay
# in the cache, giving the same statistics as the full check. Anything else (a NaN, an element outside, an integer
# output that differs) goes to the full check, which says what is wrong. An answer equal to
# the reference's bit for bit (most honest answers of elementwise kernels) is compared in one
# pass of integer words, a tenth of the band's cost: it has no error to measure.

CHUNK = 1 << 15          # elements per step of the fast path: its temporaries stay in the caches


class Expected:
    """A set's expected outputs, and what the fast check needs of each real float output: its
    scale (max|ref|) and norm (‖ref‖₂), made on first need (an answer with the reference's
    bits needs neither) and kept for the set's other answers."""

    def __init__(self, kernel: Kernel, expected: dict[str, np.ndarray]):
        self.outputs = {name: np.asarray(expected[name]) for name in kernel.outputs}
        self.tol = tolerance_for(kernel)
        self._bands: dict[str, tuple[float, float] | None] = {}

    def band(self, name: str) -> tuple[float, float] | None:
        """(scale, norm) of a real float output whose reference is finite everywhere; None
        where only the full check will do."""
        if name not in self._bands:
            self._bands[name] = _band(self.outputs[name])
        return self._bands[name]


def _band(ref: np.ndarray) -> tuple[float, float] | None:
    if ref.dtype.kind != "f" or not ref.size:
        return None
    flat, scale, squares = ref.reshape(-1), 0.0, 0.0
    for start in range(0, flat.size, CHUNK):
        mag = np.abs(flat[start:start + CHUNK], dtype=np.float64)
        top = float(mag.max())
        if not np.isfinite(top):
            return None
        scale, squares = max(scale, top), squares + float(np.dot(mag, mag))
    return scale, float(np.sqrt(squares))


def quick_check(kernel: Kernel, got: dict[str, np.ndarray], prepared: Expected) -> Check | None:
    """The check of a right answer, made in one cached pass per output (what check_outputs
    would give it); None where the answer may be wrong: check_outputs decides and says why."""
    results = []
    tol = prepared.tol
    for name in kernel.outputs:
        ref, g = prepared.outputs[name], got.get(name)
        if g is None or g.shape != ref.shape or g.dtype != ref.dtype:
            return None
        if bits_equal(g, ref):        # the full check finds no error either (NaN and inf positions match)
            results.append(OutputCheck(name, True))
            continue
        band = prepared.band(name)
        if band is None:              # integers that differ, complex, a reference not finite
            return None
        scale, rnorm = band
        floor = tol.atol * (scale if scale > 0 else 1.0)
        r_flat, g_flat = ref.reshape(-1), g.reshape(-1)
        max_abs = max_rel = squares = 0.0
        any_nonzero = False
        for start in range(0, r_flat.size, CHUNK):
            r = r_flat[start:start + CHUNK]
            err = np.subtract(g_flat[start:start + CHUNK], r, dtype=np.float64)
            np.abs(err, out=err)
            mag = np.abs(r, dtype=np.float64)
            limit = mag * tol.rtol
            limit += floor
            if not bool((err <= limit).all()):          # a NaN compares False: the full check
                return None
            max_abs = max(max_abs, float(err.max()))
            squares += float(np.dot(err, err))
            nonzero = mag > 0
            if nonzero.all():
                any_nonzero = True
                max_rel = max(max_rel, float((err / mag).max()))
            elif nonzero.any():
                any_nonzero = True
                max_rel = max(max_rel, float(np.divide(err, mag, out=np.zeros_like(err), where=nonzero).max()))
        if not any_nonzero:
            max_rel = 0.0 if max_abs == 0 else float("inf")
        enorm = float(np.sqrt(squares))
        normwise = enorm / rnorm if rnorm > 0 else enorm
        if normwise > tol.normwise:
            return None
        results.append(OutputCheck(name, True, max_abs, max_rel, normwise))
    return Check(True, tuple(results))


def bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays hold the same bits (NaN payloads and the sign of zero included)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    x, y = a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8)
    n = x.size - x.size % 8
    return bool(np.array_equal(x[:n].view(np.uint64), y[:n].view(np.uint64)) and np.array_equal(x[n:], y[n:]))
