"""Do a grade's speedup intervals cover a re-run? Prints figures, asserts nothing.

Grades the same candidates again and again (default 6 times each) and prints, per
candidate and machine state:

- each grade's speedup over NumPy with its 95 % interval, the gate's verdict, its wall time;
- the pairwise coverage: over the ordered pairs (i, j) of grades, the share where grade
  i's speedup lies inside grade j's interval (goal: at least 75 %; two honest intervals of
  equal width give about 83 %);
- the share of pairs that `hpcab reproduce`'s ratio test calls reproduced (goal: about
  95 %: the test's false-alarm rate is 5 %);
- the intervals' half-widths (goal: at most 10 % at S) and the spread of the speedups;
- the grade-to-grade variation the sessions did not see: the speedups' spread (the
  standard deviation of their logs) beyond the intervals' own standard errors, the figure
  to set as the judge's `--drift` (hpcab.measure).

The grades are taken without the drift term, and the figures are printed twice: for the
sessions' intervals alone and with the drift added (--drift, default the policy's).

Candidates: examples/gemm.c (compute-bound) and the translator's C for s271_conditional
(memory-bound, a data-dependent branch). Machine states: quiet, and loaded by one busy
process (a Python spin loop, not pinned: the scheduler puts it where it likes).

(The timer's overhead per call is `benchmarks/measurement_figures.py overhead`.)

Run: .venv/bin/python benchmarks/timing_quality.py [--grades 6] [--preset S] [--sessions 8]
     [--drift 0.03] [--candidates gemm,s271] [--states quiet,loaded]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

from hpcab.build import Candidate, candidate_from_file
from hpcab.case import preset_case
from hpcab.corpus import load_corpus
from hpcab.grade import grade
from hpcab.measure import Speedup, _with_drift, ratio_test
from hpcab.timing.policy import Policy
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


def excess(speedups: list[Speedup]) -> float:
    """The speedups' spread (standard deviation of the logs) beyond the root-mean-square of
    their intervals' standard errors (half the log width / t(0.975, k − 1), or / 1.96 for
    one session): the grade-to-grade variation no interval held."""
    from scipy.stats import norm, t
    q = [float(t.ppf(0.975, s.sessions - 1)) if s.sessions > 1 else float(norm.ppf(0.975)) for s in speedups]
    logs = [math.log(s.value) for s in speedups]
    se = [(math.log(s.ci_high) - math.log(s.ci_low)) / 2 / qi for s, qi in zip(speedups, q)]
    between = statistics.variance(logs) - statistics.fmean(x * x for x in se)
    return math.sqrt(max(between, 0.0))


def _drifted(speedups: list[Speedup], drift: float) -> list[Speedup]:
    return [Speedup(s.value, *_with_drift(s.value, s.ci_low, s.ci_high, drift), s.sessions) for s in speedups]


def run(name: str, kernel_name: str, cand: Candidate, state: str, grades: int, preset: str, sessions: int,
        drift: float, corpus, tc) -> dict:
    k = corpus.get(kernel_name)
    policy = Policy(sessions=sessions, drift=0.0)
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
    values = [s.value for s in speedups]
    mid = statistics.median(values)
    row = {"name": name, "state": state, "spread": 100 * (max(values) - min(values)) / 2 / mid,
           "seconds": statistics.median(seconds), "excess": 100 * excess(speedups)}
    for key, sps in (("sessions", speedups), ("drift", _drifted(speedups, drift))):
        pairs, inside, passed = coverage(sps)
        halves = [100 * (s.ci_high - s.ci_low) / 2 / s.value for s in sps]
        row[key] = (inside / pairs, passed / pairs, min(halves), max(halves))
        what = "the sessions' intervals" if key == "sessions" else f"with a drift of {100 * drift:g} %"
        print(f"  {what}: pairwise coverage {inside}/{pairs} = {100 * inside / pairs:.0f} % (goal >= 75 %); "
              f"ratio test passed {passed}/{pairs} = {100 * passed / pairs:.0f} %; "
              f"half-widths {min(halves):.1f}-{max(halves):.1f} % (goal <= 10 % at S)")
    print(f"  spread of the speedups (max - min) / 2 / median {row['spread']:.1f} %; grade-to-grade variation "
          f"beyond the intervals {row['excess']:.1f} %; median grade time {row['seconds']:.1f} s")
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--grades", type=int, default=6)
    p.add_argument("--preset", default="S")
    p.add_argument("--sessions", type=int, default=Policy().sessions)
    p.add_argument("--drift", type=float, default=Policy().drift)
    p.add_argument("--candidates", default="gemm,s271")
    p.add_argument("--states", default="quiet,loaded")
    a = p.parse_args()
    corpus, tc = load_corpus(), load_toolchains()
    cands = _candidates(corpus)
    rows = [run(name, *cands[name], state, a.grades, a.preset, a.sessions, a.drift, corpus, tc)
            for name in a.candidates.split(",") for state in a.states.split(",")]
    print(f"\n{a.sessions} sessions; coverage / ratio test / half-widths for the sessions' intervals alone and "
          f"with a drift of {100 * a.drift:g} %")
    print(f"{'candidate':<10} {'state':<7} {'sessions alone':>26} {'with the drift':>26} {'spread':>7} "
          f"{'beyond':>7} {'grade':>6}")

    def cell(c):
        return f"{100 * c[0]:4.0f}% {100 * c[1]:4.0f}% {c[2]:5.1f}-{c[3]:4.1f}%"

    for r in rows:
        print(f"{r['name']:<10} {r['state']:<7} {cell(r['sessions']):>26} {cell(r['drift']):>26} "
              f"{r['spread']:6.1f}% {r['excess']:6.1f}% {r['seconds']:5.1f}s")


if __name__ == "__main__":
    main()
