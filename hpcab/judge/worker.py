"""What the judge's grading worker processes run: build, inputs, oracle, checks.

The judge's HTTP process never grades itself: it hands a job to a pool of these worker
processes (compiling and validating in parallel), and each worker's measuring driver is
timed inside a measurement slot (hpcab.judge.slots). A worker exits as soon as the judge
that started it is gone, and its measuring driver and runners die with it (run.py), so a judge killed
mid-grade leaves nothing running.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from pathlib import Path

import attrs

from hpcab.build import Candidate
from hpcab.case import Case
from hpcab.corpus import Corpus, load_corpus
from hpcab.grade import Grade, grade
from hpcab.judge.slots import Slots
from hpcab.timing.policy import Policy
from hpcab.toolchain import Toolchains, load_toolchains

WATCH_SECONDS = 0.5


@attrs.frozen
class GradeJob:
    kernel_id: str
    candidate: Candidate
    flagset: str | None
    cases: tuple[Case, ...]
    policy: Policy
    grade_id: str
    slots: Slots
    baseline: bool = True
    ranks: int | None = None          # a distributed candidate's MPI ranks (docs/mpi.md)
    launcher: str = "mpirun"


@attrs.frozen
class ProfileWork:
    """A profile (hpcab/profile.py) of a candidate on one public case, in a measurement slot."""
    kernel_id: str
    candidate: Candidate
    flagset: str | None
    case: Case
    policy: Policy
    slots: Slots


@attrs.frozen
class BaselineJob:
    kernel_id: str
    cases: tuple[Case, ...]
    policy: Policy
    slots: Slots


_corpus_root: Path | None = None


def init_worker(corpus_root: str, judge_pid: int) -> None:
    """Pool initializer: remember the corpus, and exit when the judge is gone."""
    global _corpus_root
    _corpus_root = Path(corpus_root)

    def watch() -> None:
        while os.getppid() == judge_pid:
            time.sleep(WATCH_SECONDS)
        os._exit(3)
    threading.Thread(target=watch, name="judge-watch", daemon=True).start()


@functools.lru_cache(maxsize=1)
def _corpus() -> Corpus:
    return load_corpus(_corpus_root)


@functools.lru_cache(maxsize=1)
def _toolchains() -> Toolchains:
    return load_toolchains()


def warm() -> int:
    """Load the corpus and the toolchains once, so the first grade does not pay for it."""
    return len(_corpus().kernels) + len(_toolchains().compilers)


def run_grade(job: GradeJob) -> Grade:
    kernel = _corpus().get(job.kernel_id)
    return grade(kernel, job.candidate, list(job.cases), _toolchains(), job.flagset, job.policy,
                 baseline=job.baseline, grade_id=job.grade_id, slot=job.slots.acquire, ranks=job.ranks,
                 launcher=job.launcher)


def run_baseline(job: BaselineJob) -> dict:
    from hpcab.grade import measure_baseline
    kernel = _corpus().get(job.kernel_id)
    m = measure_baseline(kernel, list(job.cases), _toolchains(), job.policy, slot=job.slots.acquire)
    return m.document()



def run_profile(job: ProfileWork) -> tuple[dict | None, str]:
    """(the profile, "") or (None, why this machine cannot profile)."""
    from hpcab.profile import ProfileUnavailable, profile
    kernel = _corpus().get(job.kernel_id)
    with job.slots.acquire() as cpus:       # its calls run where graded calls run: never beside one
        try:
            return profile(kernel, job.candidate, _toolchains(), job.case, job.flagset,
                           attrs.evolve(job.policy, cpus=tuple(cpus))), ""
        except ProfileUnavailable as exc:
            return None, str(exc)
