"""Arms compared the way a paper needs (docs/plotting.md, "Comparing arms"): paired by
kernel, so that the variance between kernels, most of it, drops out.

    python -m hpcab.experiments compare --runs 'runs/skills-*' [--by skills] [--out DIR]

    from hpcab.experiments.compare import compare
    result = compare(table, by="arm")       # result.pairs, result.arms, result.kernels

An arm is a value of `by` (a column of the observations table: arm, skills, model,
prompt_variant, optimizer, ...). A task's answer is its final row; an arm that ran a kernel
several times (several runs, or an arm's repeats) has k attempts at it, and the comparison
reads them two ways: best-of-k (solved if any attempt was, its best speedup: ParEval's
speedup_max@k and pass@k) and mean-of-k (the share of attempts solved, the geometric mean of
the solved attempts' speedups).

For each pair of arms (A, B), over the kernels both attempted, overall and per track, dwarf
and level:

- solved by A only, B only, both, neither, and the exact McNemar test: a two-sided binomial
  test of the discordant pairs (A only against B only) at 1/2;
- over the kernels both solved, d = log(speedup_B / speedup_A): the Wilcoxon signed-rank
  test of d against 0; the Hodges-Lehmann estimate of the ratio B/A (exp of the median of
  the Walsh averages of d) with its confidence interval from the signed-rank distribution
  (exact up to 60 kernels, its normal approximation above); and the geometric mean ratio
  with a paired bootstrap interval (kernels resampled as pairs; from 5 kernels on: fewer
  give about [min, max]);
- grades excluded: a final grade flagged implausible that no person accepted has no speedup
  to compare; its kernel leaves the pair, counted (`excluded`).

Holm's step-down correction is applied to each test's p-values across the pairs of arms,
within each group (all kernels, a track, ...): `*_p_holm`. A p-value says how surprising the difference would
be if the arms were the same on these kernels; it is not the size of the difference (the
ratio and its interval are). scipy.stats does the tests.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import attrs
import numpy as np
import polars as pl

from hpcab.experiments.stats import geomean_ci

GROUPS = ("track", "dwarf", "level")
ALL = "all"
EXACT_HL_UP_TO = 60          # kernels; above, the signed-rank distribution's normal approximation
LEVEL = 0.95
MIN_BOOTSTRAP = 5            # kernels a bootstrap interval needs (below, the ratio alone)
CLAMP = (1.0, 100.0)         # the seed suite's score: per-task speedups clamped to this, unsolved counted as 1
SPEND = ("tokens", "spend_usd", "agent_wall_seconds", "scores", "submissions")


@attrs.frozen
class Comparison:
    by: str
    arms: pl.DataFrame           # per arm: tasks, attempts, solved, gated geomean with CI, fast_p, spend, suite score
    pairs: pl.DataFrame          # per pair and group: the tests (columns as in docs/plotting.md)
    kernels: pl.DataFrame        # per arm and kernel: attempts, solved, best and mean speedup, spend, excluded

    def lines(self) -> list[str]:
        return comparison_lines(self)


# ---- per kernel ------------------------------------------------------------------------

def _attempts(table: pl.DataFrame, by: str) -> pl.DataFrame:
    """One row per attempt (a task's final row), with what it cost over all its rows."""
    key = ["experiment", "run", "arm", "leg", "agent", "kernel"]
    if by not in table.columns:
        raise ValueError(f"compare: the observations have no column {by!r}; expected one of "
                         f"{', '.join(table.columns)}")
    costs = table.group_by(key).agg(
        pl.col("tokens").cast(pl.Int64).fill_null(0).sum().alias("tokens"),
        pl.col("spend_usd").cast(pl.Float64).fill_nan(None).sum().alias("spend_usd"),
        pl.col("agent_wall_seconds").cast(pl.Float64).fill_nan(None).max().alias("agent_wall_seconds"),
        pl.col("task_scores").cast(pl.Int64).max().alias("scores"),
        pl.col("submission_id").drop_nulls().len().cast(pl.Int64).alias("submissions"))
    final = table.filter(pl.col("final").fill_null(False)).join(costs, on=key, how="left")
    unreviewed = (pl.col("status") == "implausible") & (pl.col("review") != "accepted").fill_null(True)
    return final.select(
        pl.col(by).cast(pl.String).fill_null("(none)").alias("arm_value"), "kernel", "kernel_name", "track", "dwarf",
        "level", pl.col("correct").fill_null(False).alias("solved"),
        pl.col("speedup").cast(pl.Float64).fill_nan(None).alias("speedup"),
        pl.col("speedup_low").cast(pl.Float64).fill_nan(None).alias("speedup_low"),
        unreviewed.alias("excluded"), *SPEND)


def per_kernel(table: pl.DataFrame, by: str) -> pl.DataFrame:
    """Per arm and kernel: attempts, best-of-k (solved by any attempt, its best speedup) and
    mean-of-k (share of attempts solved, geometric mean of their speedups), mean spend per
    attempt, and whether an attempt's grade was excluded (implausible, not accepted)."""
    a = _attempts(table, by)
    counted = pl.col("solved") & ~pl.col("excluded")
    speed = pl.col("speedup").filter(counted & pl.col("speedup").is_not_null() & (pl.col("speedup") > 0))
    return a.group_by(["arm_value", "kernel"]).agg(
        pl.col("kernel_name").first(), pl.col("track").first(), pl.col("dwarf").first(), pl.col("level").first(),
        pl.len().cast(pl.Int64).alias("attempts"),
        counted.any().alias("solved"), counted.mean().alias("solved_rate"),
        speed.max().alias("best_speedup"), speed.log().mean().exp().alias("mean_speedup"),
        pl.col("excluded").any().alias("excluded"),
        *[pl.col(c).cast(pl.Float64).mean().alias(c) for c in SPEND],
    ).sort(["arm_value", "kernel"])


# ---- the tests -----------------------------------------------------------------------

def mcnemar_exact(a_only: int, b_only: int) -> float:
    """The exact McNemar test: two-sided binomial test of b_only out of the discordant pairs."""
    from scipy.stats import binomtest
    n = a_only + b_only
    return 1.0 if n == 0 else float(binomtest(b_only, n, 0.5).pvalue)


def wilcoxon_p(d: np.ndarray) -> tuple[float, float]:
    """(statistic, two-sided p) of the Wilcoxon signed-rank test of d against 0 (scipy's:
    zero differences dropped, exact for small samples without ties); all zero: (0, 1)."""
    from scipy.stats import wilcoxon
    d = np.asarray(d, dtype=np.float64)
    if d.size == 0:
        return math.nan, math.nan
    if not np.any(d != 0):
        return 0.0, 1.0
    res = wilcoxon(d)
    return float(res.statistic), float(res.pvalue)


def _signed_rank_counts(n: int) -> np.ndarray:
    """How many of the 2^n sign patterns give each signed-rank sum W+ = 0 .. n(n+1)/2."""
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=np.float64)
    counts[0] = 1.0
    for r in range(1, n + 1):
        counts[r:] = counts[r:] + counts[:-r].copy()
    return counts


