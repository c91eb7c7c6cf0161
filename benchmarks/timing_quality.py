"""Do a grade's speedup intervals cover a re-run? Prints figures, asserts nothing.

Grades the same candidates again and again (default 6 times each) and prints, per
candidate and machine state:

- each grade's speedup over NumPy with its 95 % interval, the gate's verdict, its wall time;
- the pairwise coverage: over the ordered pairs (i, j) of grades, the share where grade
  i's speedup lies inside grade j's interval (goal: at least 75 %; two honest intervals of
  equal width give about 83 %);
- the share of pairs that `hpcab reproduce`'s ratio test calls reproduced (goal: about
  95 %: the test's false-alarm rate is 5 %);
- the intervals' half-widths (goal: at most 10 % at S) and the spread of the speedups.

Candidates: examples/gemm.c (compute-bound) and the translator's C for s271_conditional
(memory-bound, a data-dependent branch). Machine states: quiet, and loaded by one busy
process (a Python spin loop, not pinned: the scheduler puts it where it likes).

(The timer's overhead per call is `benchmarks/measurement_figures.py overhead`.)

Run: .venv/bin/python benchmarks/timing_quality.py [--grades 6] [--preset S] [--sessions 5]
     [--candidates gemm,s271] [--states quiet,loaded]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import statistics
import subprocess
import sys
import time
from pathlib import Path

from hpcab.build import Candidate, candidate_from_file
from hpcab.case import preset_case
from hpcab.corpus import load_corpus
from hpcab.grade import grade
from hpcab.measure import Speedup, ratio_test
from hpcab.run import Policy
from hpcab.toolchain import load_toolchains

ROOT = Path(__file__).resolve().parent.parent


def _candidates(corpus) -> dict[str, tuple[str, Candidate]]:
    from hpcab.translate import translate
    return {"gemm": ("gemm", candidate_from_file(ROOT / "examples" / "gemm.c")),
            "s271": ("s271_conditional",
                     Candidate(translate(corpus.get("s271_conditional"), "c").source, "c", label="translator C"))}


@contextlib.contextmanager
def _state(name: str):
    if name == "quiet":
        yield
        return
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        yield
    finally:
        busy.kill()
        busy.wait()


def coverage(speedups: list[Speedup]) -> tuple[int, int, int]:
    """(pairs, i's value inside j's interval, the ratio test passed) over ordered pairs."""
    pairs = list(itertools.permutations(range(len(speedups)), 2))
    inside = sum(speedups[j].ci_low <= speedups[i].value <= speedups[j].ci_high for i, j in pairs)
    passed = sum(lo <= 1 <= hi for _, lo, hi in (ratio_test(speedups[i], speedups[j]) for i, j in pairs))
    return len(pairs), inside, passed


def run(name: str, kernel_name: str, cand: Candidate, state: str, grades: int, preset: str, sessions: int,
        corpus, tc) -> dict:
    k = corpus.get(kernel_name)
    policy = Policy(sessions=sessions)
    print(f"\n{name} ({kernel_name}, {cand.label or cand.language}) at {preset}, {state}, {sessions} session(s), "
          f"default policy otherwise:")
    speedups, seconds = [], []
    with _state(state):
        for i in range(grades):
            started = time.monotonic()
            g = grade(k, cand, [preset_case(k, preset)], tc, policy=policy)
            seconds.append(time.monotonic() - started)
            if not g.correct:
                sys.exit(f"grade {i + 1} of {name} was not correct: {g.message}")
            sp = g.speedup_numpy
            speedups.append(sp)
            half = 100 * (sp.ci_high - sp.ci_low) / 2 / sp.value
            print(f"  grade {i + 1}: speedup vs numpy {sp.value:.3f} [{sp.ci_low:.3f}, {sp.ci_high:.3f}] "
                  f"±{half:4.1f} %  {sp.verdict:<24}  {seconds[-1]:5.1f} s")
    pairs, inside, passed = coverage(speedups)
    values = [s.value for s in speedups]
    halves = [100 * (s.ci_high - s.ci_low) / 2 / s.value for s in speedups]
    mid = statistics.median(values)
    row = {"name": name, "state": state, "coverage": inside / pairs, "reproduced": passed / pairs,
           "half_min": min(halves), "half_max": max(halves),
           "spread": 100 * (max(values) - min(values)) / 2 / mid, "seconds": statistics.median(seconds)}
    print(f"  pairwise coverage {inside}/{pairs} = {100 * row['coverage']:.0f} % (goal >= 75 %); "
          f"ratio test passed {passed}/{pairs} = {100 * row['reproduced']:.0f} %")
    print(f"  half-widths {row['half_min']:.1f}-{row['half_max']:.1f} % (goal <= 10 % at S); spread of the "
          f"speedups (max - min) / 2 / median {row['spread']:.1f} %; median grade time {row['seconds']:.1f} s")
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--grades", type=int, default=6)
    p.add_argument("--preset", default="S")
    p.add_argument("--sessions", type=int, default=Policy().sessions)
    p.add_argument("--candidates", default="gemm,s271")
    p.add_argument("--states", default="quiet,loaded")
    a = p.parse_args()
    corpus, tc = load_corpus(), load_toolchains()
    cands = _candidates(corpus)
    rows = [run(name, *cands[name], state, a.grades, a.preset, a.sessions, corpus, tc)
            for name in a.candidates.split(",") for state in a.states.split(",")]
    print(f"\n{'candidate':<10} {'state':<7} {'coverage':>9} {'ratio test':>11} {'half-width':>12} "
          f"{'spread':>7} {'grade':>6}")
    for r in rows:
        print(f"{r['name']:<10} {r['state']:<7} {100 * r['coverage']:8.0f}% {100 * r['reproduced']:10.0f}% "
              f"{r['half_min']:5.1f}-{r['half_max']:4.1f}% {r['spread']:6.1f}% {r['seconds']:5.1f}s")


if __name__ == "__main__":
    main()
