"""The trusted handle on one measured process: how the driver starts a target's runner
(its sealed shared buffer, its pipes, its limits, its sandbox and freezer group), talks to
it over the wire (hpcab/timing/wire.py), times one call and ends it. The distributed
track's group of ranks (hpcab/mpi/ranks.py) extends Frozen.
"""

from __future__ import annotations

import fcntl
import mmap
import os
import select
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

from hpcab import freezer, sandbox
from hpcab.timing.policy import Policy
from hpcab.timing.records import Job, Target
from hpcab.timing.wire import (CALL_FAILED, DONE, GO, LOAD_FAILED, MESSAGE_LIMIT, QUIT, READY, RunnerJob,
                               views)

RUNNER_MODULE = "hpcab.timing.untrusted.runner"


class Stop(Exception):
    """A target failed: (status, message, target name, phase)."""

    def __init__(self, status: str, message: str, target: str | None, phase: str):
        super().__init__(message)
        self.status, self.message, self.target, self.phase = status, message, target, phase


def brief_signal(rc: int) -> str:
    try:
        return signal.Signals(-rc).name
    except ValueError:
        return f"signal {-rc}"


class Frozen:
    """What every target the driver times shares: its freezer group (None: never frozen)
    and the file its process writes its output to."""
    group: freezer.Group | None
    frozen: bool
    stderr: object

    def freeze(self) -> None:
        if self.group is not None and not self.frozen:
            self.group.freeze()
            self.frozen = True

    def stderr_tail(self, limit: int = 4000) -> str:
        f = self.stderr
        f.seek(max(0, f.seek(0, os.SEEK_END) - limit))
        return f.read().decode(errors="replace")

    def _exit_status(self) -> int | None:
        """The status of a process that closed its pipe: -N when it (or, through bwrap or
        mpirun, which report it as 128 + N, what it ran) was killed by signal N; None when it
        did not exit within 5 s."""
        if self.group is not None:
            self.group.thaw()          # what is left of it must be able to exit
            self.frozen = False
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return None
        return 128 - rc if rc > 128 and rc - 128 in signal.valid_signals() else rc

    def _end(self, fds, grace: float, on_slow=None) -> None:
        """Kill the process, its session and its freezer group, reap it, close its pipes
        (after it was asked to quit). on_slow: what to try first when it outlives grace."""
        if self.group is not None:
            self.group.kill()
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            if on_slow is not None:
                on_slow()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        if self.group is not None:
            self.group.close()
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass


