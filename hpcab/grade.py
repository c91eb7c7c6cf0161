"""Grade: the one pipeline from a candidate to a recorded verdict.

Candidate ─► Build ─► (per case) inputs + oracle ─► Run (child) ─► Check ─► Measure ─► Grade ─► Record

The candidate, the NumPy reference and the track's baseline (hpcab/baseline.py) are timed
interleaved by a measuring driver, in several independent sessions per scored case (a
driver and its runners each, the targets' order rotated). The baseline is the judge's code:
its failures are reported in baseline_error and never change the candidate's status.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import math
import os
import secrets
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Callable, ContextManager

import attrs
import numpy as np

from hpcab.baseline import BaselineCase, BaselineMeasurement, PreparedBaseline, baseline_name, prepare_baseline
from hpcab.build import Build, BuildLimits, Candidate, build, target_kind
from hpcab.case import Case, session_case
from hpcab.check import Check
from hpcab.environment import fingerprint
from hpcab.timing.untrusted.harness import build_harness
from hpcab.kernel import Kernel
from hpcab.measure import Speedup, Timing, geometric_mean_speedup, speedup, summarize
from hpcab.mpi.distribution import Layout
from hpcab.timing.policy import Policy, pinned, session_policy
from hpcab.timing.records import Diagnostics, RunResult, Target, Verdict
from hpcab.timing.session import Driver, run_case
from hpcab.toolchain import Toolchains

if TYPE_CHECKING:
    from hpcab.roofline import Machine

CANDIDATE, NUMPY = "candidate", "numpy"
# A measurement slot: entered around each timed run, it yields the CPUs the run may use
# (the judge's slots make concurrent gradings time on disjoint cores, one at a time each).
Slot = Callable[[], ContextManager[tuple[int, ...]]]
# Worst first: the grade's status is the worst of its cases'.
# implausible: correct, but faster than this machine allows, than its own calls on new input
# sets, or using CPU outside its calls (hpcab/roofline.py, hpcab/timing/trusted/rounds.py): not scored until
# a person reviews it.
STATUS_ORDER = ("build_error", "crashed", "timeout", "error", "incorrect", "implausible", "ok")
# A case that ends so ends the grade: the later cases would only cost another limit each.
FATAL = ("crashed", "timeout")
# Repeated input sets enter a case's speedup only where the candidate's calls on them are
# shown as slow as its calls on new sets (their median at least this share of the new sets'
# median, over all sessions): a candidate that remembers answers gains at most 3 % by it.
REPEAT_FLOOR = 0.97
REPEAT_MIN_CALLS = 8        # ... on at least this many calls of each kind, else new sets only
# A candidate this much faster on repeated sets than on new ones (at least MEMO_MIN_NS a call
# on new ones) has its calls on repeated sets put to the roofline as well ("memoized").
MEMO_RATIO = 2.0
MEMO_MIN_NS = 20_000
# A hidden case's grading takes the same time whatever the case holds: padded to, and cut
# at, HIDDEN_PAD_FACTOR x the public cases' time per session x its sessions + HIDDEN_PAD_S,
# so the answer's latency carries one bit of it (ran past that or not), no size, no time.
HIDDEN_PAD_FACTOR = 1.5
HIDDEN_PAD_S = 5.0
# No session starts with less than this left of the grade's wall-clock limit.
MIN_SESSION_S = 1.0


@attrs.frozen
class CaseResult:
    case: Case
    status: str                       # ok | incorrect | crashed | timeout | error
    message: str = ""
    check: Check | None = None
    timing: Timing | None = None      # the candidate
    numpy_timing: Timing | None = None
    speedup_numpy: Speedup | None = None
    samples_ns: dict[str, np.ndarray] = attrs.field(factory=dict)   # every session's, one after another
    baseline_timing: Timing | None = None     # the track's baseline (numpy: the same as numpy_timing)
    speedup_baseline: Speedup | None = None   # the candidate over the track's baseline
    baseline_error: str | None = None         # why the baseline has no time here
    cpus: tuple[int, ...] | None = None       # where it was timed
    slot_wait_seconds: float = 0.0            # how long it waited for a measurement slot
    flag: str | None = None                   # why it is implausible: "memoized" | "roofline" | "cpu"
    memo_seen_ns: float | None = None         # faster on a repeated set (_judge_repeats): its median call there
    diagnostics: Diagnostics = attrs.field(factory=Diagnostics)   # how it was measured (every session's)
    # How many of each target's samples each session took, in order (one session: one count).
    session_counts: dict[str, tuple[int, ...]] = attrs.field(factory=dict)
    # A distributed candidate (hpcab/mpi): each rank's time of each timed call, (calls, ranks).
    rank_samples_ns: np.ndarray | None = None
    seconds: float = 0.0                      # wall time in its measurement slot, every session

    @property
    def sessions(self) -> int:
        return max((len(c) for c in self.session_counts.values()), default=1)

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
    compilers: dict[str, str] = attrs.field(factory=dict)     # name → exact version, of what built its code
    compiler_warnings: tuple[str, ...] = ()   # a major version not the one toolchains/ pins
    # A distributed grade (docs/mpi.md): {"ranks", "launcher", "distribution": {array: "block", ...}}
    mpi: dict | None = None

    @property
    def correct(self) -> bool:
        return self.status == "ok"

    @property
    def message(self) -> str:
        if self.status == "build_error":
            return "the candidate did not compile"
        return "; ".join(f"{c.case.label}: {c.message}" for c in self.cases if c.message)


def _hidden_pad(case: Case, done: list[CaseResult], policy: Policy) -> float | None:
    """How long a hidden case's grading takes, whatever it holds (HIDDEN_PAD_FACTOR): a
    function of the public cases graded before it (their time per session) and of the
    policy alone. None for a public case, or with no public case graded before it."""
    if case.visibility != "hidden":
        return None
    public = [r for r in done if r.case.visibility != "hidden" and r.seconds > 0]
    if not public:
        return None
    per_session = max(r.seconds / r.sessions for r in public)
    sessions = max(policy.sessions, 1) if case.scored else 1
    return HIDDEN_PAD_FACTOR * per_session * sessions + HIDDEN_PAD_S


def grade_case(kernel: Kernel, case: Case, library: Path | None, harness: Path | None, policy: Policy,
               baseline: PreparedBaseline | None = None, slot: Slot | None = None,
               machine: "Machine | None" = None, kind: str = "c", mpi: dict | None = None,
               secret: bytes | None = None, budget: float | None = None, driver: Driver | None = None) -> CaseResult:
    """One case: the candidate (library; None times the NumPy reference and the baseline
    alone), the NumPy reference and the baseline, each in a process of its own, timed call by
    call and interleaved by the measuring driver (hpcab/timing/trusted/driver.py), which makes the inputs
    and checks every answer. The driver and its runners run inside the measurement slot.
    kind: how the candidate is called (hpcab.build.target_kind of its language).
    secret: the grade's (hpcab.case.session_case; None: fresh random bytes). budget: the
    seconds the case may spend in its slot, every session together (None: no bound beyond
    each session's own limit). driver: the grade's (None: one for this case)."""
    secret = secrets.token_bytes(32) if secret is None else secret
    waited = time.monotonic()
    with (slot() if slot is not None else contextlib.nullcontext(policy.cpus)) as cpus:
        began = time.monotonic()
        waited = began - waited
        policy = attrs.evolve(policy, cpus=tuple(cpus)) if cpus else policy
        targets = ([Target(CANDIDATE, kind, library, mpi=mpi)] if library is not None else []) + [
            Target(NUMPY, "python", trusted=True)]
        extra = baseline.target if baseline is not None else None
        with contextlib.nullcontext(driver) if driver is not None else Driver() as driver:
            run, counts = _sessions(kernel, case, targets, extra, harness, policy, driver, secret,
                                    None if budget is None else began + budget)
        seconds = time.monotonic() - began
    result = _judge_run(kernel, case, library, baseline, run, extra, counts, policy.drift)
    # A tiny edge shape (not scored) is checked for correctness only: its time is not in the
    # speedup, and at a few hundred nanoseconds the round trip's jitter alone could put it
    # under the roofline.
    if result.status == "ok" and machine is not None and case.scored:
        result = roofline_check(kernel, result, machine)
    return attrs.evolve(result, cpus=policy.cpus, slot_wait_seconds=waited, seconds=seconds)


def _sessions(kernel: Kernel, case: Case, targets: list[Target], extra: Target | None, harness: Path | None,
              policy: Policy, driver: Driver, secret: bytes | None = None,
              deadline: float | None = None) -> tuple[RunResult, dict[str, tuple[int, ...]]]:
    """The case measured in policy.sessions independent sessions (one if it is not scored):
    each with fresh processes of every target, its own input sets
    (hpcab.case.session_case) and the targets' order rotated, so that which process starts
    first and which target leads a round changes from one session to the next. A failure,
    a wrong answer or a flag ends the case at that session. deadline (time.monotonic()): when
    the case's budget runs out; a session gets at most what is left of it."""
    k = max(policy.sessions, 1) if case.scored else 1
    one = session_policy(policy, k)
    runs: list[RunResult] = []
    for s in range(k):
        limited = one
        if deadline is not None:
            left = deadline - time.monotonic()
            if left < MIN_SESSION_S:
                runs.append(RunResult("timeout", f"the grade's wall-clock limit was reached before measuring session "
                                                 f"{s + 1} of {k}", failed_target=CANDIDATE, failed_phase="loading"))
                break
            if left < one.timeout_seconds:
                limited = attrs.evolve(one, timeout_seconds=left)
        everyone = targets + ([extra] if extra is not None else [])
        turn = s % len(everyone)
        run = run_case(kernel, session_case(case, s, secret), everyone[turn:] + everyone[:turn], harness, limited,
                       driver)
        if run.status == "timeout" and limited is not one:
            # The grade's limit ran out, not a session's: its time went to the candidate's
            # sessions, whichever target was in its call then (the NumPy reference's is the
            # judge's failure only on a session's own limit).
            run = attrs.evolve(run, failed_target=CANDIDATE,
                               message=f"the grade's wall-clock limit was reached while {run.failed_phase} "
                                       f"target {run.failed_target!r}")
        runs.append(run)
        if extra is not None and extra.name in run.target_errors:
            extra = None                 # dropped: the baseline failed, the others go on
        if run.status != "ok" or run.cpu or (run.verdict and not run.verdict.correct):
            break
    return _merge(_judge_repeats(runs))


def _judge_repeats(runs: list[RunResult]) -> list[RunResult]:
    """The sessions, their rounds on repeated input sets kept only where the candidate was as
    slow on those as on new sets (REPEAT_FLOOR, over every session's calls). Which rounds
    repeat is the driver's secret draw, but a candidate can tell a set it has seen by its
    contents: what it does with that gains it nothing here. Much faster on repeated sets
    (MEMO_RATIO), its median call there is kept for the roofline (roofline_check)."""
    from hpcab.timing.trusted.rounds import MIN_FRESH
    new, seen, first = [], [], []
    for r in runs:
        # The session's first rounds are all new sets, and the coldest: left out of the
        # comparison, which then sets new and repeated sets drawn over the same rounds.
        calls = list(zip(r.samples_ns.get(CANDIDATE, ()), r.fresh.get(CANDIDATE, ())))
        first += [int(ns) for ns, _ in calls[:MIN_FRESH]]
        for ns, fresh in calls[MIN_FRESH:]:
            (new if fresh else seen).append(int(ns))
    if not any(not f for r in runs for f in r.fresh.get(CANDIDATE, ())):
        return runs
    a = float(np.median(new)) if new else math.inf
    b = float(np.median(seen)) if seen else 0.0
    if len(new) >= REPEAT_MIN_CALLS and len(seen) >= REPEAT_MIN_CALLS and b >= REPEAT_FLOOR * a:
        return runs
    runs = [_new_sets_only(r) for r in runs]
    if not new:
        # No new set past the first rounds (none made ahead, none affordable): the memo
        # test compares with those, the coldest (it flags only at MEMO_RATIO, and the case
        # is implausible only where the repeated calls then beat the roofline).
        new, a = first, float(np.median(first)) if first else math.inf
    if new and seen and a >= MEMO_MIN_NS and a / max(b, 1.0) > MEMO_RATIO:
        memo = (f"its calls on input sets it had already seen took {b / 1e3:.3g} µs (median), {a / max(b, 1.0):.2g}× "
                f"less than its calls on new sets ({a / 1e3:.3g} µs; {len(seen)} and {len(new)} calls)")
        runs[-1] = attrs.evolve(runs[-1], memo=memo, memo_seen_ns=b)
    return runs


def _new_sets_only(run: RunResult) -> RunResult:
    """The run with only the rounds whose input set was new to every target: the candidate
    was faster on sets it had seen, so repeated rounds would time what it (or the machine's
    branch predictor) remembered rather than what it computes. Every target keeps the same
    rounds, so the speedups still compare calls on the same sets."""
    keep = {t: np.asarray(run.fresh.get(t, [True] * len(v)), dtype=bool) for t, v in run.samples_ns.items()}
    return attrs.evolve(
        run, samples_ns={t: v[keep[t]] for t, v in run.samples_ns.items()},
        sample_sets={t: [i for i, k in zip(v, keep[t]) if k] for t, v in run.sample_sets.items() if t in keep},
        fresh={t: [f for f in v if f] for t, v in run.fresh.items()})


def _merge(runs: list[RunResult]) -> tuple[RunResult, dict[str, tuple[int, ...]]]:
    """The sessions' results as one: every target's samples one session after another (a
    target dropped in any session is dropped from all), the first failure, wrong answer or
    flag, the worst error over the sessions' checks, the round trips' medians."""
    if len(runs) == 1:
        r = runs[0]
        return r, {t: (len(v),) for t, v in r.samples_ns.items() if len(v)}
    errors: dict[str, str] = {}
    for r in runs:
        errors.update(r.target_errors)
    names = [t for t in runs[0].samples_ns if t not in errors]
    samples = {t: np.concatenate([r.samples_ns[t] for r in runs if t in r.samples_ns]) for t in names}
    counts = {t: tuple(len(r.samples_ns[t]) for r in runs if len(r.samples_ns.get(t, ())))
              for t in names if len(samples[t])}
    last = runs[-1]
    verdicts = [r.verdict for r in runs if r.verdict is not None]
    wrong = next((v for v in verdicts if not v.correct), None)
    checks = [v.check for v in verdicts if v.check is not None]
    verdict = wrong or (attrs.evolve(verdicts[-1], check=max(checks, key=lambda c: c.normwise_err)) if checks
                        else verdicts[-1] if verdicts else None)
    merged = attrs.evolve(
        last, samples_ns=samples, inputs_modified={k: v for r in runs for k, v in r.inputs_modified.items()},
        wall_seconds=sum(r.wall_seconds for r in runs), target_errors=errors,
        sample_sets={t: [i for r in runs for i in r.sample_sets.get(t, [])] for t in names},
        fresh={t: [f for r in runs for f in r.fresh.get(t, [])] for t in names}, verdict=verdict,
        diagnostics=Diagnostics.merge([r.diagnostics for r in runs]), memo=next((r.memo for r in runs if r.memo), ""),
        memo_seen_ns=next((r.memo_seen_ns for r in runs if r.memo), None),
        rank_samples_ns=(np.concatenate(ranked) if (ranked := [r.rank_samples_ns for r in runs
                                                               if r.rank_samples_ns is not None]) else None))
    return merged, counts


def roofline_check(kernel: Kernel, result: CaseResult, machine: "Machine") -> CaseResult:
    """A correct case faster than this machine's roofline allows is implausible; so is one whose
    calls on a repeated input set were: answers remembered, not computed."""
    from hpcab.roofline import plausible
    ok, message = plausible(kernel, result.case.sizes, result.timing.median_ns, machine,
                            round_trip_ns=result.diagnostics.subtracted_ns)
    if not ok:
        return attrs.evolve(result, status="implausible", message=message, flag="roofline")
    if result.memo_seen_ns is not None:
        ok, message = plausible(kernel, result.case.sizes, result.memo_seen_ns, machine,
                                round_trip_ns=result.diagnostics.subtracted_ns)
        if not ok:
            seen = result.message.removeprefix("timed on new input sets only: ")
            return attrs.evolve(result, status="implausible", flag="memoized",
                                message=f"answers remembered rather than computed? {seen}; on the repeated set, "
                                        f"{message}")
    return result


def _judge_run(kernel: Kernel, case: Case, library: Path | None, baseline: PreparedBaseline | None, run,
               extra: Target | None, counts: dict[str, tuple[int, ...]], drift: float) -> CaseResult:
    base_error = run.target_errors.get(extra.name, "") if extra is not None else ""
    if run.status != "ok" and run.failed_target == NUMPY:
        # The judge's own reference, in a process the candidate cannot reach: the judge's failure.
        raise RuntimeError(f"the NumPy reference of {kernel.id} failed on {case.describe()}: {run.status}: "
                           f"{run.message}")
    common = dict(baseline_error=base_error or None, diagnostics=run.diagnostics, session_counts=counts,
                  rank_samples_ns=run.rank_samples_ns)
    if run.status != "ok":
        tail = run.stderr_tail.strip() if run.status == "error" else ""
        return CaseResult(case, run.status, run.message + (f"\n{tail}" if tail else ""), **common)
    samples = dict(run.samples_ns)
    # A wrong answer ends the run at once: possibly before any timed call.
    timed = lambda name: summarize(samples[name], counts.get(name), drift)
    pair = lambda base, cand: speedup(samples[base], samples[cand], counts.get(base), counts.get(cand), drift)
    numpy_timing = timed(NUMPY) if len(samples.get(NUMPY, ())) else None
    baseline_timing = None
    if extra is not None and not base_error and len(samples.get(extra.name, ())):
        baseline_timing = timed(extra.name)
    elif extra is not None and not base_error and numpy_timing is not None:
        base_error = "the measuring driver returned no time for it"
        common["baseline_error"] = base_error
    elif baseline is not None and baseline.name == NUMPY:
        baseline_timing = numpy_timing

    def result(status: str, message: str = "", check: Check | None = None, timing: Timing | None = None,
               sp_numpy: Speedup | None = None, sp_baseline: Speedup | None = None) -> CaseResult:
        return CaseResult(case, status, message, check, timing, numpy_timing, sp_numpy, samples,
                          baseline_timing, sp_baseline, **common)

    if library is None:
        return result("ok")
    verdict = run.verdict or Verdict(False, "the measuring driver returned no verdict")
    check = verdict.check
    if not verdict.correct:
        timing = timed(CANDIDATE) if len(samples.get(CANDIDATE, ())) else None
        return result("incorrect", verdict.message, check, timing)
    timing = timed(CANDIDATE)
    if run.cpu:
        return attrs.evolve(result("implausible", run.cpu, check, timing), flag="cpu")
    sp_numpy = pair(NUMPY, CANDIDATE)
    sp_baseline = None
    if baseline is not None and baseline.name == NUMPY:
        sp_baseline = sp_numpy
    elif baseline_timing is not None:
        sp_baseline = pair(extra.name, CANDIDATE)
    if run.memo:
        return attrs.evolve(result("ok", f"timed on new input sets only: {run.memo}", check, timing, sp_numpy,
                                   sp_baseline), memo_seen_ns=run.memo_seen_ns)
    return result("ok", "", check, timing, sp_numpy, sp_baseline)


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
          grade_id: str | None = None, slot: Slot | None = None, roofline: bool = True,
          ranks: int | None = None, launcher: str = "mpirun") -> Grade:
    """Build, run, check and measure a candidate on every case, next to the NumPy reference
    and (baseline=True) the track's baseline. Never raises for the candidate's faults, nor
    for the baseline's. slot: the judge's measurement slots (default: time on policy.cpus)."""
    say = progress or (lambda _msg: None)
    if ranks is not None and slot is None and not policy.cpus:
        # R ranks time on R CPUs (as many as there are: more ranks than CPUs share them)
        allowed = sorted(os.sched_getaffinity(0))
        policy = attrs.evolve(policy, cpus=tuple(allowed[-min(len(allowed), ranks * max(policy.threads, 1)):]))
    policy = pinned(policy) if slot is None else policy
    clock = time.monotonic()
    durations: dict[str, float] = {}

    def lap(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        durations[name] = durations.get(name, 0.0) + now - clock
        clock = now

    mpi = None
    if ranks is not None:      # the distributed track (hpcab/mpi): built with the MPI wrapper, run on R ranks
        from hpcab.mpi.grading import prepare
        candidate, mpi = prepare(kernel, candidate, ranks, launcher)
    say("building")
    built = build(candidate, toolchains, flagset, sandbox=policy.sandbox,   # the compiler is untrusted too
                  limits=BuildLimits(wall_seconds=policy.build_seconds))
    lap("build")
    results: list[CaseResult] = []
    prepared: PreparedBaseline | None = None
    if built.ok:
        if baseline:
            say(f"preparing the {baseline_name(kernel)} baseline")
            prepared = prepare_baseline(kernel, toolchains)
        harness = build_harness(kernel, toolchains).library
        if mpi is not None:
            from hpcab.mpi.harness import build_harness as build_rank_loop
            mpi = dict(mpi, harness=str(build_rank_loop(kernel, toolchains).library))
        # The roofline bounds one process on this machine's slot: R ranks are not bound by it.
        machine = _machine(toolchains, policy, kernel, slot) if roofline and mpi is None else None
        lap("prepare")
        # The grade's secret: every input set it times or checks derives from it (hpcab.case).
        secret = secrets.token_bytes(32)
        measured = 0.0        # seconds in measurement slots so far: what the grade's limit bounds
        with Driver() as driver:     # one for the grade's every session
            for case in cases:
                say(f"running {case.describe()}")
                budget = policy.grade_seconds - measured
                pad = _hidden_pad(case, results, policy)
                if pad is not None:
                    budget = min(budget, pad)
                results.append(grade_case(kernel, case, built.library, harness, policy, prepared, slot, machine,
                                          "mpi" if mpi else target_kind(candidate.language), mpi, secret, budget, driver))
                measured += results[-1].seconds
                if pad is not None and results[-1].seconds < pad:
                    # Out of the slot: the answer waits, no measuring core does.
                    time.sleep(pad - results[-1].seconds)
                    durations["hidden_pad"] = durations.get("hidden_pad", 0.0) + pad - results[-1].seconds
                if results[-1].status in FATAL:
                    break
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
    # In measurement slots, public cases only: what an agent's hidden cases' padding derives from.
    durations["public_cases"] = sum(r.seconds for r in results if r.case.visibility != "hidden")
    for key in ("startup", "generate", "check", "teardown"):
        durations[f"driver_{key}"] = sum(r.diagnostics.durations.get(key, 0.0) for r in results)
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
    compilers = {b.compiler: b.compiler_version for b in (built, prepared.build if prepared else None)
                 if b is not None and b.compiler}
    lap("finish")
    return Grade(grade_id or uuid.uuid4().hex,
                 _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds"),
                 kernel.id, candidate, built, status, tuple(results), overall, policy, env,
                 name, over_baseline, "; ".join(errors) or None, prepared.origin if prepared else "", durations,
                 compilers, tuple(toolchains.version_warnings(compilers)),
                 None if mpi is None else {k: mpi[k] for k in ("ranks", "launcher")} | {
                     "distribution": {a: str(Layout(**d)) for a, d in mpi["distribution"].items()}})


def measure_baseline(kernel: Kernel, cases: list[Case], toolchains: Toolchains, policy: Policy = Policy(),
                     progress: Callable[[str], None] | None = None, slot=None) -> BaselineMeasurement:
    """Time the track's baseline and the NumPy reference on each case, with no candidate:
    the grading session of hpcab.grade run without a candidate target."""
    say = progress or (lambda _msg: None)
    policy = pinned(policy) if slot is None else policy
    say(f"preparing the {baseline_name(kernel)} baseline")
    prepared = prepare_baseline(kernel, toolchains)
    harness = None
    if prepared.target is not None and prepared.target.kind == "c":
        harness = build_harness(kernel, toolchains).library
    out = []
    with Driver() as driver:
        for case in cases:
            say(f"running {case.describe()}")
            out.append(_baseline_case(kernel, case, harness, policy, prepared, slot, driver))
    return BaselineMeasurement(kernel.id, kernel.track, prepared, tuple(out), policy)


def _baseline_case(kernel: Kernel, case: Case, harness: Path | None, policy: Policy, prepared: PreparedBaseline,
                   slot, driver: Driver) -> BaselineCase:
    r = grade_case(kernel, case, None, harness, policy, prepared, slot, driver=driver)
    sp = None
    if prepared.target is not None and r.baseline_timing is not None:
        sp = speedup(r.samples_ns[NUMPY], r.samples_ns[prepared.name], r.session_counts.get(NUMPY),
                     r.session_counts.get(prepared.name), policy.drift)
    return BaselineCase(case, r.status, r.message, r.numpy_timing, r.baseline_timing, sp, r.baseline_error)