def _hl_rank(n: int, level: float) -> int:
    """k: the interval is the k-th smallest to the k-th largest Walsh average (1-based), the
    largest k whose lower tail P(W+ < k) stays within (1 - level) / 2 (0: none does)."""
    alpha = (1 - level) / 2
    m = n * (n + 1) // 2
    if n <= EXACT_HL_UP_TO:
        cdf = np.cumsum(_signed_rank_counts(n)) / 2.0 ** n
        return int(np.searchsorted(cdf, alpha, side="right"))   # P(W+ <= k - 1) <= alpha; 0: no interval
    from scipy.stats import norm
    z = norm.ppf(1 - alpha)
    return max(1, int(math.floor(m / 2 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24))))


def hodges_lehmann(d: np.ndarray, level: float = LEVEL) -> tuple[float, float, float]:
    """(estimate, low, high) of the location of d: the median of the Walsh averages
    (d_i + d_j) / 2, i <= j, and the distribution-free interval from the signed-rank
    distribution (Tukey's). n < 2: the estimate alone (the interval needs two)."""
    d = np.sort(np.asarray(d, dtype=np.float64))
    n = d.size
    if n == 0:
        return math.nan, math.nan, math.nan
    i, j = np.triu_indices(n)
    walsh = np.sort((d[i] + d[j]) / 2)
    est = float(np.median(walsh))
    if n < 2:
        return est, math.nan, math.nan
    k = _hl_rank(n, level)
    if k < 1 or k > walsh.size // 2:         # too few kernels for an interval at this level
        return est, math.nan, math.nan
    return est, float(walsh[k - 1]), float(walsh[walsh.size - k])


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (NaN stays NaN; the others adjusted among themselves)."""
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    running = 0.0
    for rank, idx in enumerate(ok[np.argsort(p[ok], kind="stable")]):
        running = max(running, min(1.0, (m - rank) * p[idx]))
        out[idx] = running
    return out.tolist()


# ---- the comparison ------------------------------------------------------------------

def _pair(ka: pl.DataFrame, kb: pl.DataFrame, seed: int) -> dict:
    """The tests for arm A's and arm B's per-kernel rows (one group)."""
    both = ka.join(kb, on="kernel", suffix="_b")
    excluded = both.filter(pl.col("excluded") | pl.col("excluded_b"))
    kept = both.filter(~(pl.col("excluded") | pl.col("excluded_b")))
    sa, sb = kept["solved"].to_numpy(), kept["solved_b"].to_numpy()
    a_only, b_only = int((sa & ~sb).sum()), int((~sa & sb).sum())
    row = {"kernels": kept.height, "excluded": excluded.height, "solved_a_only": a_only, "solved_b_only": b_only,
           "solved_both": int((sa & sb).sum()), "solved_neither": int((~sa & ~sb).sum()),
           "mcnemar_p": mcnemar_exact(a_only, b_only)}
    for k in ("best", "mean"):
        pairs = kept.filter(pl.col(f"{k}_speedup").is_not_null() & pl.col(f"{k}_speedup_b").is_not_null())
        d = np.log(pairs[f"{k}_speedup_b"].to_numpy()) - np.log(pairs[f"{k}_speedup"].to_numpy())
        stat, p = wilcoxon_p(d)
        hl, lo, hi = hodges_lehmann(d)
        gm = geomean_ci(np.exp(d), seed=seed) if d.size else (math.nan, math.nan, math.nan)
        if d.size < MIN_BOOTSTRAP:       # resampling 2-4 kernels gives about [min, max]: no interval
            gm = (gm[0], math.nan, math.nan)
        row |= {f"{k}_n": int(d.size), f"{k}_wilcoxon_w": stat, f"{k}_wilcoxon_p": p,
                f"{k}_hl_ratio": math.exp(hl) if not math.isnan(hl) else math.nan,
                f"{k}_hl_low": math.exp(lo) if not math.isnan(lo) else math.nan,
                f"{k}_hl_high": math.exp(hi) if not math.isnan(hi) else math.nan,
                f"{k}_gm_ratio": gm[0], f"{k}_gm_low": gm[1], f"{k}_gm_high": gm[2]}
    for c in SPEND:
        row[f"{c}_a"] = _mean(kept[c])
        row[f"{c}_b"] = _mean(kept[f"{c}_b"])
    return row


def _mean(s: pl.Series) -> float:
    v = s.drop_nulls()
    return float(v.mean()) if v.len() else math.nan


def suite_score(kernels: pl.DataFrame) -> float:
    """The seed suite's score of an arm: the geometric mean over all its kernels of the best
    speedup clamped to [1, 100], an unsolved kernel counted as 1."""
    if kernels.height == 0:
        return math.nan
    s = kernels.select(pl.when(pl.col("solved") & pl.col("best_speedup").is_not_null())
                       .then(pl.col("best_speedup").clip(*CLAMP)).otherwise(1.0))
    return float(np.exp(np.log(s.to_series().to_numpy()).mean()))


def _arms(table: pl.DataFrame, kernels: pl.DataFrame, by: str, seed: int) -> pl.DataFrame:
    from hpcab.experiments.stats import summarize
    per_arm = summarize(table.with_columns(pl.col(by).cast(pl.String).fill_null("(none)").alias("arm_value")),
                        ["arm_value"], ps=(1.0, 2.0, 5.0), seed=seed)
    extra = kernels.group_by("arm_value").agg(
        pl.len().cast(pl.Int64).alias("kernels"), pl.col("attempts").sum().alias("attempts"),
        pl.col("solved").sum().cast(pl.Int64).alias("solved_kernels"),
        pl.col("excluded").sum().cast(pl.Int64).alias("excluded"),
        *[pl.col(c).median().alias(f"median_{c}") for c in SPEND])
    scores = pl.DataFrame({"arm_value": kernels["arm_value"].unique().to_list()}).with_columns(
        pl.col("arm_value").map_elements(lambda a: suite_score(kernels.filter(pl.col("arm_value") == a)),
                                         return_dtype=pl.Float64).alias("suite_score_clamped"))
    out = per_arm.join(extra, on="arm_value", how="left").join(scores, on="arm_value", how="left")
    # Speedup per unit of spend: the gated geometric mean per million tokens of a task.
    out = out.with_columns(pl.when(pl.col("median_tokens") > 0)
                           .then(pl.col("geomean") / (pl.col("median_tokens") / 1e6)).alias("geomean_per_mtoken"))
    return out.rename({"arm_value": by}).sort(by)


def compare(table: pl.DataFrame, by: str = "arm", arms: Sequence[str] | None = None,
            groups: Sequence[str] = GROUPS, seed: int = 0) -> Comparison:
    """Every pair of arms (values of `by`, in `arms`' order, or sorted), overall and per group."""
    kernels = per_kernel(table, by)
    present = kernels["arm_value"].unique().sort().to_list()
    if arms:
        missing = [a for a in arms if a not in present]
        if missing:
            raise ValueError(f"compare: no arm {', '.join(map(repr, missing))} in column {by!r}; the arms are "
                             f"{', '.join(present) or 'none'}")
        order = list(arms)
    else:
        order = present
    kernels = kernels.filter(pl.col("arm_value").is_in(order))
    rows = []
    for a, b in itertools.combinations(order, 2):
        ka, kb = (kernels.filter(pl.col("arm_value") == x).drop("arm_value") for x in (a, b))
        rows.append({"a": a, "b": b, "group": ALL, **_pair(ka, kb, seed)})
        for g in groups:
            for value in sorted({v for v in ka[g].to_list() if v is not None}, key=str):
                rows.append({"a": a, "b": b, "group": f"{g}={value}",
                             **_pair(ka.filter(pl.col(g) == value), kb.filter(pl.col(g) == value), seed)})
    pairs = pl.DataFrame(rows, infer_schema_length=None) if rows else pl.DataFrame(
        schema={"a": pl.String, "b": pl.String, "group": pl.String})
    if rows:
        # Holm's correction per test across the pairs of arms, within each group (all, a track, ...).
        index = pl.int_range(pl.len()).alias("_i")
        pairs = pairs.with_columns(index)
        adjusted = []
        for (_,), part in pairs.group_by(["group"], maintain_order=True):
            adjusted.append(part.select("_i", *[pl.Series(f"{p}_holm", holm(part[p].to_list()), dtype=pl.Float64)
                                                for p in ("mcnemar_p", "best_wilcoxon_p", "mean_wilcoxon_p")]))
        pairs = pairs.join(pl.concat(adjusted), on="_i").sort("_i").drop("_i")
    return Comparison(by, _arms(table.filter(pl.col(by).cast(pl.String).fill_null("(none)").is_in(order)),
                                kernels, by, seed),
                      pairs, kernels.rename({"arm_value": by}))


# ---- words ---------------------------------------------------------------------------

def _f(x, digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}g}"


