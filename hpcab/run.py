"""Run: time targets on one case, from outside, in processes of their own.

The caller (the judge, the CLI) never loads candidate code. It hands the case to a
measuring driver (`python -m hpcab.driver`, the judge's own code in a process of its own),
which starts one runner process per target (hpcab/runner.py; the candidate's sandboxed and
frozen whenever it is not in a call: hpcab/freezer.py), generates the input sets, times
every call and checks every answer. A crash, a hang or a memory blow-up of a runner is a
result here, not an exception: the caller keeps running.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs
import numpy as np

from hpcab import sandbox
from hpcab.case import Case
from hpcab.harness import harness_ffi_module
from hpcab.kernel import Kernel
from hpcab.paths import cache_dir


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
    # every round gets a fresh set while generating them is cheap (hpcab.driver).
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


@attrs.frozen
class Target:
    """One implementation to time: a C-ABI library, the NumPy reference ('python'), the
    reference jitted by numba ('numba'), or a candidate's Python module or extension module
    ('module': the python and pythran languages, called like the reference).

    An optional target (a baseline) never fails the run: if it cannot be loaded or raises,
    the driver drops it and reports why in RunResult.target_errors."""
    name: str
    kind: str                 # c | python | numba | module
    library: Path | None = None
    optional: bool = False
    trusted: bool = False     # the judge's own code (NumPy, a baseline): frozen between calls like the candidate, not limited
    # kind "mpi" (hpcab/mpi/ranks.py): {"ranks", "launcher", "harness", "distribution": {array: {"kind", "block"}}}
    mpi: dict | None = None


@attrs.frozen
class RunResult:
    status: str               # ok | crashed | timeout | error (a runner's failure; wrong answers are in verdict)
    message: str
    samples_ns: dict[str, np.ndarray]
    inputs_modified: dict[str, list[str]]
    stderr_tail: str
    wall_seconds: float
    target_errors: dict[str, str] = attrs.field(factory=dict)   # optional target -> why it was dropped
    # When a runner died, timed out or failed: its target, and the phase (loading | calling).
    failed_target: str | None = None
    failed_phase: str = ""
    sample_sets: dict[str, list[int]] = attrs.field(factory=dict)      # the input set of each timed sample
    fresh: dict[str, list[bool]] = attrs.field(factory=dict)           # whether that set was new to every target
    # The candidate's answers, checked by the driver: {"correct", "message", "check"} (None: no candidate).
    verdict: dict | None = None
    memo: str = ""            # confirmed: faster on a set it had seen than on new ones (how much), else ""
    cpu: str = ""             # CPU time used outside its calls (implausible), else ""
    timer_overhead_ns: float | None = None      # a round trip to a runner that does nothing (median)
    cpu_excess_ns: int | None = None
    freezer: str | None = None                  # how the candidate was frozen (hpcab.freezer)
    candidate_ping_ns: float | None = None      # the same round trip through the candidate's own loop
    durations: dict[str, float] = attrs.field(factory=dict)
    timer_overhead_c_ns: float | None = None    # the round trip of a trusted C runner (subtracted from C targets)
    memo_seen_ns: float | None = None           # with memo: the candidate's median call on the repeated set
    rank_samples_ns: np.ndarray | None = None   # a distributed candidate: (timed calls, ranks), each rank's time
    cpu_charged_ns: int = 0     # CPU time beyond its calls' wall time, added to its samples (hpcab.driver)


def _limits():
    def apply():
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def process_limit(policy: Policy) -> int:
    """RLIMIT_NPROC of a sandboxed run: the processes and threads its user may hold."""
    return max(policy.processes, 1) * max(policy.threads, 1)


# prctl(PR_SET_PDEATHSIG, SIGKILL): the driver dies with the process that started it, and
# the runners with the driver, so a judge killed mid-grade leaves no candidate running.
_LIBC = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


# glibc malloc in every runner: every block from the heap (no mmap, whose threshold otherwise
# moves with what was freed last) and freed memory kept (no trim), so a target that
# allocates temporaries on every call (NumPy, numba) lands them on pages it has already
# touched instead of paying fresh page faults on some calls and not on others.
MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=4294967295:glibc.malloc.trim_threshold=4294967295"


def _runner_env(policy: Policy) -> dict[str, str]:
    """The runners' environment (sandboxed, all of it: bwrap --clearenv)."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "LD_LIBRARY_PATH", "PYTHONPATH", "HPCAB_ROOT",
            "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
    env = {k: v for k, v in os.environ.items() if k in keep}
    threads = str(policy.threads)
    env.update(OMP_NUM_THREADS=threads, OPENBLAS_NUM_THREADS=threads, MKL_NUM_THREADS=threads,
               NUMBA_NUM_THREADS=threads, OMP_PROC_BIND="true", PYTHONDONTWRITEBYTECODE="1",
               GLIBC_TUNABLES=MALLOC_TUNABLES)
    if policy.cpus:
        env["HPCAB_CPUS"] = ",".join(map(str, policy.cpus))
    return env