class Runner(Frozen):
    """One target's process, as the driver sees it: its buffer, its pipes, its clock."""

    def __init__(self, target: Target, kernel, sizes: dict, entries: list[dict], job: Job, workdir: Path,
                 group: freezer.Group | None, fill=None, wrap: tuple[str, ...] = (), fds: tuple[int, ...] = ()):
        """fill(buffers): what the buffer must hold before the process starts (it may read
        it while it loads: numba compiles on it). wrap: a command the runner is started
        under, inside its sandbox (a profile's perf record: hpcab/timing/trusted/profile.py);
        fds: descriptors it inherits besides the runner's own (where that command writes)."""
        self.name, self.kind = target.name, target.kind
        self.optional, self.trusted = target.optional, target.trusted
        self.group = group
        total = max(sum((e["nbytes"] + 63) // 64 * 64 for e in entries), 64)
        total = (total + mmap.PAGESIZE - 1) // mmap.PAGESIZE * mmap.PAGESIZE
        fd = os.memfd_create(f"hpcab-{self.name}", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        os.ftruncate(fd, total)
        # Sealed: the runner can write its buffer but not shrink it under the driver (SIGBUS).
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        self.mapping = mmap.mmap(fd, total)
        self.buf = views(self.mapping, entries)
        if fill is not None:
            fill(self.buf)
        go_r, self.go = os.pipe()
        self.done, done_w = os.pipe()
        os.set_blocking(self.done, False)
        self.poller = select.poll()
        self.poller.register(self.done, select.POLLIN)
        # The judge's C baseline runs in the candidate's sandbox too: the same C timed inside
        # and outside it differed by 25-40 % (an A/A test of gemm: libgomp, which reads the
        # machine's topology from /sys where it can, bound and ran its thread otherwise).
        # Trusted all the same: its answers checked as before, its memory not limited.
        sandboxed = job.policy.sandbox == "bubblewrap" and (not self.trusted or self.kind == "c")
        text = lambda p: str(p) if p else None
        runner_job = RunnerJob(self.name, self.kind, text(target.library), self.trusted, kernel.name,
                               text(job.harness), text(job.harness_ffi), str(kernel.directory.resolve()),
                               str(kernel.corpus_root), sizes, entries, fd, total, go_r, done_w)
        argv = [*wrap, sys.executable, "-m", RUNNER_MODULE]
        env = runner_env(job, sandboxed, self.trusted)
        self.stderr = open(workdir / f"{self.name}.stderr", "w+b")
        if sandboxed:      # (the judge's side checked that bubblewrap runs before it started this driver)
            files = [Path(p) for p in (job.harness, job.harness_ffi, target.library) if p]
            binds = [p for p in files if p.exists()]
            if self.kind != "c":
                binds.append(kernel.directory.resolve())
            sandbox.ensure_readable(binds)
            argv = sandbox.command(argv, binds=[sandbox.Bind(p, p) for p in binds], env=env, cwd="/tmp",
                                   processes=job.nproc)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=self.stderr, stderr=self.stderr,
                                     env=env, cwd="/tmp" if not sandboxed else None,
                                     pass_fds=(fd, go_r, done_w, *fds), preexec_fn=limits(job, sandboxed, group),
                                     start_new_session=True)
        if group is not None:
            group.started(self.proc.pid)
        os.close(fd)
        os.close(go_r)
        os.close(done_w)
        self.proc.stdin.write(runner_job.to_json())
        self.proc.stdin.close()
        self.frozen = False
        self.is_ready = False          # answered its load (a kept runner is, from its first session on)
        self.cpu_limit_s = cpu_limit_seconds(job.policy)     # its RLIMIT_CPU, for as long as it lives

    # -- the wire ----------------------------------------------------------------------
    def _read(self, n: int, deadline: float, phase: str) -> bytes:
        out = b""
        while len(out) < n:
            left = deadline - time.monotonic()
            if left <= 0 or not self.poller.poll(max(int(left * 1000), 1)):
                if time.monotonic() >= deadline:
                    raise Stop("timeout", "", self.name, phase)
                continue
            try:
                chunk = os.read(self.done, n - len(out))
            except BlockingIOError:
                continue
            if not chunk:
                raise self._died(phase)
            out += chunk
        return out

    def _message(self, deadline: float, phase: str) -> str:
        (length,) = struct.unpack("<I", self._read(4, deadline, phase))
        return self._read(min(length, MESSAGE_LIMIT), deadline, phase).decode(errors="replace")

    def _died(self, phase: str) -> Stop:
        rc = self._exit_status()
        during = f" while {phase} target {self.name!r}"
        if rc is not None and rc < 0:
            why = " (CPU-time limit)" if -rc == signal.SIGXCPU else ""
            if -rc == signal.SIGKILL and self.group is not None and self.group.memory_hit():
                why = (f" (its {self.group.memory_bytes / 2**30:.3g} GiB memory limit, shared memory and memfd "
                       f"pages counted)")
            return Stop("crashed", f"the measuring process was killed by {brief_signal(rc)}{why}{during}", self.name,
                        phase)
        if rc is None:
            return Stop("error", f"the measuring process closed its pipe to the judge but did not exit{during}",
                        self.name, phase)
        if rc == 0:
            return Stop("error", f"the measuring process ended (status 0){during}", self.name, phase)
        return Stop("error", f"the measuring process exited with status {rc}{during}", self.name, phase)

    def ready(self, deadline: float) -> None:
        if self.is_ready:
            return
        tag = self._read(1, deadline, "loading")
        if tag == LOAD_FAILED:
            raise Stop("error", self._message(deadline, "loading"), self.name, "loading")
        if tag != READY:
            raise Stop("error", "the measuring process answered out of turn while loading", self.name, "loading")
        self.is_ready = True

    def loaded(self) -> bool:
        """Whether it has answered its load (ready or failed): its answer is waiting."""
        return self.is_ready or bool(self.poller.poll(0))

    def drain(self) -> None:
        try:
            while os.read(self.done, 4096):
                pass
        except BlockingIOError:
            pass

    def call(self, deadline: float, command: bytes = GO) -> tuple[int, int | None]:
        """(wall ns, CPU ns of the candidate's processes or None) of one call."""
        group = self.group
        counted = group is not None and not self.trusted     # the judge's own CPU time is not checked
        cpu0 = cpu_go = None
        if group is not None:
            self.drain()           # bytes written while it was frozen or before: stale
            cpu0 = group.cpu_ns() if counted else None
            group.thaw()
            self.frozen = False
            # What ran between the thaw and t0 (not the call: "g" is not sent yet) is
            # charged to the call whole (rounds.py).
            cpu_go = group.cpu_ns() if counted else None
        poll, read, done, go = self.poller.poll, os.read, self.done, self.go
        t0 = time.perf_counter_ns()
        os.write(go, command)
        while True:
            if poll(max(int((deadline - time.monotonic()) * 1000), 0)):
                try:
                    tag = read(done, 1)
                    break
                except BlockingIOError:
                    continue
            if time.monotonic() >= deadline:
                self.freeze()
                raise Stop("timeout", "", self.name, "calling")
        t1 = time.perf_counter_ns()
        cpu = None
        self.last_cpu_before = None
        if group is not None:
            self.freeze()
            cpu1 = group.cpu_ns() if counted else None
            cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
            if cpu is not None and cpu_go is not None:
                self.last_cpu_before = cpu_go - cpu0
        if tag == DONE:
            return t1 - t0, cpu
        if not tag:
            raise self._died("calling")
        if tag == CALL_FAILED:
            if group is not None:
                group.thaw()
            try:
                message = self._message(min(deadline, time.monotonic() + 2), "calling")
            except Stop:
                message = "the call raised"
            raise Stop("error", message, self.name, "calling")
        raise Stop("error", "the measuring process answered out of turn", self.name, "calling")

    def close(self) -> None:
        try:
            os.write(self.go, QUIT)
        except OSError:
            pass
        self._end((self.go, self.done), 0.5 if self.group is None else 2)
        self.stderr.close()


def runner_env(job: Job, sandboxed: bool, trusted: bool) -> dict[str, str]:
    env = dict(job.env)
    if trusted and job.numba_cache:
        # The judge's numba baseline compiles once per reference and machine, not once per
        # session: its cache is the judge's, never handed to a candidate's runner.
        env["NUMBA_CACHE_DIR"] = str(job.numba_cache)
    if sandboxed:
        env.update(HOME="/tmp", TMPDIR="/tmp")
        env.pop("HPCAB_ROOT", None)
    return env


_LIBC = None


def group_cpus(target: Target, policy: Policy) -> tuple[int, ...] | None:
    """The CPUs a target's freezer group confines it to. Every target is frozen between its
    calls, the judge's too: frozen alone, the candidate came out 1.14x faster than the NumPy
    reference handed in as a candidate on a loaded machine (an A/A test; 1.005x with every
    target frozen), and a threaded C baseline's idle OpenMP threads spin on for milliseconds
    after each call (libgomp: about 11 ms of CPU after pathfinder's) on the next target's
    CPUs. The candidate and the judge's C baseline are confined to the slot from their start;
    the judge's Python targets load on any CPU, in parallel (numba compiles), and join the
    slot when ready (hpcab/timing/untrusted/runner.py)."""
    if policy.cpus and (not target.trusted or target.kind == "c"):
        return tuple(policy.cpus)
    return None


def cpu_limit_seconds(policy: Policy) -> int:
    """A runner's CPU-time limit (RLIMIT_CPU): its session's wall-clock limit on every thread
    granted, and 10 s more."""
    return int(policy.timeout_seconds * max(policy.threads, 1)) + 10


def limits(job: Job, sandboxed: bool, group: freezer.Group | None):
    """What a runner's process applies to itself between fork and exec."""
    import ctypes
    import resource
    global _LIBC
    _LIBC = _LIBC or ctypes.CDLL(None, use_errno=True)
    libc = _LIBC
    policy = job.policy
    nproc = job.nproc if sandboxed and sandbox.privileged() else None
    cpu = cpu_limit_seconds(policy)

    def apply():
        if group is not None:
            group.enter()         # before exec: no process of the candidate runs outside its group
        libc.prctl(1, signal.SIGKILL)      # PR_SET_PDEATHSIG: die with the driver
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_AS, (policy.memory_bytes, policy.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (policy.file_bytes, policy.file_bytes))
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        files = policy.open_files if hard == resource.RLIM_INFINITY else min(policy.open_files, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    return apply
