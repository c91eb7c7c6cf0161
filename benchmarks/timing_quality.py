"""Timing quality of the graded loop; prints figures, asserts nothing.

(The timer's overhead per call, measured from outside the candidate's process, is
`benchmarks/measurement_figures.py overhead`.)

Spread: 5 repeated grades of the same hand-written gemm at preset S, each one's 95 %
   CI half-width in percent, and the spread of the 5 medians (goal: at most 3 %).

Run: .venv/bin/python benchmarks/timing_quality.py [--grades 5] [--preset S]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from hpcab.build import candidate_from_file
from hpcab.case import preset_case
from hpcab.corpus import load_corpus
from hpcab.grade import grade
from hpcab.run import Policy
from hpcab.toolchain import load_toolchains

ROOT = Path(__file__).resolve().parent.parent


def spread(grades: int, preset: str) -> None:
    corpus, tc = load_corpus(), load_toolchains()
    k = corpus.get("gemm")
    cand = candidate_from_file(ROOT / "examples" / "gemm.c")
    medians, halfwidths = [], []
    print(f"\n{grades} grades of examples/gemm.c at preset {preset} (default policy: >=1 s of timed work per target):")
    for i in range(grades):
        g = grade(k, cand, [preset_case(k, preset)], tc, policy=Policy())
        if not g.correct:
            sys.exit(f"grade {i} was not correct: {g.message}")
        t = g.cases[0].timing
        medians.append(t.median_ns)
        halfwidths.append(t.ci_halfwidth_pct)
        sp = g.speedup_numpy
        print(f"  grade {i + 1}: median {t.median_ns / 1e6:8.3f} ms  CI half-width {t.ci_halfwidth_pct:5.2f} %  "
              f"n={t.n} outliers={t.outliers}  speedup vs numpy {sp.value:.3f} [{sp.ci_low:.3f}, {sp.ci_high:.3f}]")
    mid = statistics.median(medians)
    print(f"  max CI half-width: {max(halfwidths):.2f} %   (goal <= 3 %)")
    print(f"  spread of the {grades} medians: (max - min) / 2 / median = "
          f"{100 * (max(medians) - min(medians)) / 2 / mid:.2f} %")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--grades", type=int, default=5)
    p.add_argument("--preset", default="S")
    a = p.parse_args()
    spread(a.grades, a.preset)


if __name__ == "__main__":
    main()
