"""Run: time targets on one case in a separate, resource-limited child process.

The caller (the judge, the CLI) never loads candidate code. A crash, a hang or a memory
blow-up of the child is a result here, not an exception: the caller keeps running.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs
import numpy as np

from hpcab import sandbox
from hpcab.abi import params
from hpcab.case import Case, poison
from hpcab.harness import harness_ffi_module
from hpcab.kernel import Kernel


@attrs.frozen
class Policy:
    """How the judge measures: repetitions, limits, threads, CPUs and the sandbox (recorded
    with each grade)."""
    warmup: int = 1
    min_repetitions: int = 5
    max_repetitions: int = 1000
    target_seconds: float = 1.0      # stop once the slowest target has this much timed work
    max_seconds: float = 30.0        # ... or once this much wall time has passed
    timeout_seconds: float = 120.0   # the child is killed after this
    threads: int = 1
    cpus: tuple[int, ...] | None = None
    memory_bytes: int = 8 << 30
    file_bytes: int = 4 << 30
    # Sandboxed only: processes and threads the measuring child may hold at once, per thread
    # granted (RLIMIT_NPROC = processes × threads; a fork bomb stops there).
    processes: int = 64
    open_files: int = 1024           # RLIMIT_NOFILE
    # "bubblewrap" (hpcab.sandbox), "none", or "auto": bubblewrap where it can run, else
    # none, made concrete by pinned() so that a grade records what it ran under. The judge
    # (hpcab serve) asks for bubblewrap outright, or for none with --unsandboxed.
    sandbox: str = sandbox.AUTO
    input_sets: int = 3              # timed calls rotate over this many distinct input sets
    settle_seconds: float = 0.02     # the pause before the last look at the candidate's outputs
    snapshot_bytes: int = 256 << 20  # outputs kept for checking, at most (then later answers are dropped)


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
    the child drops it and reports why in RunResult.target_errors."""
    name: str
    kind: str                 # c | python | numba | module
    library: Path | None = None
    optional: bool = False
    trusted: bool = False     # the judge's own code (NumPy, a baseline): its answers are wiped after each call


@attrs.frozen
class RunResult:
    status: str               # ok | crashed | timeout | error
    message: str
    samples_ns: dict[str, np.ndarray]
    # target -> snapshot -> name -> array; snapshots: "warmup", "set<i>" (the first timed
    # answer on input set i), "set<i>@<n>" (timed call n's answer, where it differed)
    outputs: dict[str, dict[str, dict[str, np.ndarray]]]
    inputs_modified: dict[str, list[str]]
    stderr_tail: str
    wall_seconds: float
    target_errors: dict[str, str] = attrs.field(factory=dict)   # optional target -> why it was dropped
    # When the child died, timed out or failed: the target it was loading or calling then
    # (None: between targets, e.g. starting up or writing results), and the phase.
    failed_target: str | None = None
    failed_phase: str = ""    # loading | calling | ""
    sample_sets: dict[str, list[int]] = attrs.field(factory=dict)      # the input set of each timed sample
    changed_after_return: dict[str, list[str]] = attrs.field(factory=dict)   # outputs written after return
    snapshots_dropped: int = 0


# prctl(PR_SET_PDEATHSIG, SIGKILL): the measuring child dies with the process that started
# it, so a judge killed mid-grade leaves no candidate running on a measurement core.
_LIBC = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def process_limit(policy: Policy) -> int:
    """RLIMIT_NPROC of a sandboxed run: the processes and threads its user may hold."""
    return max(policy.processes, 1) * max(policy.threads, 1)


