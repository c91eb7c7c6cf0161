"""Grade: the one pipeline from a candidate to a recorded verdict.

Candidate ─► Build ─► (per case) inputs + oracle ─► Run (child) ─► Check ─► Measure ─► Grade ─► Record

The candidate, the NumPy reference and the track's baseline (hpcab/baseline.py) are timed
interleaved in one child. The baseline is the judge's code: its failures are reported in
baseline_error and never change the candidate's status.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import math
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Callable, ContextManager

import attrs
import numpy as np

from hpcab.baseline import PreparedBaseline, baseline_name, prepare_baseline
from hpcab.build import Build, Candidate, build, target_kind
from hpcab.case import Case, input_set_cases, make_inputs, run_oracle
from hpcab.check import Check, check_outputs
from hpcab.environment import fingerprint
from hpcab.harness import build_harness
from hpcab.kernel import Kernel
from hpcab.measure import Speedup, Timing, speedup, summarize
from hpcab.run import Policy, Target, pinned, run_case
from hpcab.toolchain import Toolchains

if TYPE_CHECKING:
    from hpcab.roofline import Machine

CANDIDATE, NUMPY = "candidate", "numpy"
# A measurement slot: entered around each timed run, it yields the CPUs the run may use
# (the judge's slots make concurrent gradings time on disjoint cores, one at a time each).
Slot = Callable[[], ContextManager[tuple[int, ...]]]
# Worst first: the grade's status is the worst of its cases'.
# implausible: correct, but faster than this machine allows or than its own first calls
# (hpcab/roofline.py, _memoized): not scored until a person reviews it.
STATUS_ORDER = ("build_error", "crashed", "timeout", "error", "incorrect", "implausible", "ok")
# A repeated input set answered this many times faster than its first timed call: memoized.
MEMO_RATIO = 2.0
MEMO_MIN_NS = 20_000


@attrs.frozen
class CaseResult:
    case: Case
    status: str                       # ok | incorrect | crashed | timeout | error
    message: str = ""
    check: Check | None = None
    timing: Timing | None = None      # the candidate
    numpy_timing: Timing | None = None
    speedup_numpy: Speedup | None = None
    samples_ns: dict[str, np.ndarray] = attrs.field(factory=dict)
    baseline_timing: Timing | None = None     # the track's baseline (numpy: the same as numpy_timing)
    speedup_baseline: Speedup | None = None   # the candidate over the track's baseline
    baseline_error: str | None = None         # why the baseline has no time here
    cpus: tuple[int, ...] | None = None       # where it was timed
    slot_wait_seconds: float = 0.0            # how long it waited for a measurement slot
    flag: str | None = None                   # why it is implausible: "memoized" | "roofline"

    @property
    def correct(self) -> bool:
        return self.status == "ok"


@attrs.frozen
class Grade:
    id: str
    created_at: str
    kernel_id: str
    candidate: Candidate
    build: Build
    status: str
    cases: tuple[CaseResult, ...]
    speedup_numpy: Speedup | None
    policy: Policy
    environment: dict
    baseline: str | None = None               # numba | c-autopar | numpy (None: graded without one)
    speedup_baseline: Speedup | None = None   # geometric mean over cases, like speedup_numpy
    baseline_error: str | None = None         # a judge-side problem with the baseline, never the candidate's
    baseline_origin: str = ""                 # what the baseline was: generated, an override's path, ...
    durations: dict[str, float] = attrs.field(factory=dict)   # seconds: build, baseline, cases, timed, ...

    @property
    def correct(self) -> bool:
        return self.status == "ok"

    @property
    def message(self) -> str:
        if self.status == "build_error":
            return "the candidate did not compile"
        return "; ".join(f"{c.case.label}: {c.message}" for c in self.cases if c.message)


def geometric_mean_speedup(parts: list[Speedup]) -> Speedup | None:
    """Across cases: geometric means of the values and of the CI bounds (a conservative summary)."""
    if not parts:
        return None
    gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
    return Speedup(gm([p.value for p in parts]), gm([p.ci_low for p in parts]), gm([p.ci_high for p in parts]))


def grade_case(kernel: Kernel, case: Case, library: Path | None, harness: Path | None, policy: Policy,
               baseline: PreparedBaseline | None = None, slot: Slot | None = None,
               machine: "Machine | None" = None, kind: str = "c") -> CaseResult:
    """One case: the candidate (library; None times the NumPy reference and the baseline
    alone), the NumPy reference and the baseline, interleaved in one child. Inputs, the
    oracle and the checks run outside the measurement slot; only the child runs inside it.
    kind: how the child calls the candidate (hpcab.build.target_kind of its language)."""
    set_cases = input_set_cases(case, policy.input_sets)
    inputs = [make_inputs(kernel, c) for c in set_cases]
    expected = [run_oracle(kernel, c, values) for c, values in zip(set_cases, inputs)]
    waited = time.monotonic()
    with (slot() if slot is not None else contextlib.nullcontext(policy.cpus)) as cpus:
        waited = time.monotonic() - waited
        policy = attrs.evolve(policy, cpus=tuple(cpus)) if cpus else policy
        run, extra, base_error = _run_targets(kernel, case, inputs, library, harness, policy, baseline, kind)
    result = _judge_run(kernel, case, expected, library, baseline, run, extra, base_error)
    if result.status == "ok" and machine is not None:
        result = roofline_check(kernel, result, machine)
    return attrs.evolve(result, cpus=policy.cpus, slot_wait_seconds=waited)


def roofline_check(kernel: Kernel, result: CaseResult, machine: "Machine") -> CaseResult:
    """A correct case faster than this machine's roofline allows is implausible."""
    from hpcab.roofline import plausible
    ok, message = plausible(kernel, result.case.sizes, result.timing.median_ns, machine)
    if ok:
        return result
    return attrs.evolve(result, status="implausible", message=message, flag="roofline")


