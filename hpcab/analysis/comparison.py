"""The figures of a comparison of arms (hpcab.experiments.compare), each with the CSV behind it:

- ``paired_scatter``: per kernel, arm A's best speedup against arm B's (log axes, the
  diagonal; a kernel one arm did not solve sits on that arm's margin);
- ``spend_change``: per kernel both solved, the change in speedup (B/A) against the change in
  spend (B/A, tokens), the four quadrants named;
- ``arm_summary``: per arm, the gated geometric mean with its interval, the solve rate and
  fast_p at 1, 2 and 5.

With more than two arms the pair figures are drawn for each pair (NAME-A-vs-B).
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import numpy as np
import polars as pl

from hpcab.analysis import style
from hpcab.analysis.figures import _plain_log_labels, _times_formatter
from hpcab.experiments.compare import Comparison

FIGURES = ("paired_scatter", "spend_change", "arm_summary")
QUADRANTS = ("faster and cheaper", "faster, costlier", "slower, cheaper", "slower and costlier")


def _pair_table(c: Comparison, a: str, b: str) -> pl.DataFrame:
    k = c.kernels
    cols = ["kernel", "kernel_name", "track", "solved", "best_speedup", "tokens"]
    ka = k.filter(pl.col(c.by) == a).select(cols)
    kb = k.filter(pl.col(c.by) == b).select(cols)
    return ka.join(kb, on="kernel", suffix="_b").select(
        "kernel", "kernel_name", "track", pl.col("solved").alias("solved_a"), pl.col("solved_b"),
        pl.col("best_speedup").alias("speedup_a"), pl.col("best_speedup_b").alias("speedup_b"),
        pl.col("tokens").alias("tokens_a"), pl.col("tokens_b")).sort("kernel")


def paired_scatter(c: Comparison, a: str, b: str) -> tuple:
    t = _pair_table(c, a, b)
    fig = style.figure(4.6, 4.8)
    ax = fig.add_subplot()
    values = [v for v in t["speedup_a"].to_list() + t["speedup_b"].to_list() if v]
    lo, hi = (min(values) / 1.5, max(values) * 1.5) if values else (0.5, 2.0)
    lo, hi = min(lo, 0.5), max(hi, 2.0)
    both = t.filter(pl.col("solved_a") & pl.col("solved_b") & pl.col("speedup_a").is_not_null()
                    & pl.col("speedup_b").is_not_null())
    ax.scatter(both["speedup_a"], both["speedup_b"], s=22, color=style.PALETTE[0], label="solved by both", zorder=3)
    only_a = t.filter(pl.col("solved_a") & ~pl.col("solved_b") & pl.col("speedup_a").is_not_null())
    only_b = t.filter(~pl.col("solved_a") & pl.col("solved_b") & pl.col("speedup_b").is_not_null())
    ax.scatter(only_a["speedup_a"], [lo * 1.05] * only_a.height, marker="v", s=28, color=style.PALETTE[3],
               label=f"{b} did not solve", zorder=3, clip_on=False)
    ax.scatter([lo * 1.05] * only_b.height, only_b["speedup_b"], marker="<", s=28, color=style.PALETTE[1],
               label=f"{a} did not solve", zorder=3, clip_on=False)
    ax.plot([lo, hi], [lo, hi], color=style.BASELINE_COLOUR, lw=0.8, ls="--", label="equal")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    for axis in (ax.xaxis, ax.yaxis):
        _plain_log_labels(axis, lo, hi, _times_formatter())
    ax.set_xlabel(f"{a}: speedup over the baseline (best of k)")
    ax.set_ylabel(f"{b}: speedup over the baseline (best of k)")
    neither = t.filter(~pl.col("solved_a") & ~pl.col("solved_b")).height
    ax.set_title(f"{b} against {a}, per kernel" + (f" ({neither} solved by neither)" if neither else ""))
    ax.legend(loc="upper left")
    return fig, t


def spend_change(c: Comparison, a: str, b: str) -> tuple:
    t = _pair_table(c, a, b).filter(pl.col("solved_a") & pl.col("solved_b") & pl.col("speedup_a").is_not_null()
                                    & pl.col("speedup_b").is_not_null())
    t = t.with_columns((pl.col("speedup_b") / pl.col("speedup_a")).alias("speedup_change"),
                       (pl.col("tokens_b") / pl.col("tokens_a")).alias("spend_change"))
    t = t.with_columns(pl.when(pl.col("spend_change").is_null() | ~pl.col("spend_change").is_finite())
                       .then(None).otherwise(pl.col("spend_change")).alias("spend_change"))
    quadrant = (pl.when(pl.col("spend_change").is_null()).then(None)
                .when((pl.col("speedup_change") >= 1) & (pl.col("spend_change") <= 1)).then(pl.lit(QUADRANTS[0]))
                .when(pl.col("speedup_change") >= 1).then(pl.lit(QUADRANTS[1]))
                .when(pl.col("spend_change") <= 1).then(pl.lit(QUADRANTS[2])).otherwise(pl.lit(QUADRANTS[3])))
    t = t.with_columns(quadrant.alias("quadrant"))
    fig = style.figure(4.6, 5.2)
    ax = fig.add_subplot()
    drawn = t.filter(pl.col("spend_change").is_not_null() & (pl.col("spend_change") > 0))
    if drawn.height == 0:
        ax.text(0.5, 0.5, "no kernel solved by both with spend on both sides", transform=ax.transAxes,
                ha="center", va="center", color="#666666")
        ax.set_axis_off()
        return fig, t
    x, y = drawn["spend_change"].to_numpy(), drawn["speedup_change"].to_numpy()
    span = max(2.0, float(np.max(np.abs(np.log(np.concatenate([x, y]))))) * 1.3)
    lo, hi = math.exp(-span), math.exp(span)
    ax.scatter(x, y, s=22, color=style.PALETTE[0], zorder=3)
    ax.axhline(1, color=style.BASELINE_COLOUR, lw=0.8)
    ax.axvline(1, color=style.BASELINE_COLOUR, lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    for (qx, qy), name in zip(((0.02, 0.97), (0.98, 0.97), (0.02, 0.03), (0.98, 0.03)), QUADRANTS):
        count = drawn.filter(pl.col("quadrant") == name).height
        ax.text(qx, qy, f"{name}: {count}", transform=ax.transAxes, ha="left" if qx < 0.5 else "right",
                va="top" if qy > 0.5 else "bottom", color="#444444")
    for axis in (ax.xaxis, ax.yaxis):
        _plain_log_labels(axis, lo, hi, _times_formatter())
    ax.set_xlabel(f"spend change, {b} / {a} (tokens per attempt)")
    ax.set_ylabel(f"speedup change, {b} / {a}")
    ax.set_title(f"{b} against {a}: speedup and spend, per kernel solved by both")
    return fig, t


def arm_summary(c: Comparison) -> tuple:
    t = c.arms.select(c.by, "kernels", "solved_kernels", "correct_rate", "geomean", "geomean_low", "geomean_high",
                      "fast_1.0", "fast_2.0", "fast_5.0", "suite_score_clamped", "median_tokens")
    fig = style.figure(2.6 + 0.45 * max(t.height, 1), 7.0)
    left, right = fig.subplots(1, 2, width_ratios=[3, 2])
    names = [str(v) for v in t[c.by].to_list()]
    ys = np.arange(len(names))
    colours = style.arm_colours(names)
    for y, row in zip(ys, t.iter_rows(named=True)):
        gm = row["geomean"]
        if gm is None or not math.isfinite(gm):
            continue
        left.barh(y, gm, color=colours[str(row[c.by])], height=0.6)
        lo, hi = row["geomean_low"], row["geomean_high"]
        if lo is not None and math.isfinite(lo):
            left.errorbar(gm, y, xerr=[[gm - lo], [hi - gm]], color="#222222", capsize=3, lw=1)
    left.axvline(1, color=style.BASELINE_COLOUR, lw=0.8, ls="--")
    left.set_yticks(ys, names)
    left.set_xlabel("gated geomean speedup over the solved kernels (95% CI)")
    width = 0.25
    for i, (col, label) in enumerate((("fast_1.0", "fast_1"), ("fast_2.0", "fast_2"), ("fast_5.0", "fast_5"))):
        right.barh(ys + (i - 1) * width, t[col].fill_null(0).to_list(), height=width, label=label,
                   color=("#333333", "#777777", "#BBBBBB")[i])
    right.scatter(t["correct_rate"].fill_null(0).to_list(), ys, marker="|", s=120, color="#222222",
                  label="solve rate", zorder=3)
    right.set_yticks(ys, [""] * len(names))
    right.set_xlim(0, 1)
    right.set_xlabel("share of tasks")
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=4)
    fig.suptitle(f"arms by {c.by}")
    return fig, t


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).strip("_") or "arm"


def write_comparison(c: Comparison, out: Path) -> list[Path]:
    """arms.csv, pairs.csv, kernels.csv and every figure (PDF, PNG, CSV) into out."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in (("arms", c.arms), ("pairs", c.pairs), ("kernels", c.kernels)):
        path = out / f"{name}.csv"
        frame.write_csv(path)
        written.append(path)
    written += [p for p in figure_files(c, out).values() for p in p.values()]
    return written


def figure_files(c: Comparison, out: Path) -> dict[str, dict[str, Path]]:
    """Draw each figure into out: name → its files (pdf, png, csv)."""
    files = {}
    arms = [str(a) for a in c.arms[c.by].to_list()]
    for a, b in itertools.combinations(arms, 2):
        suffix = "" if len(arms) == 2 else f"-{_slug(a)}-vs-{_slug(b)}"
        for name, draw in (("paired_scatter", paired_scatter), ("spend_change", spend_change)):
            fig, table = draw(c, a, b)
            files[name + suffix] = style.save(fig, table, out, name + suffix)
    fig, table = arm_summary(c)
    files["arm_summary"] = style.save(fig, table, out, "arm_summary")
    return files
