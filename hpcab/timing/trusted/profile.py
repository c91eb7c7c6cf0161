"""The trusted side of a profile (hpcab/profile.py), `python -m hpcab.timing.trusted.profile`:
the candidate's runner alone, started under perf record inside its sandbox, called on one
public input set again and again.

The driver owns everything a grade's session owns (the buffer, the input set, the clock, the
freezer) and times nothing for a grade: it notes each call's window on the monotonic clock
(perf records its samples on the same clock: `perf record -k CLOCK_MONOTONIC`), so the
report keeps the samples taken inside calls only, whatever the candidate does while it
loads; between calls the candidate and perf are frozen. The software counters (page faults,
context switches) are read from /proc for the candidate's threads around each call, its
CPU time from its freezer group. At the end the runner is asked to quit and perf to finish
its file; a candidate that crashes or hangs ends the profile as that, within its limits.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import tempfile
import time
from pathlib import Path

from hpcab import freezer
from hpcab.timing.records import DriverFailure, ProfileJob, ProfileRun, read_frame, write_frame
from hpcab.timing.trusted.driver import Session
from hpcab.timing.trusted.process import Runner, Stop, group_cpus
from hpcab.timing.wire import QUIT

OUTPUT = "OUTPUT"            # in ProfileJob.wrap: the path of the file perf writes
PERF_EXIT_S = 10.0          # perf writes its file after the runner quits
NOT_THE_CANDIDATE = ("perf", "bwrap", "setpriv")     # the group's processes that are the judge's tools


def _proc_counters(pids: list[int]) -> dict[str, int]:
    """Page faults and context switches of the candidate's processes and threads so far."""
    out = {"minor_faults": 0, "major_faults": 0, "voluntary_switches": 0, "involuntary_switches": 0}
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() in NOT_THE_CANDIDATE:
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            out["minor_faults"] += int(fields[7])      # stat's fields 10 and 12, counted after ")"
            out["major_faults"] += int(fields[9])
            for task in Path(f"/proc/{pid}/task").iterdir():
                for line in (task / "status").read_text().splitlines():
                    if line.startswith("voluntary_ctxt_switches:"):
                        out["voluntary_switches"] += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        out["involuntary_switches"] += int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue              # it exited meanwhile
    return out


def _copy_out(fd: int, path: Path) -> None:
    """perf's file, from its memfd to the judge's own file (never where the candidate was)."""
    try:
        size = os.fstat(fd).st_size
        if size:
            with open(path, "wb") as f:
                os.lseek(fd, 0, os.SEEK_SET)
                while chunk := os.read(fd, 1 << 20):
                    f.write(chunk)
    finally:
        os.close(fd)


def _finish(r: Runner, group: freezer.Group, hung: bool) -> None:
    """Let perf write its file: the runner asked to quit (perf ends when it does), then, if
    either lingers (hung: the runner is stuck in its call), perf told to stop (it writes
    what it has and ends the runner)."""
    group.thaw()
    r.frozen = False
    if not hung:
        try:
            os.write(r.go, QUIT)
        except OSError:
            pass
        try:
            r.proc.wait(timeout=PERF_EXIT_S / 2)
            return
        except Exception:
            pass
    for pid in group.members():
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "perf":
                os.kill(pid, signal.SIGINT)
        except OSError:
            pass
    try:
        r.proc.wait(timeout=PERF_EXIT_S / 2)
    except Exception:
        pass


def profile(job: ProfileJob) -> ProfileRun:
    started = time.monotonic()
    pol = job.policy
    deadline = started + pol.timeout_seconds
    session = Session(job)
    session.warm = session.sets.make(0)      # the public case's own set: a profile sees no other
    workdir = Path(tempfile.mkdtemp(prefix="hpcab-profile-"))
    group = freezer.open_group(group_cpus(job.target, pol), pol.freezer, pol.memory_bytes)
    windows: list[tuple[int, int]] = []
    calls, t0 = 0, None
    cpu = 0
    counters: dict[str, int] = {}
    r: Runner | None = None
    status, message, phase = "ok", "", ""
    # perf's file: a memfd, inherited, reopened by its /proc path inside the sandbox. Its pages
    # count against the candidate's memory, its size against its file-size limit; the
    # candidate can write it too, which spoils its own profile and nothing else.
    data = os.memfd_create("hpcab-perf-data", 0)
    wrap = tuple(f"/proc/self/fd/{data}" if a == OUTPUT else a for a in job.wrap)
    try:
        r = Runner(job.target, session.kernel, session.sizes, session.entries, job, workdir, group,
                   lambda buf: session._fill(buf, True), wrap=wrap, fds=(data,))
        if pol.cpus:
            os.sched_setaffinity(0, set(pol.cpus))
        r.ready(min(deadline, time.monotonic() + pol.timeout_seconds))
        r.freeze()
        before = _proc_counters(group.members())
        spent = 0
        while len(windows) < job.calls and spent < job.seconds * 1e9 and time.monotonic() < deadline:
            session._fill(r.buf, True)
            t0 = time.monotonic_ns()
            ns, cpu_ns = r.call(deadline)
            windows.append((t0, time.monotonic_ns()))
            calls, t0 = calls + 1, None
            spent += ns
            cpu += cpu_ns or 0
        after = _proc_counters(group.members())
        counters = {k: max(after[k] - before.get(k, 0), 0) for k in after}
    except Stop as stop:
        status, phase = stop.status, stop.phase
        message = (f"killed after the {pol.timeout_seconds:g} s wall-clock limit while {stop.phase}"
                   if stop.status == "timeout" else stop.message)
        if t0 is not None:       # the call that crashed or hung: where it was is what a person wants to see
            windows.append((t0, time.monotonic_ns()))
    finally:
        tail = ""
        if r is not None:
            _finish(r, group, hung=status == "timeout" and phase == "calling")
            tail = r.stderr_tail()
            r.close()
        else:
            group.close()
        for f in workdir.iterdir():
            f.unlink()
        workdir.rmdir()
        _copy_out(data, job.out)
    return ProfileRun(status, message, calls, tuple(windows), cpu if group.cpu_accounting else None, counters, tail,
                      phase, time.monotonic() - started)


def main() -> int:
    """`python -m hpcab.timing.trusted.profile`: one profile per job read from stdin until it
    closes (hpcab.timing.session.profile_case starts it as it starts a measuring driver)."""
    while True:
        try:
            data = read_frame(sys.stdin.buffer)
        except EOFError:
            return 0
        try:
            job = pickle.loads(data)
            if not isinstance(job, ProfileJob):
                raise TypeError(f"the profile's job: expected a hpcab.timing.records.ProfileJob, got "
                                f"{type(job).__name__}")
            result = profile(job)
        except Exception as exc:        # the judge's own failure, never the candidate's
            import traceback
            result = DriverFailure(f"{type(exc).__name__}: {exc}", traceback.format_exc())
        write_frame(sys.stdout.buffer, pickle.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