def _p(x) -> str:
    return "-" if x is None or math.isnan(x) else (f"{x:.2g}" if x >= 1e-4 else "<1e-4")


def comparison_lines(c: Comparison) -> list[str]:
    lines = [f"arms by {c.by}:"]
    for r in c.arms.iter_rows(named=True):
        lines.append(f"  {r[c.by]}: {r['kernels']} kernels ({r['attempts']} attempts), solved {r['solved_kernels']}, "
                     f"gated geomean {_f(r['geomean'])}x [{_f(r['geomean_low'])}, {_f(r['geomean_high'])}], "
                     f"fast_1 {_f(r['fast_1.0'])}, fast_2 {_f(r['fast_2.0'])}, fast_5 {_f(r['fast_5.0'])}, "
                     f"suite score (clamped to [1, 100], unsolved 1) {_f(r['suite_score_clamped'])}, "
                     f"median tokens {_f(r['median_tokens'])}, excluded {r['excluded']}")
    if c.pairs.height == 0:
        return lines + ["one arm: nothing to compare"]
    lines.append("pairs (B against A; p-values two-sided; Holm's correction across the pairs of arms within each "
                 "group, per test):")
    for r in c.pairs.iter_rows(named=True):
        lines.append(f"  {r['b']} vs {r['a']} [{r['group']}]: {r['kernels']} kernels ({r['excluded']} excluded); "
                     f"solved A only {r['solved_a_only']}, B only {r['solved_b_only']}, both {r['solved_both']}, "
                     f"neither {r['solved_neither']}; McNemar p {_p(r['mcnemar_p'])} (Holm {_p(r['mcnemar_p_holm'])})")
        if r["best_n"]:
            lines.append(f"    over {r['best_n']} solved by both, best of k: B/A Hodges-Lehmann {_f(r['best_hl_ratio'])}x "
                         f"[{_f(r['best_hl_low'])}, {_f(r['best_hl_high'])}], geomean ratio {_f(r['best_gm_ratio'])}x "
                         f"[{_f(r['best_gm_low'])}, {_f(r['best_gm_high'])}], Wilcoxon p {_p(r['best_wilcoxon_p'])} "
                         f"(Holm {_p(r['best_wilcoxon_p_holm'])}); mean of k: geomean ratio "
                         f"{_f(r['mean_gm_ratio'])}x, Wilcoxon p {_p(r['mean_wilcoxon_p'])}")
        lines.append(f"    spend per attempt A/B: tokens {_f(r['tokens_a'])}/{_f(r['tokens_b'])}, USD "
                     f"{_f(r['spend_usd_a'])}/{_f(r['spend_usd_b'])}, agent seconds {_f(r['agent_wall_seconds_a'])}/"
                     f"{_f(r['agent_wall_seconds_b'])}, scores {_f(r['scores_a'])}/{_f(r['scores_b'])}, submissions "
                     f"{_f(r['submissions_a'])}/{_f(r['submissions_b'])}")
    return lines
