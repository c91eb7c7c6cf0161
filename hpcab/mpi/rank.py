"""The untrusted side of a distributed measurement: `python -m hpcab.mpi.rank JOB`, one
process per rank, started by mpirun or srun (hpcab/mpi/ranks.py).

It loads the judge's rank loop (hpcab/mpi/harness.py: MPI, then the candidate) and hands it
the folder of its pipes and buffer; the loop does the rest, in C. Nothing here holds a
clock, another rank's buffer or an expected output. JOB: a JSON file the driver wrote,
{"dir", "harness", "library", "symbol"}.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys


def main() -> int:
    with open(sys.argv[1]) as f:
        job = json.load(f)
    # RTLD_GLOBAL: Open MPI's components, which it opens itself, find libmpi's symbols.
    lib = ctypes.CDLL(job["harness"], mode=ctypes.RTLD_GLOBAL)
    serve = lib.hpcab_mpi_serve
    serve.restype = ctypes.c_int64
    serve.argtypes = [ctypes.c_char_p] * 3
    return int(serve(job["dir"].encode(), job["library"].encode(), job["symbol"].encode()))


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)      # no exit handlers: nothing of the candidate's runs after the last call
