"""How the judge measures (Policy, recorded with each grade) and how a case's policy is
shared between its measuring sessions."""

from __future__ import annotations

import os

import attrs

from hpcab import sandbox


@attrs.frozen
class Policy:
    """How the judge measures: repetitions, limits, threads, CPUs and the sandbox (recorded
    with each grade)."""
    warmup: int = 1
    min_repetitions: int = 5
    max_repetitions: int = 1000
    target_seconds: float = 1.0      # stop once the slowest target has this much timed work
    max_seconds: float = 30.0        # ... or once this much wall time has passed
    timeout_seconds: float = 120.0   # the child is killed after this (one measuring session)
    # The wall-clock limit of a grade's measuring: all its cases and sessions together, their
    # loads, warm-ups and checks included (hpcab.grade). A session's own limit is the smaller
    # of timeout_seconds and what is left of this, so a candidate that idles in every
    # session's warm-up holds a measuring slot at most this long per grade.
    grade_seconds: float = 300.0
    # Independent measuring sessions per scored case (a driver and its runners each): the
    # repetitions and the two budgets above are split between them (session_policy), and
    # the interval comes from the variation between them too (hpcab.measure). More sessions
    # take longer and give a narrower honest interval; an unscored case gets one.
    sessions: int = 8
    # The grade-to-grade variation no session of one grade can see (a drift slower than a
    # grade), as a relative standard deviation: added to every interval (hpcab.measure).
    # 3 %: what benchmarks/timing_quality.py measured beyond the sessions' own spread on
    # the development machine (0-5 %); measure it on a judge's machine and set it there.
    drift: float = 0.03
    threads: int = 1
    cpus: tuple[int, ...] | None = None
    memory_bytes: int = 8 << 30
    file_bytes: int = 4 << 30
    # Sandboxed only: processes and threads the candidate's runner may hold at once, per thread
    # granted (RLIMIT_NPROC = processes × threads; a fork bomb stops there).
    processes: int = 64
    open_files: int = 1024           # RLIMIT_NOFILE
    # "bubblewrap" (hpcab.sandbox), "none", or "auto": bubblewrap where it can run, else
    # none, made concrete by pinned() so that a grade records what it ran under. The judge
    # (hpcab serve) asks for bubblewrap outright, or for none with --unsandboxed.
    sandbox: str = sandbox.AUTO
    # Input sets (with their expected outputs) kept for rounds that must repeat one, at most:
    # every round gets a fresh set while generating them is cheap (hpcab/timing/trusted/rounds.py).
    input_bytes: int = 256 << 20
    # ... while generating them costs at most this share of the time spent in timed calls.
    fresh_fraction: float = 0.25
    # How the candidate's processes are frozen between calls: auto (cgroup v2, else v1, else
    # signals: hpcab.freezer), or one of those by name.
    freezer: str = "auto"
    build_seconds: float = 60.0      # the compiler's wall-clock limit (hpcab.build)


# The fewest timed calls a session makes: one call is no median.
MIN_SESSION_REPETITIONS = 2


def session_policy(policy: Policy, sessions: int) -> Policy:
    """One of `sessions` sessions' share of a case's policy: the timed work, the wall time
    and the repetitions split evenly (each still limited by the case's own timeout)."""
    if sessions <= 1:
        return attrs.evolve(policy, sessions=1)
    return attrs.evolve(policy, sessions=1, target_seconds=policy.target_seconds / sessions,
                        max_seconds=policy.max_seconds / sessions,
                        min_repetitions=max(MIN_SESSION_REPETITIONS, -(-policy.min_repetitions // sessions)),
                        max_repetitions=max(MIN_SESSION_REPETITIONS, policy.max_repetitions // sessions))


def pinned(policy: Policy) -> Policy:
    """The policy made explicit: its CPU set (by default the last `threads` CPUs this
    process may use: the judge's own work tends to land on the first), so a grade records
    where it ran and repeated grades run on the same cores; and its sandbox ("auto"
    resolved)."""
    mode = sandbox.resolve(policy.sandbox)
    if mode != policy.sandbox:
        policy = attrs.evolve(policy, sandbox=mode)
    if policy.cpus:
        return policy
    allowed = sorted(os.sched_getaffinity(0))
    return attrs.evolve(policy, cpus=tuple(allowed[-max(policy.threads, 1):]))
