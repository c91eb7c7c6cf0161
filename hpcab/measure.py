"""Measure: raw per-call nanosecond samples, taken in one or more sessions (separate
measuring processes), → robust statistics (docs/measurement_statistics.md).

- Outliers: within each session, a sample above Q3 + 3·IQR (Tukey's far-out fence, upper
  side only: interference only ever makes a call slower) is counted and left out of the
  statistics; raw samples are all recorded.
- Location: the median of a session's kept samples; over sessions, the geometric mean of
  those medians (a session's process, its memory layout and the machine's state scale a
  time, so they combine by ratio).
- Speedup: location(baseline) / location(candidate), i.e. the geometric mean of the
  sessions' ratios of medians (candidate and baseline are timed in the same sessions).
- Uncertainty, one session: a 95 % percentile-bootstrap interval of the median (2000
  resamples). Several sessions: a hierarchical bootstrap (sessions resampled, then calls
  within each) gives the standard error of the log location, and the interval is
  Student's t with sessions − 1 degrees of freedom around it, the session level's
  variance corrected by k / (k − 1): a percentile interval over five sessions treats them
  as the whole population and comes out too narrow. Every generator is seeded from the
  samples, so the same samples give the same interval.
- Between grades: a grade's sessions run within seconds of each other, so a drift slower
  than that (a shared host's neighbours, the memory's fragmentation) moves every session
  of a grade alike and is invisible inside it. `drift`, a relative standard deviation of
  that grade-to-grade variation measured on the judge's machine
  (benchmarks/timing_quality.py), widens each side of an interval in quadrature on the
  log scale: h' = sqrt(h² + (1.96 · drift)²).
- The gate: a speedup is "faster" only when its interval lies above 1, "slower" when it
  lies below, else "no measurable difference".
"""

from __future__ import annotations

import hashlib
import math
from typing import Sequence

import attrs
import numpy as np

RESAMPLES = 2000
CONFIDENCE = 0.95
FENCE = 3.0

FASTER, SLOWER, NO_DIFFERENCE = "faster", "slower", "no measurable difference"
VERDICTS = (FASTER, SLOWER, NO_DIFFERENCE)


def verdict(ci_low: float | None, ci_high: float | None) -> str | None:
    """The gate on a speedup's 95 % interval (None without one)."""
    if ci_low is None or ci_high is None:
        return None
    return FASTER if ci_low > 1 else SLOWER if ci_high < 1 else NO_DIFFERENCE


@attrs.frozen
class Timing:
    median_ns: float          # the median; over sessions, the geometric mean of their medians
    ci_low_ns: float
    ci_high_ns: float
    n: int
    outliers: int
    min_ns: float
    sessions: int = 1

    @property
    def ci_halfwidth_pct(self) -> float:
        return 100.0 * (self.ci_high_ns - self.ci_low_ns) / 2.0 / self.median_ns if self.median_ns else 0.0


@attrs.frozen
class Speedup:
    value: float
    ci_low: float
    ci_high: float
    sessions: int = 1

    @property
    def verdict(self) -> str:
        return verdict(self.ci_low, self.ci_high)


def _with_drift(point: float, lo: float, hi: float, drift: float) -> tuple[float, float]:
    """The interval (lo, hi) around point widened, each side on the log scale, by the
    grade-to-grade variation drift (a relative standard deviation)."""
    if drift <= 0:
        return lo, hi
    extra = (_z() * drift) ** 2
    down = math.sqrt(math.log(point / lo) ** 2 + extra) if lo > 0 else math.inf
    up = math.sqrt(math.log(hi / point) ** 2 + extra)
    return point * math.exp(-down), point * math.exp(up)


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


def split(samples: np.ndarray, sessions: Sequence[int] | None) -> list[np.ndarray]:
    """The samples of each session (sessions: how many each took, in order; None: one)."""
    s = np.asarray(samples)
    if not sessions:
        return [s]
    if sum(sessions) != s.size or any(n <= 0 for n in sessions):
        raise ValueError(f"session counts {list(sessions)} do not partition {s.size} samples")
    return np.split(s, np.cumsum(sessions)[:-1])


