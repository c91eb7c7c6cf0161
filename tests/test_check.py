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
