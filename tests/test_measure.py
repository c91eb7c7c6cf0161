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


# ---- sessions: the hierarchical interval (docs/measurement_statistics.md) ----------------

import math  # noqa: E402

import pytest  # noqa: E402

from hpcab.measure import FASTER, NO_DIFFERENCE, SLOWER, Speedup, ratio_test, split, verdict  # noqa: E402


def _sessions(rng, true_ns: float, k: int, n: int, between: float, within: float):
    """k sessions of n calls: each session's level off the truth by a lognormal factor
    (between), each call off its session's level by a normal one (within)."""
    parts = [true_ns * math.exp(rng.normal(0, between)) * (1 + rng.normal(0, within, n)) for _ in range(k)]
    return np.concatenate(parts).astype(np.int64), [n] * k


def test_the_interval_of_several_sessions_holds_their_spread_where_one_sessions_does_not():
    rng = np.random.default_rng(1)
    samples, counts = _sessions(rng, 1e6, 5, 40, between=0.05, within=0.01)
    pooled, hier = summarize(samples), summarize(samples, counts)
    assert hier.sessions == 5 and pooled.sessions == 1 and hier.n == pooled.n == 200
    medians = [float(np.median(p)) for p in split(samples, counts)]
    # The location is the geometric mean of the sessions' medians.
    assert hier.median_ns == pytest.approx(math.exp(np.mean(np.log(medians))))
    # One session's interval treats the pooled calls as independent: far narrower than the
    # sessions' own spread (5 %), which the hierarchical interval covers.
    assert pooled.ci_halfwidth_pct < 1.5 < hier.ci_halfwidth_pct
    assert hier.ci_low_ns < min(medians) * 1.02 and hier.ci_high_ns > max(medians) * 0.98


def test_several_sessions_intervals_cover_the_truth_about_95_percent_of_the_time():
    """200 simulated grades of a candidate 1.25x faster than its baseline, each five
    sessions with a session-level effect per target process (4 %) and call noise (2 %)."""
    rng = np.random.default_rng(7)
    truth, covered, pooled_covered = 1.25, 0, 0
    for _ in range(200):
        base, counts = _sessions(rng, 1.25e6, 5, 30, 0.04, 0.02)
        cand, _ = _sessions(rng, 1.0e6, 5, 30, 0.04, 0.02)
        sp = speedup(base, cand, counts, counts)
        covered += sp.ci_low <= truth <= sp.ci_high
        one = speedup(base, cand)
        pooled_covered += one.ci_low <= truth <= one.ci_high
    assert covered >= 0.90 * 200, covered
    assert pooled_covered < 0.6 * 200, pooled_covered      # what one session's interval claims


def test_speedup_of_sessions_is_the_geometric_mean_of_their_ratios():
    rng = np.random.default_rng(2)
    base, counts = _sessions(rng, 2e6, 4, 25, 0.03, 0.01)
    cand, _ = _sessions(rng, 1e6, 4, 25, 0.03, 0.01)
    sp = speedup(base, cand, counts, counts)
    ratios = [float(np.median(kept(b))) / float(np.median(kept(c)))
              for b, c in zip(split(base, counts), split(cand, counts))]
    assert sp.value == pytest.approx(math.exp(np.mean(np.log(ratios)))) and sp.sessions == 4
    assert sp.ci_low < sp.value < sp.ci_high and sp.verdict == FASTER
    assert speedup(base, cand, counts, counts) == sp          # seeded from the samples


def test_session_counts_must_partition_the_samples():
    s = np.arange(10, dtype=np.int64) + 100
    with pytest.raises(ValueError, match="do not partition"):
        summarize(s, [4, 4])
    with pytest.raises(ValueError, match="sessions"):
        speedup(s, s, [5, 5], [10])


def test_the_gate_calls_a_speedup_faster_only_when_its_interval_excludes_1():
    assert verdict(1.01, 1.5) == FASTER and Speedup(1.2, 1.01, 1.5).verdict == FASTER
    assert verdict(0.5, 0.99) == SLOWER
    assert verdict(0.9, 1.8) == NO_DIFFERENCE and Speedup(1.3, 0.9, 1.8).verdict == NO_DIFFERENCE
    assert verdict(None, 1.2) is None


def test_the_ratio_test_of_two_speedups():
    a, b = Speedup(2.0, 1.8, 2.2), Speedup(2.0, 1.8, 2.2)
    r = ratio_test(a, b)
    assert r[0] == 1 and r[1] < 1 < r[2]
    # Its half-width on the log scale is sqrt(2) times each one's.
    assert math.log(r[2]) == pytest.approx(math.sqrt(2) * (math.log(2.2) - math.log(1.8)) / 2)
    far = ratio_test(Speedup(2.6, 2.4, 2.8), b)
    assert far[1] > 1


def test_the_drift_term_widens_each_side_in_quadrature_on_the_log_scale():
    rng = np.random.default_rng(4)
    base, counts = _sessions(rng, 2e6, 5, 20, 0.02, 0.01)
    cand, _ = _sessions(rng, 1e6, 5, 20, 0.02, 0.01)
    bare, drifted = speedup(base, cand, counts, counts), speedup(base, cand, counts, counts, drift=0.03)
    assert drifted.value == bare.value and drifted.sessions == bare.sessions
    z = 1.959963984540054
    for b, d in ((bare.ci_low, drifted.ci_low), (bare.ci_high, drifted.ci_high)):
        h = abs(math.log(b / bare.value))
        assert abs(math.log(d / bare.value)) == pytest.approx(math.hypot(h, z * 0.03))
    # One session, and a timing: the same term.
    one = speedup(base, cand, drift=0.03)
    assert one.ci_low < speedup(base, cand).ci_low and one.ci_high > speedup(base, cand).ci_high
    t, td = summarize(cand, counts), summarize(cand, counts, drift=0.05)
    assert td.median_ns == t.median_ns and td.ci_low_ns < t.ci_low_ns and td.ci_high_ns > t.ci_high_ns
