"""Grade: the one pipeline from a candidate to a recorded verdict.

Candidate ─► Build ─► (per case) inputs + oracle ─► Run (child) ─► Check ─► Measure ─► Grade ─► Record
"""

from __future__ import annotations

import datetime as _dt
import math
import uuid
from pathlib import Path
from typing import Callable

import attrs
import numpy as np

from hpcab.build import Build, Candidate, build
from hpcab.case import Case, make_inputs, run_oracle
from hpcab.check import Check, check_outputs
from hpcab.environment import fingerprint
from hpcab.harness import build_harness
from hpcab.kernel import Kernel
from hpcab.measure import Speedup, Timing, speedup, summarize
from hpcab.run import Policy, Target, pinned, run_case
from hpcab.toolchain import Toolchains

CANDIDATE, NUMPY = "candidate", "numpy"
# Worst first: the grade's status is the worst of its cases'.
STATUS_ORDER = ("build_error", "crashed", "timeout", "error", "incorrect", "ok")


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


def grade_case(kernel: Kernel, case: Case, library: Path, harness: Path, policy: Policy) -> CaseResult:
    inputs = make_inputs(kernel, case)
    expected = run_oracle(kernel, case, inputs)
    run = run_case(kernel, case, inputs, [Target(CANDIDATE, "c", library), Target(NUMPY, "python")],
                   harness, policy)
    if run.status != "ok":
        tail = run.stderr_tail.strip() if run.status == "error" else ""
        return CaseResult(case, run.status, run.message + (f"\n{tail}" if tail else ""))
    numpy_timing = summarize(run.samples_ns[NUMPY])
    modified = run.inputs_modified.get(CANDIDATE, [])
    if modified:
        return CaseResult(case, "incorrect", f"modified read-only input(s) {', '.join(modified)}",
                          numpy_timing=numpy_timing, samples_ns=run.samples_ns)
    # The first call and the last timed call are both validated: a candidate that is right
    # only once (or only after warming up) fails.
    checks = [check_outputs(kernel, run.outputs[CANDIDATE][snap], expected) for snap in ("first", "last")]
    failed = next((c for c in checks if not c.correct), None)
    timing = summarize(run.samples_ns[CANDIDATE])
    if failed:
        return CaseResult(case, "incorrect", failed.message, failed, timing, numpy_timing, None, run.samples_ns)
    worst = max(checks, key=lambda c: c.normwise_err)
    return CaseResult(case, "ok", "", worst, timing, numpy_timing,
                      speedup(run.samples_ns[NUMPY], run.samples_ns[CANDIDATE]), run.samples_ns)


def grade(kernel: Kernel, candidate: Candidate, cases: list[Case], toolchains: Toolchains,
          flagset: str | None = None, policy: Policy = Policy(),
          progress: Callable[[str], None] | None = None) -> Grade:
    """Build, run, check and measure a candidate on every case. Never raises for the candidate's faults."""
    say = progress or (lambda _msg: None)
    policy = pinned(policy)
    say("building")
    built = build(candidate, toolchains, flagset)
    env = fingerprint(toolchains, policy.threads, policy.cpus, kernel.directory.parents[len(kernel.id.split("/")) - 1])
    results: list[CaseResult] = []
    if built.ok:
        harness = build_harness(kernel, toolchains).library
        for case in cases:
            say(f"running {case.describe()}")
            results.append(grade_case(kernel, case, built.library, harness, policy))
        status = min((r.status for r in results), key=STATUS_ORDER.index, default="ok")
    else:
        status = "build_error"
    overall = geometric_mean_speedup([r.speedup_numpy for r in results]) if status == "ok" else None
    return Grade(uuid.uuid4().hex, _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds"),
                 kernel.id, candidate, built, status, tuple(results), overall, policy, env)