def _run_targets(kernel: Kernel, case: Case, inputs: list[dict[str, np.ndarray]], library: Path | None,
                 harness: Path | None, policy: Policy, baseline: PreparedBaseline | None, kind: str = "c"):
    """The measuring child's run(s): (run, the baseline target still in it or None, baseline error)."""
    targets = ([Target(CANDIDATE, kind, library)] if library is not None else []) + [
        Target(NUMPY, "python", trusted=True)]
    extra = baseline.target if baseline is not None else None
    base_error = ""
    if extra is None:
        run = run_case(kernel, case, inputs, targets, harness, policy)
    else:
        run = run_case(kernel, case, inputs, targets + [extra], harness, policy)
        if run.status != "ok" and run.failed_target in (extra.name, None):
            # The baseline shares the process with the candidate: it must not sink the candidate.
            # Re-run without it; if that fails too and nobody was to blame, it was not the baseline.
            base_error = f"{run.status}: {run.message} (the case was re-run without the baseline)"
            blamed = run.failed_target == extra.name
            run = run_case(kernel, case, inputs, targets, harness, policy)
            if run.status != "ok" and not blamed:
                base_error = ""
            extra = None
        elif run.status == "ok" and extra.name in run.target_errors:
            base_error = run.target_errors[extra.name]
            extra = None
    return run, extra, base_error


