"""A measuring session's rounds, on the trusted side: every target called once per round on
one input set, in alternating order; each call timed, charged for the CPU its processes used
outside it, its read-only inputs compared with the set, its answer checked against the NumPy
reference's on the same set.

Every round's set is new (never seen by any target) while generating costs at most the
policy's fresh_fraction of the time spent in timed calls; past that, and past the first
MIN_FRESH rounds, a secret draw takes a set made ahead or repeats a kept one. Repeated
rounds enter the speedup only where the candidate was as slow on them as on new sets
(hpcab.grade decides, over all sessions). The first wrong answer ends the session.
"""

from __future__ import annotations

import time

import numpy as np

from hpcab.check import Expected, bits_equal, check_outputs, quick_check
from hpcab.timing.records import Verdict
from hpcab.timing.trusted.inputs import InputSets
from hpcab.timing.trusted.process import Runner, Stop

MIN_FRESH = 8              # the first rounds' sets are always new, whatever generating them costs
AHEAD_SHARE = 0.5          # past those, the chance a round takes a set made ahead over a kept one
# A candidate's CPU time beyond (its calls' wall time × threads) that is still honest: the
# runner's own few instructions after "done" and before the freeze lands.
CPU_SLACK_NS_PER_CALL = 100_000
CPU_SLACK_FRACTION = 0.10
# ... and per grade, whatever its calls: a busy machine's thaw and freeze were measured
# charging 0.12 ms to a one-call grade (CI, N=M=1), over its 0.1 ms per-call slack.
CPU_SLACK_NS_PER_GRADE = 1_000_000
# A timed call is charged the CPU time its processes used beyond its wall time × threads
# (work done between the thaw and t0, or after "done" before the freeze lands, or on more
# CPUs than granted), less this much per thread: what an honest runner's wake-up and return
# to its read() cost there (docs/threat_model.md, "The window around a call").
CPU_CHARGE_SLACK_NS = 20_000


class Answered(Exception):
    """The candidate's answer was wrong (or it wrote into a read-only input): the verdict is
    in, the session ends."""


