"""Freezer: stop a candidate's whole process tree whenever it is not in a call.

The measuring driver (hpcab/timing/trusted/driver.py) thaws the candidate's runner just before it tells
it to call, and freezes it the moment the call is done, so nothing the candidate started
(a thread, a child, a signal handler, a setsid'ed grandchild) runs while the references
are timed or while the driver snapshots and checks the outputs.

Three ways, best first, chosen by `open_group`:

- cgroup v2 (a unified hierarchy mounted at /sys/fs/cgroup, writable): a cgroup of its
  own under `hpcab/`, frozen through `cgroup.freeze`, confined to the slot's CPUs through
  `cpuset.cpus` when the cpuset controller can be enabled, its CPU time read from
  `cpu.stat`, everything in it killed through `cgroup.kill`.
- cgroup v1 (the freezer, cpuset and cpuacct hierarchies, writable: root on a hybrid
  system): one cgroup in each; the freezer's `freezer.state`, the cpuset's `cpuset.cpus`,
  the CPU time from `cpuacct.usage`.
- Both cgroup kinds also limit the group's memory where the memory controller is there
  (`memory.max`, v1's `memory.limit_in_bytes`): unlike the address-space rlimit, it counts
  shared memory, memfd pages that no process maps and files in tmpfs, and the kernel's
  out-of-memory killer acts inside the group (`memory_hit` says it did).
- signals: SIGSTOP to every process of the candidate (those in its pid namespace when it
  has one of its own, else its descendants), repeated until no new one appears, and
  SIGCONT. No CPU confinement beyond the affinity mask and no CPU-time accounting.

A process cannot leave a cgroup it was put in without write access to another cgroup's
`cgroup.procs`, which the sandbox's unprivileged user does not have: whatever it forks is
frozen with it. The runner is put into its cgroups by the child side of the fork, before
exec (`enter`), so no process of the candidate ever runs outside them.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
V1 = ("freezer", "cpuset", "cpuacct")
# Joined too where it is mounted and a limit is asked for: the candidate's memory, counted
# whatever holds it (resident pages, shared memory and memfd pages nothing maps, tmpfs files).
V1_MEMORY = "memory"
PREFIX = "hpcab"
FREEZE_TIMEOUT_S = 5.0
POLL_S = 20e-6


class FreezeError(RuntimeError):
    """The candidate's processes could not be frozen (a judge-side problem)."""


