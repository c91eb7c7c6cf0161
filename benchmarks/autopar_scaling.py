"""Is the scientific track's baseline (the translator's C with OpenMP, flag set autopar) ever
slower than the same C built serially, when both are timed on the cores a grade reserves?

For each selected kernel the serial C (flag set opt) is graded as a candidate with the track's
baseline beside it (hpcab.grade, the judge's pipeline): the two run interleaved in the same
sessions on the same pinned CPUs, and the grade's speedup over the baseline, inverted, is
c-autopar's speedup over serial C with its 95 % interval. A kernel is "slower" only when the
whole interval lies below 1 / (1 + --margin): a parallel region the code should not have opened.
Prints one line per kernel, the geometric mean per dwarf, and exits 1 if any kernel is slower
or any variant fails.

Run on a quiet machine (nothing else on the CPUs it pins):
    .venv/bin/python benchmarks/autopar_scaling.py --kernels scientific_computing --preset S --threads 2
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

from hpcab.build import Candidate
from hpcab.case import preset_case
from hpcab.corpus import load_corpus
from hpcab.grade import grade
from hpcab.measure import geometric_mean_speedup
from hpcab.measure import Speedup
from hpcab.timing.policy import Policy
from hpcab.toolchain import load_toolchains
from hpcab.translate import TranslateError, translate


def inverted(s: Speedup) -> Speedup:
    """Serial C over autopar, turned into autopar over serial C."""
    return Speedup(1.0 / s.value, 1.0 / s.ci_high, 1.0 / s.ci_low, s.sessions)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels", default="scientific_computing")
    p.add_argument("--preset", default="S")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--sessions", type=int, default=4)
    p.add_argument("--margin", type=float, default=0.05,
                   help="slower means the interval's top is below 1 / (1 + margin) (default 0.05)")
    a = p.parse_args()
    policy = Policy(threads=a.threads, sessions=a.sessions, target_seconds=0.4, max_seconds=10.0)
    toolchains, start = load_toolchains(), time.monotonic()
    kernels = [k for k in load_corpus().select(a.kernels) if k.track == "scientific_computing"]
    by_dwarf: dict[str, list[Speedup]] = collections.defaultdict(list)
    slower, failures = [], []
    print(f"c-autopar over serial C, preset {a.preset}, {a.threads} thread(s), {a.sessions} session(s)")
    for k in kernels:
        t0 = time.monotonic()
        try:
            source = translate(k, "c", "opt").source
        except TranslateError as exc:
            failures.append(f"{k.name}: serial C untranslatable: {exc}")
            continue
        g = grade(k, Candidate(source, "c", label="serial C (opt)"), [preset_case(k, a.preset)],
                  toolchains, "opt", policy)
        if g.status != "ok" or g.speedup_baseline is None:
            failures.append(f"{k.name}: {g.status} {g.baseline_error or g.message or ''}".strip())
            print(f"{k.name:<28} {g.status}", flush=True)
            continue
        s = inverted(g.speedup_baseline)
        by_dwarf[k.dwarf].append(s)
        verdict = "slower" if s.ci_high < 1.0 / (1.0 + a.margin) else s.verdict
        if verdict == "slower":
            slower.append(k.name)
        print(f"{k.name:<28} {k.dwarf:<28} {s.value:6.2f}x [{s.ci_low:.2f}, {s.ci_high:.2f}]  {verdict:<28}"
              f" {time.monotonic() - t0:5.1f} s", flush=True)
    print()
    for dwarf, parts in sorted(by_dwarf.items()):
        m = geometric_mean_speedup(parts)
        print(f"{dwarf:<28} {len(parts):3d} kernels  geomean {m.value:.2f}x [{m.ci_low:.2f}, {m.ci_high:.2f}]")
    everything = [s for parts in by_dwarf.values() for s in parts]
    if everything:
        m = geometric_mean_speedup(everything)
        print(f"{'all':<28} {len(everything):3d} kernels  geomean {m.value:.2f}x [{m.ci_low:.2f}, {m.ci_high:.2f}]")
    print(f"{len(kernels)} kernels in {time.monotonic() - start:.0f} s; "
          f"slower than serial C: {', '.join(slower) or 'none'}; {len(failures)} failure(s)")
    for f in failures:
        print("  " + f)
    return 1 if slower or failures else 0


if __name__ == "__main__":
    sys.exit(main())
