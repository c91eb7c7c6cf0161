"""What crosses between the judge's side of a run (hpcab/timing/session.py) and its trusted
measuring driver (hpcab/timing/trusted/): the job going in, the result coming back. Both
ends are the judge's own processes; the records are checked where they are read (attrs
validators), so a field missing or of the wrong type fails there, by name.

The result's diagnostics (how the calls were measured, beside their samples) are one record,
Diagnostics, carried unchanged by the grade's case (hpcab.grade.CaseResult), its database
row (hpcab.record) and its document (hpcab.gradedoc).
"""

from __future__ import annotations

import os
import select
import struct
import time
from pathlib import Path

import attrs
import numpy as np

from hpcab.case import Case
from hpcab.check import Check
from hpcab.timing.policy import Policy

_is = attrs.validators.instance_of
_optional = attrs.validators.optional

STATUSES = ("ok", "crashed", "timeout", "error")
KINDS = ("c", "python", "numba", "module", "mpi")


@attrs.frozen
class Target:
    """One implementation to time: a C-ABI library, the NumPy reference ('python'), the
    reference jitted by numba ('numba'), a candidate's Python module or extension module
    ('module': the python and pythran languages, called like the reference), or a
    distributed candidate's ranks ('mpi').

    An optional target (a baseline) never fails the run: if it cannot be loaded or raises,
    the driver drops it and reports why in RunResult.target_errors."""
    name: str = attrs.field(validator=_is(str))
    kind: str = attrs.field(validator=attrs.validators.in_(KINDS))
    library: Path | None = attrs.field(default=None, converter=attrs.converters.optional(Path))
    optional: bool = False
    trusted: bool = False     # the judge's own code (NumPy, a baseline): frozen between calls like the candidate, not limited
    # kind "mpi" (hpcab/mpi/ranks.py): {"ranks", "launcher", "harness", "distribution": {array: {"kind", "block"}}}
    mpi: dict | None = None


@attrs.frozen
class Job:
    """One measuring session, as the judge hands it to the driver."""
    kernel_dir: Path = attrs.field(validator=_is(Path))
    corpus_root: Path = attrs.field(validator=_is(Path))
    case: Case = attrs.field(validator=_is(Case))
    targets: tuple[Target, ...] = attrs.field(converter=tuple)
    numpy: str                        # the NumPy reference's target: its answers are the expected ones
    harness: Path | None              # the C loop (hpcab/timing/untrusted/harness.py), built for the kernel
    harness_ffi: Path | None          # ... its cffi declarations, parsed once
    numba_cache: Path | None          # the judge's numba cache: its baseline compiles once per machine
    env: dict[str, str]               # the runners' environment
    policy: Policy = attrs.field(validator=_is(Policy))
    nproc: int = attrs.field(validator=_is(int))     # RLIMIT_NPROC of a sandboxed runner

    @targets.validator
    def _one_reference(self, _, targets):
        if not all(isinstance(t, Target) for t in targets):
            raise TypeError("Job.targets: expected Target records")
        if sum(t.name == self.numpy for t in targets) != 1:
            raise ValueError(f"Job.targets: expected exactly one target named {self.numpy!r} (the NumPy reference)")


@attrs.frozen
class Verdict:
    """The candidate's answers, checked by the driver: right on every call, or the first
    wrong one (message) and its check."""
    correct: bool
    message: str = ""
    check: Check | None = None


def _median(values: list) -> float | None:
    return float(np.median(values)) if values else None


@attrs.frozen
class Diagnostics:
    """How a run's calls were measured, beside their samples (docs/measurement_statistics.md)."""
    timer_overhead_ns: float | None = None      # a round trip to the NumPy runner doing nothing (median)
    timer_overhead_c_ns: float | None = None    # ... to a trusted C runner: subtracted from C targets
    candidate_ping_ns: float | None = None      # the same round trip through a C candidate's own loop (reported)
    freezer: str | None = None                  # how the candidate was frozen between calls (hpcab.freezer)
    cpu_excess_ns: int | None = None            # the candidate's CPU time beyond its calls' wall time × threads
    cpu_charged_ns: int = 0                     # ... of which added to its samples (hpcab/timing/trusted/rounds.py)
    durations: dict[str, float] = attrs.field(factory=dict)   # the driver's: startup, generate, check, ...

    @property
    def subtracted_ns(self) -> float:
        """The round trip subtracted from the candidate's samples: a trusted C runner's for a
        C target (those are the ones with a candidate ping), else the NumPy runner's."""
        ping = self.timer_overhead_c_ns if self.candidate_ping_ns is not None else self.timer_overhead_ns
        return ping or 0.0

    @classmethod
    def merge(cls, parts: list[Diagnostics]) -> Diagnostics:
        """Several sessions' as one: round trips by their median, CPU and durations summed."""
        if len(parts) == 1:
            return parts[0]
        excess = [p.cpu_excess_ns for p in parts if p.cpu_excess_ns is not None]
        durations: dict[str, float] = {}
        for p in parts:
            for key, v in p.durations.items():
                durations[key] = durations.get(key, 0.0) + v
        median = lambda key: _median([getattr(p, key) for p in parts if getattr(p, key) is not None])
        return cls(timer_overhead_ns=median("timer_overhead_ns"), timer_overhead_c_ns=median("timer_overhead_c_ns"),
                   candidate_ping_ns=median("candidate_ping_ns"),
                   freezer=next((p.freezer for p in parts if p.freezer), None),
                   cpu_excess_ns=sum(excess) if excess else None,
                   cpu_charged_ns=sum(p.cpu_charged_ns for p in parts), durations=durations)


