"""Numerical validation rules (docs/numerical_validation.md)."""

import numpy as np
import pytest

from hpcab.check import BANDS, check_output, check_outputs, tolerance_for
from hpcab.kernel import Tolerance

F64 = BANDS["float64"]
F32 = BANDS["float32"]


def ref64(n=1000, seed=0):
    return np.random.default_rng(seed).standard_normal(n)


def test_identical_passes_and_reports_zero_error():
    r = ref64()
    c = check_output("y", r.copy(), r, F64)
    assert c.ok and c.max_abs_err == 0 and c.normwise_err == 0


def test_rounding_level_noise_passes_but_a_real_error_fails():
    r = ref64()
    assert check_output("y", r * (1 + 1e-14), r, F64).ok
    bad = r.copy()
    bad[17] += 1e-6
    c = check_output("y", bad, r, F64)
    assert not c.ok and c.mismatches == 1 and "(17,)" in c.message
    assert c.max_abs_err == pytest.approx(1e-6, rel=1e-3)


def test_zeros_and_constants_fail():
    r = ref64()
    assert not check_output("y", np.zeros_like(r), r, F64).ok
    assert not check_output("y", np.full_like(r, r.mean()), r, F64).ok


def test_near_zero_elements_are_judged_on_the_output_scale():
    r = ref64()
    r[3] = 1e-17
    got = r.copy()
    got[3] = 2e-16          # huge relative error, negligible on the array's scale
    assert check_output("y", got, r, F64).ok


def test_nan_and_inf_positions_must_match():
    r = ref64(10)
    r[2], r[5] = np.nan, np.inf
    assert check_output("y", r.copy(), r, F64).ok
    g = r.copy()
    g[5] = -np.inf
    assert not check_output("y", g, r, F64).ok
    g = r.copy()
    g[0] = np.nan       # a poisoned (unwritten) element
    c = check_output("y", g, r, F64)
    assert not c.ok and "NaN/Inf" in c.message


def test_integers_are_exact():
    r = np.arange(20, dtype=np.int32)
    g = r.copy()
    g[4] += 1
    c = check_output("p", g, r, F64)
    assert not c.ok and c.mismatches == 1 and "exact" in c.message


def test_shape_and_dtype_are_exact():
    r = ref64(12)
    assert "shape" in check_output("y", r.reshape(3, 4), r, F64).message
    assert "dtype" in check_output("y", r.astype(np.float32), r, F64).message


def test_float32_band_is_looser_than_float64():
    r = ref64().astype(np.float32)
    g = (r.astype(np.float64) * (1 + 3e-6)).astype(np.float32)
    assert check_output("y", g, r, F32).ok
    assert not check_output("y", g.astype(np.float64), r.astype(np.float64), F64).ok


def test_complex_uses_the_modulus():
    rng = np.random.default_rng(1)
    r = rng.standard_normal(64) + 1j * rng.standard_normal(64)
    assert check_output("X", r * (1 + 1e-13j), r, F64).ok
    assert not check_output("X", np.conj(r), r, F64).ok


def test_normwise_criterion_catches_many_small_errors():
    r = ref64(10000)
    g = r + 0.05 * (F64.rtol * np.abs(r))     # every element well inside the band...
    tight = Tolerance(rtol=F64.rtol, atol=F64.atol, normwise=1e-12)
    assert check_output("y", g, r, F64).ok
    assert not check_output("y", g, r, tight).ok  # ...but the normwise error is too large


def test_manifest_override_replaces_only_what_it_names(corpus):
    import attrs
    k = corpus.get("gemm")
    k2 = attrs.evolve(k, tolerance=Tolerance(rtol=1e-6, reason="testing an override of the band"))
    tol = tolerance_for(k2)
    assert tol.rtol == 1e-6 and tol.normwise == F64.normwise


def test_missing_output_is_reported(corpus):
    k = corpus.get("gemm")
    c = check_outputs(k, {}, {"C": ref64(4)})
    assert not c.correct and "missing" in c.message


def _kernel_of(**outputs):
    """The little of a kernel the checks read: its outputs and precision."""
    from types import SimpleNamespace
    return SimpleNamespace(outputs=list(outputs), precision="float64", tolerance=None)


