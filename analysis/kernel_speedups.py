"""kernel_speedups: Per kernel and arm, the speedup over the baseline on a signed log2 scale centred at 1x,
with 95% CI whiskers; an x where the arm has no correct answer.

    python analysis/kernel_speedups.py --obs data/observations.parquet --out figures/

writes figures/kernel_speedups.pdf, kernel_speedups.png and kernel_speedups.csv (the table behind the figure)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout, installed or not

from hpcab.analysis.figures import script_main

if __name__ == "__main__":
    raise SystemExit(script_main(["kernel_speedups"], __doc__.split("\n\n")[0]))