def _int_arrays(samples: dict) -> dict[str, np.ndarray]:
    return {k: np.asarray(v, dtype=np.int64) for k, v in samples.items()}


def _rank_array(ranks) -> np.ndarray | None:
    return None if ranks is None or not len(ranks) else np.asarray(ranks, dtype=np.int64)


@attrs.frozen
class RunResult:
    """One measuring session's result. A runner's crash, hang or error is a status here, not
    an exception; a wrong answer is the verdict's."""
    status: str = attrs.field(validator=attrs.validators.in_(STATUSES))
    message: str = ""
    samples_ns: dict[str, np.ndarray] = attrs.field(factory=dict, converter=_int_arrays)
    inputs_modified: dict[str, list[str]] = attrs.field(factory=dict)
    stderr_tail: str = ""
    wall_seconds: float = 0.0
    target_errors: dict[str, str] = attrs.field(factory=dict)   # optional target -> why it was dropped
    # When a runner died, timed out or failed: its target, and the phase (loading | calling).
    failed_target: str | None = None
    failed_phase: str = ""
    sample_sets: dict[str, list[int]] = attrs.field(factory=dict)      # the input set of each timed sample
    fresh: dict[str, list[bool]] = attrs.field(factory=dict)           # whether that set was new to every target
    verdict: Verdict | None = attrs.field(default=None, validator=_optional(_is(Verdict)))   # None: no candidate
    memo: str = ""            # faster on a set it had seen than on new ones (how much: hpcab.grade), else ""
    memo_seen_ns: float | None = None           # with memo: the candidate's median call on repeated sets
    cpu: str = ""             # CPU time used outside its calls (implausible), else ""
    # A distributed candidate: (timed calls, ranks), each rank's time of each call.
    rank_samples_ns: np.ndarray | None = attrs.field(default=None, converter=_rank_array)
    diagnostics: Diagnostics = attrs.field(factory=Diagnostics, validator=_is(Diagnostics))


@attrs.frozen
class ProfileJob:
    """One profile (hpcab/profile.py): the candidate alone on one public case, its runner
    started under `wrap` (perf record) inside its sandbox, called until `seconds` of calls
    or `calls` calls. Nothing is checked or timed for a grade."""
    kernel_dir: Path = attrs.field(validator=_is(Path))
    corpus_root: Path = attrs.field(validator=_is(Path))
    case: Case = attrs.field(validator=_is(Case))
    target: Target = attrs.field(validator=_is(Target))
    harness: Path | None
    harness_ffi: Path | None
    env: dict[str, str]
    policy: Policy = attrs.field(validator=_is(Policy))
    nproc: int = attrs.field(validator=_is(int))
    # The command the runner starts under; OUTPUT in it becomes the file it may write (a
    # memfd of the driver's: no folder of the machine is ever writable to the candidate).
    wrap: tuple[str, ...] = attrs.field(converter=tuple)
    out: Path = attrs.field(validator=_is(Path))      # where the driver copies that file, after
    seconds: float = 1.0
    calls: int = 10_000


@attrs.frozen
class ProfileRun:
    """What a profile's calls did, seen from the trusted side: each call's window on the
    monotonic clock (perf's samples are kept only inside one), their wall and CPU time, and
    the software counters of the candidate's threads summed over the calls."""
    status: str = attrs.field(validator=attrs.validators.in_(STATUSES))
    message: str = ""
    calls: int = 0                                  # completed calls
    windows_ns: tuple[tuple[int, int], ...] = ()    # theirs, and the one that crashed or hung
    cpu_ns: int | None = None
    counters: dict[str, int] = attrs.field(factory=dict)
    stderr_tail: str = ""
    failed_phase: str = ""
    wall_seconds: float = 0.0


@attrs.frozen
class DriverFailure:
    """The driver's own failure (the judge's, never graded as the candidate's)."""
    message: str
    traceback: str = ""


# ---- framing: one pickled record a frame, its length first -----------------------------

_LENGTH = struct.Struct("<Q")


def write_frame(f, data: bytes) -> None:
    f.write(_LENGTH.pack(len(data)) + data)
    f.flush()


def read_frame(f, deadline: float | None = None) -> bytes:
    """One frame from f (a pipe: read unbuffered, from its descriptor). EOFError when it
    closes first; TimeoutError past deadline (time.monotonic())."""
    fd = f.fileno()
    (n,) = _LENGTH.unpack(_read_exactly(fd, _LENGTH.size, deadline))
    return _read_exactly(fd, n, deadline)


def _read_exactly(fd: int, n: int, deadline: float | None) -> bytes:
    parts, left = [], n
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise TimeoutError()
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the pipe closed")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)
