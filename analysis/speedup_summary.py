"""speedup_summary: Per arm, the geometric-mean speedup over the track's baseline with its 95% bootstrap CI,
and the share of tasks at least 1x and 2x faster and measurably so, their speedup's 95% CI above 1
(fast_1.0, fast_2.0).

    python analysis/speedup_summary.py --obs data/observations.parquet --out figures/

writes figures/speedup_summary.pdf, speedup_summary.png and speedup_summary.csv (the table behind the figure)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout, installed or not

from hpcab.analysis.figures import script_main

if __name__ == "__main__":
    raise SystemExit(script_main(["speedup_summary"], __doc__.split("\n\n")[0]))