def _write(path: Path, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _read(path: Path) -> str:
    with open(path) as f:
        return f.read()


class Group:
    """How a measured process tree is frozen, confined and accounted. The base: signals."""
    kind = "signals"
    cpu_accounting = False
    memory_limited = False

    def __init__(self, cpus: tuple[int, ...] | None, memory_bytes: int | None = None):
        self.cpus = cpus
        self.memory_bytes = memory_bytes
        self.leader: int | None = None
        self._stopped: set[int] = set()

    def memory_hit(self) -> bool:
        """Whether the group's memory limit made the kernel kill one of its processes."""
        return False

    # -- the child side of the fork (runs before exec: no allocation-heavy work) ------------
    def enter(self) -> None:
        """Called in the forked child before exec: join the group."""

    # -- the driver's side -------------------------------------------------------------
    def started(self, pid: int) -> None:
        self.leader = pid

    def freeze(self) -> None:
        # Stop until no new process appears: a process that was forking when we looked is
        # caught the next time round (a stopped process forks nothing).
        deadline = time.monotonic() + FREEZE_TIMEOUT_S
        while True:
            found = set(self.members()) - self._stopped
            if not found:
                break
            for pid in found:
                try:
                    os.kill(pid, signal.SIGSTOP)
                except ProcessLookupError:
                    pass
                self._stopped.add(pid)
            if time.monotonic() > deadline:
                raise FreezeError("the candidate's processes could not all be stopped")
        for pid in list(self._stopped):
            _wait_stopped(pid, deadline)

    def thaw(self) -> None:
        for pid in self._stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self._stopped.clear()

    def cpu_ns(self) -> int | None:
        return None

    def members(self) -> list[int]:
        """Every process of the candidate: its pid namespace's (when it has one of its own),
        else the leader's descendants."""
        if self.leader is None:
            return []
        return _namespace_members(self.leader) or _descendants(self.leader)

    def kill(self) -> None:
        for pid in self.members():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.thaw()

    def close(self) -> None:
        pass


class CgroupV1(Group):
    kind = "cgroup-v1"
    cpu_accounting = True

    def __init__(self, cpus: tuple[int, ...] | None, memory_bytes: int | None = None):
        super().__init__(cpus, memory_bytes)
        name = f"{PREFIX}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.dirs = {c: CGROUP_ROOT / c / PREFIX / name for c in V1}
        if memory_bytes and (CGROUP_ROOT / V1_MEMORY / "cgroup.procs").exists():
            self.dirs[V1_MEMORY] = CGROUP_ROOT / V1_MEMORY / PREFIX / name
        for d in self.dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        cpuset = self.dirs["cpuset"]
        for parent in (cpuset.parent, cpuset):       # a v1 cpuset must have cpus and mems before a task joins
            for key in ("cpuset.cpus", "cpuset.mems"):
                if not _read(parent / key).strip():
                    _write(parent / key, _read(parent.parent / key).strip())
        if cpus:
            _write(cpuset / "cpuset.cpus", ",".join(map(str, cpus)))
        if V1_MEMORY in self.dirs:
            memory = self.dirs[V1_MEMORY]
            _write(memory / "memory.limit_in_bytes", str(memory_bytes))
            if (memory / "memory.memsw.limit_in_bytes").exists():     # swap counted too, where accounted
                _write(memory / "memory.memsw.limit_in_bytes", str(memory_bytes))
            self.memory_limited = True
        self._procs = [str(d / "cgroup.procs") for d in self.dirs.values()]
        # Kept open: a freeze and a thaw per call, each a write and a few reads.
        self._state_fd = os.open(self.dirs["freezer"] / "freezer.state", os.O_RDWR | os.O_CLOEXEC)
        self._usage_fd = os.open(self.dirs["cpuacct"] / "cpuacct.usage", os.O_RDONLY | os.O_CLOEXEC)
        self._watchdog = _Watchdog(list(self.dirs.values()))

    def enter(self) -> None:
        pid = str(os.getpid())
        for path in self._procs:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid.encode())
            finally:
                os.close(fd)

    def _state(self, want: str) -> None:
        fd, data = self._state_fd, want.encode()
        os.pwrite(fd, data, 0)
        deadline = time.monotonic() + FREEZE_TIMEOUT_S
        while os.pread(fd, 32, 0).strip() != data:     # FREEZING until every task has stopped
            if time.monotonic() > deadline:
                raise FreezeError(f"the candidate's cgroup did not become {want}")
            # Sleep, not spin: a task stops only when it next runs, maybe on this very CPU.
            time.sleep(POLL_S)

    def freeze(self) -> None:
        self._state("FROZEN")

    def thaw(self) -> None:
        self._state("THAWED")

    def cpu_ns(self) -> int | None:
        return int(os.pread(self._usage_fd, 64, 0))

    def members(self) -> list[int]:
        return [int(p) for p in _read(self.dirs["freezer"] / "cgroup.procs").split()]

    def memory_hit(self) -> bool:
        if V1_MEMORY not in self.dirs:
            return False
        try:
            for line in _read(self.dirs[V1_MEMORY] / "memory.oom_control").splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1]) > 0
            return int(_read(self.dirs[V1_MEMORY] / "memory.failcnt")) > 0
        except (OSError, ValueError):
            return False

    def kill(self) -> None:
        # A frozen task takes its SIGKILL when thawed.
        for _ in range(50):
            pids = self.members()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.thaw()
            time.sleep(0.002)

    def close(self) -> None:
        self.kill()
        for fd in (self._state_fd, self._usage_fd):
            os.close(fd)
        _reap(list(self.dirs.values()))
        self._watchdog.dismiss()


