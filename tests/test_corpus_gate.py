"""The corpus gate: every kernel's reference is deterministic, fully writes its outputs,
leaves its inputs alone, and produces outputs that zeros or a constant cannot pass."""

import numpy as np
import pytest

from hpcab import expr
from hpcab.case import make_inputs, preset_case, run_oracle
from hpcab.check import check_outputs
from hpcab.corpus import load_corpus

KERNELS = load_corpus().kernels


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_reference_at_preset_s(kernel):
    case = preset_case(kernel, "S", seed=11)
    inputs = make_inputs(kernel, case)
    again = make_inputs(kernel, case)
    for name, value in inputs.items():
        assert np.array_equal(value, again[name], equal_nan=True), f"{name}: inputs not deterministic"
    other = make_inputs(kernel, preset_case(kernel, "S", seed=12))
    assert any(not np.array_equal(v, other[n]) for n, v in inputs.items()
               if v.ndim and kernel.arrays and n in {a.name for a in kernel.arrays if a.intent != "out"}), \
        "a different seed must give different inputs"

    pristine = {n: v.copy() for n, v in inputs.items()}
    expected = run_oracle(kernel, case, inputs)
    for a in kernel.arrays:
        if a.intent == "in":
            assert np.array_equal(inputs[a.name], pristine[a.name], equal_nan=True)

    for name, out in expected.items():
        if out.dtype.kind in "fc":
            assert np.all(np.isfinite(out)), f"{name}: the reference leaves non-finite values (unwritten poison?)"
    assert check_outputs(kernel, expected, expected).correct

    # A replayed answer (the output of another input) must fail, too.
    other_expected = run_oracle(kernel, preset_case(kernel, "S", seed=12))
    assert not check_outputs(kernel, other_expected, expected).correct, "another seed's answer would pass"

    for fill in ("zeros", "constant"):
        if fill == "constant" and all(out.size == 1 for out in expected.values()):
            continue   # a single value is its own best constant; the replay check above covers it
        fake = {}
        for name, out in expected.items():
            if fill == "zeros":
                fake[name] = np.zeros_like(out)
            else:
                # the most common value (integers) or the mean (floats): the best constant guess
                if out.dtype.kind in "fc":
                    fake[name] = np.full_like(out, out.mean())
                else:
                    vals, counts = np.unique(out, return_counts=True)
                    fake[name] = np.full_like(out, vals[np.argmax(counts)])
        verdict = check_outputs(kernel, fake, expected)
        assert not verdict.correct, f"a candidate writing {fill} would pass"


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_presets_grow(kernel):
    def volume(preset):
        sizes = kernel.presets[preset]
        return sum(int(np.prod([expr.evaluate(d, sizes) for d in a.shape]) or 1) for a in kernel.buffer_specs())
    assert volume("S") <= volume("M") <= volume("L")
