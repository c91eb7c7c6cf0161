"""The trusted side of a measurement: `python -m hpcab.driver`, one process per case.

It owns the clock, the input sets, the expected outputs and the result. Each target (the
candidate, the NumPy reference, the track's baseline) runs in a process of its own
(hpcab/runner.py) that holds only its shared buffer; the candidate's is sandboxed, and it
and everything it starts is frozen (hpcab/freezer.py) whenever it is not in a call.

One call, as the driver makes it (docs/measurement_statistics.md):

    write this round's input set into the target's buffer, poison its outputs
    drop stale bytes from its pipe, thaw it [candidate: read its CPU time before and after]
    t0 = clock;  send "g";  wait for "d";  t1 = clock
    freeze it [candidate: read its CPU time; CPU outside the call is charged to it]
    compare its read-only inputs with the set; copy its outputs out

Rounds call every target once on one input set, in alternating order; every round's set
is generated fresh (never seen by any target) while generating costs at most the policy's
fresh_fraction of the time spent in timed calls, then a kept set, drawn at random, is
repeated. Every set derives from the session's seed, a secret of the grade's. Repeated
rounds enter the speedup only where the candidate is shown as slow on them as on new sets
(hpcab/grade.py decides, over all sessions). The NumPy reference's outputs on a
set are that set's expected outputs; every answer of the candidate is checked against
them, and the first wrong one ends the case.

The job comes pickled on stdin from hpcab.run (the judge's own process); the result goes
back pickled on stdout. Both ends are the judge's: the candidate never touches either.
"""

from __future__ import annotations

import fcntl
import json
import mmap
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hpcab import freezer
from hpcab import sandbox
from hpcab.case import Case, input_set_case, make_inputs, poison
from hpcab.check import check_outputs, prepare_expected, quick_normwise
from hpcab.kernel import load_kernel
from hpcab.runner import layout

MIN_FRESH = 8              # the first rounds' sets are always new, whatever generating them costs
AHEAD_SHARE = 0.5          # past those, the chance a round takes a set made ahead over a kept one
PINGS = 64                 # round trips to the NumPy runner: the timer's overhead
LOAD_SECONDS_MIN = 5.0
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


class Stop(Exception):
    """A target failed: (status, message, target name, phase)."""

    def __init__(self, status: str, message: str, target: str | None, phase: str):
        super().__init__(message)
        self.status, self.message, self.target, self.phase = status, message, target, phase