class CgroupV2(Group):
    kind = "cgroup-v2"
    cpu_accounting = True

    def __init__(self, cpus: tuple[int, ...] | None, memory_bytes: int | None = None):
        super().__init__(cpus, memory_bytes)
        base = CGROUP_ROOT / PREFIX
        base.mkdir(exist_ok=True)
        self.confined = False
        for parent in (CGROUP_ROOT, base):
            for controller in ("+cpuset", "+cpu", "+memory"):     # each alone: one refused is no reason to lose the others
                try:
                    _write(parent / "cgroup.subtree_control", controller)
                except OSError:
                    pass
        self.dir = base / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.dir.mkdir()
        if memory_bytes and (self.dir / "memory.max").exists():
            _write(self.dir / "memory.max", str(memory_bytes))
            if (self.dir / "memory.swap.max").exists():
                _write(self.dir / "memory.swap.max", "0")
            self.memory_limited = True
        if cpus and (self.dir / "cpuset.cpus").exists():
            try:
                _write(self.dir / "cpuset.cpus", ",".join(map(str, cpus)))
                self.confined = True
            except OSError:
                pass
        self._procs = str(self.dir / "cgroup.procs")
        self._watchdog = _Watchdog([self.dir])

    def enter(self) -> None:
        fd = os.open(self._procs, os.O_WRONLY)
        try:
            os.write(fd, str(os.getpid()).encode())
        finally:
            os.close(fd)

    def _set(self, value: str) -> None:
        _write(self.dir / "cgroup.freeze", value)
        want = f"frozen {value}"
        deadline = time.monotonic() + FREEZE_TIMEOUT_S
        while want not in _read(self.dir / "cgroup.events"):
            if time.monotonic() > deadline:
                raise FreezeError("the candidate's cgroup did not " + ("freeze" if value == "1" else "thaw"))
            time.sleep(POLL_S)

    def freeze(self) -> None:
        self._set("1")

    def thaw(self) -> None:
        self._set("0")

    def cpu_ns(self) -> int | None:
        for line in _read(self.dir / "cpu.stat").splitlines():
            if line.startswith("usage_usec "):
                return int(line.split()[1]) * 1000
        return None

    def members(self) -> list[int]:
        return [int(p) for p in _read(self.dir / "cgroup.procs").split()]

    def memory_hit(self) -> bool:
        try:
            for line in _read(self.dir / "memory.events").splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1]) > 0
        except (OSError, ValueError):
            pass
        return False

    def kill(self) -> None:
        try:
            _write(self.dir / "cgroup.kill", "1")
        except OSError:
            for pid in self.members():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                self.thaw()
            except FreezeError:
                pass

    def close(self) -> None:
        self.kill()
        _reap([self.dir])
        self._watchdog.dismiss()


def reap_orphans() -> int:
    """Kill and remove the groups whose driver is dead (a judge killed with SIGKILL while its
    candidate was frozen: a frozen task takes no signal, not even its parent-death SIGKILL,
    so it would stay frozen for ever). Run before each new group; returns how many."""
    found: dict[int, list[Path]] = {}       # driver pid → its group's folders
    for folder in [CGROUP_ROOT / c / PREFIX for c in V1 + (V1_MEMORY,)] + [CGROUP_ROOT / PREFIX]:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            parts = name.removeprefix(f"{PREFIX}-").split("-")
            if len(parts) == 2 and parts[0].isdigit() and (folder / name).is_dir():
                found.setdefault(int(parts[0]), []).append(folder / name)
    reaped = 0
    for pid, dirs in found.items():
        if owner_dead(pid):         # else its driver is alive: its own group
            _reap(dirs)
            reaped += 1
    return reaped


