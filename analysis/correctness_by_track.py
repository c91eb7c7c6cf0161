"""correctness_by_track: Per track and arm, the share of tasks correct, incorrect, implausible and unreviewed, and
without a submission.

    python analysis/correctness_by_track.py --obs data/observations.parquet --out figures/

writes figures/correctness_by_track.pdf, correctness_by_track.png and correctness_by_track.csv (the table behind the figure)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout, installed or not

from hpcab.analysis.figures import script_main

if __name__ == "__main__":
    raise SystemExit(script_main(["correctness_by_track"], __doc__.split("\n\n")[0]))
