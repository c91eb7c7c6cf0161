"""scaling: Strong scaling of the distributed track: per kernel, the speedup over the track's
single-process baseline against the MPI ranks (log2 both ways), with 95% CI whiskers.

    python analysis/scaling.py --obs data/observations.parquet --out figures/

writes figures/scaling.pdf, scaling.png and scaling.csv (the table behind the figure)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout, installed or not

from hpcab.analysis.figures import script_main

if __name__ == "__main__":
    raise SystemExit(script_main(["scaling"], __doc__.split("\n\n")[0]))
