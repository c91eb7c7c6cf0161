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
from hpcab.timing.records import DriverFailure, Job, RunResult, Target
from hpcab.timing.untrusted.harness import harness_ffi_module

DRIVER_MODULE = "hpcab.timing.trusted.driver"


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
    policy = pinned(policy)
    job = Job(kernel_dir=kernel.directory.resolve(), corpus_root=Path(kernel.corpus_root), case=case,
              targets=tuple(targets), numpy=next(t.name for t in targets if t.kind == "python"),
              harness=harness, harness_ffi=harness_ffi_module() if harness else None,
              numba_cache=cache_dir() / "numba", env=_runner_env(policy), policy=policy,
              nproc=process_limit(policy))
    return _drive(job)


def _drive(job: Job) -> RunResult:
    started = time.monotonic()
    policy = job.policy
    if policy.sandbox == "bubblewrap":
        sandbox.require()        # a judge-side problem, never the candidate's: raise, do not grade
    limit = policy.timeout_seconds + DRIVER_GRACE_S
    with tempfile.TemporaryFile() as err:
        # One thread for the driver's own NumPy (its checks): it shares the slot with the calls.
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        proc = subprocess.Popen([sys.executable, "-m", DRIVER_MODULE], stdin=subprocess.PIPE,
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
    result = pickle.loads(out)     # the driver is the judge's own process: its pickle is trusted
    if isinstance(result, DriverFailure):
        raise RuntimeError(f"the measuring driver failed: {result.message}\n{result.traceback}")
    if not isinstance(result, RunResult):
        raise RuntimeError(f"the measuring driver answered a {type(result).__name__}, expected a RunResult")
    return attrs.evolve(result, wall_seconds=time.monotonic() - started)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
