"""A/A: each track's baseline graded as a candidate against itself. Prints figures, asserts nothing.

A judge whose clock favours the candidate's process over the baseline's (placement,
freezing, thread binding, the sandbox, memory, the order of the targets) shows it here:
the baseline handed in as a candidate must come out 1x, its interval containing 1.

    scientific_computing  the translator's C built with the `autopar` flag set (the c-autopar baseline)
    loop_level_reasoning  the NumPy reference jitted with numba.njit, a Python candidate (the numba baseline)
    machine_learning      the NumPy reference itself, a Python candidate (the numpy baseline)

For every kernel it prints the speedup over the track's baseline with its 95 % interval
and the gate's verdict, then per track and overall the geometric mean, how many intervals
hold 1, and how many say faster or slower (goal: the geometric mean within 3 % of 1, no
kernel measurably faster or slower). --load N runs N busy processes (Python spin loops,
not pinned) beside the grades: the same goal under load.

Run: .venv/bin/python benchmarks/aa_baseline.py [--per-track 10] [--kernels a,b,...]
     [--sessions 8] [--load 0] [--seed 0]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hpcab.baseline import AUTOPAR_FLAGSET, as_candidate, baseline_name  # noqa: E402
from hpcab.case import preset_case  # noqa: E402
from hpcab.corpus import load_corpus  # noqa: E402
from hpcab.grade import grade  # noqa: E402
from hpcab.timing.policy import Policy  # noqa: E402
from hpcab.toolchain import load_toolchains  # noqa: E402

TRACKS = ("scientific_computing", "loop_level_reasoning", "machine_learning")


def pick(corpus, per_track: int, seed: int) -> list:
    rng = random.Random(seed)
    chosen = []
    for track in TRACKS:
        kernels = sorted((k for k in corpus.kernels if k.track == track and k.mpi is None), key=lambda k: k.id)
        try:
            from hpcab.translate import translate
        except ImportError:
            translate = None
        usable = []
        for k in kernels:
            if track == "scientific_computing" and translate is not None:
                try:
                    translate(k, "c", AUTOPAR_FLAGSET)
                except Exception:
                    continue
            usable.append(k)
        chosen += rng.sample(usable, min(per_track, len(usable)))
    return chosen


@contextlib.contextmanager
def load(n: int):
    code = "import time\nend = time.monotonic() + 3600\nwhile time.monotonic() < end: pass\n"
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def gmean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--per-track", type=int, default=10)
    ap.add_argument("--kernels", help="comma-separated names (default: a seeded sample per track)")
    ap.add_argument("--sessions", type=int, default=Policy().sessions)
    ap.add_argument("--load", type=int, default=0, help="busy processes beside the grades")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    corpus, toolchains = load_corpus(), load_toolchains()
    kernels = ([corpus.get(n) for n in args.kernels.split(",")] if args.kernels
               else pick(corpus, args.per_track, args.seed))
    policy = Policy(sessions=args.sessions)
    rows: dict[str, list[tuple[str, float, float, float, str]]] = {}
    with load(args.load):
        for k in kernels:
            candidate, flags = as_candidate(k)
            started = time.monotonic()
            g = grade(k, candidate, [preset_case(k, "S")], toolchains, flags, policy=policy)
            sp = g.speedup_baseline
            if g.status != "ok" or sp is None:
                print(f"{k.name:32s} {g.status}: {(g.message or g.baseline_error or '')[:150]}", flush=True)
                continue
            rows.setdefault(k.track, []).append((k.name, sp.value, sp.ci_low, sp.ci_high, sp.verdict))
            print(f"{k.name:32s} {baseline_name(k):9s} {sp.value:6.3f}x [{sp.ci_low:.3f}, {sp.ci_high:.3f}] "
                  f"{sp.verdict:26s} {time.monotonic() - started:5.1f} s", flush=True)
    everything = [r for track in rows.values() for r in track]
    for label, group in [(t, rows.get(t, [])) for t in TRACKS] + [("all", everything)]:
        if not group:
            continue
        holds = sum(lo <= 1 <= hi for _, _, lo, hi, _ in group)
        off = [name for name, _, lo, hi, _ in group if not lo <= 1 <= hi]
        print(f"{label:22s} {len(group):3d} kernels  geometric mean {gmean([v for _, v, *_ in group]):.3f}x  "
              f"interval holds 1: {holds}/{len(group)}" + (f"  (not: {', '.join(off)})" if off else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
