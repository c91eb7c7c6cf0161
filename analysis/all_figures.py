"""all_figures: the six figures of an observations table at once (speedup_summary,
speedup_vs_spend, tokens_per_task, kernel_speedups, correctness_by_track, scaling).

    python analysis/all_figures.py --obs data/observations.parquet --out figures/

writes NAME.pdf, NAME.png and NAME.csv for each into figures/."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout, installed or not

from hpcab.analysis.figures import FIGURES, script_main

if __name__ == "__main__":
    raise SystemExit(script_main(list(FIGURES), __doc__.split("\n\n")[0]))
