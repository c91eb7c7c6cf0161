"""The trusted side of a distributed measurement: R ranks, as the driver sees one target.

hpcab/timing/trusted/driver.py measures a distributed candidate exactly as it measures any other: it writes
each input set into the target's `buf`, asks for a call, checks what `buf` holds after it.
Here `buf` holds the global arrays, in the driver's own memory, and a call is

    scatter: copy each rank's tile of every array into that rank's buffer (untimed)
    [thaw the ranks]
    t0 = clock;  "g" to every rank;  each rank: barrier, the call, "d";  t_r = clock at its "d"
    [freeze the ranks]
    gather: copy each rank's tiles back into the global arrays (untimed)

The call's time is the slowest rank's, max(t_r) - t0; every rank's t_r - t0 is kept
(`last_rank_ns`). A rank's buffer, FIFOs and layout file live in a private folder the ranks
see (hpcab/mpi/harness.py); they never see another input set, an expected output or the clock.

mpirun (Open MPI, on this node) runs inside the candidate's sandbox and freezer group, so
every rank and mpirun itself are sandboxed, limited, frozen between calls and killed with
the group. srun (under Slurm) starts the ranks as Slurm's own processes: they are neither
sandboxed nor frozen by the judge (docs/mpi.md says so), and must be on the judge's node.
"""

from __future__ import annotations

import json
import mmap
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs
import numpy as np

from hpcab import freezer, sandbox
from hpcab.timing.records import Job, Target
from hpcab.timing.trusted.process import Frozen, Stop, brief_signal, limits, runner_env
from hpcab.timing.wire import DONE, GO, LOAD_FAILED, MESSAGE_LIMIT, QUIT, READY
from hpcab.mpi.abi import mpi_params
from hpcab.mpi.distribution import Layout

LAUNCHERS = ("mpirun", "srun")
INSIDE = Path("/mpi")             # the ranks' folder, as the sandbox shows it
POLL_MS = 50                      # how often a wait looks whether the launcher died
# Open MPI on one node, in a sandbox without network or /sys: shared memory between ranks
# (vader: Open MPI 5 calls it sm and keeps this name), no UCX or fabric components.
OMPI_ENV = {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "self,vader", "OMPI_MCA_osc": "^ucx",
            "OMPI_MCA_mca_base_component_show_load_errors": "0", "HWLOC_HIDE_ERRORS": "2"}


def launch_argv(launcher: str, ranks: int) -> list[str]:
    if launcher == "mpirun":
        # No binding (the cgroup's cpuset is the binding); more ranks than CPUs allowed.
        return ["mpirun", "-np", str(ranks), "--oversubscribe", "--bind-to", "none"]
    # --overlap: the judge itself runs in a step of the allocation (submitit's), whose CPUs
    # the ranks share.
    return ["srun", f"--ntasks={ranks}", "--mpi=pmix", "--kill-on-bad-exit=1", "--quiet", "--overlap"]


RANK_FOLDER = "hpcab-mpi-"


def reap_rank_folders(where: Path) -> int:
    """Remove the ranks' folders whose driver is dead (killed before it could remove its own);
    returns how many."""
    removed = 0
    try:
        names = os.listdir(where)
    except OSError:
        return 0
    for name in names:
        pid = name.removeprefix(RANK_FOLDER).split("-")[0]
        if name.startswith(RANK_FOLDER) and pid.isdigit() and freezer.owner_dead(int(pid)):
            shutil.rmtree(where / name, ignore_errors=True)
            removed += 1
    return removed


