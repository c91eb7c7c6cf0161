"""Baselines: the speedup denominator of each track.

    loop_level_reasoning  → numba      the NumPy reference jitted with numba.njit (hpcab[frameworks])
    scientific_computing  → c-autopar  the translator's C, built with the `autopar` flag set
    machine_learning      → numpy      the NumPy reference itself

The NumPy reference stays the correctness oracle for every track. A baseline is the
judge's own code: when it cannot be prepared, built, run or validated, the grade carries
a `baseline_error` and no baseline speedup, and the candidate is graded as usual.
"""

from __future__ import annotations

import attrs

from hpcab.build import Build, Candidate, build
from hpcab.case import Case
from hpcab.kernel import Kernel
from hpcab.measure import Speedup, Timing, geometric_mean_speedup, speedup_json
from hpcab.timing.policy import Policy
from hpcab.timing.records import Target
from hpcab.toolchain import Toolchains

TRACK_BASELINES = {
    "loop_level_reasoning": "numba",
    "scientific_computing": "c-autopar",
    "machine_learning": "numpy",
}
AUTOPAR_FLAGSET = "autopar"
MAX_DIAGNOSTICS_IN_ERROR = 1500


def baseline_name(kernel: Kernel) -> str:
    """The track's baseline: "numba", "c-autopar" or "numpy"."""
    return TRACK_BASELINES[kernel.track]


@attrs.frozen
class PreparedBaseline:
    """A baseline ready to be timed next to a candidate.

    target is None for the numpy baseline (the NumPy reference is always timed) and when
    the baseline could not be prepared (then error says why)."""
    name: str
    target: Target | None
    origin: str                 # what was timed: the override's path, "generated", "numba.njit(reference)", ...
    hand_written: bool = False
    error: str | None = None
    build: Build | None = None

    @property
    def usable(self) -> bool:
        return self.error is None


def prepare_baseline(kernel: Kernel, toolchains: Toolchains) -> PreparedBaseline:
    """The track's baseline for a kernel. Never raises: a problem is the baseline's error."""
    name = baseline_name(kernel)
    if name == "numpy":
        return PreparedBaseline(name, None, "the NumPy reference")
    if name == "numba":
        # Whether numba is importable is found out (and reported) by its runner.
        return PreparedBaseline(name, Target(name, "numba", optional=True, trusted=True), "numba.njit of the NumPy reference")
    return _prepare_c_autopar(kernel, toolchains)


def as_candidate(kernel: Kernel) -> tuple[Candidate, str | None]:
    """The track's baseline as a candidate would hand it in, for an A/A test (the judge must
    grade it 1x against itself): (candidate, flag set). c-autopar: the translator's C with
    the autopar flag set; numba: the reference with numba.njit, a Python candidate; numpy:
    the reference itself, a Python candidate."""
    name = baseline_name(kernel)
    if name == "c-autopar":
        from hpcab.translate import translate
        source = translate(kernel, "c", AUTOPAR_FLAGSET).source
        return Candidate(source, "c", label="aa-autopar.c"), AUTOPAR_FLAGSET
    source = kernel.reference_path.read_text()
    if name == "numba":
        source += f"\n\nimport numba as _numba\n{kernel.name} = _numba.njit({kernel.name})\n"
    return Candidate(source, "python", label=f"aa-{name}.py"), None


def _prepare_c_autopar(kernel: Kernel, toolchains: Toolchains) -> PreparedBaseline:
    name = "c-autopar"
    try:
        from hpcab.translate import TranslateError, translate
    except Exception as exc:   # the translator package itself is broken: a judge problem
        return PreparedBaseline(name, None, "", error=f"the translator cannot be imported: {_brief(exc)}")
    try:
        t = translate(kernel, "c", AUTOPAR_FLAGSET)
    except TranslateError as exc:
        return PreparedBaseline(name, None, "generated",
                                error=f"the translator cannot translate {kernel.name} to C:\n{exc}")
    except (ImportError, NotImplementedError) as exc:
        return PreparedBaseline(name, None, "generated",
                                error=f"the translator is not available for {kernel.name}: {_brief(exc)}")
    except Exception as exc:
        return PreparedBaseline(name, None, "generated",
                                error=f"the translator failed on {kernel.name}: {_brief(exc)}")
    label = f"{name} baseline for {kernel.name} ({'hand-written' if t.hand_written else 'generated'})"
    try:
        built = build(Candidate(t.source, "c", label=label), toolchains, AUTOPAR_FLAGSET)
    except Exception as exc:
        return PreparedBaseline(name, None, t.origin, t.hand_written, f"cannot build the baseline: {_brief(exc)}")
    if not built.ok:
        diag = built.diagnostics.strip()
        if len(diag) > MAX_DIAGNOSTICS_IN_ERROR:
            diag = "…" + diag[-MAX_DIAGNOSTICS_IN_ERROR:]
        return PreparedBaseline(name, None, t.origin, t.hand_written,
                                f"the baseline's C did not compile ({built.compiler}, flags {built.flagset}):\n{diag}",
                                built)
    return PreparedBaseline(name, Target(name, "c", built.library, optional=True, trusted=True), t.origin, t.hand_written,
                            None, built)


def _brief(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


# ---- timing a baseline on its own (`hpcab baseline`) --------------------------------

@attrs.frozen
class BaselineCase:
    case: Case
    status: str                      # the measuring run's: ok | crashed | timeout | error
    message: str
    numpy_timing: Timing | None
    baseline_timing: Timing | None
    speedup_over_numpy: Speedup | None     # how many times faster the baseline is than NumPy
    baseline_error: str | None


@attrs.frozen
class BaselineMeasurement:
    kernel_id: str
    track: str
    baseline: PreparedBaseline
    cases: tuple[BaselineCase, ...]
    policy: Policy

    @property
    def error(self) -> str | None:
        errors = ([self.baseline.error] if self.baseline.error else []) + [
            f"{c.case.label or c.case.describe()}: {c.baseline_error}" for c in self.cases if c.baseline_error]
        return "; ".join(errors) or None

    @property
    def failed(self) -> list[BaselineCase]:
        return [c for c in self.cases if c.status != "ok"]

    def overall(self) -> Speedup | None:
        """The baseline over NumPy, geometric mean of the cases; None when any case has none."""
        parts = [c.speedup_over_numpy for c in self.cases]
        if self.baseline.name == "numpy" or self.failed or not parts or not all(parts):
            return None
        return geometric_mean_speedup(parts)

    def document(self) -> dict:
        """As JSON: `hpcab baseline --json` and the judge's GET /baseline/<kernel>."""

        def ci(t: Timing | None) -> list[float] | None:
            return [t.ci_low_ns, t.ci_high_ns] if t else None
        return {
            "kernel": self.kernel_id, "track": self.track, "baseline": self.baseline.name,
            "origin": self.baseline.origin or None, "hand_written": self.baseline.hand_written,
            "error": self.error, "threads": self.policy.threads,
            "speedup_vs_numpy": speedup_json(self.overall()),
            "cases": [{"label": c.case.label, "sizes": c.case.sizes, "seed": c.case.seed, "status": c.status,
                       "message": c.message,
                       "numpy_median_ns": c.numpy_timing.median_ns if c.numpy_timing else None,
                       "numpy_ci95_ns": ci(c.numpy_timing),
                       "baseline_median_ns": c.baseline_timing.median_ns if c.baseline_timing else None,
                       "baseline_ci95_ns": ci(c.baseline_timing),
                       "speedup_vs_numpy": speedup_json(c.speedup_over_numpy)} for c in self.cases],
        }
