"""Grade every kernel's baselines through the judge's own pipeline: the full sweep the test
suite samples.

For each selected kernel, the translator's C (opt, autopar) and Fortran (opt) are graded
against the NumPy reference at one preset with one measuring session (hpcab.grade, with the
track's baseline: numba for loop_level_reasoning), as tests/test_translate.py does for its
seeded sample. The suite checks every kernel in one process instead (tests/test_corpus_sweep.py,
hpcab/sweep.py); this is the same promise kept through the judge. Prints one line per
kernel and the failures; exits 1 if any.

Run: .venv/bin/python benchmarks/corpus_sweep.py [--kernels SELECTOR] [--preset S]
"""

from __future__ import annotations

import argparse
import sys
import time

from hpcab.build import Candidate
from hpcab.case import preset_case
from hpcab.corpus import load_corpus
from hpcab.grade import grade
from hpcab.timing.policy import Policy
from hpcab.sweep import TRANSLATIONS
from hpcab.toolchain import load_toolchains
from hpcab.translate import TranslateError, translate

POLICY = Policy(warmup=1, min_repetitions=1, max_repetitions=2, target_seconds=0.0, timeout_seconds=120,
                sessions=1)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels")
    p.add_argument("--preset", default="S")
    a = p.parse_args()
    toolchains, failures, start = load_toolchains(), [], time.monotonic()
    kernels = load_corpus().select(a.kernels)
    for k in kernels:
        t0, cells = time.monotonic(), []
        for language, flagset in TRANSLATIONS:
            try:
                source = translate(k, language, flagset).source
            except TranslateError as exc:
                cells.append(f"{language}/{flagset} untranslatable")
                failures.append(f"{k.name} {language}/{flagset}: {exc}")
                continue
            g = grade(k, Candidate(source, language, label=f"sweep-{language}-{flagset}"),
                      [preset_case(k, a.preset)], toolchains, flagset, POLICY)
            cells.append(f"{language}/{flagset} {g.status}")
            if g.status != "ok":
                failures.append(f"{k.name} {language}/{flagset}: {g.status}: {g.message}")
            if g.baseline_error:
                failures.append(f"{k.name} baseline: {g.baseline_error}")
        print(f"{k.name:<32} {time.monotonic() - t0:6.1f} s  " + ", ".join(cells), flush=True)
    print(f"{len(kernels)} kernels in {time.monotonic() - start:.0f} s; {len(failures)} failure(s)")
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
