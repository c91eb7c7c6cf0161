"""speedup_vs_spend: Each task's speedup against what it cost (spend in USD, else tokens, else the agent's wall
time), one colour per arm; tasks without a speedup in a band at the bottom.

    python analysis/speedup_vs_spend.py --obs data/observations.parquet --out figures/

writes figures/speedup_vs_spend.pdf, speedup_vs_spend.png and speedup_vs_spend.csv (the table behind the figure)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout, installed or not

from hpcab.analysis.figures import script_main

if __name__ == "__main__":
    raise SystemExit(script_main(["speedup_vs_spend"], __doc__.split("\n\n")[0]))