class RankGroup(Frozen):
    kind = "mpi"
    optional = False
    trusted = False

    def __init__(self, target: Target, kernel, sizes: dict, entries: list[dict], job: Job, workdir: Path,
                 group, fill=None):
        self.name, self.group, self.frozen = target.name, group, False
        mpi = target.mpi
        self.ranks = R = int(mpi["ranks"])
        self.launcher = mpi["launcher"]
        layouts = {a: Layout(d["kind"], d.get("block", 1)) for a, d in mpi["distribution"].items()}
        self.buf = {e["name"]: np.zeros(tuple(e["shape"]), e["dtype"]) for e in entries}
        if fill is not None:
            fill(self.buf)
        self.last_rank_ns: list[int] | None = None
        self.outputs = set(kernel.outputs)
        sandboxed = job.policy.sandbox == "bubblewrap" and self.launcher == "mpirun"
        shm = Path("/dev/shm")
        reap_rank_folders(shm)
        # Named by the driver's pid: a judge killed outright leaves it, the next one removes it.
        # Its size is the ranks' memory group's (pages in tmpfs are charged to who writes them).
        self.dir = Path(tempfile.mkdtemp(prefix=f"{RANK_FOLDER}{os.getpid()}-", dir=shm if shm.is_dir() else None))
        self.dir.chmod(0o755)
        # Per rank: its tiles (array → (axis, owned indices)), its buffer's views, its pipes.
        self.split = {p.name: kernel.mpi.split_of(p.name).axis for p in mpi_params(kernel)
                      if p.role == "array" and kernel.mpi.split_of(p.name) is not None}
        self.owned: list[dict[str, np.ndarray]] = []
        self.views: list[dict[str, np.ndarray]] = []
        self.maps, self.go, self.done = [], [], []
        slots = [p for p in mpi_params(kernel) if p.role != "comm"]
        for r in range(R):
            owned = {a: layouts[a].owned(self.buf[a].shape[axis], R, r) for a, axis in self.split.items()}
            placed, offset = [], 0
            for p in slots:
                if p.name in owned:
                    shape = list(self.buf[p.name].shape)
                    shape[self.split[p.name]] = len(owned[p.name])
                elif p.pointer or p.name in self.buf:
                    shape = list(self.buf[p.name].shape)
                else:
                    shape = []
                nbytes = max(int(np.prod(shape, dtype=np.int64)) * np.dtype(p.dtype).itemsize, 1)
                placed.append((p, tuple(shape), offset))
                offset += (nbytes + 63) // 64 * 64
            total = max((offset + mmap.PAGESIZE - 1) // mmap.PAGESIZE * mmap.PAGESIZE, mmap.PAGESIZE)
            path = self.dir / f"{r}.buf"
            with open(path, "w+b") as f:
                f.truncate(total)
                m = mmap.mmap(f.fileno(), total)
            views = {}
            for p, shape, off in placed:
                count = int(np.prod(shape, dtype=np.int64)) if shape else 1
                views[p.name] = np.frombuffer(m, dtype=p.dtype, count=count, offset=off).reshape(shape)
            for p, _, _ in placed:        # the tile's place: fixed for the case
                if p.role == "tile":
                    array, what = p.name.rsplit("_", 1)
                    n = self.buf[array].shape[self.split[array]]
                    views[p.name][...] = (layouts[array].first(n, R, r) if what == "first" else len(owned[array]))
            (self.dir / f"{r}.layout").write_text("\n".join([str(total)] + [str(off) for _, _, off in placed]) + "\n")
            for end in ("go", "done"):
                os.mkfifo(self.dir / f"{r}.{end}", 0o600)
            # Read-write ends: opening never blocks, and a rank that exits is seen through
            # the launcher's exit (POLL_MS), not an end of file.
            self.go.append(os.open(self.dir / f"{r}.go", os.O_RDWR | os.O_CLOEXEC))
            self.done.append(os.open(self.dir / f"{r}.done", os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC))
            self.maps.append(m)
            self.views.append(views)
            self.owned.append(owned)
        self.rank_of = {fd: r for r, fd in enumerate(self.done)}
        self.poller = select.poll()
        for fd in self.done:
            self.poller.register(fd, select.POLLIN)
        where = INSIDE if sandboxed else self.dir
        (self.dir / "job.json").write_text(json.dumps({"dir": str(where), "harness": mpi["harness"],
                                                       "library": str(target.library), "symbol": kernel.name}))
        # Open MPI's shared-memory segments in the ranks' folder too: removed with it, even
        # after ranks killed before MPI_Finalize could remove them (outside a sandbox, whose
        # /dev/shm is its own, they would stay in the machine's).
        env = dict(runner_env(job, sandboxed, False), **OMPI_ENV, OMPI_MCA_btl_vader_backing_directory=str(where))
        argv = launch_argv(self.launcher, R) + [sys.executable, "-m", "hpcab.mpi.rank", str(where / "job.json")]
        if self.launcher == "srun":
            env.update({k: v for k, v in os.environ.items() if k.startswith(("SLURM_", "PMIX_"))})
            argv[0] = shutil.which("srun") or "srun"
        elif not sandboxed and os.geteuid() == 0:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        self.stderr = open(workdir / f"{self.name}.stderr", "w+b")
        if sandboxed:
            binds = [Path(p) for p in (mpi["harness"], target.library)]
            sandbox.ensure_readable(binds)
            sandbox.give([self.dir], recursive=True)
            argv = sandbox.command(argv, binds=[sandbox.Bind(p, p) for p in binds]
                                   + [sandbox.Bind(self.dir, INSIDE, writable=True)],
                                   env=env, cwd="/tmp", processes=job.nproc * R)
        apply = limits(attrs.evolve(job, nproc=job.nproc * R), sandboxed, group)
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.stderr, stderr=self.stderr,
                                     env=env, cwd="/tmp" if not sandboxed else None, preexec_fn=apply,
                                     start_new_session=True)
        if group is not None:
            group.started(self.proc.pid)
        self.sandboxed = sandboxed

    # -- scatter and gather (untimed) ----------------------------------------------------
    def _scatter(self) -> None:
        for r, views in enumerate(self.views):
            for name, v in views.items():
                if name not in self.buf or v.size == 0 and name not in self.split:
                    continue
                if name in self.split:
                    np.take(self.buf[name], self.owned[r][name], axis=self.split[name], out=v)
                else:
                    np.copyto(v, self.buf[name].reshape(v.shape))

    def _gather(self, outputs: set[str]) -> None:
        """Tiles back into the global arrays: every split array (a rank that wrote into its
        tile of a read-only input shows in the driver's check); of a replicated array, rank
        0's copy of an output, and any rank's copy of an input that differs from what it got."""
        for name, axis in self.split.items():
            for r in range(self.ranks):
                index = (slice(None),) * axis + (self.owned[r][name],)
                self.buf[name][index] = self.views[r][name]
        for name in self.views[0]:
            if name in self.split or name not in self.buf or not self.buf[name].shape:
                continue
            if name in outputs:
                self.buf[name][...] = self.views[0][name].reshape(self.buf[name].shape)
            elif name != "workspace":
                for r in range(self.ranks):
                    copy = self.views[r][name].reshape(self.buf[name].shape)
                    if not np.array_equal(copy, self.buf[name], equal_nan=True):
                        self.buf[name][...] = copy
                        break

    # -- the wire ------------------------------------------------------------------------
    def _wait(self, deadline: float, phase: str, on_tag) -> None:
        pending = set(range(self.ranks))
        while pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Stop("timeout", "", self.name, phase)
            events = self.poller.poll(min(max(int(left * 1000), 1), POLL_MS))
            for fd, _ in events:
                r = self.rank_of[fd]
                try:
                    tag = os.read(fd, 1)
                except BlockingIOError:
                    continue
                on_tag(r, tag)
                pending.discard(r)
            if not events and self.proc.poll() is not None:
                raise self._died(phase)

    def _message(self, r: int, deadline: float) -> str:
        """The text after an 'E': a 4-byte length, then that many bytes."""
        data = b""
        while time.monotonic() < deadline and (len(data) < 4 or len(data) < 4 + struct.unpack("<I", data[:4])[0]):
            try:
                chunk = os.read(self.done[r], 4096)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            data += chunk
        length = struct.unpack("<I", data[:4])[0] if len(data) >= 4 else 0
        return data[4:4 + min(length, MESSAGE_LIMIT)].decode(errors="replace")

    def _died(self, phase: str) -> Stop:
        rc = self._exit_status()
        during = f" while {phase} target {self.name!r} ({self.ranks} ranks under {self.launcher})"
        if rc is not None and rc < 0:
            return Stop("crashed", f"a rank ended: killed by {brief_signal(rc)}{during}", self.name, phase)
        return Stop("crashed" if phase == "calling" else "error",
                     f"a rank ended: {self.launcher} exited with status {rc}{during}", self.name, phase)

    def ready(self, deadline: float) -> None:
        def seen(r: int, tag: bytes) -> None:
            if tag == LOAD_FAILED:
                raise Stop("error", f"rank {r}: {self._message(r, min(deadline, time.monotonic() + 2))}",
                            self.name, "loading")
            if tag != READY:
                raise Stop("error", f"rank {r} answered out of turn while loading", self.name, "loading")
        self._wait(deadline, "loading", seen)

    def drain(self) -> None:
        for fd in self.done:
            try:
                while os.read(fd, 4096):
                    pass
            except BlockingIOError:
                pass

    def call(self, deadline: float, command: bytes = GO) -> tuple[int, int | None]:
        """(the slowest rank's ns, CPU ns of the whole group or None); every rank's ns in
        last_rank_ns."""
        if command == GO:
            self._scatter()
        group, cpu0 = self.group, None
        if group is not None:
            self.drain()
            cpu0 = group.cpu_ns()
            group.thaw()
            self.frozen = False
        ends = [0] * self.ranks

        def seen(r: int, tag: bytes) -> None:
            ends[r] = time.perf_counter_ns()
            if tag != DONE:
                raise Stop("error", f"rank {r} answered out of turn", self.name, "calling")
        t0 = time.perf_counter_ns()
        for fd in self.go:
            os.write(fd, command)
        try:
            self._wait(deadline, "calling", seen)
        except Exception:
            self.freeze()
            raise
        cpu = None
        if group is not None:
            self.freeze()
            cpu1 = group.cpu_ns()
            cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
        self.last_rank_ns = [e - t0 for e in ends]
        if command == GO:
            self._gather(self.outputs)
        return max(ends) - t0, cpu

    def _interrupt(self) -> None:
        """srun passes a SIGINT on to every task, which the judge cannot reach itself."""
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        for fd in self.go:
            try:
                os.write(fd, QUIT)
            except OSError:
                pass
        self._end(self.go + self.done, 2, self._interrupt if self.launcher == "srun" else None)
        self.views = []
        for m in self.maps:
            try:
                m.close()
            except BufferError:
                pass
        if self.sandboxed:
            sandbox.reclaim([self.dir], recursive=True)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.stderr.close()