def _judge_run(kernel: Kernel, case: Case, expected: list[dict[str, np.ndarray]], library: Path | None,
               baseline: PreparedBaseline | None, run, extra: Target | None, base_error: str) -> CaseResult:
    if run.status != "ok":
        tail = run.stderr_tail.strip() if run.status == "error" else ""
        return CaseResult(case, run.status, run.message + (f"\n{tail}" if tail else ""),
                          baseline_error=base_error or None)
    samples = dict(run.samples_ns)
    numpy_timing = summarize(samples[NUMPY])
    baseline_timing = None
    if extra is not None:
        base_error = _check_baseline(kernel, extra.name, run, expected)
        if base_error:
            samples.pop(extra.name, None)   # a wrong baseline's time is not used
        else:
            baseline_timing = summarize(samples[extra.name])
    elif baseline is not None and baseline.name == NUMPY:
        baseline_timing = numpy_timing

    def result(status: str, message: str = "", check: Check | None = None, timing: Timing | None = None,
               sp_numpy: Speedup | None = None, sp_baseline: Speedup | None = None) -> CaseResult:
        return CaseResult(case, status, message, check, timing, numpy_timing, sp_numpy, samples,
                          baseline_timing, sp_baseline, base_error or None)

    if library is None:
        return result("ok")
    modified = run.inputs_modified.get(CANDIDATE, [])
    if modified:
        return result("incorrect", f"modified read-only input(s) {', '.join(modified)}")
    late = run.changed_after_return.get(CANDIDATE, [])
    if late:
        return result("incorrect", f"output(s) {', '.join(late)} changed after the call had returned "
                                   f"(work left running past the timer)")
    # Every answer the child kept is validated: the warm-up's, each input set's first timed
    # answer and every later one that differed from it.
    timing = summarize(samples[CANDIDATE])
    checks = []
    for key, outs in run.outputs.get(CANDIDATE, {}).items():
        check = check_outputs(kernel, outs, expected[_set_index(key, len(expected))])
        if not check.correct:
            return result("incorrect", f"{_describe_snapshot(key)}: {check.message}", check, timing)
        checks.append(check)
    if not checks:
        return result("error", "the measuring child kept no output to check (outputs larger than the "
                               "snapshot budget?)", None, timing)
    worst = max(checks, key=lambda c: c.normwise_err)
    memo = _memoized(samples[CANDIDATE], run.sample_sets.get(CANDIDATE, []))
    if memo:
        return attrs.evolve(result("implausible", memo, worst, timing), flag="memoized")
    sp_numpy = speedup(samples[NUMPY], samples[CANDIDATE])
    sp_baseline = None
    if baseline is not None and baseline.name == NUMPY:
        sp_baseline = sp_numpy
    elif baseline_timing is not None:
        sp_baseline = speedup(samples[extra.name], samples[CANDIDATE])
    return result("ok", "", worst, timing, sp_numpy, sp_baseline)


def _memoized(samples: np.ndarray, sets: list[int]) -> str:
    """Inputs are copied fresh before every call, so an honest kernel takes about as long on
    an input set it has seen as on one it has not. A candidate that remembers answers is
    slow the first time it meets each set and fast ever after. Each set's first call is
    compared with its second, which comes two rounds later (hpcab.child.set_of_round),
    so a passing disturbance of the machine slows both alike."""
    if len(sets) != len(samples):
        return ""
    seen: dict[int, list[int]] = {}
    for i, s in enumerate(sets):
        if len(seen.setdefault(s, [])) < 2:
            seen[s].append(i)
    pairs = [(float(samples[i]), float(samples[j])) for i, j in (v for v in seen.values() if len(v) == 2)]
    if len(pairs) < 2:
        return ""
    a = float(np.median([f for f, _ in pairs]))
    ratio = float(np.median([f / max(r, 1.0) for f, r in pairs]))
    if a >= MEMO_MIN_NS and ratio > MEMO_RATIO:
        b = float(np.median([r for _, r in pairs]))
        return (f"implausible: its second call on an input set took {b / 1e3:.3g} µs (median), {ratio:.0f}× less "
                f"than its first call on that set ({a / 1e3:.3g} µs): answers remembered rather than computed? "
                f"(not scored until reviewed)")
    return ""


def _set_index(snapshot: str, sets: int) -> int:
    """The input set a kept answer belongs to: 'warmup' is the last set, 'set2@7' is set 2."""
    return sets - 1 if snapshot == "warmup" else int(snapshot[3:].split("@")[0])


def _describe_snapshot(snapshot: str) -> str:
    if snapshot == "warmup":
        return "the warm-up call"
    i, _, n = snapshot[3:].partition("@")
    return f"timed call {int(n) + 1} (input set {i})" if n else f"the first timed call on input set {i}"


def _check_baseline(kernel: Kernel, name: str, run, expected: list[dict[str, np.ndarray]]) -> str:
    """A generated or jitted baseline is validated like a candidate (its first answer on
    each input set); a wrong one is a judge bug, reported, and its time is not used."""
    if name not in run.samples_ns or name not in run.outputs or not len(run.samples_ns[name]):
        return "the measuring child returned no result for it"
    modified = run.inputs_modified.get(name, [])
    if modified:
        return f"it modified read-only input(s) {', '.join(modified)}; its time is not used"
    for key, outs in run.outputs[name].items():
        if "@" in key:
            continue
        check = check_outputs(kernel, outs, expected[_set_index(key, len(expected))])
        if not check.correct:
            return f"its answer is wrong, so its time is not used: {check.message}"
    return ""


