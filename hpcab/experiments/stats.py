"""Statistics over the observations table (docs/plotting.md, "Statistics").

- geomean_ci: the geometric mean of speedups with a percentile-bootstrap CI over tasks;
- fast_p: the fraction of ALL tasks that are correct and at least p times the baseline,
  and for p >= 1 measurably faster: the speedup's 95 % interval lies above 1
  (speedup_low > 1, the gate of hpcab.measure.verdict);
- summarize: both, per group, over each task's final row.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import polars as pl

# At most this many resampled indices are drawn at once (n_boot x n is cut into blocks of
# replicates), so memory stays bounded however many tasks there are.
_BLOCK = 4_000_000


def _values(speedups) -> np.ndarray:
    """The speedups as float64, nulls and NaN left out; anything not positive and finite is refused."""
    if not hasattr(speedups, "__len__"):
        speedups = list(speedups)           # a generator
    x = np.asarray(speedups, dtype=np.float64).ravel()
    x = x[~np.isnan(x)]
    if x.size and (not np.isfinite(x).all() or (x <= 0).any()):
        raise ValueError("a speedup must be a positive finite number")
    return x


def geomean_ci(speedups, n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """(geometric mean, CI low, CI high): the percentile bootstrap over tasks (n_boot
    resamples, with replacement, of the tasks; the CI is the (1-level)/2 and (1+level)/2
    quantiles of the resamples' geometric means). Nulls/NaN are left out; no value gives
    (nan, nan, nan), and one value v gives (v, nan, nan): resampling one task has no spread,
    and a zero-width interval would pass a single measurement off as certain. Deterministic
    for a seed."""
    if not 0 < level < 1:
        raise ValueError(f"level {level}: expected 0 < level < 1")
    if n_boot < 1:
        raise ValueError(f"n_boot {n_boot}: expected at least 1")
    x = _values(speedups)
    n = x.size
    if n == 0:
        return (math.nan, math.nan, math.nan)
    if n == 1:
        return (float(x[0]), math.nan, math.nan)
    logs = np.log(x)
    point = float(np.exp(logs.mean()))
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    per_block = max(1, _BLOCK // n)
    for start in range(0, n_boot, per_block):
        stop = min(n_boot, start + per_block)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = logs[idx].mean(axis=1)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return (point, float(np.exp(low)), float(np.exp(high)))


def fast_p(correct, speedup, p: float, speedup_low=None) -> float:
    """The fraction of ALL tasks that are correct and have speedup >= p (a null speedup
    is not >= any p > 0); for p >= 1 also speedup_low > 1, speedup_low being the
    speedups' lower 95 % bounds (required then): only a measurably faster speedup counts
    as one (hpcab.measure.verdict). 0 < p < 1 claims no speedup: no gate. p <= 0: the
    correct rate. No task: nan."""
    if p >= 1 and speedup_low is None:
        raise ValueError(f"fast_p at p={p}: expected speedup_low, the speedups' lower 95% bounds "
                         f"(for p >= 1 only a measurably faster speedup counts)")
    ok = pl.Series(values=correct, dtype=pl.Boolean).fill_null(False).to_numpy()
    if ok.size == 0:
        return math.nan
    if p > 0:
        with np.errstate(invalid="ignore"):         # a null is NaN here, and NaN passes no comparison
            ok = ok & (_aligned(speedup, ok.size, "speedups") >= p)
            if p >= 1:
                ok = ok & (_aligned(speedup_low, ok.size, "lower bounds") > 1)
    return float(ok.mean())


def _aligned(values, n: int, what: str) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size != n:
        raise ValueError(f"{n} correct flags but {x.size} {what}")
    return x


def fast_name(p: float) -> str:
    return f"fast_{float(p)}"


def summarize(table: pl.DataFrame, by: Sequence[str], ps: Iterable[float] = (1.0, 1.5, 2.0),
              n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> pl.DataFrame:
    """Per group of `by`, over the final rows (one per task): tasks, correct, measurable
    (correct and measurably faster: speedup_low > 1), correct_rate, geomean with
    geomean_low/high (geomean_ci over the correct tasks' speedup vs the baseline), and
    fast_<p> for each p (as fast_p: for p >= 1 only measurably faster tasks count).
    The table needs final, correct, speedup and speedup_low. Sorted by `by`."""
    by = list(by)
    ps = [float(p) for p in ps]
    missing = [c for c in ("final", "correct", "speedup", "speedup_low") if c not in table.columns]
    if missing:
        raise ValueError(f"summarize: the table lacks {', '.join(missing)} (expected the observations' columns)")
    final = table.filter(pl.col("final"))
    good = pl.col("correct").fill_null(False)
    # NaN as null: polars orders NaN above every number, and a NaN is no speedup.
    speedup, low = pl.col("speedup").fill_nan(None), pl.col("speedup_low").fill_nan(None)
    measurable = good & (low > 1).fill_null(False)

    def fast(p: float) -> pl.Expr:
        if p <= 0:
            return good
        at_least = good & (speedup >= p).fill_null(False)
        return at_least & measurable if p >= 1 else at_least

    aggs = [pl.len().cast(pl.Int64).alias("tasks"), good.sum().cast(pl.Int64).alias("correct"),
            measurable.sum().cast(pl.Int64).alias("measurable"), good.mean().alias("correct_rate"),
            *[fast(p).mean().alias(fast_name(p)) for p in ps],
            pl.col("speedup").filter(good & pl.col("speedup").is_not_null()).alias("_speedups")]
    if by:
        grouped = final.group_by(by).agg(aggs).sort(by, nulls_last=True)
    else:
        grouped = final.select(aggs) if final.height else pl.DataFrame(
            schema={"tasks": pl.Int64, "correct": pl.Int64, "measurable": pl.Int64, "correct_rate": pl.Float64,
                    **{fast_name(p): pl.Float64 for p in ps}, "_speedups": pl.List(pl.Float64)})
    cis = [geomean_ci(np.asarray(v, dtype=np.float64), n_boot=n_boot, level=level, seed=seed)
           for v in grouped["_speedups"].to_list()]
    out = grouped.with_columns(
        pl.Series("geomean", [c[0] for c in cis], dtype=pl.Float64),
        pl.Series("geomean_low", [c[1] for c in cis], dtype=pl.Float64),
        pl.Series("geomean_high", [c[2] for c in cis], dtype=pl.Float64),
        pl.col("correct_rate").cast(pl.Float64), *[pl.col(fast_name(p)).cast(pl.Float64) for p in ps])
    return out.select(*by, "tasks", "correct", "measurable", "correct_rate", "geomean", "geomean_low",
                      "geomean_high", *[fast_name(p) for p in ps])
