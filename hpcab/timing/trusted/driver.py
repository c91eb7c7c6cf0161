"""The trusted side of a measurement: `python -m hpcab.timing.trusted.driver`, one process
per grade, measuring its sessions one after another.

It owns the clock, the input sets, the expected outputs and the result. Each target (the
candidate, the NumPy reference, the track's baseline) runs in a process of its own
(hpcab/timing/untrusted/runner.py) that holds only its shared buffer; the candidate's is
sandboxed, and every target and everything it starts is frozen (hpcab/freezer.py) whenever
it is not in a call.

One call, as the driver makes it (process.py, rounds.py; docs/measurement_statistics.md):

    write this round's input set into the target's buffer, poison its outputs
    drop stale bytes from its pipe, thaw it [candidate: read its CPU time before and after]
    t0 = clock;  send GO;  wait for DONE;  t1 = clock
    freeze it [candidate: read its CPU time; CPU outside the call is charged to it]
    compare its read-only inputs with the set; copy its outputs out

Jobs (hpcab.timing.records.Job) come pickled on stdin from the judge's side
(hpcab/timing/session.py), one a session, for as long as the grade lasts; each RunResult
(or a DriverFailure) goes back pickled on stdout. Both ends are the judge's: the candidate
never touches either.
"""

from __future__ import annotations

import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

import attrs
import numpy as np

from hpcab import freezer
from hpcab.case import poison
from hpcab.kernel import load_kernel
from hpcab.timing.records import Diagnostics, DriverFailure, Job, RunResult, read_frame, write_frame
from hpcab.timing.trusted.inputs import InputSets
from hpcab.timing.trusted.process import Runner, Stop, group_cpus
from hpcab.timing.trusted.rounds import Rounds
from hpcab.timing.wire import PING, layout

PINGS = 64                 # round trips to the NumPy runner: the timer's overhead
LOAD_SECONDS_MIN = 5.0


class Kept:
    """The judge's own runners (the NumPy reference, its numba jit, the C baseline) kept from
    one session to the next of the same case: loading one costs 0.3-2 s (NumPy, numba and
    its cache), every session, where the candidate's C runner loads in 0.1 s. The
    candidate's runner is never kept (each session starts it afresh), nor is anything kept
    past the grade (the driver ends with it). A kept runner is frozen between sessions, and
    retired before its CPU-time limit could end it in a session."""

    def __init__(self):
        self.runners: dict[tuple, Runner] = {}

    @staticmethod
    def key(job: Job, target) -> tuple:
        p = job.policy
        return (job.kernel_dir, tuple(sorted(job.case.sizes.items())), target, p.cpus, p.sandbox, p.freezer,
                p.threads, job.harness, job.numba_cache, tuple(sorted(job.env.items())))

    def take(self, job: Job) -> dict[str, Runner]:
        """The runners kept for this job's trusted targets; every other one is ended."""
        wanted = {self.key(job, t): t.name for t in job.targets if t.trusted}
        taken = {wanted[k]: r for k, r in self.runners.items() if k in wanted}
        for k, r in self.runners.items():
            if k not in wanted:
                r.close()
        self.runners = {}
        return taken

    def keep(self, job: Job, r: Runner, target) -> bool:
        """Keep r for the next session, if it may be: the judge's, alive, and far from the
        CPU-time limit it was started with (hpcab.timing.trusted.process.cpu_limit_seconds)."""
        if not r.trusted or r.proc.poll() is not None or r.group is None:
            return False
        used = r.group.cpu_ns()
        if used is None or used > r.cpu_limit_s * 1e9 / 2:
            return False
        self.runners[self.key(job, target)] = r
        return True

    def close(self) -> None:
        for r in self.runners.values():
            r.close()
        self.runners = {}


KEPT = Kept()


