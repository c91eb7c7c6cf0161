"""The judge's side of a run: time targets on one case, from outside, in processes of their own.

The caller (the judge, the CLI) never loads candidate code. It hands the case to a
measuring driver (hpcab/timing/trusted/driver.py, the judge's own code in a process of its
own), which starts one runner process per target (hpcab/timing/untrusted/runner.py; the
candidate's sandboxed and frozen whenever it is not in a call: hpcab/freezer.py),
generates the input sets, times every call and checks every answer. A crash, a hang or a
memory blow-up of a runner is a result here, not an exception: the caller keeps running.
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

from hpcab import sandbox
from hpcab.case import Case
from hpcab.kernel import Kernel
from hpcab.paths import cache_dir
from hpcab.timing.policy import Policy, pinned
from hpcab.timing.records import (DriverFailure, Job, ProfileJob, ProfileRun, RunResult, Target, read_frame,
                                  write_frame)
from hpcab.timing.untrusted.harness import harness_ffi_module

DRIVER_MODULE = "hpcab.timing.trusted.driver"
PROFILE_MODULE = "hpcab.timing.trusted.profile"


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
             policy: Policy = Policy(), driver: Driver | None = None) -> RunResult:
    """Time the targets on the case (its input sets made by the driver from the case's seed).
    targets: the NumPy reference (kind "python") is required; its answers are the expected ones.
    driver: the grade's measuring driver (None: one for this run alone)."""
    policy = pinned(policy)
    job = Job(kernel_dir=kernel.directory.resolve(), corpus_root=Path(kernel.corpus_root), case=case,
              targets=tuple(targets), numpy=next(t.name for t in targets if t.kind == "python"),
              harness=harness, harness_ffi=harness_ffi_module() if harness else None,
              numba_cache=cache_dir() / "numba", env=_runner_env(policy), policy=policy,
              nproc=process_limit(policy))
    if driver is not None:
        return driver.run(job)
    with Driver() as own:
        return own.run(job)


def profile_case(kernel: Kernel, case: Case, target: Target, harness: Path | None, policy: Policy,
                 wrap: tuple[str, ...], out: Path, seconds: float, calls: int) -> ProfileRun:
    """The candidate (target) alone on the case, its runner started under wrap inside its
    sandbox (hpcab/timing/trusted/profile.py), in a measuring driver of its own."""
    policy = pinned(policy)
    job = ProfileJob(kernel_dir=kernel.directory.resolve(), corpus_root=Path(kernel.corpus_root), case=case,
                     target=target, harness=harness, harness_ffi=harness_ffi_module() if harness else None,
                     env=_runner_env(policy), policy=policy, nproc=process_limit(policy), wrap=wrap,
                     out=out, seconds=seconds, calls=calls)
    with Driver(PROFILE_MODULE) as own:
        return own.run(job)


class Driver:
    """The trusted measuring driver (hpcab/timing/trusted/driver.py), a process of the
    judge's own that measures one session per job it is sent. A grade keeps one for all its
    sessions and cases (starting one costs Python, NumPy and the kernel: 0.4-0.7 s), never
    for another grade: each session starts the candidate's process afresh (the judge's own
    it keeps within a case: trusted/driver.py, Kept). A driver that fails or runs past a
    session's limit is killed; the next job starts a new one."""

    def __init__(self, module: str = DRIVER_MODULE):
        """module: the driver's (a profile's: PROFILE_MODULE)."""
        self.module = module
        self.proc: subprocess.Popen | None = None
        self.err = None

    def __enter__(self) -> Driver:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        self.err = tempfile.TemporaryFile()
        # One thread for the driver's own NumPy (its checks): it shares the slot with the calls.
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        self.proc = subprocess.Popen([sys.executable, "-m", self.module], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, preexec_fn=_limits(),
                                     start_new_session=True, env=env)

    def run(self, job: Job | ProfileJob) -> RunResult | ProfileRun:
        started = time.monotonic()
        if job.policy.sandbox == "bubblewrap":
            sandbox.require()        # a judge-side problem, never the candidate's: raise, do not grade
        limit = job.policy.timeout_seconds + DRIVER_GRACE_S
        if self.proc is None or self.proc.poll() is not None:
            self.close()               # what is left of one that ended (its stderr file)
            self._start()
        proc = self.proc
        try:
            write_frame(proc.stdin, pickle.dumps(job))
            out = read_frame(proc.stdout, started + limit)
        except TimeoutError:
            self.close()
            raise RuntimeError(f"the measuring driver did not finish within {limit:g} s") from None
        except (OSError, EOFError) as exc:
            tail = self._stderr_tail()
            self.close()
            raise RuntimeError(f"the measuring driver failed ({exc}): {tail}") from None
        result = pickle.loads(out)     # the driver is the judge's own process: its pickle is trusted
        if isinstance(result, DriverFailure):
            self.close()
            raise RuntimeError(f"the measuring driver failed: {result.message}\n{result.traceback}")
        want = ProfileRun if isinstance(job, ProfileJob) else RunResult
        if not isinstance(result, want):
            self.close()
            raise RuntimeError(f"the measuring driver answered a {type(result).__name__}, expected a {want.__name__}")
        return attrs.evolve(result, wall_seconds=time.monotonic() - started)

    def _stderr_tail(self) -> str:
        if self.err is None:
            return ""
        self.err.seek(max(0, self.err.seek(0, os.SEEK_END) - 4000))
        return self.err.read().decode(errors="replace")

    def close(self) -> None:
        """The driver ended: asked (its stdin closed), then killed with its process group."""
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                proc.stdin.close()
                proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
            _kill_group(proc)
            proc.stdout.close()
        if self.err is not None:
            self.err.close()
            self.err = None


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