def _machine(toolchains: Toolchains, policy: Policy, kernel: Kernel, slot: Slot | None,
             fresh: bool = False) -> "Machine | None":
    """This machine's roofline figures (measured once, then cached), inside a measurement
    slot when there is one; None when the kernel declares no roofline or the probe fails."""
    from hpcab.errors import HpcabError
    from hpcab.roofline import probe
    if kernel.roofline is None:
        return None
    try:
        with (slot() if slot is not None else contextlib.nullcontext(policy.cpus)) as cpus:
            return probe(toolchains, policy.threads, tuple(cpus) if cpus else None, fresh=fresh)
    except HpcabError:
        return None


def grade(kernel: Kernel, candidate: Candidate, cases: list[Case], toolchains: Toolchains,
          flagset: str | None = None, policy: Policy = Policy(),
          progress: Callable[[str], None] | None = None, baseline: bool = True,
          grade_id: str | None = None, slot: Slot | None = None, roofline: bool = True) -> Grade:
    """Build, run, check and measure a candidate on every case, next to the NumPy reference
    and (baseline=True) the track's baseline. Never raises for the candidate's faults, nor
    for the baseline's. slot: the judge's measurement slots (default: time on policy.cpus)."""
    say = progress or (lambda _msg: None)
    policy = pinned(policy) if slot is None else policy
    clock = time.monotonic()
    durations: dict[str, float] = {}

    def lap(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        durations[name] = durations.get(name, 0.0) + now - clock
        clock = now

    say("building")
    built = build(candidate, toolchains, flagset, sandbox=policy.sandbox)   # the compiler is untrusted too
    lap("build")
    results: list[CaseResult] = []
    prepared: PreparedBaseline | None = None
    if built.ok:
        if baseline:
            say(f"preparing the {baseline_name(kernel)} baseline")
            prepared = prepare_baseline(kernel, toolchains)
        harness = build_harness(kernel, toolchains).library
        machine = _machine(toolchains, policy, kernel, slot) if roofline else None
        lap("prepare")
        for case in cases:
            say(f"running {case.describe()}")
            results.append(grade_case(kernel, case, built.library, harness, policy, prepared, slot, machine,
                                      target_kind(candidate.language)))
        if any(r.flag == "roofline" for r in results):
            # Before flagging, measure the machine again: a probe slowed by a neighbour gives
            # a bound too high. Flag only what is still too fast.
            fresh = _machine(toolchains, policy, kernel, slot, fresh=True)
            if fresh is not None:
                results = [roofline_check(kernel, attrs.evolve(r, status="ok", message="", flag=None), fresh)
                           if r.flag == "roofline" else r for r in results]
        lap("cases")
        status = min((r.status for r in results), key=STATUS_ORDER.index, default="ok")
    else:
        status = "build_error"
    used = sorted({c for r in results for c in (r.cpus or ())})
    if used:
        policy = attrs.evolve(policy, cpus=tuple(used))
    env = fingerprint(toolchains, policy.threads, policy.cpus, kernel.corpus_root)
    durations["slot_wait"] = sum(r.slot_wait_seconds for r in results)
    durations["timed"] = sum(float(s.sum()) for r in results for s in r.samples_ns.values()) / 1e9
    durations["candidate_timed"] = sum(float(r.samples_ns[CANDIDATE].sum()) for r in results
                                       if CANDIDATE in r.samples_ns) / 1e9
    scored = [r for r in results if r.case.scored] or results
    overall = geometric_mean_speedup([r.speedup_numpy for r in scored]) if status == "ok" else None
    over_baseline = None
    if status == "ok" and scored and all(r.speedup_baseline for r in scored):
        over_baseline = geometric_mean_speedup([r.speedup_baseline for r in scored])
    errors = ([prepared.error] if prepared is not None and prepared.error else []) + [
        f"{r.case.label or r.case.describe()}: {r.baseline_error}" for r in results if r.baseline_error]
    name = baseline_name(kernel) if baseline else None
    lap("finish")
    return Grade(grade_id or uuid.uuid4().hex,
                 _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds"),
                 kernel.id, candidate, built, status, tuple(results), overall, policy, env,
                 name, over_baseline, "; ".join(errors) or None, prepared.origin if prepared else "", durations)