class Session:
    """One measuring session's targets, from their start to their end."""

    def __init__(self, job: Job):
        self.job, self.pol = job, job.policy
        self.kernel = load_kernel(job.kernel_dir, job.corpus_root, check=False)
        self.sizes = job.case.sizes
        self.entries = layout(self.kernel, self.sizes)
        kernel, entries = self.kernel, self.entries
        # Written before every call: the set's in and inout arrays and its scalars. Then the
        # out arrays and returned values are poisoned, the workspace zeroed.
        blank = {a.name for a in kernel.arrays if a.intent == "out"} | {r.name for r in kernel.returns}
        self.poisons = {e["name"]: np.zeros(tuple(e["shape"]), e["dtype"]) if e["role"] == "workspace"
                        else poison(e["dtype"], tuple(e["shape"]))
                        for e in entries if e["name"] in blank or e["role"] == "workspace"}
        self.size_values = {e["name"]: np.array(self.sizes[e["name"]] if e["name"] in self.sizes
                                                else kernel.workspace_size(self.sizes), dtype=e["dtype"])
                            for e in entries if e["role"] == "size"}
        self.sets = InputSets(kernel, job.case, self.pol.input_bytes)
        self.runners: list[Runner] = []
        self.candidate: Runner | None = None
        self.target_errors: dict[str, str] = {}
        self.freezer: str | None = None
        self.warm: dict | None = None

    def _fill(self, buf, with_inputs: bool) -> None:
        for n, v in self.size_values.items():
            buf[n][...] = v
        if with_inputs:      # numba compiles on the warm-up set when it loads
            for n in self.sets.inputs:
                buf[n][...] = self.warm[n]
        for n, p in self.poisons.items():
            buf[n][...] = p

    def start(self, workdir: Path, kept: dict[str, Runner]) -> None:
        """Every target's process: the candidate first (it loads while the warm-up set is
        made), then the judge's own (kept: those already running, from the case's session
        before)."""
        pol = self.pol
        for target in sorted(self.job.targets, key=lambda t: t.trusted):
            if target.trusted and self.warm is None:
                self.warm = self.sets.make(-1)
            if target.name in kept:
                self.runners.append(kept.pop(target.name))
                continue
            group = None
            # srun's ranks are Slurm's processes, out of the driver's process tree (hpcab/mpi/ranks.py).
            srun = target.kind == "mpi" and target.mpi["launcher"] == "srun"
            if not srun:
                # The candidate's memory, all its processes together: per rank for a distributed one
                # (each rank had the address-space limit to itself).
                ranks = int(target.mpi["ranks"]) if target.kind == "mpi" else 1
                group = freezer.open_group(group_cpus(target, pol), pol.freezer,
                                           None if target.trusted else pol.memory_bytes * ranks)
                if not target.trusted:
                    self.freezer = group.kind
            make = Runner
            if target.kind == "mpi":
                from hpcab.mpi.ranks import RankGroup as make
            try:
                r = make(target, self.kernel, self.sizes, self.entries, self.job, workdir, group,
                         lambda buf, t=target.trusted: self._fill(buf, t))
            except Exception:
                if group is not None:
                    group.close()
                raise
            self.runners.append(r)
            if not r.trusted:
                self.candidate = r

    def load(self, deadline: float) -> None:
        """Wait for every target to load, making the first rounds' sets meanwhile; an optional
        target that fails to load is dropped; then every target is frozen."""
        pol = self.pol
        load_deadline = min(deadline, time.monotonic() + max(pol.timeout_seconds, LOAD_SECONDS_MIN))
        if pol.cpus:
            os.sched_setaffinity(0, set(pol.cpus))     # sleeps in poll during calls: on the slot with them
        # While the runners load (the driver would only wait), the first rounds' sets: on the
        # slot's CPUs, so that another slot's timed calls never share a CPU with it.
        self.sets.prefill(0, lambda: all(r.loaded() for r in self.runners if hasattr(r, "loaded")), load_deadline)
        for r in list(self.runners):
            try:
                r.ready(load_deadline)
            except Stop as stop:
                if not r.optional:
                    raise
                self.target_errors[r.name] = stop.message or f"{stop.status} while loading"
                self.runners.remove(r)
                r.close()
        for r in self.runners:
            r.freeze()              # every target (no-op without a group: srun's ranks)

    def round_trips(self, deadline: float) -> Diagnostics:
        """The timer's overhead: round trips of calls that do nothing."""
        numpy_runner = next(r for r in self.runners if r.name == self.job.numpy)
        ping = lambda r: float(np.median([r.call(deadline, PING)[0] for _ in range(PINGS)]))
        # A C target's loop (hpcab_serve) answers faster than the NumPy runner's Python loop:
        # its round trip is measured on a trusted C runner (the baseline) and subtracted from
        # C targets instead; with none, nothing is subtracted from them (never too much).
        trusted_c = next((r for r in self.runners if r.trusted and r.kind == "c"), None)
        # The same round trip through the candidate's own loop (thawed around each, as a call
        # is): reported, never subtracted (its code could make it slow on purpose).
        c_candidate = self.candidate is not None and self.candidate.kind == "c"
        return Diagnostics(timer_overhead_ns=ping(numpy_runner),
                           timer_overhead_c_ns=ping(trusted_c) if trusted_c is not None else None,
                           candidate_ping_ns=ping(self.candidate) if c_candidate else None, freezer=self.freezer)

    def close(self, failed: str | None) -> str:
        """Every target ended, but the judge's own kept for the next session where they may
        be (none after a failure); the stderr tail of the candidate (or of the target that
        failed)."""
        tail = ""
        targets = {t.name: t for t in self.job.targets}
        for r in self.runners:
            if r is self.candidate or r.name == failed:
                tail = r.stderr_tail()
            if failed is not None or not KEPT.keep(self.job, r, targets[r.name]):
                r.close()
        return tail