def _boot_medians(s: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    idx = rng.integers(0, s.size, size=(RESAMPLES, s.size))
    return np.median(s[idx], axis=1)


def _t_interval(log_point: float, replicates: np.ndarray, k: int) -> tuple[float, float]:
    """exp(log point ± t(k−1) · SE), SE the hierarchical replicates' spread, the session
    level's bootstrap variance corrected by k/(k−1)."""
    from scipy.stats import t
    se = float(np.std(replicates, ddof=1)) * math.sqrt(k / (k - 1))
    q = float(t.ppf(1 - (1 - CONFIDENCE) / 2, k - 1))
    return math.exp(log_point - q * se), math.exp(log_point + q * se)


def _log_replicates(parts: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """A hierarchical bootstrap's replicates of mean_j log(median of session j): the
    sessions drawn with replacement, then within each drawn session one of its own
    bootstrap medians."""
    k = len(parts)
    within = np.log(np.stack([_boot_medians(p, rng) for p in parts]))      # k × RESAMPLES
    pick = rng.integers(0, k, size=(RESAMPLES, k))
    column = rng.integers(0, RESAMPLES, size=(RESAMPLES, k))
    return within[pick, column].mean(axis=1)


def summarize(samples: np.ndarray, sessions: Sequence[int] | None = None, drift: float = 0.0) -> Timing:
    raw = np.asarray(samples, dtype=np.int64)
    if raw.size == 0:
        raise ValueError("no samples")
    parts = [kept(p) for p in split(raw, sessions)]
    rng = _rng(raw)
    n_kept = sum(p.size for p in parts)
    if len(parts) == 1:
        s = parts[0]
        med = float(np.median(s))
        alpha = (1 - CONFIDENCE) / 2
        lo, hi = np.quantile(_boot_medians(s, rng), [alpha, 1 - alpha])
        lo, hi = _with_drift(med, float(lo), float(hi), drift)
        return Timing(med, lo, hi, int(raw.size), int(raw.size - n_kept), float(raw.min()))
    logs = [math.log(float(np.median(p))) for p in parts]
    point = sum(logs) / len(logs)
    lo, hi = _with_drift(math.exp(point), *_t_interval(point, _log_replicates(parts, rng), len(parts)), drift)
    return Timing(math.exp(point), lo, hi, int(raw.size), int(raw.size - n_kept), float(raw.min()), len(parts))


def speedup(baseline: np.ndarray, candidate: np.ndarray, baseline_sessions: Sequence[int] | None = None,
            candidate_sessions: Sequence[int] | None = None, drift: float = 0.0) -> Speedup:
    """How many times faster the candidate is than the baseline (>1: faster), both timed in
    the same sessions (the session counts of each, in order; None: one session); drift:
    the grade-to-grade variation added to the interval."""
    bs = [kept(p) for p in split(baseline, baseline_sessions)]
    cs = [kept(p) for p in split(candidate, candidate_sessions)]
    if len(bs) != len(cs):
        raise ValueError(f"the baseline has {len(bs)} sessions and the candidate {len(cs)}")
    rng = _rng(np.asarray(baseline), np.asarray(candidate))
    if len(bs) == 1:
        b, c = bs[0], cs[0]
        ratios = _boot_medians(b, rng) / _boot_medians(c, rng)
        alpha = (1 - CONFIDENCE) / 2
        lo, hi = np.quantile(ratios, [alpha, 1 - alpha])
        value = float(np.median(b) / np.median(c))
        return Speedup(value, *_with_drift(value, float(lo), float(hi), drift))
    k = len(bs)
    logs = [math.log(float(np.median(b)) / float(np.median(c))) for b, c in zip(bs, cs)]
    point = sum(logs) / k
    # The sessions are drawn together (a session's machine state is shared by both); the
    # calls within each independently.
    wb = np.log(np.stack([_boot_medians(p, rng) for p in bs]))
    wc = np.log(np.stack([_boot_medians(p, rng) for p in cs]))
    pick = rng.integers(0, k, size=(RESAMPLES, k))
    cb, cc = (rng.integers(0, RESAMPLES, size=(RESAMPLES, k)) for _ in range(2))
    replicates = (wb[pick, cb] - wc[pick, cc]).mean(axis=1)
    lo, hi = _with_drift(math.exp(point), *_t_interval(point, replicates, k), drift)
    return Speedup(math.exp(point), lo, hi, k)


def ratio_test(a: Speedup, b: Speedup) -> tuple[float, float, float]:
    """The ratio a / b of two independent speedups with its 95 % interval, from each one's
    interval read as a normal one on the log scale: (ratio, low, high). Two grades of one
    candidate reproduce each other when the interval holds 1 (hpcab.reproduce)."""
    z = _z()
    se = lambda s: (math.log(s.ci_high) - math.log(s.ci_low)) / (2 * z)
    log_ratio = math.log(a.value) - math.log(b.value)
    half = z * math.hypot(se(a), se(b))
    return math.exp(log_ratio), math.exp(log_ratio - half), math.exp(log_ratio + half)


def _z() -> float:
    from scipy.stats import norm
    return float(norm.ppf(1 - (1 - CONFIDENCE) / 2))


def geometric_mean_speedup(parts: list[Speedup]) -> Speedup | None:
    """Across cases: geometric means of the values and of the CI bounds (a conservative summary)."""
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
    return Speedup(gm([p.value for p in parts]), gm([p.ci_low for p in parts]), gm([p.ci_high for p in parts]),
                   min(p.sessions for p in parts))


def speedup_json(sp: Speedup | None) -> dict | None:
    """A speedup with its 95 % interval, the gate's verdict on it (verdict) and the number of
    measuring sessions it came from, as every document shows it."""
    return None if sp is None else {"value": sp.value, "ci95": [sp.ci_low, sp.ci_high], "verdict": sp.verdict,
                                    "sessions": sp.sessions}
