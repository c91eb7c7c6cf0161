"""Statistics over the observations table (docs/plotting.md, "Statistics").

- geomean_ci: the geometric mean of speedups with a percentile-bootstrap CI over tasks;
- fast_p: the fraction of ALL tasks that are correct and at least p times the baseline;
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


def fast_p(correct, speedup, p: float) -> float:
    """The fraction of ALL tasks that are correct and have speedup >= p (a null speedup
    is not >= any p > 0). p <= 0: the correct rate. No task: nan."""
    ok = pl.Series(values=correct, dtype=pl.Boolean).fill_null(False).to_numpy()
    if ok.size == 0:
        return math.nan
    if p > 0:
        sp = np.asarray(speedup, dtype=np.float64).ravel()
        if sp.size != ok.size:
            raise ValueError(f"{ok.size} correct flags but {sp.size} speedups")
        with np.errstate(invalid="ignore"):
            ok = ok & (sp >= p)
    return float(ok.mean())


def fast_name(p: float) -> str:
    return f"fast_{float(p)}"


def summarize(table: pl.DataFrame, by: Sequence[str], ps: Iterable[float] = (1.0, 1.5, 2.0),
              n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> pl.DataFrame:
    """Per group of `by`, over the final rows (one per task): tasks, correct, correct_rate,
    geomean with geomean_low/high (geomean_ci over the correct tasks' speedup vs the
    baseline), and fast_<p> for each p. Sorted by `by`."""
    by = list(by)
    ps = [float(p) for p in ps]
    final = table.filter(pl.col("final"))
    good = pl.col("correct").fill_null(False)
    fast = [(good & (pl.col("speedup") >= p).fill_null(False) if p > 0 else good).mean().alias(fast_name(p))
            for p in ps]
    aggs = [pl.len().cast(pl.Int64).alias("tasks"), good.sum().cast(pl.Int64).alias("correct"),
            good.mean().alias("correct_rate"), *fast,
            pl.col("speedup").filter(good & pl.col("speedup").is_not_null()).alias("_speedups")]
    if by:
        grouped = final.group_by(by).agg(aggs).sort(by, nulls_last=True)
    else:
        grouped = final.select(aggs) if final.height else pl.DataFrame(
            schema={"tasks": pl.Int64, "correct": pl.Int64, "correct_rate": pl.Float64,
                    **{fast_name(p): pl.Float64 for p in ps}, "_speedups": pl.List(pl.Float64)})
    cis = [geomean_ci(np.asarray(v, dtype=np.float64), n_boot=n_boot, level=level, seed=seed)
           for v in grouped["_speedups"].to_list()]
    out = grouped.with_columns(
        pl.Series("geomean", [c[0] for c in cis], dtype=pl.Float64),
        pl.Series("geomean_low", [c[1] for c in cis], dtype=pl.Float64),
        pl.Series("geomean_high", [c[2] for c in cis], dtype=pl.Float64),
        pl.col("correct_rate").cast(pl.Float64), *[pl.col(fast_name(p)).cast(pl.Float64) for p in ps])
    return out.select(*by, "tasks", "correct", "correct_rate", "geomean", "geomean_low", "geomean_high",
                      *[fast_name(p) for p in ps])