class Rounds:
    """The rounds of one session, and what they found."""

    def __init__(self, job, kernel, runners: list[Runner], numpy_runner: Runner, candidate: Runner | None,
                 sets: InputSets, poisons: dict, overhead: dict[str, int], deadline: float):
        self.policy, self.seed, self.kernel = job.policy, job.case.seed, kernel
        self.runners, self.numpy_runner, self.candidate = runners, numpy_runner, candidate
        self.sets, self.poisons, self.overhead, self.deadline = sets, poisons, overhead, deadline
        self.in_names = sets.inputs
        self.readonly = [a.name for a in kernel.arrays if a.intent == "in"]
        self.out_names = list(kernel.outputs)
        self.threads = max(self.policy.threads, 1) * getattr(candidate, "ranks", 1)
        # Outputs are read straight from the buffers once the round is over: the candidate is
        # frozen and the judge's runners idle until their next call, so nothing moves them.
        self.outputs = {r.name: {n: r.buf[n] for n in self.out_names} for r in runners}
        self.samples: dict[str, list[int]] = {r.name: [] for r in runners}
        self.set_of: dict[str, list[int]] = {r.name: [] for r in runners}
        self.fresh_of: dict[str, list[bool]] = {r.name: [] for r in runners}
        self.rank_samples: list[list[int]] = []   # a distributed candidate's: every rank's time of each timed call
        self.target_errors: dict[str, str] = {}
        self.inputs_modified: dict[str, list[str]] = {}
        self.verdict: Verdict | None = None
        self.worst = None                          # the candidate's worst right answer so far
        self.prepared: dict[int, dict] = {}        # input set → its expected outputs' scale and norm (hpcab.check)
        self.checked_baseline: set[str] = set()
        self.cpu_excess = self.cpu_calls = self.cpu_wall = self.cpu_charged = 0
        self.check_seconds = self.timed_seconds = 0.0

    # -- the session ---------------------------------------------------------------------
    def run(self, warm: dict) -> None:
        """The warm-up rounds, then timed rounds until the policy's budget is spent."""
        pol = self.policy
        started = time.monotonic()
        try:
            for w in range(pol.warmup):
                self.round(-1 - w, warm if w == 0 else self.sets.make(-1 - w), w, timed=False, fresh=True)
                self.prepared.pop(-1 - w, None)
            rnd, last, fresh_index = 0, None, 0
            # Which kept set a repeated round takes: drawn from the session's seed, itself a
            # secret of the grade's (hpcab.case.session_case), so the order is not predictable.
            pick = np.random.default_rng([self.seed, 0x5E7])
            while True:
                index, values, fresh = self._next_set(fresh_index, last, pick)
                fresh_index += fresh
                kept = None if fresh else self.sets.kept[index][1]
                expected = self.round(index, values, rnd + pol.warmup, timed=True, fresh=fresh, expected=kept)
                if fresh:
                    self.sets.keep(index, values, expected)
                    if index not in self.sets.kept:
                        self.prepared.pop(index, None)
                last = index
                rnd += 1
                spent = max((sum(v) for v in self.samples.values()), default=0) / 1e9
                if rnd >= pol.max_repetitions or (rnd >= pol.min_repetitions and (
                        spent >= pol.target_seconds or time.monotonic() - started >= pol.max_seconds)):
                    break
            if self.candidate is not None:
                self.verdict = Verdict(True, "", self.worst)
        except Answered:
            pass

    def _next_set(self, fresh_index: int, last: int | None, pick) -> tuple[int, dict, bool]:
        """A new set whenever generating it stays within budget (or it was made ahead);
        otherwise a secret draw between one made ahead and a kept one, so that new and
        repeated sets are spread over the whole session and compare like for like."""
        sets = self.sets
        fresh = (fresh_index < MIN_FRESH or not sets.kept
                 or sets.seconds <= self.policy.fresh_fraction * self.timed_seconds
                 or (fresh_index in sets.ahead and pick.random() < AHEAD_SHARE))
        if fresh:
            return fresh_index, sets.make(fresh_index), True
        choices = [i for i in sets.kept if i != last] or list(sets.kept)
        index = choices[int(pick.integers(len(choices)))]
        return index, sets.kept[index][0], False

    # -- one round -----------------------------------------------------------------------
    def round(self, index: int, values: dict, rnd: int, timed: bool, fresh: bool,
              expected: dict | None = None) -> dict:
        """Every target called once on the set; its answers checked; the times kept if timed.
        Returns the set's expected outputs (the NumPy reference's, unless given)."""
        order = list(self.runners) if rnd % 2 == 0 else self.runners[::-1]
        times: dict[str, int] = {}
        for r in order:
            ns = self._call(r, values, timed)
            if ns is not None and self._inputs_intact(r, values):
                times[r.name] = ns
        expected = self._check(index, times, timed, expected)
        if timed:
            for r in self.runners:
                if r.name in times:
                    self.samples[r.name].append(times[r.name])
                    if r is self.candidate and getattr(r, "last_rank_ns", None) is not None:
                        self.rank_samples.append([max(ns - self.overhead[r.name], 1) for ns in r.last_rank_ns])
                    self.set_of[r.name].append(index)
                    self.fresh_of[r.name].append(fresh)
        return expected

    def _call(self, r: Runner, values: dict, timed: bool) -> int | None:
        """One call on the set: its time (the timed interval less the round trip of a trusted
        runner with the same loop, out of the candidate's reach, the same for every target of
        that kind, plus the CPU charged to it); None if an optional target failed (dropped)."""
        for n in self.in_names:
            np.copyto(r.buf[n], values[n])
        for n, p in self.poisons.items():
            np.copyto(r.buf[n], p)
        try:
            ns, cpu = r.call(self.deadline)
        except Stop as stop:
            if not r.optional:
                raise
            # The judge's baseline failed: dropped, and it must not eat the others' time.
            why = stop.message or f"it ran past the {self.policy.timeout_seconds:g} s limit"
            self._drop(r, f"{stop.status}: {why}")
            if stop.status == "timeout":
                self.deadline = time.monotonic() + self.policy.timeout_seconds
            return None
        if timed:
            self.timed_seconds += ns / 1e9
        charged = self._charge(r, ns, cpu) if timed and cpu is not None and r is self.candidate else 0
        return max(ns - self.overhead[r.name], 1) + charged

    def _charge(self, r: Runner, ns: int, cpu: int) -> int:
        """The CPU time a candidate's call is charged, per call, no credit carried: a call
        that used less CPU than its wall time (it slept) pays nothing forward for one that used
        more. CPU used before t0 (between the thaw and "g") is charged whole; after it, what
        exceeds the call's wall time × threads (after "d", before the freeze landed, or on
        more CPUs than granted). Each beyond a slack an honest runner's wake-up and return to
        its read() stay under."""
        threads = self.threads
        before = getattr(r, "last_cpu_before", None) or 0
        excess = max(before - CPU_CHARGE_SLACK_NS, 0) + max(
            cpu - before - ns * threads - CPU_CHARGE_SLACK_NS * threads, 0)
        self.cpu_excess += max(cpu - ns * threads, 0)
        self.cpu_calls += 1
        self.cpu_wall += ns
        charged = -(-excess // threads) if excess > 0 else 0
        self.cpu_charged += charged
        return charged

    def _inputs_intact(self, r: Runner, values: dict) -> bool:
        """Whether the target left its read-only inputs as they were (the candidate on every
        call, a baseline until its first answer is checked). A candidate that wrote into one
        ends the session; a baseline is dropped."""
        if r is not self.candidate and r.name in self.checked_baseline:
            return True
        t = time.perf_counter()
        modified = [n for n in self.readonly if not bits_equal(r.buf[n], values[n])]
        self.check_seconds += time.perf_counter() - t
        if not modified:
            return True
        if r is self.candidate:
            self.inputs_modified[r.name] = modified
            self.verdict = Verdict(False, f"modified read-only input(s) {', '.join(modified)}")
            raise Answered()
        self._drop(r, f"it modified read-only input(s) {', '.join(modified)}; its time is not used")
        return False

    def _check(self, index: int, times: dict, timed: bool, expected: dict | None) -> dict:
        """The round's answers against the set's expected outputs: the candidate's every time
        (the first wrong one ends the session), each baseline's once."""
        t = time.perf_counter()
        kernel, candidate = self.kernel, self.candidate
        if expected is None:
            expected = {n: self.outputs[self.numpy_runner.name][n].copy() for n in self.out_names}

        def checked(r: Runner):
            if index not in self.prepared:        # made once a set, and only where an answer is checked
                self.prepared[index] = Expected(kernel, expected)
            return (quick_check(kernel, self.outputs[r.name], self.prepared[index])
                    or check_outputs(kernel, self.outputs[r.name], expected))
        for r in list(self.runners):
            if r is self.numpy_runner or r.name not in times:
                continue
            if r is candidate:
                check = checked(r)
                what = "the warm-up call" if not timed else f"timed call {len(self.samples[r.name]) + 1}"
                if not check.correct:
                    self.verdict = Verdict(False, f"{what}: {check.message}", check)
                    self.check_seconds += time.perf_counter() - t
                    raise Answered()
                if self.worst is None or check.normwise_err > self.worst.normwise_err:
                    self.worst = check
            elif r.name not in self.checked_baseline:
                check = checked(r)
                if not check.correct:
                    self._drop(r, f"its answer is wrong, so its time is not used: {check.message}")
                    times.pop(r.name)
                    continue
                self.checked_baseline.add(r.name)
        self.check_seconds += time.perf_counter() - t
        return expected

    def _drop(self, r: Runner, why: str) -> None:
        self.target_errors[r.name] = why
        self.runners.remove(r)
        for d in (self.samples, self.set_of, self.fresh_of):
            d.pop(r.name, None)
        r.close()

    # -- what the rounds found -------------------------------------------------------------
    def cpu_verdict(self) -> str:
        """Why the candidate is implausible for CPU time used outside its calls, or ""."""
        if self.candidate is None or not self.cpu_calls:
            return ""
        threads = self.threads
        allowed = (CPU_SLACK_NS_PER_GRADE + CPU_SLACK_NS_PER_CALL * threads * self.cpu_calls
                   + CPU_SLACK_FRACTION * self.cpu_wall * threads)
        if self.cpu_excess <= allowed:
            return ""
        return (f"implausible: its processes used {self.cpu_excess / 1e6:.3g} ms of CPU time beyond its "
                f"{self.cpu_calls} timed calls' wall time × {threads} thread(s) (allowed {allowed / 1e6:.3g} "
                f"ms): work done outside its calls, or on more CPUs than granted? (not scored until reviewed)")