# Seconds the driver may take beyond the case's own limit (start-up, the last checks).
DRIVER_GRACE_S = 30.0


def run_case(kernel: Kernel, case: Case, targets: list[Target], harness: Path | None,
             policy: Policy = Policy()) -> RunResult:
    """Time the targets on the case (its input sets made by the driver from the case's seed).
    targets: the NumPy reference (kind "python") is required; its answers are the expected ones."""
    kernel_job = {
        "kernel_dir": str(kernel.directory.resolve()), "corpus_root": str(kernel.corpus_root),
        "case": attrs.asdict(case),
        "targets": [{"name": t.name, "kind": t.kind, "library": str(t.library) if t.library else None,
                     "optional": t.optional, "trusted": t.trusted, "mpi": t.mpi} for t in targets],
        "numpy": next(t.name for t in targets if t.kind == "python"),
        "harness": str(harness) if harness else None,
        "harness_ffi": str(harness_ffi_module()) if harness else None,
        "numba_cache": str(cache_dir() / "numba"),
    }
    policy = pinned(policy)
    job = dict(kernel_job, env=_runner_env(policy), policy=dict(attrs.asdict(policy), nproc=process_limit(policy)))
    return _drive(job, policy)


def _drive(job: dict, policy: Policy) -> RunResult:
    started = time.monotonic()
    if policy.sandbox == "bubblewrap":
        sandbox.require()        # a judge-side problem, never the candidate's: raise, do not grade
    limit = policy.timeout_seconds + DRIVER_GRACE_S
    with tempfile.TemporaryFile() as err:
        # One thread for the driver's own NumPy (its checks): it shares the slot with the calls.
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        proc = subprocess.Popen([sys.executable, "-m", "hpcab.driver"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, preexec_fn=_limits(),
                                start_new_session=True, env=env)
        try:
            out, _ = proc.communicate(pickle.dumps(job), timeout=limit)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            raise RuntimeError(f"the measuring driver did not finish within {limit:g} s") from None
        err.seek(0)
        tail = err.read()[-4000:].decode(errors="replace")
    if proc.returncode != 0 or not out:
        raise RuntimeError(f"the measuring driver failed (status {proc.returncode}): {tail}")
    r = pickle.loads(out)     # the driver is the judge's own process: its pickle is trusted
    if "driver_error" in r:
        raise RuntimeError(f"the measuring driver failed: {r['driver_error']}\n{r.get('traceback', '')}")
    samples = {k: np.asarray(v, dtype=np.int64) for k, v in r["samples_ns"].items()}
    return RunResult(r["status"], r["message"], samples, r["inputs_modified"], r["stderr_tail"],
                     time.monotonic() - started, r["target_errors"], r["failed_target"], r["failed_phase"],
                     r["sample_sets"], r["fresh"], r["verdict"], r["memo"], r["cpu"], r["timer_overhead_ns"],
                     r["cpu_excess_ns"], r["freezer"], r["candidate_ping_ns"], r["durations"],
                     timer_overhead_c_ns=r["timer_overhead_c_ns"], memo_seen_ns=r["memo_seen_ns"],
                     rank_samples_ns=(np.asarray(r["rank_samples_ns"], dtype=np.int64)
                                      if r.get("rank_samples_ns") else None),
                     cpu_charged_ns=r.get("cpu_charged_ns", 0))


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
