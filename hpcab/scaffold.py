"""`hpcab new-kernel TRACK/[DWARF/]NAME`: a new kernel folder holding a working example.

The three files it writes (docs/adding_a_kernel.md) are a small scaled matrix-vector product,
y = alpha * A x + y, that already loads, lints, passes the corpus gate and can be graded; the
author replaces the computation and the YAML comments say what to change. The check file is
a stub marked `STUB = True`, which the test suite refuses by name until the author writes
the kernel's real independent check.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from hpcab.corpus import kernel_dirs
from hpcab.errors import InputError, did_you_mean
from hpcab.kernel import CHECK_SUFFIX, DWARFS, TRACKS

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
# The template's own symbols: a kernel may not share a name with them (ignoring case).
_TEMPLATE_SYMBOLS = ("m", "n", "a", "x", "y", "alpha")
# Per track: the float type, and its precision band.
_DTYPE = {"loop_level_reasoning": "float32", "scientific_computing": "float64", "machine_learning": "float32"}


def _unknown(kind: str, value: str, valid: tuple[str, ...]) -> str:
    return f"unknown {kind} {value!r}; expected one of: {', '.join(valid)}" + did_you_mean(value, valid)


def parse_kernel_path(text: str) -> tuple[str, str | None, str]:
    """(track, dwarf, name) from TRACK/[DWARF/]NAME, or an InputError naming what is wrong."""
    parts = [p for p in text.strip().strip("/").split("/") if p]
    if len(parts) not in (2, 3):
        raise InputError("new-kernel", "KERNEL", f"{text!r}: expected TRACK/NAME or scientific_computing/DWARF/NAME")
    track, name = parts[0], parts[-1]
    dwarf = parts[1] if len(parts) == 3 else None
    if track not in TRACKS:
        raise InputError("new-kernel", "TRACK", _unknown("track", track, TRACKS))
    if track == "scientific_computing" and dwarf is None:
        raise InputError("new-kernel", "DWARF", "scientific_computing kernels live under a dwarf: "
                                                f"scientific_computing/DWARF/{name}, DWARF one of: {', '.join(DWARFS)}")
    if dwarf is not None and track != "scientific_computing":
        raise InputError("new-kernel", "DWARF", f"only scientific_computing kernels have a dwarf folder; "
                                                f"write {track}/{name}")
    if dwarf is not None and dwarf not in DWARFS:
        raise InputError("new-kernel", "DWARF", _unknown("dwarf", dwarf, DWARFS))
    if not _NAME.match(name) or keyword.iskeyword(name):
        raise InputError("new-kernel", "NAME", f"{name!r} is not a valid kernel name: expected a lowercase "
                                               "identifier (letters, digits, underscores; a letter first), "
                                               "not a Python keyword")
    if name in _TEMPLATE_SYMBOLS:
        raise InputError("new-kernel", "NAME", f"{name!r} clashes with a name of the template "
                                               f"({', '.join(_TEMPLATE_SYMBOLS)}, ignoring case); pick a longer name")
    return track, dwarf, name


def new_kernel(text: str, corpus_root: Path) -> list[Path]:
    """Create corpus_root/TRACK/[DWARF/]NAME/ with its manifest, reference and check stub;
    returns the files written."""
    track, dwarf, name = parse_kernel_path(text)
    corpus_root = Path(corpus_root)
    if not corpus_root.is_dir():
        raise InputError(str(corpus_root), "", "no such corpus folder")
    folder = corpus_root.joinpath(*(p for p in (track, dwarf, name) if p))
    for existing in kernel_dirs(corpus_root):
        if existing.name == name:
            raise InputError("new-kernel", "NAME", f"{name!r} is already the name of the kernel in "
                                                   f"{existing.relative_to(corpus_root)}; kernel names are unique "
                                                   "across tracks")
    if folder.exists():
        raise InputError(str(folder), "", "already exists; pick another name or remove the folder")
    folder.mkdir(parents=True)
    files = {
        folder / f"{name}.yaml": manifest_text(track, dwarf, name),
        folder / f"{name}_numpy.py": reference_text(track, name),
        folder / f"{name}{CHECK_SUFFIX}": check_text(name),
    }
    for path, text_ in files.items():
        path.write_text(text_)
    return list(files)


def next_steps(name: str, files: list[Path], corpus: str | None = None) -> list[str]:
    """What to do next, as numbered lines; corpus: the --corpus the author gave, if any."""
    manifest, reference, check = files
    where = f" --corpus {corpus}" if corpus else ""
    return [
        f"1. edit {reference.name}: your computation, in the canonical NumPy form "
        "(docs/canonical_numpy_form.md), and initialize(); then the manifest to match",
        f"2. hpcab lint {name}{where}    # the canonical form and the corpus gate",
        f"3. hpcab calibrate {name}{where} --write    # measures S, M, L and rewrites the presets",
        f"4. write the independent check in {check.name} (explicit loops, scipy, a closed form...) "
        "and delete its STUB = True",
        f"5. .venv/bin/python -m pytest -q tests/test_corpus_references.py -k {name}",
        f"6. hpcab grade {name} --source YOUR_CANDIDATE.c   # or translate it: hpcab translate {name} --language c",
        "see docs/adding_a_kernel.md",
    ]


def manifest_text(track: str, dwarf: str | None, name: str) -> str:
    dtype = _DTYPE[track]
    item = 4 if dtype == "float32" else 8
    if track == "loop_level_reasoning":
        track_fields = (
            "# loop_level_reasoning: the TSVC category (see schemas/manifest.schema.json for the list),\n"
            "# the one optimisation the loop isolates, and the TSVC loop's id.\n"
            "tsvc:\n"
            "  category: reduction\n"
            "  optimization: Vectorise the row dot products; replace with the one transformation your loop isolates.\n"
            "  # tsvc_id: s000          # the TSVC loop's id (s followed by digits or letters)\n")
    elif track == "scientific_computing":
        track_fields = (f"# scientific_computing: the dwarf is the folder ({dwarf}); the scale it is meant to run at.\n"
                        "scale: core                 # core | socket | node\n")
    else:
        track_fields = ""
    return f"""\
