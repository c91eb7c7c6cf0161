"""What a distributed grade adds to hpcab.grade.grade: the candidate built with the MPI
compiler wrapper, and the target's `mpi` description (ranks, launcher, the distribution it
declared) for hpcab/mpi/ranks.py."""

from __future__ import annotations

import attrs

from hpcab.build import Candidate
from hpcab.errors import InputError
from hpcab.kernel import Kernel
from hpcab.mpi.distribution import declared
from hpcab.mpi.harness import COMPILER
from hpcab.mpi.ranks import LAUNCHERS

MAX_RANKS = 64


def prepare(kernel: Kernel, candidate: Candidate, ranks: int, launcher: str) -> tuple[Candidate, dict]:
    if kernel.mpi is None:
        raise InputError("--ranks", str(ranks), f"{kernel.name} has no mpi: block in its manifest, so it is not "
                                                f"in the distributed track (docs/mpi.md)")
    if kernel.mpi.scaling != "strong":
        raise InputError(str(kernel.manifest_path), "mpi.scaling", f"{kernel.mpi.scaling!r}: only strong scaling "
                                                                   "is graded so far (docs/mpi.md)")
    if not 1 <= ranks <= MAX_RANKS:
        raise InputError("--ranks", str(ranks), f"expected 1 to {MAX_RANKS}")
    if launcher not in LAUNCHERS:
        raise InputError("--launcher", launcher, f"expected one of {', '.join(LAUNCHERS)}")
    if candidate.language not in COMPILER:
        raise InputError("--language", candidate.language, f"a distributed candidate is C, C++ or Fortran "
                                                           f"({', '.join(COMPILER)})")
    layouts = declared(kernel.mpi, candidate.source, candidate.label or "the candidate")
    mpi = {"ranks": ranks, "launcher": launcher,
           "distribution": {a: {"kind": v.kind, "block": v.block} for a, v in layouts.items()}}
    return attrs.evolve(candidate, compiler=COMPILER[candidate.language]), mpi
