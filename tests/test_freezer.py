"""The freezer (hpcab/freezer.py): a candidate's whole process tree, stopped between calls.

Real processes: a parent that forks a child which calls setsid and forks again, every one
of them spinning. Frozen, none of them runs (their CPU time stands still and, for the
signals method, /proc shows them stopped); thawed, they run again; closed, none is left.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import attrs
import pytest

from hpcab import freezer
from hpcab.build import candidate_from_file
from hpcab.case import preset_case
from hpcab.grade import grade

from .conftest import EXAMPLES

# Forks a child that leaves the session and forks a grandchild; all three spin. Prints the
# three pids once they are running.
TREE = r"""
import os, sys, time
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(w, b"%d\n" % os.getpid())
        while True: pass
    os.write(w, b"%d\n" % os.getpid())
    while True: pass
os.write(w, b"%d\n" % os.getpid())
pids = b""
while pids.count(b"\n") < 3:
    pids += os.read(r, 64)
print(" ".join(pids.decode().split()), flush=True)
while True: pass
"""


def _readline(proc: subprocess.Popen, seconds: float) -> str:
    import select
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    return proc.stdout.readline() if ready else ""


def _cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])     # utime + stime
    return total


def _state(pid: int) -> str:
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def _alive(pid: int) -> bool:
    return _state(pid) not in ("gone", "Z", "X")


MODES = ["signals"] + (["cgroup-v1"] if os.geteuid() == 0 and (freezer.CGROUP_ROOT / "freezer" / "cgroup.procs").exists()
                       else []) + (["cgroup-v2"] if (freezer.CGROUP_ROOT / "cgroup.controllers").exists()
                                   and os.access(freezer.CGROUP_ROOT, os.W_OK) else [])


@pytest.mark.parametrize("mode", MODES)
def test_a_whole_process_tree_is_frozen_thawed_and_killed(mode):
    cpus = (sorted(os.sched_getaffinity(0))[-1],)
    group = freezer.open_group(cpus, mode)
    assert group.kind == mode
    proc = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, text=True,
                            preexec_fn=group.enter, start_new_session=True)
    group.started(proc.pid)
    pids: list[int] = []
    try:
        line = _readline(proc, 20)
        pids = [int(p) for p in line.split()]
        assert len(pids) == 3 and proc.pid in pids
        time.sleep(0.3)
        group.freeze()
        before = _cpu_ticks(pids)
        cpu_before = group.cpu_ns()
        time.sleep(0.5)
        assert _cpu_ticks(pids) - before <= 1, "a frozen process ran"
        if group.cpu_accounting:
            assert group.cpu_ns() == cpu_before
        if mode == "signals":
            assert all(_state(p) in ("T", "t") for p in pids), [_state(p) for p in pids]
        group.thaw()
        time.sleep(0.5)
        assert _cpu_ticks(pids) - before >= 10, "thawed, nothing ran"
        if group.cpu_accounting:
            assert group.cpu_ns() - cpu_before > 100_000_000
    finally:
        group.kill()
        proc.wait(timeout=10)
        deadline = time.monotonic() + 3
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        survivors = [p for p in pids if _alive(p)]
        for p in pids:             # whatever the group missed must not outlive the test
            try:
                os.kill(p, 9)
            except OSError:
                pass
        group.close()
    assert not survivors, "a process of the tree survived the group's kill"


@pytest.mark.skipif("cgroup-v1" not in MODES and "cgroup-v2" not in MODES, reason="no writable cgroups here")
def test_the_cgroup_confines_a_process_to_the_slot_whatever_affinity_it_asks_for():
    cpus = (sorted(os.sched_getaffinity(0))[-1],)
    group = freezer.open_group(cpus)
    code = ("import os\ntry:\n    os.sched_setaffinity(0, set(range(os.cpu_count())))\nexcept OSError:\n    pass\n"
            "print(sorted(os.sched_getaffinity(0)))")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=group.enter,
                             timeout=30)
    finally:
        group.close()
    assert out.stdout.strip() == str(list(cpus)), out


def test_an_honest_grade_under_the_signals_freezer(corpus, toolchains, fast_policy):
    """Where no cgroup can be written (a non-root judge on a v1 system), the candidate's pid
    namespace is stopped with SIGSTOP: the grade is the same, and records the method."""
    k = corpus.get("gemm")
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains,
              policy=attrs.evolve(fast_policy, freezer="signals"), baseline=False)
    assert g.status == "ok", g.message
    assert g.cases[0].diagnostics.freezer == "signals" and g.cases[0].diagnostics.cpu_excess_ns is None
    default = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains,
                    policy=fast_policy, baseline=False)
    assert default.status == "ok" and default.cases[0].diagnostics.freezer == (MODES[-1] if len(MODES) > 1 else "signals")


ORPHANING_DRIVER = """
import subprocess, sys, time
from hpcab import freezer
group = freezer.open_group(None, sys.argv[1])
child = subprocess.Popen(["sleep", "300"], preexec_fn=group.enter)
group.started(child.pid)
time.sleep(0.2)
group.freeze()
print(child.pid, group._watchdog.pid, flush=True)
time.sleep(300)
"""


def _leftover_groups(driver_pid: int) -> list:
    return [d for p in [freezer.CGROUP_ROOT / c / freezer.PREFIX for c in freezer.V1] + [freezer.CGROUP_ROOT / freezer.PREFIX]
            if p.is_dir() for d in p.iterdir() if d.is_dir() and d.name.removeprefix("hpcab-").startswith(f"{driver_pid}-")]


def _wait_zombie(pid: int, seconds: float) -> bool:
    """Whether pid exited (is a zombie, not yet waited for) within seconds."""
    deadline = time.monotonic() + seconds
    while _state(pid) != "Z" and time.monotonic() < deadline:
        time.sleep(0.02)
    return _state(pid) == "Z"


def _wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(pid)


@pytest.mark.parametrize("mode", [m for m in MODES if m != "signals"])
def test_a_frozen_candidate_dies_with_its_killed_driver(mode):
    """A judge killed with SIGKILL while its candidate was frozen: the frozen task takes no
    signal, not even its parent-death SIGKILL. The group's watchdog, which outlives the
    driver, thaws and kills it and removes its cgroups, with no new judge started."""
    driver = subprocess.Popen([sys.executable, "-c", ORPHANING_DRIVER, mode], stdout=subprocess.PIPE, text=True)
    child, watchdog = map(int, _readline(driver, 30).split())
    try:
        assert _alive(child) and _alive(watchdog)
        driver.kill()
        driver.wait(timeout=10)
        assert _wait_gone(child, 10), "the frozen candidate outlived its killed driver"
        assert _wait_gone(watchdog, 10)
        assert not _leftover_groups(driver.pid)
    finally:
        for pid in (child, watchdog):
            try:
                os.kill(pid, 9)
            except OSError:
                pass


@pytest.mark.parametrize("mode", [m for m in MODES if m != "signals"])
def test_a_frozen_candidate_whose_watchdog_died_too_is_reaped_by_the_next_group(mode):
    """Driver and watchdog both killed (a SIGKILL to every process of the judge): the next
    group opened reaps the frozen candidate."""
    driver = subprocess.Popen([sys.executable, "-c", ORPHANING_DRIVER, mode], stdout=subprocess.PIPE, text=True)
    child, watchdog = map(int, _readline(driver, 30).split())
    os.kill(watchdog, 9)
    driver.kill()
    # The dead driver stays a zombie until waited for, and a zombie's pid still answers
    # kill(pid, 0): while it is one, a group opened by another test worker leaves this
    # group alone (one did, with the driver already waited for, and failed this test).
    assert _wait_zombie(driver.pid, 10) and _wait_gone(watchdog, 10)
    time.sleep(0.3)
    try:
        assert _alive(child), "the frozen child should outlive its driver and watchdog until reaped"
        driver.wait(timeout=10)
        reaped = freezer.reap_orphans()
        assert reaped >= 1 or not _alive(child), "no orphan group found, and the frozen child lives on"
        assert _wait_gone(child, 5)
        assert not _leftover_groups(driver.pid)
    finally:
        try:
            os.kill(child, 9)
        except OSError:
            pass


# Writes 256 MiB into a memfd with write(): pages no process maps, which an address-space
# limit does not see. Prints "held" if it got there.
MEMFD_HOLD = r"""
import os
fd = os.memfd_create("hold")
chunk = b"\x5a" * (16 << 20)
for _ in range(16):
    os.write(fd, chunk)
print("held", flush=True)
"""


@pytest.mark.parametrize("mode", [m for m in MODES if m != "signals"])
def test_the_group_memory_limit_counts_memfd_pages(mode):
    group = freezer.open_group(None, mode, memory_bytes=128 << 20)
    if not group.memory_limited:
        group.close()
        pytest.skip(f"no memory controller under {mode} here")
    try:
        out = subprocess.run([sys.executable, "-c", MEMFD_HOLD], capture_output=True, text=True,
                             preexec_fn=group.enter, timeout=60)
        hit = group.memory_hit()
    finally:
        group.close()
    assert "held" not in out.stdout and out.returncode == -9, (out.returncode, out.stdout, out.stderr[-300:])
    assert hit
    # Without the limit the same process holds its 256 MiB and ends normally.
    free = freezer.open_group(None, mode)
    try:
        ok = subprocess.run([sys.executable, "-c", MEMFD_HOLD], capture_output=True, text=True,
                            preexec_fn=free.enter, timeout=60)
        assert not free.memory_hit()
    finally:
        free.close()
    assert ok.returncode == 0 and "held" in ok.stdout
