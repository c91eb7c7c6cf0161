"""Measurement statistics (docs/measurement_statistics.md)."""

import numpy as np

from hpcab.measure import kept, speedup, summarize


def test_median_and_ci_bracket_the_truth():
    rng = np.random.default_rng(0)
    samples = (1_000_000 + rng.normal(0, 10_000, 200)).astype(np.int64)
    t = summarize(samples)
    assert t.ci_low_ns <= t.median_ns <= t.ci_high_ns
    assert abs(t.median_ns - 1_000_000) < 5_000
    assert t.ci_halfwidth_pct < 1.0


def test_far_outliers_are_dropped_and_counted():
    samples = np.array([100] * 50 + [101] * 50 + [10_000, 20_000], dtype=np.int64)
    t = summarize(samples)
    assert t.outliers == 2 and t.n == 102
    assert len(kept(samples)) == 100


def test_same_samples_same_interval():
    s = np.random.default_rng(3).integers(900, 1100, 64)
    assert summarize(s) == summarize(s.copy())


def test_speedup_direction_and_ci():
    rng = np.random.default_rng(5)
    base = (2_000 + rng.normal(0, 20, 100)).astype(np.int64)
    cand = (1_000 + rng.normal(0, 10, 100)).astype(np.int64)
    sp = speedup(base, cand)
    assert 1.9 < sp.value < 2.1 and sp.ci_low <= sp.value <= sp.ci_high
    assert speedup(cand, base).value < 1