def owner_dead(pid: int) -> bool:
    """Whether the driver that made something named by its pid is gone (a pid we may not
    signal is someone else's live process: not dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _reap(dirs: list[Path]) -> None:
    """Kill every task of a group's cgroups, thawing them so the SIGKILL lands (a frozen
    task takes it when thawed), and remove the cgroups."""
    for _ in range(50):
        members = set()
        for d in dirs:
            try:
                members.update(int(p) for p in _read(d / "cgroup.procs").split())
            except OSError:
                pass
        if not members:
            break
        for member in members:
            try:
                os.kill(member, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for d in dirs:
            for state, value in (("cgroup.kill", "1"), ("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
                try:
                    _write(d / state, value)
                except OSError:
                    pass
        time.sleep(0.01)
    for d in dirs:
        for _ in range(100):
            try:
                d.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.01)     # the last killed task is still leaving


class _Watchdog:
    """A process forked by the driver that outlives it just long enough to free its group.

    A frozen task takes no signal, its parent-death SIGKILL included, so a driver killed
    while its candidate is frozen (a judge killed with SIGKILL mid-grade) would leave the
    candidate frozen until the next judge's `reap_orphans`. The watchdog holds the read
    end of a pipe only the driver can write: when the driver exits, however it dies, the
    read returns and the watchdog kills, thaws and removes the group, then exits."""

    def __init__(self, dirs: list[Path]):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:                 # the watchdog: no Python-level cleanup, no driver's fds
            try:
                os.setsid()          # not in the driver's process group: a signal to it is not ours
                for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                    signal.signal(sig, signal.SIG_IGN)
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.closerange(3, r)
                os.closerange(r + 1, max(r + 1, os.sysconf("SC_OPEN_MAX")))
                while os.read(r, 1):
                    pass
                _reap(dirs)
            finally:
                os._exit(0)
        os.close(r)
        self.pid, self._w = pid, w

    def dismiss(self) -> None:
        """The driver freed its group itself: the watchdog finds nothing and exits."""
        if self._w is not None:
            os.close(self._w)
            self._w = None
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass


def open_group(cpus: tuple[int, ...] | None, mode: str = "auto", memory_bytes: int | None = None) -> Group:
    """The best freezer this machine allows (mode: auto | cgroup-v2 | cgroup-v1 | signals),
    its memory limited to memory_bytes where the memory controller is there."""
    reap_orphans()
    if mode in ("auto", "cgroup-v2") and (CGROUP_ROOT / "cgroup.controllers").exists():
        try:
            return CgroupV2(cpus, memory_bytes)
        except OSError:
            if mode != "auto":
                raise
    if mode in ("auto", "cgroup-v1") and all((CGROUP_ROOT / c / "cgroup.procs").exists() for c in V1):
        try:
            return CgroupV1(cpus, memory_bytes)
        except OSError:
            if mode != "auto":
                raise
    if mode not in ("auto", "signals"):
        raise FreezeError(f"freezer {mode!r} is not available here")
    return Group(cpus, memory_bytes)


# ---- finding a candidate's processes without cgroups ----------------------------------

def _children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                out += [int(c) for c in _read(Path(f"/proc/{pid}/task/{task}/children")).split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


def _descendants(pid: int) -> list[int]:
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.append(p)
        todo += _children(p)
    return seen


def _namespace_members(leader: int) -> list[int]:
    """Processes in the pid namespace of leader's child (bwrap's sandbox), when it has one
    other than ours; else []."""
    try:
        own = os.readlink("/proc/self/ns/pid")
    except OSError:
        return []
    for child in _descendants(leader):
        try:
            ns = os.readlink(f"/proc/{child}/ns/pid")
        except OSError:
            continue
        if ns != own:
            out = []
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    try:
                        if os.readlink(f"/proc/{entry}/ns/pid") == ns:
                            out.append(int(entry))
                    except OSError:
                        pass
            return out
    return []


def _wait_stopped(pid: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            state = _read(Path(f"/proc/{pid}/stat")).rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return
        if state in ("T", "t", "Z", "X"):
            return
        time.sleep(0.0001)
    raise FreezeError(f"process {pid} of the candidate did not stop")
