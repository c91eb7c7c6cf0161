"""Timing quality of the graded loop; prints figures, asserts nothing.

1. Overhead: the time the judge's clock adds around one call, measured on a kernel that
   does nothing (goal: at most 1 µs). The clock is read in C right around the call, so
   the figure is the trampoline plus clock_gettime, not the cffi call.
2. Spread: 5 repeated grades of the same hand-written gemm at preset S, each one's 95 %
   CI half-width in percent, and the spread of the 5 medians (goal: at most 3 %).

Run: .venv/bin/python benchmarks/timing_quality.py [--grades 5] [--preset S]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from hpcab.abi import c_prototype
from hpcab.build import Candidate, build, candidate_from_file
from hpcab.case import make_inputs, preset_case
from hpcab.corpus import load_corpus
from hpcab.grade import grade
from hpcab.harness import build_harness
from hpcab.measure import summarize
from hpcab.run import Policy, Target, run_case
from hpcab.toolchain import load_toolchains

ROOT = Path(__file__).resolve().parent.parent


def overhead(repetitions: int) -> None:
    corpus, tc = load_corpus(), load_toolchains()
    k = corpus.get("gemm")
    noop = Candidate("#include <stdint.h>\n" + c_prototype(k).rstrip(";") + " {}\n", "c", label="noop")
    lib = build(noop, tc).library
    harness = build_harness(k, tc).library
    case = preset_case(k, "S")
    policy = Policy(min_repetitions=repetitions, max_repetitions=repetitions, target_seconds=1e9, max_seconds=1e9)
    started = time.perf_counter()
    run = run_case(k, case, make_inputs(k, case), [Target("noop", "c", lib)], harness, policy)
    wall = time.perf_counter() - started
    s = run.samples_ns["noop"]
    t = summarize(s)
    print(f"no-op call, {len(s)} timed calls (wall {wall:.1f} s incl. input copies between calls):")
    print(f"  timer overhead per call: median {t.median_ns:.0f} ns, min {s.min()} ns, "
          f"p99 {np.percentile(s, 99):.0f} ns   (goal <= 1000 ns)")


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
    p.add_argument("--repetitions", type=int, default=20000)
    a = p.parse_args()
    overhead(a.repetitions)
    spread(a.grades, a.preset)


if __name__ == "__main__":
    main()