def measure(job: Job) -> RunResult:
    started = time.monotonic()
    pol = job.policy
    deadline = started + pol.timeout_seconds
    session = Session(job)
    workdir = Path(tempfile.mkdtemp(prefix="hpcab-drive-"))
    durations: dict[str, float] = {}
    diagnostics = Diagnostics()
    rounds: Rounds | None = None
    stop: Stop | None = None
    kept = KEPT.take(job)
    try:
        session.start(workdir, kept)
        session.load(deadline)
        durations["startup"] = time.monotonic() - started
        diagnostics = session.round_trips(deadline)
        # A distributed candidate's ranks answer through the same C loop as a C target.
        overhead = {r.name: int((diagnostics.timer_overhead_c_ns if r.kind in ("c", "mpi")
                                 else diagnostics.timer_overhead_ns) or 0) for r in session.runners}
        numpy_runner = next(r for r in session.runners if r.name == job.numpy)
        rounds = Rounds(job, session.kernel, session.runners, numpy_runner, session.candidate, session.sets,
                        session.poisons, overhead, deadline)
        rounds.run(session.warm)
    except Stop as exc:
        stop = exc
    finally:
        t = time.monotonic()
        tail = session.close(stop.target if stop is not None else None)
        for r in kept.values():        # not taken up: the session failed before
            r.close()
        durations["teardown"] = time.monotonic() - t
        for f in workdir.iterdir():
            f.unlink()
        workdir.rmdir()
    durations["generate"] = session.sets.seconds
    durations["generate_ahead"] = session.sets.ahead_seconds
    if rounds is not None:
        durations["check"] = rounds.check_seconds
    durations["driver_total"] = time.monotonic() - started
    errors = dict(session.target_errors, **(rounds.target_errors if rounds is not None else {}))
    charged = rounds.cpu_charged if rounds is not None else 0
    if stop is not None:
        # A runner failed: the session's result is that failure, no time.
        message = (f"killed after the {pol.timeout_seconds:g} s wall-clock limit while {stop.phase} target "
                   f"{stop.target!r}" if stop.status == "timeout" else stop.message)
        return RunResult(stop.status, message, stderr_tail=tail, target_errors=errors, failed_target=stop.target,
                         failed_phase=stop.phase,
                         diagnostics=attrs.evolve(diagnostics, durations=durations, freezer=session.freezer,
                                                  cpu_charged_ns=charged))
    return RunResult(
        "ok", samples_ns=rounds.samples, inputs_modified=rounds.inputs_modified, stderr_tail=tail,
        target_errors=errors, sample_sets=rounds.set_of, fresh=rounds.fresh_of, verdict=rounds.verdict,
        cpu=rounds.cpu_verdict(), rank_samples_ns=rounds.rank_samples or None,
        diagnostics=attrs.evolve(diagnostics, durations=durations, cpu_charged_ns=charged,
                                 cpu_excess_ns=rounds.cpu_excess if rounds.cpu_calls else None))


def main() -> int:
    """Measure one session per job read from stdin until it closes (the judge's side keeps one
    driver for a whole grade: hpcab.timing.session.Driver)."""
    # Each session pins the driver to its slot once its runners are started (Session.load);
    # the next session's runners start from here again (the judge's Python targets load on
    # any CPU, in parallel).
    home = os.sched_getaffinity(0)
    while True:
        try:
            data = read_frame(sys.stdin.buffer)
        except EOFError:
            KEPT.close()
            return 0
        try:
            job = pickle.loads(data)
            if not isinstance(job, Job):
                raise TypeError(f"the driver's job: expected a hpcab.timing.records.Job, got {type(job).__name__}")
            os.sched_setaffinity(0, home)
            result = measure(job)
        except Exception as exc:        # the driver's own failure: the judge's, never graded as the candidate's
            import traceback
            result = DriverFailure(f"{type(exc).__name__}: {exc}", traceback.format_exc())
        write_frame(sys.stdout.buffer, pickle.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