def _limits(policy: Policy, timeout: float):
    # RLIMIT_NPROC is set here only for a sandboxed run under a root judge: bwrap (root, so
    # exempt) then drops to the sandbox's uid, whose processes the limit counts; root's
    # would not be limited at all. Not root, hpcab.sandbox sets it inside the sandbox's user
    # namespace: set here, it would count every process of the user running the judge.
    nproc = process_limit(policy) if policy.sandbox == "bubblewrap" and sandbox.privileged() else None

    def apply():
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        cpu = int(timeout * max(policy.threads, 1)) + 10
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_AS, (policy.memory_bytes, policy.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (policy.file_bytes, policy.file_bytes))
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        files = policy.open_files if hard == resource.RLIM_INFINITY else min(policy.open_files, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    return apply


# glibc malloc in the measuring child: every block from the heap (no mmap, whose threshold
# otherwise moves with what was freed last) and freed memory kept (no trim). Otherwise the
# pages a call's temporaries land on depend on what the child allocated between calls, and a
# target that allocates (NumPy, numba) pays fresh page faults on some calls and not on
# others: the same NumPy code measured 1.3x faster as the candidate than as the reference.
MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=4294967295:glibc.malloc.trim_threshold=4294967295"


def _child_env(policy: Policy) -> dict[str, str]:
    """The measuring child's environment; sandboxed, all of it (bwrap --clearenv)."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "LD_LIBRARY_PATH", "PYTHONPATH", "HPCAB_ROOT",
            "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
    env = {k: v for k, v in os.environ.items() if k in keep}
    threads = str(policy.threads)
    env.update(OMP_NUM_THREADS=threads, OPENBLAS_NUM_THREADS=threads, MKL_NUM_THREADS=threads,
               NUMBA_NUM_THREADS=threads, OMP_PROC_BIND="true", PYTHONDONTWRITEBYTECODE="1",
               GLIBC_TUNABLES=MALLOC_TUNABLES)
    if policy.sandbox == "bubblewrap":
        # The judge's home, temporary folder and project root are not in the sandbox.
        env.update(HOME="/tmp", TMPDIR="/tmp")
        env.pop("HPCAB_ROOT", None)
    if policy.cpus:
        env["HPCAB_CPUS"] = ",".join(map(str, policy.cpus))
    return env


def run_case(kernel: Kernel, case: Case, inputs: dict[str, np.ndarray] | list[dict[str, np.ndarray]],
             targets: list[Target], harness: Path | None, policy: Policy = Policy(),
             workdir: Path | None = None) -> RunResult:
    """inputs: the input sets (hpcab.case.input_sets: K for the timed calls, then the
    warm-up's), or one set used for every call."""
    ps = params(kernel)
    sets = [inputs, inputs] if isinstance(inputs, dict) else list(inputs)
    pristine = {}
    for i, values in enumerate(sets):
        for name, value in values.items():
            pristine[f"set{i}/{name}"] = value
        for r in kernel.returns:     # returned values travel as poisoned 1-element (or shaped) buffers
            pristine[f"set{i}/{r.name}"] = poison(r.dtype, kernel.shape_of(r, case.sizes) or (1,))
    job = {
        "kernel": kernel.id,
        "harness": str(harness) if harness else None,
        "harness_ffi": str(harness_ffi_module()) if harness else None,
        "targets": [{"name": t.name, "kind": t.kind, "library": str(t.library) if t.library else None,
                     "optional": t.optional, "trusted": t.trusted, "symbol": kernel.name, "kernel_dir": str(kernel.directory.resolve()),
                     "corpus_root": str(kernel.corpus_root)}
                    for t in targets],
        "params": [{"name": p.name, "dtype": p.dtype, "pointer": p.pointer, "role": p.role} for p in ps],
        "inputs": [a.name for a in kernel.arrays if a.intent == "in"],
        "poisoned": [a.name for a in kernel.arrays if a.intent == "out"] + [r.name for r in kernel.returns],
        "outputs": list(kernel.outputs),
        "sizes": case.sizes,
        "workspace_bytes": kernel.workspace_size(case.sizes),
        "input_sets": len(sets) - 1, "settle_seconds": policy.settle_seconds,
        "snapshot_bytes": policy.snapshot_bytes,
        "warmup": policy.warmup, "min_repetitions": policy.min_repetitions,
        "max_repetitions": policy.max_repetitions, "target_seconds": policy.target_seconds,
        "max_seconds": policy.max_seconds,
    }
    own_dir = workdir is None
    jobdir = Path(tempfile.mkdtemp(prefix="hpcab-run-")) if own_dir else Path(workdir)
    try:
        (jobdir / "job.json").write_text(json.dumps(job))
        (jobdir / WHERE_FILE).write_bytes(bytes(WHERE_BYTES))
        # The input sets reach the child as its stdin, a file with no name: it reads them
        # before loading any candidate code and closes it, so a candidate cannot read every
        # input set from a file at load time and work out the answers before the timer.
        with tempfile.TemporaryFile() as inputs_file:
            np.savez(inputs_file, **pristine)
            inputs_file.seek(0)
            return _spawn(jobdir, pinned(policy), [t.name for t in targets], inputs_file)
    finally:
        if own_dir:
            shutil.rmtree(jobdir, ignore_errors=True)


# The child keeps, in this small shared file, which target it is loading or calling
# (byte 0: phase, byte 1: the target's index), so the caller can tell whose fault a crash
# or a hang was when several targets share the process.
WHERE_FILE, WHERE_BYTES = "where", 8
PHASES = {1: "loading", 2: "calling"}


def _where(jobdir: Path, names: list[str]) -> tuple[str | None, str]:
    data = _job_file(jobdir, WHERE_FILE) or b""     # never through a link, never blocking on a FIFO
    if len(data) < 2 or data[0] not in PHASES or data[1] >= len(names):
        return None, ""
    return names[data[1]], PHASES[data[0]]


# What the measuring child writes in its job folder (everything else there it only reads).
CHILD_WRITES = ("where", "result.json", "outputs.npz")


def _sandboxed(argv: list[str], jobdir: Path, policy: Policy, env: dict[str, str]) -> list[str]:
    """argv wrapped in bubblewrap (hpcab.sandbox). Read-only: the files job.json names (the
    candidate's, the harness's and the baseline's libraries, the harness's cffi module;
    never the whole build cache, which holds other agents' code), the kernel's folder (the
    NumPy reference) and the job folder. Read-write: only the job folder's CHILD_WRITES,
    each bound on its own, made beforehand: the candidate can write into them, but not
    replace them (by a link to a file of the judge's, a FIFO to block its reads) nor add
    anything beside them."""
    job = json.loads((jobdir / "job.json").read_text())
    files = [Path(job[k]) for k in ("harness", "harness_ffi") if job.get(k)]
    files += [Path(t["library"]) for t in job["targets"] if t.get("library")]
    folders = sorted({Path(t["kernel_dir"]) for t in job["targets"] if t.get("kernel_dir")})
    bound = [p for p in files + folders if p.exists()]
    written = [jobdir / name for name in CHILD_WRITES]
    for path in written[1:]:
        path.write_bytes(b"")          # empty until the child writes it (the where file is made already)
    sandbox.ensure_readable(bound + [jobdir, jobdir / "job.json"])
    sandbox.give(written)
    binds = ([sandbox.Bind(p, p) for p in bound] + [sandbox.Bind(jobdir, jobdir)]
             + [sandbox.Bind(p, p, writable=True) for p in written])
    return sandbox.command(argv, binds=binds, env=env, cwd=str(jobdir), processes=process_limit(policy))


def _spawn(jobdir: Path, policy: Policy, names: list[str], inputs_file) -> RunResult:
    started = time.monotonic()
    timeout = policy.timeout_seconds
    policy = attrs.evolve(policy, sandbox=sandbox.resolve(policy.sandbox))
    jobdir = Path(jobdir).resolve()
    argv, env = [sys.executable, "-m", "hpcab.child", str(jobdir)], _child_env(policy)
    if policy.sandbox == "bubblewrap":
        sandbox.require()        # a judge-side problem, never the candidate's: raise, do not grade
        argv = _sandboxed(argv, jobdir, policy, env)
    with open(jobdir / "stderr.txt", "w+b") as err:
        proc = subprocess.Popen(argv, cwd=jobdir,
                                stdin=inputs_file, stdout=err, stderr=err, env=env,
                                preexec_fn=_limits(policy, timeout), start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            rc = None
        # Read back through our own descriptor: the job folder is the candidate's, and the
        # name stderr.txt may by now be a link to any file of the judge's.
        err.seek(max(0, err.seek(0, os.SEEK_END) - 4000))
        stderr_tail = err.read().decode(errors="replace")
    wall = time.monotonic() - started
    if policy.sandbox == "bubblewrap":
        sandbox.reclaim(jobdir / name for name in CHILD_WRITES)
        # bwrap reports a command killed by signal N as exit status 128 + N, as a shell does
        # (so a candidate's exit(139) reads as SIGSEGV: either way the case failed).
        if rc is not None and rc > 128 and rc - 128 in signal.valid_signals():
            rc = 128 - rc
    failed_target, failed_phase = _where(jobdir, names)
    empty = RunResult("", "", {}, {}, {}, stderr_tail, wall, {}, failed_target, failed_phase)
    during = f" while {failed_phase} target {failed_target!r}" if failed_target else ""
    if rc is None:
        return attrs.evolve(empty, status="timeout",
                            message=f"killed after the {timeout:g} s wall-clock limit{during}")
    _kill_group(proc)   # anything the candidate left behind (threads live in the process; forks do not)
    if rc < 0:
        sig = signal.Signals(-rc).name
        why = " (CPU-time limit)" if -rc == signal.SIGXCPU else ""
        return attrs.evolve(empty, status="crashed", message=f"the measuring process was killed by {sig}{why}{during}")
    raw = _job_file(jobdir, "result.json") or None      # sandboxed, an empty one was made for it
    try:
        result = json.loads(raw) if raw is not None else {}
    except ValueError:
        result = {"error": "the measuring process left an unreadable result.json"}
    if not isinstance(result, dict):
        result = {"error": "the measuring process left an unreadable result.json"}
    if rc == 0 and raw is None:
        result = {"error": "the measuring process ended (status 0) without writing its results"}
    if rc != 0 or "error" in result:
        msg = str(result.get("error") or f"the measuring process exited with status {rc}")
        if "MemoryError" in stderr_tail:
            msg += " (out of memory: the limit is %d MiB)" % (policy.memory_bytes >> 20)
        return attrs.evolve(empty, status="error", message=msg)
    outputs: dict = {}
    npz = _job_file(jobdir, "outputs.npz", opened=True)
    if npz is None:
        return attrs.evolve(empty, status="error", message="the measuring process wrote no outputs.npz")
    try:         # what the measuring process wrote is the candidate's to spoil: a graded error
        with npz, np.load(npz, allow_pickle=False) as data:
            for key in data.files:
                target, snap, name = key.split("/", 2)
                outputs.setdefault(target, {}).setdefault(snap, {})[name] = data[key]
        samples = {k: np.asarray(v, dtype=np.int64) for k, v in result["samples_ns"].items()}
        modified = dict(result["inputs_modified"])
    except Exception as exc:
        return attrs.evolve(empty, status="error",
                            message=f"the measuring process left unreadable results ({type(exc).__name__})")
    return RunResult("ok", "", samples, outputs, modified, stderr_tail, wall,
                     result.get("target_errors", {}), sample_sets=result.get("sample_sets", {}),
                     changed_after_return=result.get("changed_after_return", {}),
                     snapshots_dropped=result.get("snapshots_dropped", 0))


def _job_file(jobdir: Path, name: str, opened: bool = False):
    """A file the measuring process wrote: its bytes (opened=True: the open file), or None
    when it is missing or not a regular file. Never through a link (a sandboxed candidate
    owns the job folder and could leave one to a file of the judge's), never a FIFO."""
    try:
        fd = os.open(jobdir / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        f.close()
        return None
    if opened:
        return f
    with f:
        return f.read()


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