@pytest.mark.parametrize("n", [1, 1000, (1 << 15) * 3 + 7])
def test_the_fast_check_gives_a_right_answer_the_full_checks_figures(n):
    from hpcab.check import CHUNK, Expected, check_outputs, quick_check
    assert n < CHUNK or n > 2 * CHUNK       # one chunk and several, the last one short
    r = ref64(n)
    r[::97] = 0.0                             # zero elements: no relative error of their own
    k = _kernel_of(y=None, i=None)
    expected = {"y": r, "i": np.arange(n)}
    got = {"y": r * (1 + 1e-13) + 1e-15, "i": np.arange(n)}
    fast, full = quick_check(k, got, Expected(k, expected)), check_outputs(k, got, expected)
    assert full.correct and fast is not None and fast.correct
    for a, b in zip(fast.outputs, full.outputs):
        assert (a.name, a.ok, a.mismatches) == (b.name, b.ok, b.mismatches)
        assert a.max_abs_err == b.max_abs_err and a.max_rel_err == b.max_rel_err
        assert a.normwise_err == pytest.approx(b.normwise_err, rel=1e-12)


@pytest.mark.parametrize("fault", ["outside", "nan", "inf", "integer", "normwise", "shape"])
def test_the_fast_check_leaves_every_doubtful_answer_to_the_full_check(fault):
    from hpcab.check import CHUNK, Expected, check_outputs, quick_check
    n = 2 * CHUNK + 5
    r = ref64(n)
    k = _kernel_of(y=None, i=None)
    expected = {"y": r, "i": np.arange(n)}
    y, i = r.copy(), np.arange(n)
    if fault == "outside":
        y[CHUNK + 3] += 1e-6               # one element, in the second chunk
    elif fault == "nan":
        y[-1] = np.nan
    elif fault == "inf":
        y[0] = np.inf
    elif fault == "integer":
        i[CHUNK] += 1
    elif fault == "normwise":
        y = r * (1 + 5e-10)                # inside every element's band, over the normwise bound
    else:
        y = y[:-1]
    got = {"y": y, "i": i}
    assert quick_check(k, got, Expected(k, expected)) is None
    assert not check_outputs(k, got, expected).correct


def test_a_reference_with_a_non_finite_value_has_no_band_only_its_own_bits_pass_fast():
    from hpcab.check import Expected, check_outputs, quick_check
    r = ref64(10)
    r[4] = np.inf
    k = _kernel_of(y=None)
    assert Expected(k, {"y": r}).band("y") is None
    assert quick_check(k, {"y": r.copy()}, Expected(k, {"y": r})).correct
    assert check_outputs(k, {"y": r.copy()}, {"y": r}).correct
    y = r.copy()
    y[0] *= 1 + 1e-14
    assert quick_check(k, {"y": y}, Expected(k, {"y": r})) is None


@pytest.mark.parametrize("dtype,n", [("float64", 1), ("float64", 3 * (1 << 15) + 7), ("float32", 5)])
def test_an_answer_with_the_references_bits_is_right_with_no_error(dtype, n):
    from hpcab.check import Expected, bits_equal, check_outputs, quick_check
    r = ref64(n).astype(dtype)
    k = _kernel_of(y=None)
    k.precision = dtype
    fast, full = quick_check(k, {"y": r.copy()}, Expected(k, {"y": r})), check_outputs(k, {"y": r.copy()}, {"y": r})
    assert fast.correct and full.correct
    assert (fast.outputs[0].max_abs_err, fast.outputs[0].max_rel_err, fast.outputs[0].normwise_err) == (
        full.outputs[0].max_abs_err, full.outputs[0].max_rel_err, full.outputs[0].normwise_err) == (0.0, 0.0, 0.0)
    # One bit off, in the last element (the words' tail for an odd float32 count): not the
    # same bits, so the band decides, and gives the full check's figures.
    y = r.copy()
    y[-1] = np.nextafter(y[-1], np.inf)
    assert not bits_equal(y, r)
    fast, full = quick_check(k, {"y": y}, Expected(k, {"y": r})), check_outputs(k, {"y": y}, {"y": r})
    assert fast.correct and full.correct and fast.outputs[0].max_abs_err == full.outputs[0].max_abs_err > 0