# {name}: written by `hpcab new-kernel`. It is a working example (a scaled matrix-vector
# product) so that lint, calibrate and grade run at once: replace the computation, then every
# field below that says so. The fields: docs/manifest.md; the bar: docs/adding_a_kernel.md.
description: >
  EDIT: what is computed and what makes it interesting to optimise. Example: scaled
  matrix-vector product y = alpha * A x + y on a dense row-major {dtype} matrix.
# EDIT: the suite and kernel, paper or textbook whose algorithm this follows.
provenance: EDIT, e.g. PolyBench/C 4.2 linear-algebra/blas/gemver (the y = alpha A x + y step)
level: 1                      # 1 a single operation, 2 a few fused, 3 a micro-application
{track_fields}# The size symbols, in ABI order; every shape and preset uses exactly these.
sizes: [M, N]
# constraints: ["N % 4 == 0"]   # optional: expressions every case's sizes must satisfy
# Placeholders: `hpcab calibrate {name} --write` measures the reference and rewrites them
# (targets: about 10 ms at S, 100 ms at M, 1 s at L on one core; L within 2 GB).
presets:
  S: {{M: 64, N: 48}}
  M: {{M: 128, N: 96}}
  L: {{M: 256, N: 192}}
# Per size symbol, the [low, high] a hidden case may take: it holds every preset, and hidden
# sizes are drawn log-uniformly between the presets inside it (low == high keeps one fixed).
ranges: {{M: [1, 1000000], N: [1, 1000000]}}
# Every argument, in ABI order: in (read only), out (written), inout (read and written).
arrays:
  - {{name: A, shape: [M, N], dtype: {dtype}, intent: in}}
  - {{name: x, shape: [N], dtype: {dtype}, intent: in}}
  - {{name: y, shape: [M], dtype: {dtype}, intent: inout}}
scalars:
  - {{name: alpha, dtype: {dtype}}}
precision: {dtype}            # float64 | float32 | exact (integer outputs only)
# tolerance: {{rtol: 1.0e-4, reason: "why this kernel needs a wider band than its precision's"}}
# Lower bounds no correct code beats (docs/manifest.md, roofline): flops the mathematics
# needs, and the bytes every input and output must move once.
roofline: {{flops: "2 * M * N", bytes: "{item} * (M * N + N + 2 * M)"}}
tags: [example, blas2]
"""


def reference_text(track: str, name: str) -> str:
    dtype = _DTYPE[track]
    return f'''\
"""{name}: EDIT this docstring. The example: y = alpha * A x + y (docs/canonical_numpy_form.md
says what a reference may use)."""

import numpy as np


def initialize(rng, M, N):
    # Every in/inout array (the manifest's dtype and shape) and every scalar; values of order
    # one, so that the outputs are informative (zeros or a constant must not pass).
    return {{
        "A": rng.standard_normal((M, N)).astype(np.{dtype}),
        "x": rng.standard_normal(N).astype(np.{dtype}),
        "y": rng.standard_normal(M).astype(np.{dtype}),
        "alpha": 1.5,
    }}


def {name}(A, x, y, alpha, M, N):
    # Arrays, scalars, then size symbols, in manifest order; outputs written in place.
    y[:] = alpha * (A @ x) + y
'''


def check_text(name: str) -> str:
    return f'''\
"""{name}'s independent check (hpcab/refcheck.py, docs/adding_a_kernel.md).

STUB = True below marks the file `hpcab new-kernel` wrote: the test suite fails naming this
kernel until you replace the example with a check of YOUR computation, written differently
from the reference (explicit loops, scipy, math.fsum, a closed form, a known test vector),
compared at small sizes and several seeds, and delete STUB = True. A check that calls the
reference itself is not independent.
"""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

STUB = True


@each(seed=SEEDS)
def check_against_explicit_loops(kernel, seed):
    # The example's y = alpha * A x + y as exactly rounded dot products, at a small odd size.
    m, n = 7, 5
    v, out = run(kernel, {{"M": m, "N": n}}, seed)
    A, x, y = v["A"].astype(np.float64).tolist(), v["x"].astype(np.float64).tolist(), v["y"].tolist()
    alpha = float(v["alpha"])
    expected = [alpha * math.fsum(A[i][j] * x[j] for j in range(n)) + y[i] for i in range(m)]
    np.testing.assert_allclose(out["y"], expected, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {{"y": np.array(expected)}})
'''
