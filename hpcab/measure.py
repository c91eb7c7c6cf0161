"""Measure: raw per-call nanosecond samples → robust statistics (docs/measurement_statistics.md).

- Outliers: a sample above Q3 + 3·IQR (Tukey's far-out fence, upper side only: interference
  only ever makes a call slower) is counted and left out of the statistics; raw samples
  are all recorded.
- Location: the median of the kept samples.
- Uncertainty: a 95 % percentile-bootstrap confidence interval of the median (2000
  resamples, RNG seeded from the samples, so the same samples give the same interval).
- Speedup: the ratio of medians baseline/candidate; its CI from independent bootstrap
  resamples of both.
"""

from __future__ import annotations

import hashlib

import attrs
import numpy as np

RESAMPLES = 2000
CONFIDENCE = 0.95
FENCE = 3.0


@attrs.frozen
class Timing:
    median_ns: float
    ci_low_ns: float
    ci_high_ns: float
    n: int
    outliers: int
    min_ns: float

    @property
    def ci_halfwidth_pct(self) -> float:
        return 100.0 * (self.ci_high_ns - self.ci_low_ns) / 2.0 / self.median_ns if self.median_ns else 0.0


@attrs.frozen
class Speedup:
    value: float
    ci_low: float
    ci_high: float


def _rng(*arrays: np.ndarray) -> np.random.Generator:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
    return np.random.default_rng(int.from_bytes(h.digest()[:8], "little"))


def kept(samples: np.ndarray) -> np.ndarray:
    s = np.asarray(samples, dtype=np.float64)
    if s.size < 4:
        return s
    q1, q3 = np.percentile(s, [25, 75])
    return s[s <= q3 + FENCE * (q3 - q1)]


def _boot_medians(s: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    idx = rng.integers(0, s.size, size=(RESAMPLES, s.size))
    return np.median(s[idx], axis=1)


def summarize(samples: np.ndarray) -> Timing:
    raw = np.asarray(samples, dtype=np.int64)
    if raw.size == 0:
        raise ValueError("no samples")
    s = kept(raw)
    med = float(np.median(s))
    boots = _boot_medians(s, _rng(raw))
    alpha = (1 - CONFIDENCE) / 2
    lo, hi = np.quantile(boots, [alpha, 1 - alpha])
    return Timing(med, float(lo), float(hi), int(raw.size), int(raw.size - s.size), float(raw.min()))


def speedup(baseline: np.ndarray, candidate: np.ndarray) -> Speedup:
    """How many times faster the candidate is than the baseline (>1: faster)."""
    b, c = kept(baseline), kept(candidate)
    rng = _rng(np.asarray(baseline), np.asarray(candidate))
    ratios = _boot_medians(b, rng) / _boot_medians(c, rng)
    alpha = (1 - CONFIDENCE) / 2
    lo, hi = np.quantile(ratios, [alpha, 1 - alpha])
    return Speedup(float(np.median(b) / np.median(c)), float(lo), float(hi))
