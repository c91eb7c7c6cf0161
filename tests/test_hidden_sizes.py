"""Fuzzed hidden sizes (hpcab/judge/cases.py): each scored hidden case's sizes are drawn
under the judge's secret from the manifest's ranges, between the preset below and the
preset, meeting the constraints; never a public preset's. The exploit a judge without them
misses is tests/exploits/public_sizes_only.c (graded in test_exploits)."""

import math

import numpy as np
import pytest

from hpcab import expr
from hpcab.corpus import load_corpus
from hpcab.case import Case, run_oracle
from hpcab.judge.cases import edge_sizes, fuzzed_sizes, hidden_cases

SECRET = b"a test secret of at least thirty-two characters"
KERNELS = load_corpus().kernels


def _ok(kernel, sizes):
    return (all(kernel.ranges[s][0] <= v <= kernel.ranges[s][1] for s, v in sizes.items())
            and all(expr.evaluate(c, sizes) for c in kernel.constraints))


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_every_kernel_has_fuzzed_sizes_inside_its_ranges_and_constraints(kernel):
    public = list(kernel.presets.values())
    for preset in ("S", "M", "L"):
        sizes = fuzzed_sizes(kernel, preset, SECRET)
        assert sizes is not None, f"{kernel.name} {preset}: no draw meets ranges {kernel.ranges} " \
                                  f"and constraints {kernel.constraints}"
        assert _ok(kernel, sizes) and sizes not in public, (preset, sizes)
        # No hidden case costs more than its preset (every symbol at most the preset's).
        assert all(v <= kernel.presets[preset][s] for s, v in sizes.items()), (preset, sizes)


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_the_reference_takes_its_edge_shapes_on_any_seed(kernel):
    """The judge probes an edge shape with one input set and grades it with others: the
    reference must give the manifest's outputs on every seed (s3111 returned a float64 when
    its one element was negative, and the judge's grade failed with a 500)."""
    # The smallest sizes on 8 seeds (a one-element case is where a branch goes all one way),
    # a drawn edge shape (up to half of S: millions of elements for some) on 2.
    candidates = [(edge_sizes(kernel, "S", SECRET), 2)]
    smallest = {s: kernel.ranges[s][0] for s in kernel.sizes}
    if _ok(kernel, smallest):
        candidates.append((smallest, 8))
    for sizes, seeds in candidates:
        for seed in range(seeds if sizes else 0):
            outs = run_oracle(kernel, Case(kernel.id, sizes, seed, "hidden", "edge"))
            assert all(np.all(np.isfinite(v)) for v in outs.values() if v.dtype.kind in "fc"), (sizes, seed)


def test_draws_are_the_secrets_and_spread_log_uniformly():
    gemm = load_corpus().get("gemm")
    one = fuzzed_sizes(gemm, "M", SECRET)
    assert one == fuzzed_sizes(gemm, "M", SECRET)
    others = [fuzzed_sizes(gemm, "M", SECRET + bytes([i])) for i in range(200)]
    assert len({tuple(o.values()) for o in others}) > 190
    s, m = gemm.presets["S"]["NI"], gemm.presets["M"]["NI"]
    logs = [(math.log(o["NI"]) - math.log(s)) / (math.log(m) - math.log(s)) for o in others]
    assert all(-1e-9 <= x <= 1 + 1e-9 for x in logs)
    assert 0.35 < sum(logs) / len(logs) < 0.65          # log-uniform: the mean in the middle
    assert sum(x < 0.25 for x in logs) > 25 and sum(x > 0.75 for x in logs) > 25


def test_equality_and_divisibility_constraints_are_met_by_construction():
    corpus = load_corpus()
    fft, spmv = corpus.get("fft"), corpus.get("spmv")
    for i in range(50):
        f = fuzzed_sizes(fft, "M", SECRET + bytes([i]))
        assert f["N"] == 2 ** f["LOGN"] and fft.presets["S"]["LOGN"] <= f["LOGN"] <= fft.presets["M"]["LOGN"]
        sp = fuzzed_sizes(spmv, "L", SECRET + bytes([i]))
        assert sp["NNZ"] % sp["M"] == 0 and 2 * (sp["NNZ"] // sp["M"]) <= sp["N"]


def test_a_fixed_range_keeps_a_symbol_fixed(kernel_copy):
    from tests.conftest import edit_manifest
    folder = kernel_copy("conv2d")
    edit_manifest(folder / "conv2d.yaml", lambda d: d["ranges"].update(R=[3, 3], S=[3, 3]))
    conv = load_corpus(folder.parents[1]).get("conv2d")
    for i in range(20):
        sizes = fuzzed_sizes(conv, "S", SECRET + bytes([i]))
        assert sizes["R"] == 3 and sizes["S"] == 3


def test_the_scored_hidden_case_is_at_the_fuzzed_sizes_and_the_edge_unscored():
    gemm = load_corpus().get("gemm")
    cases = hidden_cases(gemm, ("S",), SECRET)
    scored = [c for c in cases if c.scored]
    assert [c.label for c in scored] == ["hidden-S1"]
    assert scored[0].sizes == fuzzed_sizes(gemm, "S", SECRET) != gemm.presets["S"]
    assert all(not c.scored for c in cases if c.label.endswith("-edge"))
