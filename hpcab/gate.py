"""The corpus gate: what a kernel's reference and tolerance must hold for its grades to
mean anything (`hpcab lint` runs it on every selected kernel).

- inputs are deterministic in the seed, and another seed gives other inputs;
- the reference leaves its read-only inputs alone and writes finite outputs;
- the outputs depend on the inputs: another seed's answer fails the check (else a
  replayed answer would pass);
- neither all zeros nor the best constant (the mean, or the most common value) passes.

lint_kernel adds the reference's loading and the translator's lint: all `hpcab lint` says.
"""

from __future__ import annotations

import numpy as np

from hpcab.case import make_inputs, preset_case, run_oracle
from hpcab.check import check_outputs
from hpcab.errors import HpcabError, InputError
from hpcab.kernel import Kernel

SEEDS = (11, 12)


def _constant(out: np.ndarray) -> np.ndarray:
    """The best constant guess: the mean (floats) or the most common value (integers)."""
    if out.dtype.kind in "fc":
        return np.full_like(out, out.mean())
    values, counts = np.unique(out, return_counts=True)
    return np.full_like(out, values[np.argmax(counts)])


def gate(kernel: Kernel, preset: str = "S") -> list[str]:
    """The problems found, as sentences; [] when the kernel passes."""
    problems: list[str] = []
    case = preset_case(kernel, preset, seed=SEEDS[0])
    inputs = make_inputs(kernel, case)
    again = make_inputs(kernel, case)
    for name, value in inputs.items():
        if not np.array_equal(value, again[name], equal_nan=True):
            problems.append(f"input {name!r} is not deterministic in the seed")
    other_case = preset_case(kernel, preset, seed=SEEDS[1])
    other = make_inputs(kernel, other_case)
    read = {a.name for a in kernel.arrays if a.intent != "out"}
    if not any(not np.array_equal(v, other[n]) for n, v in inputs.items() if v.ndim and n in read):
        problems.append("another seed gives the same inputs")

    pristine = {n: v.copy() for n, v in inputs.items()}
    expected = run_oracle(kernel, case, inputs)
    for a in kernel.arrays:
        if a.intent == "in" and not np.array_equal(inputs[a.name], pristine[a.name], equal_nan=True):
            problems.append(f"the reference modifies its read-only input {a.name!r}")
    for name, out in expected.items():
        if out.dtype.kind in "fc" and not np.all(np.isfinite(out)):
            problems.append(f"output {name!r} has non-finite values (left unwritten?)")
    if not check_outputs(kernel, expected, expected).correct:
        problems.append("the reference's own answer fails the check")

    if check_outputs(kernel, run_oracle(kernel, other_case, other), expected).correct:
        problems.append("the outputs do not depend on the inputs: another seed's answer passes the check")
    if check_outputs(kernel, {n: np.zeros_like(o) for n, o in expected.items()}, expected).correct:
        problems.append("an all-zeros output passes the check")
    # A single value is its own best constant; the replay check covers it.
    if any(o.size > 1 for o in expected.values()) and \
            check_outputs(kernel, {n: _constant(o) for n, o in expected.items()}, expected).correct:
        problems.append("a constant output passes the check")
    return problems


def lint_kernel(kernel: Kernel) -> list[str]:
    """What `hpcab lint` reports of a kernel, one line each; [] when it is clean: the
    reference's file, import and signature, else the translator's lint (the canonical NumPy
    subset) and the corpus gate."""
    from hpcab.translate import lint
    try:
        kernel.reference()
    except InputError as exc:
        return [str(exc)]
    try:
        diagnostics = [str(d) for d in lint(kernel)]
    except (ImportError, NotImplementedError) as exc:
        raise HpcabError(f"lint: the translator cannot lint yet: {type(exc).__name__}: {exc}") from None
    return diagnostics + [f"{kernel.reference_path}: corpus gate: {problem}" for problem in gate(kernel)]