def _brief_signal(rc: int) -> str:
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

    def __init__(self, spec: dict, kernel, sizes: dict, entries: list[dict], job: dict, workdir: Path,
                 group: freezer.Group | None, fill=None):
        """fill(buffers): what the buffer must hold before the process starts (it may read
        it while it loads: numba compiles on it)."""
        self.name, self.kind = spec["name"], spec["kind"]
        self.optional, self.trusted = spec["optional"], spec["trusted"]
        self.group = group
        total = max(sum((e["nbytes"] + 63) // 64 * 64 for e in entries), 64)
        total = (total + mmap.PAGESIZE - 1) // mmap.PAGESIZE * mmap.PAGESIZE
        fd = os.memfd_create(f"hpcab-{self.name}", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        os.ftruncate(fd, total)
        # Sealed: the runner can write its buffer but not shrink it under the driver (SIGBUS).
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        self.mapping = mmap.mmap(fd, total)
        from hpcab.runner import views
        self.buf = views(self.mapping, entries)
        if fill is not None:
            fill(self.buf)
        go_r, self.go = os.pipe()
        self.done, done_w = os.pipe()
        os.set_blocking(self.done, False)
        self.poller = select.poll()
        self.poller.register(self.done, select.POLLIN)
        policy = job["policy"]
        # The judge's C baseline runs in the candidate's sandbox too: the same C timed inside
        # and outside it differed by 25-40 % (an A/A test of gemm: libgomp, which reads the
        # machine's topology from /sys where it can, bound and ran its thread otherwise).
        # Trusted all the same: its answers checked as before, its memory not limited.
        sandboxed = policy["sandbox"] == "bubblewrap" and (not self.trusted or self.kind == "c")
        runner_job = {"name": self.name, "kind": self.kind, "library": spec.get("library"), "trusted": self.trusted,
                      "symbol": kernel.name, "harness": job["harness"], "harness_ffi": job["harness_ffi"],
                      "kernel_dir": str(kernel.directory.resolve()), "corpus_root": str(kernel.corpus_root),
                      "sizes": sizes, "layout": entries, "buffer_fd": fd, "buffer_bytes": total,
                      "go": go_r, "done": done_w}
        argv = [sys.executable, "-m", "hpcab.runner"]
        env = _runner_env(job, sandboxed, self.trusted)
        self.stderr = open(workdir / f"{self.name}.stderr", "w+b")
        if sandboxed:      # (hpcab.run checked that bubblewrap runs before it started this driver)
            files = [Path(p) for p in (job["harness"], job["harness_ffi"], spec.get("library")) if p]
            binds = [p for p in files if p.exists()]
            if self.kind != "c":
                binds.append(kernel.directory.resolve())
            sandbox.ensure_readable(binds)
            argv = sandbox.command(argv, binds=[sandbox.Bind(p, p) for p in binds], env=env, cwd="/tmp",
                                   processes=policy["nproc"])
        limits = _limits(policy, sandboxed, group)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=self.stderr, stderr=self.stderr,
                                     env=env, cwd="/tmp" if not sandboxed else None,
                                     pass_fds=(fd, go_r, done_w), preexec_fn=limits, start_new_session=True)
        if group is not None:
            group.started(self.proc.pid)
        os.close(fd)
        os.close(go_r)
        os.close(done_w)
        self.proc.stdin.write(json.dumps(runner_job).encode())
        self.proc.stdin.close()
        self.frozen = False

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
        return self._read(min(length, 4000), deadline, phase).decode(errors="replace")

    def _died(self, phase: str) -> Stop:
        rc = self._exit_status()
        during = f" while {phase} target {self.name!r}"
        if rc is not None and rc < 0:
            why = " (CPU-time limit)" if -rc == signal.SIGXCPU else ""
            if -rc == signal.SIGKILL and self.group is not None and self.group.memory_hit():
                why = (f" (its {self.group.memory_bytes / 2**30:.3g} GiB memory limit, shared memory and memfd "
                       f"pages counted)")
            return Stop("crashed", f"the measuring process was killed by {_brief_signal(rc)}{why}{during}", self.name,
                        phase)
        if rc is None:
            return Stop("error", f"the measuring process closed its pipe to the judge but did not exit{during}",
                        self.name, phase)
        if rc == 0:
            return Stop("error", f"the measuring process ended (status 0){during}", self.name, phase)
        return Stop("error", f"the measuring process exited with status {rc}{during}", self.name, phase)

    def ready(self, deadline: float) -> None:
        tag = self._read(1, deadline, "loading")
        if tag == b"E":
            raise Stop("error", self._message(deadline, "loading"), self.name, "loading")
        if tag != b"r":
            raise Stop("error", "the measuring process answered out of turn while loading", self.name, "loading")

    def loaded(self) -> bool:
        """Whether it has answered its load (ready or failed): its answer is waiting."""
        return bool(self.poller.poll(0))

    def drain(self) -> None:
        try:
            while os.read(self.done, 4096):
                pass
        except BlockingIOError:
            pass

    def call(self, deadline: float, command: bytes = b"g") -> tuple[int, int | None]:
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
            # charged to the call whole (hpcab.driver._rounds).
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
        if tag == b"d":
            return t1 - t0, cpu
        if not tag:
            raise self._died("calling")
        if tag == b"X":
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
            os.write(self.go, b"q")
        except OSError:
            pass
        self._end((self.go, self.done), 0.5 if self.group is None else 2)
        self.stderr.close()


def _runner_env(job: dict, sandboxed: bool, trusted: bool) -> dict[str, str]:
    env = dict(job["env"])
    if trusted and job.get("numba_cache"):
        # The judge's numba baseline compiles once per reference and machine, not once per
        # session: its cache is the judge's, never handed to a candidate's runner.
        env["NUMBA_CACHE_DIR"] = job["numba_cache"]
    if sandboxed:
        env.update(HOME="/tmp", TMPDIR="/tmp")
        env.pop("HPCAB_ROOT", None)
    return env


_LIBC = None


def _group_cpus(spec: dict, policy: dict) -> tuple[int, ...] | None:
    """The CPUs a target's freezer group confines it to. Every target is frozen between its
    calls, the judge's too: frozen alone, the candidate came out 1.14x faster than the NumPy
    reference handed in as a candidate on a loaded machine (an A/A test; 1.005x with every
    target frozen), and a threaded C baseline's idle OpenMP threads spin on for milliseconds
    after each call (libgomp: about 11 ms of CPU after pathfinder's) on the next target's
    CPUs. The candidate and the judge's C baseline are confined to the slot from their start;
    the judge's Python targets load on any CPU, in parallel (numba compiles), and join the
    slot when ready (hpcab.runner)."""
    if policy["cpus"] and (not spec["trusted"] or spec["kind"] == "c"):
        return tuple(policy["cpus"])
    return None


def _limits(policy: dict, sandboxed: bool, group: freezer.Group | None):
    import ctypes
    import resource
    global _LIBC
    _LIBC = _LIBC or ctypes.CDLL(None, use_errno=True)
    libc = _LIBC
    nproc = policy["nproc"] if sandboxed and sandbox.privileged() else None
    timeout = policy["timeout_seconds"]
    threads = max(policy["threads"], 1)

    def apply():
        if group is not None:
            group.enter()         # before exec: no process of the candidate runs outside its group
        libc.prctl(1, signal.SIGKILL)      # PR_SET_PDEATHSIG: die with the driver
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        cpu = int(timeout * threads) + 10
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_AS, (policy["memory_bytes"], policy["memory_bytes"]))
        resource.setrlimit(resource.RLIMIT_FSIZE, (policy["file_bytes"], policy["file_bytes"]))
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        files = policy["open_files"] if hard == resource.RLIM_INFINITY else min(policy["open_files"], hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    return apply


# ---- input sets ----------------------------------------------------------------------

class InputSets:
    """Input sets generated from (the case, an index), each kept with its expected outputs
    while memory allows (for the rounds that must repeat a set). Sets are made ahead while
    the runners load (prefill: the driver would only wait), else on demand."""

    def __init__(self, kernel, case: Case, budget_bytes: int):
        self.kernel, self.case = kernel, case
        self.inputs = [a.name for a in kernel.arrays if a.intent != "out"] + [s.name for s in kernel.scalars]
        self.budget = budget_bytes
        self.kept: dict[int, tuple[dict, dict]] = {}       # index → (values, expected outputs)
        self.kept_bytes = 0
        self.ahead: dict[int, dict] = {}                   # index → values, made during the load
        self.ahead_bytes = 0
        self.generated = 0
        self.seconds = 0.0          # generating on demand, between calls
        self.ahead_seconds = 0.0    # generating while the runners loaded

    def _generate(self, index: int) -> dict[str, np.ndarray]:
        values = make_inputs(self.kernel, input_set_case(self.case, index))
        self.generated += 1
        return {n: values[n] for n in self.inputs}

    def make(self, index: int) -> dict[str, np.ndarray]:
        if index in self.ahead:
            values = self.ahead.pop(index)
            self.ahead_bytes -= sum(v.nbytes for v in values.values())
            return values
        started = time.perf_counter()
        values = self._generate(index)
        self.seconds += time.perf_counter() - started
        return values

    def prefill(self, first: int, done, deadline: float) -> None:
        """Make sets first, first + 1, ... until done() (the runners have loaded), the
        deadline, or half the memory budget (the other half keeps sets to repeat)."""
        index = first
        while not done() and time.monotonic() < deadline:
            started = time.perf_counter()
            values = self._generate(index)
            self.ahead_seconds += time.perf_counter() - started
            size = sum(v.nbytes for v in values.values())
            if self.ahead_bytes + size > self.budget // 2:
                break
            self.ahead[index] = values
            self.ahead_bytes += size
            index += 1

    def keep(self, index: int, values: dict, expected: dict) -> None:
        size = sum(v.nbytes for v in values.values()) + sum(v.nbytes for v in expected.values())
        if self.kept_bytes + self.ahead_bytes + size <= self.budget:
            self.kept[index] = (values, expected)
            self.kept_bytes += size


def _bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    x, y = a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8)
    n = x.size - x.size % 8
    return bool(np.array_equal(x[:n].view(np.uint64), y[:n].view(np.uint64)) and np.array_equal(x[n:], y[n:]))


# ---- the measurement -------------------------------------------------------------------

def measure(job: dict) -> dict:
    started = time.monotonic()
    pol = job["policy"]
    kernel = load_kernel(Path(job["kernel_dir"]), Path(job["corpus_root"]), check=False)
    case = Case(**job["case"])
    sizes = case.sizes
    entries = layout(kernel, sizes)
    out_names = list(kernel.outputs)
    # Written before every call: the set's in and inout arrays and its scalars. Then the out
    # arrays and returned values are poisoned, the workspace zeroed.
    in_names = [a.name for a in kernel.arrays if a.intent != "out"] + [s.name for s in kernel.scalars]
    blank = {a.name for a in kernel.arrays if a.intent == "out"} | {r.name for r in kernel.returns}
    poisons = {e["name"]: np.zeros(tuple(e["shape"]), e["dtype"]) if e["role"] == "workspace"
               else poison(e["dtype"], tuple(e["shape"]))
               for e in entries if e["name"] in blank or e["role"] == "workspace"}
    sizes_values = {e["name"]: np.array(sizes[e["name"]] if e["name"] in sizes else kernel.workspace_size(sizes),
                                        dtype=e["dtype"])
                    for e in entries if e["role"] == "size"}
    deadline = started + pol["timeout_seconds"]
    sets = InputSets(kernel, case, pol["input_bytes"])
    result: dict = {"status": "ok", "message": "", "samples_ns": {}, "sample_sets": {}, "fresh": {},
                    "target_errors": {}, "failed_target": None, "failed_phase": "", "inputs_modified": {},
                    "stderr_tail": "", "verdict": None, "memo": "", "memo_seen_ns": None, "cpu": "",
                    "timer_overhead_ns": None,
                    "cpu_excess_ns": None, "cpu_charged_ns": 0, "freezer": None, "candidate_ping_ns": None, "timer_overhead_c_ns": None,
                    "durations": {}, "rank_samples_ns": None}
    workdir = Path(tempfile.mkdtemp(prefix="hpcab-drive-"))
    runners: list[Runner] = []
    durations = result["durations"]
    candidate: Runner | None = None
    try:
        warm = None

        def fill(buf, with_inputs: bool) -> None:
            for n, v in sizes_values.items():
                buf[n][...] = v
            if with_inputs:      # numba compiles on the warm-up set when it loads
                for n in in_names:
                    buf[n][...] = warm[n]
            for n, p in poisons.items():
                buf[n][...] = p
        # The candidate first (it loads while the warm-up set is made), then the judge's own.
        for spec in sorted(job["targets"], key=lambda t: t["trusted"]):
            group = None
            # srun's ranks are Slurm's processes, out of the driver's process tree (hpcab/mpi/ranks.py).
            srun = spec["kind"] == "mpi" and spec["mpi"]["launcher"] == "srun"
            if not srun:
                # The candidate's memory, all its processes together: per rank for a distributed one
                # (each rank had the address-space limit to itself).
                ranks = int(spec["mpi"]["ranks"]) if spec["kind"] == "mpi" else 1
                group = freezer.open_group(_group_cpus(spec, pol), pol["freezer"],
                                           None if spec["trusted"] else pol["memory_bytes"] * ranks)
                if not spec["trusted"]:
                    result["freezer"] = group.kind
            if spec["trusted"] and warm is None:
                warm = sets.make(-1)
            make = Runner
            if spec["kind"] == "mpi":
                from hpcab.mpi.ranks import RankGroup as make
            try:
                r = make(spec, kernel, sizes, entries, job, workdir, group,
                         lambda buf, t=spec["trusted"]: fill(buf, t))
            except Exception:
                if group is not None:
                    group.close()
                raise
            runners.append(r)
            if not r.trusted:
                candidate = r
        load_deadline = min(deadline, time.monotonic() + max(pol["timeout_seconds"], LOAD_SECONDS_MIN))
        if pol["cpus"]:
            os.sched_setaffinity(0, set(pol["cpus"]))     # sleeps in poll during calls: on the slot with them
        # While the runners load (the driver would only wait), the first rounds' sets: on the
        # slot's CPUs, so that another slot's timed calls never share a CPU with it.
        sets.prefill(0, lambda: all(r.loaded() for r in runners if hasattr(r, "loaded")), load_deadline)
        for r in list(runners):
            try:
                r.ready(load_deadline)
            except Stop as stop:
                if r.optional:
                    result["target_errors"][r.name] = stop.message or f"{stop.status} while loading"
                    runners.remove(r)
                    r.close()
                    continue
                raise
        for r in runners:
            r.freeze()              # every target (no-op without a group: srun's ranks)
        durations["startup"] = time.monotonic() - started
        numpy_runner = next(r for r in runners if r.name == job["numpy"])
        pings = [numpy_runner.call(deadline, b"p")[0] for _ in range(PINGS)]
        result["timer_overhead_ns"] = float(np.median(pings))
        # A C target's loop (hpcab_serve) answers faster than the NumPy runner's Python loop:
        # its round trip is measured on a trusted C runner (the baseline) and subtracted from
        # C targets instead; with none, nothing is subtracted from them (never too much).
        trusted_c = next((r for r in runners if r.trusted and r.kind == "c"), None)
        if trusted_c is not None:
            result["timer_overhead_c_ns"] = float(np.median([trusted_c.call(deadline, b"p")[0] for _ in range(PINGS)]))
        if candidate is not None and candidate.kind == "c":
            # The same round trip through the candidate's own loop (thawed around each, as a
            # call is): reported, never subtracted (its code could make it slow on purpose).
            result["candidate_ping_ns"] = float(np.median([candidate.call(deadline, b"p")[0] for _ in range(PINGS)]))
        readonly = [a.name for a in kernel.arrays if a.intent == "in"]
        _rounds(job, kernel, runners, candidate, numpy_runner, sets, in_names, readonly, out_names, poisons,
                warm, deadline, result)
    except Stop as stop:
        result.update(status=stop.status, failed_target=stop.target, failed_phase=stop.phase)
        if stop.status == "timeout":
            result["message"] = (f"killed after the {pol['timeout_seconds']:g} s wall-clock limit while "
                                 f"{stop.phase} target {stop.target!r}")
        else:
            result["message"] = stop.message
    finally:
        t = time.monotonic()
        for r in runners:
            if r is candidate or r.name == result["failed_target"]:
                result["stderr_tail"] = r.stderr_tail()
            r.close()
        durations["teardown"] = time.monotonic() - t
        for f in workdir.iterdir():
            f.unlink()
        workdir.rmdir()
    durations["generate"] = sets.seconds
    durations["generate_ahead"] = sets.ahead_seconds
    durations["driver_total"] = time.monotonic() - started
    return result


def _rounds(job, kernel, runners, candidate, numpy_runner, sets: InputSets, in_names, readonly, out_names,
            poisons, warm, deadline, result) -> None:
    pol = job["policy"]
    limit = {"deadline": deadline}
    # A distributed candidate's ranks answer through the same C loop as a C target.
    overhead = {r.name: int((result["timer_overhead_c_ns"] if r.kind in ("c", "mpi") else result["timer_overhead_ns"])
                            or 0) for r in runners}
    threads = max(pol["threads"], 1) * getattr(candidate, "ranks", 1)
    rank_samples: list[list[int]] = []     # a distributed candidate's: every rank's time of each timed call
    samples = {r.name: [] for r in runners}
    set_of = {r.name: [] for r in runners}
    fresh_of = {r.name: [] for r in runners}
    cpu_excess, cpu_calls, cpu_wall = 0, 0, 0
    worst = None
    # Outputs are read straight from the buffers once the round is over: the candidate is
    # frozen and the judge's runners idle until their next call, so nothing moves them.
    outputs = {r.name: {n: r.buf[n] for n in out_names} for r in runners}
    checked_baseline: set[str] = set()
    durations = result["durations"]
    check_seconds = 0.0
    timed_seconds = 0.0
    started = time.monotonic()

    prepared: dict[int, dict] = {}      # input set → its expected outputs' bands (hpcab.check)

    def one_round(index: int, values: dict, rnd: int, timed: bool, fresh: bool, expected: dict | None = None) -> dict:
        nonlocal cpu_excess, cpu_calls, cpu_wall, worst, check_seconds, timed_seconds
        order = list(runners) if rnd % 2 == 0 else runners[::-1]
        times = {}
        for r in order:
            for n in in_names:
                np.copyto(r.buf[n], values[n])
            for n, p in poisons.items():
                np.copyto(r.buf[n], p)
            try:
                ns, cpu = r.call(limit["deadline"])
            except Stop as stop:
                if r.optional:
                    # The judge's baseline failed: dropped, and it must not eat the others' time.
                    why = stop.message or f"it ran past the {pol['timeout_seconds']:g} s limit"
                    result["target_errors"][r.name] = f"{stop.status}: {why}"
                    _drop(r)
                    if stop.status == "timeout":
                        limit["deadline"] = time.monotonic() + pol["timeout_seconds"]
                    continue
                raise
            # The call's time: the timed interval less the round trip of a trusted runner
            # with the same loop (out of the candidate's reach), the same for every target
            # of that kind.
            times[r.name] = max(ns - overhead[r.name], 1)
            if timed:
                timed_seconds += ns / 1e9
            if cpu is not None and timed and r is candidate:
                # Per call, no credit carried: a call that used less CPU than its wall time
                # (it slept) pays nothing forward for one that used more. CPU used before t0
                # (between the thaw and "g") is charged whole; after it, what exceeds the
                # call's wall time × threads (after "d", before the freeze landed, or on more
                # CPUs than granted). Each beyond a slack an honest runner's wake-up and
                # return to its read() stay under.
                before = getattr(r, "last_cpu_before", None) or 0
                excess = max(before - CPU_CHARGE_SLACK_NS, 0) + max(
                    cpu - before - ns * threads - CPU_CHARGE_SLACK_NS * threads, 0)
                cpu_excess += max(cpu - ns * threads, 0)
                if excess > 0:
                    charged = -(-excess // threads)
                    times[r.name] += charged
                    result["cpu_charged_ns"] += charged
                cpu_calls += 1
                cpu_wall += ns
            t = time.perf_counter()
            if r is candidate or r.name not in checked_baseline:
                modified = [n for n in readonly if not _bits_equal(r.buf[n], values[n])]
                if modified:
                    if r is candidate:
                        result["inputs_modified"][r.name] = modified
                        result["verdict"] = {"correct": False, "message": f"modified read-only input(s) "
                                                                             f"{', '.join(modified)}"}
                        raise _Done()
                    result["target_errors"][r.name] = (f"it modified read-only input(s) {', '.join(modified)}; "
                                                       f"its time is not used")
                    _drop(r)
                    continue
            check_seconds += time.perf_counter() - t
        t = time.perf_counter()
        if expected is None:
            expected = {n: outputs[numpy_runner.name][n].copy() for n in out_names}
            if candidate is not None:
                prepared[index] = prepare_expected(kernel, expected)
        for r in list(runners):
            if r is numpy_runner or r.name not in times:
                continue
            if r is candidate:
                quick = quick_normwise(outputs[r.name], prepared[index]) if worst is not None else None
                if quick is not None and quick <= worst.normwise_err:
                    continue          # right, and no worse than the answer already recorded
                check = check_outputs(kernel, outputs[r.name], expected)
                what = "the warm-up call" if not timed else f"timed call {len(samples[r.name]) + 1}"
                if not check.correct:
                    result["verdict"] = {"correct": False, "message": f"{what}: {check.message}", "check": check}
                    raise _Done()
                if worst is None or check.normwise_err > worst.normwise_err:
                    worst = check
            elif r.name not in checked_baseline:
                check = check_outputs(kernel, outputs[r.name], expected)
                if not check.correct:
                    result["target_errors"][r.name] = f"its answer is wrong, so its time is not used: {check.message}"
                    _drop(r)
                    continue
                checked_baseline.add(r.name)
        check_seconds += time.perf_counter() - t
        if timed:
            for r in runners:
                if r.name in times:
                    samples[r.name].append(times[r.name])
                    if r is candidate and getattr(r, "last_rank_ns", None) is not None:
                        rank_samples.append([max(ns - overhead[r.name], 1) for ns in r.last_rank_ns])
                    set_of[r.name].append(index)
                    fresh_of[r.name].append(fresh)
        return expected

    def _drop(r: Runner) -> None:
        runners.remove(r)
        for d in (samples, set_of, fresh_of):
            d.pop(r.name, None)
        r.close()

    class _Done(Exception):
        pass

    try:
        for w in range(pol["warmup"]):
            one_round(-1 - w, warm if w == 0 else sets.make(-1 - w), w, False, True)
            prepared.pop(-1 - w, None)
        rnd, last = 0, None
        fresh_index = 0
        # Which kept set a repeated round takes: drawn from the session's seed, itself a
        # secret of the grade's (hpcab.case.session_case), so the order is not predictable.
        pick = np.random.default_rng([job["case"]["seed"], 0x5E7])
        while True:
            # A new set whenever generating it stays within budget (or it was made ahead);
            # otherwise a secret draw between one made ahead and a kept one, so that new and
            # repeated sets are spread over the whole session and compare like for like.
            fresh = (fresh_index < MIN_FRESH or not sets.kept
                     or sets.seconds <= pol["fresh_fraction"] * timed_seconds
                     or (fresh_index in sets.ahead and pick.random() < AHEAD_SHARE))
            if fresh:
                index, values = fresh_index, sets.make(fresh_index)
                fresh_index += 1
            else:
                choices = [i for i in sets.kept if i != last] or list(sets.kept)
                index = choices[int(pick.integers(len(choices)))]
                values = sets.kept[index][0]
            expected = one_round(index, values, rnd + pol["warmup"], True, fresh,
                                 None if fresh else sets.kept[index][1])
            if fresh:
                sets.keep(index, values, expected)
                if index not in sets.kept:
                    prepared.pop(index, None)
            last = index
            rnd += 1
            spent = max((sum(v) for v in samples.values()), default=0) / 1e9
            if rnd >= pol["max_repetitions"] or (rnd >= pol["min_repetitions"] and (
                    spent >= pol["target_seconds"] or time.monotonic() - started >= pol["max_seconds"])):
                break
        if candidate is not None:
            result["verdict"] = {"correct": True, "message": "", "check": worst}
    except _Done:
        pass
    durations["check"] = check_seconds
    result["samples_ns"] = samples
    result["rank_samples_ns"] = rank_samples or None
    result["sample_sets"] = set_of
    result["fresh"] = fresh_of
    if candidate is not None and cpu_calls:
        result["cpu_excess_ns"] = cpu_excess
        allowed = (CPU_SLACK_NS_PER_GRADE + CPU_SLACK_NS_PER_CALL * threads * cpu_calls
                   + CPU_SLACK_FRACTION * cpu_wall * threads)
        if cpu_excess > allowed:
            result["cpu"] = (f"implausible: its processes used {cpu_excess / 1e6:.3g} ms of CPU time beyond its "
                             f"{cpu_calls} timed calls' wall time × {threads} thread(s) (allowed {allowed / 1e6:.3g} "
                             f"ms): work done outside its calls, or on more CPUs than granted? (not scored until "
                             f"reviewed)")


def main() -> int:
    job = pickle.load(sys.stdin.buffer)
    try:
        result = measure(job)
    except Exception as exc:        # the driver's own failure: the judge's, never graded as the candidate's
        import traceback
        result = {"driver_error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
    sys.stdout.buffer.write(pickle.dumps(result))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    # Run as hpcab.driver, not __main__: the distributed target (hpcab/mpi/ranks.py) raises
    # hpcab.driver.Stop, which must be the class measure() catches.
    from hpcab.driver import main as _main
    sys.exit(_main())
