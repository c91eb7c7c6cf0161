"""tokens_per_task: Per arm, the distribution of tokens per task; arms that call no model are shown at 0.

    python analysis/tokens_per_task.py --obs data/observations.parquet --out figures/

writes figures/tokens_per_task.pdf, tokens_per_task.png and tokens_per_task.csv (the table behind the figure)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout, installed or not

from hpcab.analysis.figures import script_main

if __name__ == "__main__":
    raise SystemExit(script_main(["tokens_per_task"], __doc__.split("\n\n")[0]))
