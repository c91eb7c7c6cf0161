"""Time each kernel's NumPy reference at its presets (single-threaded), to calibrate S/M/L.

Goal per preset: S about 10 ms, M about 100 ms, L about 1 s. Prints a table; asserts nothing.
`hpcab calibrate KERNEL` measures one kernel the same way (hpcab/calibrate.py) and proposes sizes.
Run: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/preset_timings.py [--kernels SELECTOR] [--presets S,M]
"""

from __future__ import annotations

import argparse
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")    # before numpy loads its BLAS

from hpcab.calibrate import time_reference  # noqa: E402
from hpcab.corpus import load_corpus  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels")
    p.add_argument("--presets", default="S,M,L")
    a = p.parse_args()
    presets = a.presets.split(",")
    print(f"{'kernel':<32}" + "".join(f"{pr:>12}" for pr in presets))
    for k in load_corpus().select(a.kernels):
        row = [time_reference(k, k.presets[pr], max_repeats=3 if pr == "S" else 1) for pr in presets]
        print(f"{k.name:<32}" + "".join(f"{best * 1e3:10.1f}ms" for best in row))


if __name__ == "__main__":
    main()
