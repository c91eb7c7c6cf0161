"""Measurement slots: concurrent gradings never share a core while being timed.

A slot is a set of CPUs. Entering it takes an exclusive lock on a file per CPU (in CPU
order, so two slots that overlap cannot deadlock) in a machine-wide folder, so every
judge process and worker on this machine that times on a CPU waits for the one timing
there now. The kernel drops a lock when its holder dies, so a judge killed mid-grade
leaves no slot taken.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import time
from pathlib import Path
from typing import Iterator

import attrs

POLL_SECONDS = 0.005


def default_lock_dir() -> Path:
    return Path(os.environ.get("HPCAB_SLOT_DIR") or Path(tempfile.gettempdir()) / "hpcab-slots")


def _trace(cpus: tuple[int, ...], start: float, end: float) -> None:
    """HPCAB_SLOT_TRACE=FILE: append one line per slot held (cpus, start, end on the
    monotonic clock, pid), to check or plot the slots' occupancy."""
    path = os.environ.get("HPCAB_SLOT_TRACE")
    if path:
        with open(path, "a") as f:
            f.write(f"{','.join(map(str, cpus))} {start:.6f} {end:.6f} {os.getpid()}\n")


def parse_slots(specs: list[str] | None, threads: int) -> tuple[tuple[int, ...], ...]:
    """'--slot 1 --slot 2,3' → ((1,), (2, 3)). None: one slot of `threads` CPUs, the last
    ones this process may use (the judge's own work tends to run on the first)."""
    allowed = sorted(os.sched_getaffinity(0))
    if not specs:
        if threads > len(allowed):
            raise ValueError(f"--threads {threads}: only {len(allowed)} CPU(s) available")
        return (tuple(allowed[-threads:]),)
    slots = []
    for spec in specs:
        try:
            cpus = tuple(sorted({int(x) for x in spec.split(",") if x.strip()}))
        except ValueError:
            raise ValueError(f"--slot {spec!r}: expected CPU numbers separated by commas, e.g. 2,3") from None
        if not cpus:
            raise ValueError(f"--slot {spec!r}: names no CPU")
        if not set(cpus) <= set(allowed):
            raise ValueError(f"--slot {spec!r}: CPU(s) {sorted(set(cpus) - set(allowed))} are not available "
                             f"to this process (available: {allowed})")
        if len(cpus) < threads:
            raise ValueError(f"--slot {spec!r}: {len(cpus)} CPU(s), fewer than --threads {threads}")
        slots.append(cpus)
    return tuple(slots)


@attrs.frozen
class Slots:
    """Picklable: the grading worker processes get a copy and lock the same files."""
    cpu_sets: tuple[tuple[int, ...], ...]
    lock_dir: Path = attrs.field(factory=default_lock_dir, converter=Path)

    @contextlib.contextmanager
    def acquire(self) -> Iterator[tuple[int, ...]]:
        """Wait for any free slot; yield its CPUs while holding it."""
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        while True:
            for cpus in self.cpu_sets:
                held = self._try(cpus)
                if held is not None:
                    start = time.monotonic()
                    try:
                        yield cpus
                    finally:
                        _trace(cpus, start, time.monotonic())
                        for fd in held:
                            os.close(fd)   # closing drops the lock
                    return
            time.sleep(POLL_SECONDS)

    def _try(self, cpus: tuple[int, ...]) -> list[int] | None:
        held: list[int] = []
        for cpu in sorted(cpus):
            fd = os.open(self.lock_dir / f"cpu{cpu}.lock", os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                for h in held:
                    os.close(h)
                return None
            held.append(fd)
        return held
