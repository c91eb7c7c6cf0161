"""The five figures of a campaign, drawn from the observations table (hpcab.experiments).

Each function takes the table and returns ``(figure, table)``: the matplotlib figure and the
polars DataFrame it draws, which ``style.save`` writes beside it as CSV. A figure about
tasks uses the final rows only (the task's answer; a task is experiment, run, arm, leg,
agent and kernel); what a task cost (tokens, spend, wall time) is summed over all its rows.

Every function copes with an empty table, null or NaN speedups, one arm and one row.

A speedup whose 95% interval includes 1× (the gate's verdict "no measurable difference",
hpcab.measure.verdict) is drawn lighter than one measurably faster or slower: its point or
bar is filled at LIGHT opacity with a solid edge, and the legend says so. The verdict is
computed here from the interval (a table written before it had a verdict column still draws).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from matplotlib import colors as mcolors

from hpcab.analysis import style
from hpcab.experiments import stats
from hpcab.experiments.extract import SCHEMA, verdict_expr
from hpcab.measure import NO_DIFFERENCE

TASK_KEY = ["experiment", "run", "arm", "leg", "agent", "kernel"]
NO_TRACK = "(no track)"
FIGURES = ("speedup_summary", "speedup_vs_spend", "tokens_per_task", "kernel_speedups", "correctness_by_track",
           "scaling")
LIGHT = 0.3                     # fill opacity of a speedup with no measurable difference
NO_DIFFERENCE_LABEL = "no measurable difference (95% CI includes 1×)"


# ---- shared helpers ----------------------------------------------------------------------

def final_rows(table: pl.DataFrame) -> pl.DataFrame:
    """The rows that are the tasks' answers, NaN speedups turned into nulls."""
    out = table.filter(pl.col("final").fill_null(False))
    floats = [c for c in ("speedup", "speedup_low", "speedup_high", "spend_usd", "agent_wall_seconds",
                          "task_spend_usd", "task_wall_seconds") if c in out.columns and out.schema[c].is_float()]
    return out.with_columns([pl.col(c).fill_nan(None) for c in floats])


def task_costs() -> list[pl.Expr]:
    """Per task (window expressions over TASK_KEY): tokens and spend summed over the task's
    rows (each row carries the model calls made before that submission), and the agent's
    wall time, its largest value (the agent reports its time so far)."""
    spend = pl.col("spend_usd").cast(pl.Float64).fill_nan(None)
    wall = pl.col("agent_wall_seconds").cast(pl.Float64).fill_nan(None)
    return [
        pl.col("tokens").cast(pl.Int64).fill_null(0).sum().over(TASK_KEY).alias("task_tokens"),
        pl.when(spend.is_not_null().any().over(TASK_KEY)).then(spend.sum().over(TASK_KEY))
        .otherwise(None).alias("task_spend_usd"),
        wall.max().over(TASK_KEY).alias("task_wall_seconds"),
    ]


def tasks(table: pl.DataFrame) -> pl.DataFrame:
    """The final rows with the task's costs (task_tokens, task_spend_usd, task_wall_seconds)
    and a display label for the arm (``arm_label``: "experiment / arm" when the table holds
    several experiments), sorted."""
    if table.height == 0:
        return final_rows(table).with_columns(pl.lit(None, pl.Int64).alias("task_tokens"),
                                              pl.lit(None, pl.Float64).alias("task_spend_usd"),
                                              pl.lit(None, pl.Float64).alias("task_wall_seconds"),
                                              pl.lit(None, pl.String).alias("arm_label"))
    out = final_rows(table.with_columns(task_costs()))
    return out.with_columns(arm_label(out)).sort(["experiment", "arm", "kernel", "run", "leg", "agent"],
                                                 nulls_last=True)


def arm_label(table: pl.DataFrame) -> pl.Expr:
    several = table.select(pl.col("experiment").n_unique()).item() > 1 if table.height else False
    if several:
        return pl.concat_str([pl.col("experiment"), pl.col("arm")], separator=" / ").alias("arm_label")
    return pl.col("arm").alias("arm_label")


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
HATCHES = ("", "////", "....", "xxxx", "\\\\\\\\", "++++", "oooo", "----")


def experiment_styles(table: pl.DataFrame, styles: tuple) -> dict[str, str]:
    """An arm's colour is its name's; the experiment is told by a marker or a hatch (the
    first experiment, sorted, plain)."""
    names = sorted(table.get_column("experiment").drop_nulls().unique().to_list()) if table.height else []
    return {e: styles[i % len(styles)] for i, e in enumerate(names)}


def colours_for(table: pl.DataFrame) -> dict[str, str]:
    """Arm name → colour, for every arm of the whole table (so every figure of one table
    agrees, whichever arms it shows)."""
    return style.arm_colours(table.get_column("arm").unique().to_list() if table.height else [])


def verdict_of(low: str, high: str) -> pl.Expr:
    """The gate's verdict on the interval [low, high] (null without one: a NaN bound is no bound)."""
    return verdict_expr(pl.col(low).cast(pl.Float64).fill_nan(None), pl.col(high).cast(pl.Float64).fill_nan(None))


def light(colour: str) -> tuple:
    """The fill of a speedup with no measurable difference: the colour, mostly transparent."""
    return mcolors.to_rgba(colour, LIGHT)


def no_difference_handle(kind: str = "patch"):
    """The legend's entry for the lighter fill (a grey patch, or a marker for points)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    grey = "#666666"
    if kind == "marker":
        return Line2D([], [], marker="o", linestyle="none", markerfacecolor=light(grey), markeredgecolor=grey)
    return Patch(facecolor=light(grey), edgecolor=grey, lw=0.8)


def legend_columns(labels: list[str], width: float, most: int = 4) -> int:
    """The most columns (up to ``most``) in which a legend of these labels fits a figure
    ``width`` inches wide, by a rough measure of the text (legend entries fill columns first)."""
    for n in range(min(most, len(labels)), 1, -1):
        per = -(-len(labels) // n)
        columns = [labels[i:i + per] for i in range(0, len(labels), per)]
        if sum(0.45 + 0.065 * max(map(len, c)) for c in columns) <= width:
            return n
    return 1


def empty_note(ax, text: str = "no tasks") -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="#666666")
    ax.set_axis_off()


def _fmt_times(x: float) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:.3g}×"


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def _positive(x) -> bool:
    return _finite(x) and x > 0


# ---- the signed log scale ----------------------------------------------------------------

def signed_log_label(k: int) -> str:
    """The label of tick k on the signed log2 axis: 0 → "1×", 2 → "4×", -2 → "1/4×"."""
    k = int(k)
    if k == 0:
        return "1×"
    return f"{2 ** k}×" if k > 0 else f"1/{2 ** -k}×"


def signed_log_ticks(lo: float, hi: float, max_ticks: int = 13) -> list[int]:
    """Integer log2 ticks covering [lo, hi] (in log2 units) and always 1× and ±2×, with a
    step that keeps at most ``max_ticks`` of them; 0 is always one."""
    lo = math.floor(min(lo, -1.0)) if math.isfinite(lo) else -1
    hi = math.ceil(max(hi, 1.0)) if math.isfinite(hi) else 1
    step = max(1, math.ceil((hi - lo) / (max_ticks - 1)))
    down = list(range(0, lo - 1, -step))
    up = list(range(step, hi + step, step)) if hi > 0 else []
    ticks = sorted(set(down) | set(up))
    return [t for t in ticks if lo - step < t < hi + step]


# ---- 1. speedup_summary ------------------------------------------------------------------

def speedup_summary(table: pl.DataFrame) -> tuple:
    """Per arm (grouped by experiment): the geometric-mean speedup over the track's
    baseline with its bootstrap 95% CI, fast_1.0 and fast_2.0 written above each bar."""
    summary = stats.summarize(table, by=["experiment", "arm"]).sort(["experiment", "arm"])
    summary = summary.with_columns(verdict_of("geomean_low", "geomean_high").alias("verdict"))
    colours = colours_for(table)
    n = summary.height
    fig = style.figure(height=3.6, width=max(4.5, min(12.0, 2.0 + 0.9 * n)))
    ax = fig.add_subplot()
    if n == 0:
        empty_note(ax)
        return fig, summary
    experiments = summary.get_column("experiment").unique(maintain_order=True).to_list()
    xs, labels, x = [], [], 0.0
    group_mid = []
    for e in experiments:
        rows = summary.filter(pl.col("experiment") == e)
        start = x
        for r in rows.iter_rows(named=True):
            xs.append((x, r))
            labels.append(r["arm"])
            x += 1
        group_mid.append(((start + x - 1) / 2, e))
        x += 0.6
    values = [r["geomean"] for _, r in xs]
    finite = [v for v in values if _positive(v)]
    finite += [r[c] for _, r in xs for c in ("geomean_low", "geomean_high") if _positive(r[c])]
    ymin = min(finite + [1.0]) / 1.6
    ymax = max(finite + [1.0]) * 2.2
    for xpos, r in xs:
        g, lo, hi = r["geomean"], r["geomean_low"], r["geomean_high"]
        colour = colours[r["arm"]]
        if _positive(g):
            fill = light(colour) if r["verdict"] == NO_DIFFERENCE else mcolors.to_rgba(colour, 0.85)
            ax.bar(xpos, g - 1.0, bottom=1.0, width=0.7, facecolor=fill, edgecolor=colour, lw=0.8, zorder=2)
            if _positive(lo) and _positive(hi):
                ax.errorbar(xpos, g, yerr=[[max(g - lo, 0)], [max(hi - g, 0)]], fmt="none",
                            ecolor="#222222", capsize=3, lw=1, zorder=3)
            top = max(g, hi if _positive(hi) else g, 1.0)
            note = f"{g:.2f}×\nfast₁ {_pct(r.get('fast_1.0'))}\nfast₂ {_pct(r.get('fast_2.0'))}"
        else:
            ax.plot([xpos], [1.0], marker="x", color=colour, ms=9, mew=2, zorder=3)
            top = 1.0
            note = f"no speedup\n{r['correct']}/{r['tasks']} correct"
        ax.annotate(note, (xpos, top), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                    fontsize=style.FONT_SIZE - 2, linespacing=1.1)
    ax.axhline(1.0, color=style.BASELINE_COLOUR, lw=0.9, zorder=1)
    ax.set_yscale("log")
    ax.set_ylim(ymin, ymax * 1.8)
    _plain_log_labels(ax.yaxis, ymin, ymax * 1.8, _times_formatter())
    ax.set_xticks([p for p, _ in xs], labels, rotation=30 if n > 4 else 0, ha="right" if n > 4 else "center")
    ax.set_xlim(-0.6, x - 0.6 + 0.0)
    if len(experiments) > 1:
        for mid, e in group_mid:
            ax.annotate(e, (mid, 0), xycoords=("data", "axes fraction"), xytext=(0, -28 if n <= 4 else -46),
                        textcoords="offset points", ha="center", va="top", fontweight="bold")
    ax.set_ylabel("geometric-mean speedup over the baseline\n(95% bootstrap CI)")
    title = "Speedup per arm" + (f" — {experiments[0]}" if len(experiments) == 1 else "")
    ax.set_title(title)
    ax.grid(axis="x", visible=False)
    if (summary.get_column("verdict") == NO_DIFFERENCE).any():
        fig.legend([no_difference_handle()], [NO_DIFFERENCE_LABEL], loc="outside lower center")
    return fig, summary


def _pct(v) -> str:
    return f"{100 * v:.0f}%" if _finite(v) else "-"


def _times_formatter():
    from matplotlib.ticker import FuncFormatter

    def fmt(y, _pos):
        if y <= 0:
            return ""
        if y >= 1:
            return f"{y:g}×"
        inv = 1 / y
        return f"1/{inv:g}×" if abs(inv - round(inv)) < 1e-9 else f"{y:g}×"
    return FuncFormatter(fmt)


# ---- 2. speedup_vs_spend -----------------------------------------------------------------

COST_MEASURES = {
    "spend_usd": ("task_spend_usd", "spend per task (USD)"),
    "tokens": ("task_tokens", "tokens per task (prompt + completion)"),
    "agent_wall_seconds": ("task_wall_seconds", "agent wall time per task (s)"),
}


def cost_measure(arm_tasks: pl.DataFrame) -> str | None:
    """The cost an arm is drawn against: spend_usd when any of its tasks has one, else
    tokens when any is positive, else the agent's wall time when recorded, else None."""
    if arm_tasks.get_column("task_spend_usd").drop_nulls().len():
        return "spend_usd"
    if (arm_tasks.get_column("task_tokens").fill_null(0) > 0).any():
        return "tokens"
    if arm_tasks.get_column("task_wall_seconds").drop_nulls().len():
        return "agent_wall_seconds"
    return None


def speedup_vs_spend(table: pl.DataFrame) -> tuple:
    """Each task's speedup (log y) against its cost, one colour per arm. The cost is the
    arm's spend in USD when recorded, else its tokens, else its agent's wall time: arms with
    different measures go to side-by-side panels sharing the y axis, each panel's x label
    naming its measure. Tasks without a speedup (incorrect, or correct but unmeasured) are
    hollow markers in a band below the axis's speedups; a speedup with no measurable
    difference is a lighter marker."""
    t = tasks(table)
    colours = colours_for(table)
    cols = ["experiment", "run", "arm", "leg", "agent", "kernel", "kernel_name", "correct", "speedup",
            "speedup_low", "speedup_high", "verdict", "cost_measure", "cost"]
    schema = {c: table.schema.get(c, pl.String) for c in cols[:-2]}
    schema.update(cost_measure=pl.String, cost=pl.Float64)
    if t.height == 0:
        fig = style.figure(height=3.6, width=5.0)
        empty_note(fig.add_subplot())
        return fig, pl.DataFrame(schema=schema)
    parts = []
    for _, g in t.group_by(["experiment", "arm"], maintain_order=True):
        m = cost_measure(g)
        cost = pl.col(COST_MEASURES[m][0]).cast(pl.Float64) if m else pl.lit(None, pl.Float64)
        parts.append(g.with_columns(pl.lit(m, pl.String).alias("cost_measure"), cost.alias("cost"),
                                    verdict_of("speedup_low", "speedup_high").alias("verdict")))
    pts = pl.concat(parts, how="vertical_relaxed").select(cols).sort(["experiment", "arm", "kernel", "run", "leg",
                                                                      "agent"], nulls_last=True)
    pts = pts.with_columns(pl.col("correct").fill_null(False))
    measures = [m for m in COST_MEASURES if (pts.get_column("cost_measure") == m).any()]
    undrawn = sorted(set(pts.filter(pl.col("cost_measure").is_null()).get_column("arm").to_list()))
    several_exp = pts.get_column("experiment").n_unique() > 1
    marker = experiment_styles(pts, MARKERS)
    if not measures:
        fig = style.figure(height=1.6, width=5.0)
        empty_note(fig.add_subplot(), "speedup against cost: no cost recorded for any arm\n"
                                       "(no spend, tokens or agent wall time)")
        return fig, pts
    fig = style.figure(height=3.8, width=max(5.0, min(12.0, 1.6 + 3.8 * len(measures))))
    axes = fig.subplots(1, len(measures), sharey=True, squeeze=False)[0]
    good = pts.filter(pl.col("correct") & pl.col("speedup").is_not_null() & (pl.col("speedup") > 0))
    ys = good.get_column("speedup").to_list()
    lo_y = min(ys + [1.0]) / 2.0
    band = lo_y / 2.0             # where speedup-less tasks are drawn
    hi_y = max(ys + [1.0]) * 2.0
    handles = {}
    vague_drawn = False
    for ax, m in zip(axes, measures):
        sel = pts.filter(pl.col("cost_measure") == m)
        xs_all = [c for c in sel.get_column("cost").to_list() if _finite(c)]
        positive = [c for c in xs_all if c > 0]
        for (e, a), g in sel.group_by(["experiment", "arm"], maintain_order=True):
            colour = colours[a]
            label = f"{e} / {a}" if several_exp else a
            ok = g.filter(pl.col("correct") & pl.col("speedup").is_not_null() & (pl.col("speedup") > 0)
                          & pl.col("cost").is_not_null())
            bad = g.filter(~(pl.col("correct") & pl.col("speedup").is_not_null() & (pl.col("speedup") > 0))
                           & pl.col("cost").is_not_null())
            vague = pl.col("verdict").eq_missing(NO_DIFFERENCE)
            solid, faint = ok.filter(~vague), ok.filter(vague)
            if solid.height:
                h = ax.scatter(solid.get_column("cost").to_numpy(), solid.get_column("speedup").to_numpy(), s=22,
                               color=colour, alpha=0.85, edgecolors="none", zorder=3, marker=marker[e])
                handles.setdefault(label, h)
            if faint.height:
                h = ax.scatter(faint.get_column("cost").to_numpy(), faint.get_column("speedup").to_numpy(), s=22,
                               facecolors=[light(colour)], edgecolors=[colour], linewidths=0.8, zorder=3,
                               marker=marker[e])
                handles.setdefault(label, h)
                vague_drawn = True
            if bad.height:
                jitter = np.exp(np.linspace(-0.15, 0.15, bad.height)) if bad.height > 1 else np.ones(1)
                h = ax.scatter(bad.get_column("cost").to_numpy(), band * jitter, s=26, facecolors="none",
                               edgecolors=colour, linewidths=1.1, zorder=3, marker=marker[e])
                handles.setdefault(label, h)
        ax.axhspan(band / 1.6, band * 1.6, color="#EEEEEE", zorder=0)
        ax.axhline(1.0, color=style.BASELINE_COLOUR, lw=0.9, zorder=1)
        if positive and len(positive) == len(xs_all):
            ax.set_xscale("log")
            _plain_log_labels(ax.xaxis, min(positive), max(positive))
        elif positive:
            ax.set_xscale("symlog", linthresh=min(positive))
            _plain_log_labels(ax.xaxis, min(positive), max(positive))
        ax.set_xlabel(COST_MEASURES[m][1])
    ax0 = axes[0]
    ax0.set_yscale("log")
    ax0.set_ylim(band / 2.0, hi_y)
    _plain_log_labels(ax0.yaxis, band / 2.0, hi_y, _times_formatter())
    ax0.set_ylabel("speedup over the baseline")
    ax0.annotate("incorrect /\nno speedup", (0, band), xycoords=("axes fraction", "data"), xytext=(3, 0),
                 textcoords="offset points", va="center", fontsize=style.FONT_SIZE - 2, color="#666666")
    if vague_drawn:
        handles[NO_DIFFERENCE_LABEL] = no_difference_handle("marker")
    if handles:
        fig.legend(list(handles.values()), list(handles.keys()), loc="outside lower center",
                   ncols=legend_columns(list(handles), fig.get_figwidth()), handletextpad=0.2)
    title = "Speedup against cost per task"
    if undrawn:
        title += "\n(not drawn, no cost recorded: " + ", ".join(undrawn) + ")"
    fig.suptitle(title, fontsize=style.FONT_SIZE + 1)
    return fig, pts


def _plain_log_labels(axis, lo: float, hi: float, fmt=None) -> None:
    """Tick labels like 0.02 and 5000 instead of 2×10⁻² (or ``fmt``'s); the minor ticks
    labelled too when the axis spans less than a decade (else it has a single label)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    fmt = fmt or FuncFormatter(lambda x, _pos: f"{x:,.6g}" if x >= 1000 else f"{x:.6g}")
    axis.set_major_formatter(fmt)
    axis.set_minor_formatter(fmt if hi / lo < 10 else NullFormatter())


# ---- 3. tokens_per_task ------------------------------------------------------------------

def tokens_per_task(table: pl.DataFrame) -> tuple:
    """Per arm, the distribution of tokens per task (a box over the tasks, each task a
    dot). An arm that spent no tokens (an optimizer that calls no model) is shown at 0 with
    a note, not dropped."""
    t = tasks(table)
    colours = colours_for(table)
    q_schema = {"experiment": pl.String, "arm": pl.String, "tasks": pl.Int64, "min": pl.Float64,
                "q25": pl.Float64, "median": pl.Float64, "q75": pl.Float64, "max": pl.Float64,
                "mean": pl.Float64, "total": pl.Int64}
    if t.height == 0:
        fig = style.figure(height=3.6, width=5.0)
        empty_note(fig.add_subplot())
        return fig, pl.DataFrame(schema=q_schema)
    tok = pl.col("task_tokens").cast(pl.Float64)
    q = (t.group_by(["experiment", "arm"]).agg(
        pl.len().cast(pl.Int64).alias("tasks"), tok.min().alias("min"),
        tok.quantile(0.25, "linear").alias("q25"), tok.median().alias("median"),
        tok.quantile(0.75, "linear").alias("q75"), tok.max().alias("max"), tok.mean().alias("mean"),
        pl.col("task_tokens").cast(pl.Int64).sum().alias("total"))
         .sort(["experiment", "arm"]).select(list(q_schema)).cast(q_schema))
    several_exp = q.get_column("experiment").n_unique() > 1
    n = q.height
    fig = style.figure(height=3.8, width=max(4.5, min(12.0, 2.0 + 0.9 * n)))
    ax = fig.add_subplot()
    top = max([v for v in t.get_column("task_tokens").to_list() if v is not None] + [0])
    if top > 0:
        from matplotlib.ticker import FuncFormatter
        ax.set_yscale("symlog", linthresh=1.0, linscale=0.5)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _pos: f"{y:,.0f}"))
    labels = []
    for i, r in enumerate(q.iter_rows(named=True)):
        e, a = r["experiment"], r["arm"]
        labels.append(f"{e}\n{a}" if several_exp else a)
        vals = np.array(t.filter((pl.col("experiment") == e) & (pl.col("arm") == a))
                        .get_column("task_tokens").fill_null(0).to_list(), dtype=float)
        colour = colours[a]
        if vals.size and (vals > 0).any():
            ax.boxplot([vals], positions=[i], widths=0.5, showfliers=False, patch_artist=True,
                       boxprops={"facecolor": colour, "alpha": 0.35, "edgecolor": colour},
                       medianprops={"color": colour, "lw": 1.6}, whiskerprops={"color": colour},
                       capprops={"color": colour})
        offs = np.linspace(-0.18, 0.18, vals.size) if vals.size > 1 else np.zeros(vals.size)
        ax.scatter(i + offs, vals, s=12, color=colour, alpha=0.8, edgecolors="none", zorder=3)
        if vals.size and not (vals > 0).any():
            ax.annotate("0 tokens\n(no model calls)", (i, 0), xytext=(0, 6), textcoords="offset points",
                        ha="center", va="bottom", fontsize=style.FONT_SIZE - 2, color="#555555")
        med = r["median"]
        ax.annotate(f"n={r['tasks']}" + (f"\nmedian {med:,.0f}" if _finite(med) and med > 0 else ""),
                    (i, 1), xycoords=("data", "axes fraction"), xytext=(0, -2), textcoords="offset points",
                    ha="center", va="top", fontsize=style.FONT_SIZE - 2, color="#444444")
    ax.set_xticks(range(n), labels)
    ax.set_xlim(-0.6, n - 0.4)
    if top > 0:
        ax.set_ylim(-0.5, top * 12)
    else:
        ax.set_ylim(-0.5, 2.5)
        ax.set_yticks([0])
    ax.set_ylabel("tokens per task (prompt + completion)")
    ax.set_title("Tokens per task", pad=22)
    ax.grid(axis="x", visible=False)
    return fig, q


# ---- 4. kernel_speedups ------------------------------------------------------------------

def kernel_table(table: pl.DataFrame) -> pl.DataFrame:
    """Kernel × arm: tasks, correct tasks, and the speedup over the baseline with its 95%
    CI: the task's own when the arm has one task on the kernel, else the geometric mean
    of the correct tasks' speedups with its bootstrap CI; and the gate's verdict on that CI."""
    t = tasks(table)
    schema = {"experiment": pl.String, "arm": pl.String, "track": pl.String, "kernel": pl.String,
              "kernel_name": pl.String, "tasks": pl.Int64, "correct": pl.Int64, "speedup": pl.Float64,
              "speedup_low": pl.Float64, "speedup_high": pl.Float64}
    rows = []
    for (e, a, k), g in t.group_by(["experiment", "arm", "kernel"], maintain_order=True):
        ok = g.filter(pl.col("correct").fill_null(False) & (pl.col("speedup") > 0))
        sp = lo = hi = None
        if ok.height == 1:
            r = ok.row(0, named=True)
            sp = r["speedup"]
            lo = r["speedup_low"] if _positive(r["speedup_low"]) else None
            hi = r["speedup_high"] if _positive(r["speedup_high"]) else None
        elif ok.height > 1:
            sp, lo, hi = stats.geomean_ci(ok.get_column("speedup").to_list())
        first = g.row(0, named=True)
        rows.append({"experiment": e, "arm": a, "track": first["track"], "kernel": k,
                     "kernel_name": first["kernel_name"] or k, "tasks": g.height,
                     "correct": int(g.get_column("correct").fill_null(False).sum()),
                     "speedup": _float_or_none(sp), "speedup_low": _float_or_none(lo),
                     "speedup_high": _float_or_none(hi)})
    out = pl.DataFrame(rows, schema=schema)
    out = out.with_columns(verdict_of("speedup_low", "speedup_high").alias("verdict"))
    return out.sort(["track", "kernel", "experiment", "arm"], nulls_last=True)


def _float_or_none(v):
    return float(v) if _finite(v) else None


def kernel_speedups(table: pl.DataFrame) -> tuple:
    """Per kernel (a row each) and arm (a bar each): the speedup over the baseline on a
    signed log2 scale centred at 1×, a bar to the right for faster and to the left for
    slower, with 95% CI whiskers; a lighter bar where the CI includes 1× (no measurable
    difference); an 'x' at 1× where the arm has no correct answer."""
    kt = kernel_table(table)
    colours = colours_for(table)
    if kt.height == 0:
        fig = style.figure(height=3.0, width=5.0)
        empty_note(fig.add_subplot())
        return fig, kt
    several_exp = kt.get_column("experiment").n_unique() > 1
    hatch = experiment_styles(kt, HATCHES)
    arm_keys = kt.select("experiment", "arm").unique().sort(["experiment", "arm"]).rows()
    kernels = kt.select("kernel", "kernel_name", "track").unique(subset=["kernel"], keep="first", maintain_order=True)
    nk, na = kernels.height, len(arm_keys)
    row_h = max(0.32, 0.14 * na + 0.1)
    fig = style.figure(height=1.5 + nk * row_h, width=7.0)
    ax = fig.add_subplot()
    bar_h = 0.8 / na
    index = {k: i for i, k in enumerate(kernels.get_column("kernel").to_list())}
    lows, highs = [0.0], [0.0]
    handles = {}
    vague_drawn = False
    for r in kt.iter_rows(named=True):
        i = index[r["kernel"]]
        j = arm_keys.index((r["experiment"], r["arm"]))
        y = i - 0.4 + bar_h * (j + 0.5)
        colour = colours[r["arm"]]
        label = f"{r['experiment']} / {r['arm']}" if several_exp else r["arm"]
        sp = r["speedup"]
        if _positive(sp):
            x = math.log2(sp)
            vague = r["verdict"] == NO_DIFFERENCE
            vague_drawn |= vague
            h = ax.barh(y, x, height=bar_h * 0.9, facecolor=light(colour) if vague else mcolors.to_rgba(colour, 0.9),
                        zorder=2, hatch=hatch[r["experiment"]],
                        edgecolor="white" if hatch[r["experiment"]] and not vague else colour, lw=0.8 if vague else 0)
            if not vague or label not in handles:       # the arm's legend entry: a solid bar if it has one
                handles[label] = h
            lows.append(x)
            highs.append(x)
            if _positive(r["speedup_low"]) and _positive(r["speedup_high"]):
                xl, xh = math.log2(r["speedup_low"]), math.log2(r["speedup_high"])
                ax.errorbar(x, y, xerr=[[max(x - xl, 0)], [max(xh - x, 0)]], fmt="none", ecolor="#222222",
                            capsize=2, lw=0.8, zorder=3)
                lows.append(xl)
                highs.append(xh)
        else:
            ax.plot([0], [y], marker="x", color=colour, ms=6, mew=1.8, zorder=4, linestyle="none")
            handles.setdefault(label, ax.barh([y], [0], height=0, color=colour, hatch=hatch[r["experiment"]],
                                              edgecolor="white" if hatch[r["experiment"]] else colour, lw=0))
    ticks = signed_log_ticks(min(lows), max(highs))
    ax.set_xticks(ticks, [signed_log_label(k) for k in ticks])
    ax.set_xlim(ticks[0] - 0.3, ticks[-1] + 0.3)
    ax.axvline(0, color=style.BASELINE_COLOUR, lw=0.9, zorder=1)
    names = kernels.get_column("kernel_name").to_list()
    ax.set_yticks(range(nk), names)
    ax.set_ylim(nk - 0.5, -0.5)
    # The tracks: a rule between them, and their names on a second axis at the right.
    track_of = [t or NO_TRACK for t in kernels.get_column("track").to_list()]
    starts = [i for i in range(nk) if i == 0 or track_of[i] != track_of[i - 1]]
    ends = starts[1:] + [nk]
    for b in starts[1:]:
        ax.axhline(b - 0.5, color="#999999", lw=0.6, ls="--", zorder=1)
    if len(set(track_of)) > 1 or track_of[0] != NO_TRACK:
        right = ax.secondary_yaxis("right")
        right.set_yticks([(a + b - 1) / 2 for a, b in zip(starts, ends)],
                         [track_of[a].replace("_", " ") for a in starts], fontsize=style.FONT_SIZE - 2,
                         color="#555555", rotation=-90 if nk >= 2 * len(starts) else 0, va="center")
        right.tick_params(length=0)
        right.spines["right"].set_visible(False)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("speedup over the track's baseline (log₂ scale: ← slower | faster →)")
    ax.set_title("Speedup per kernel")
    from matplotlib.lines import Line2D
    order = [f"{e} / {a}" if several_exp else a for e, a in arm_keys]
    handles = {k: handles[k] for k in order if k in handles}
    legend_handles = list(handles.values()) + [Line2D([], [], marker="x", color="#444444", linestyle="none",
                                                      mew=1.8)]
    legend_labels = list(handles.keys()) + ["no correct answer"]
    if vague_drawn:
        legend_handles.append(no_difference_handle())
        legend_labels.append(NO_DIFFERENCE_LABEL)
    fig.legend(legend_handles, legend_labels, loc="outside lower center",
               ncols=legend_columns(legend_labels, fig.get_figwidth()))
    return fig, kt


# ---- 5. correctness_by_track -------------------------------------------------------------

OUTCOMES = ("correct", "incorrect", "implausible_unreviewed", "no_submission")
OUTCOME_LABELS = {"correct": "correct", "incorrect": "incorrect", "implausible_unreviewed": "implausible, unreviewed",
                  "no_submission": "no submission / no grade"}


def outcome(t: pl.DataFrame) -> pl.Expr:
    """A task's outcome: correct; implausible and not (yet) reviewed; no submission, or one
    the judge never graded; else incorrect (a rejected implausible grade included)."""
    review = pl.col("review").cast(pl.String).fill_null("").str.to_lowercase()
    return (pl.when(pl.col("correct").fill_null(False)).then(pl.lit("correct"))
            .when((pl.col("status") == "implausible") & ~review.is_in(["accepted", "rejected"]))
            .then(pl.lit("implausible_unreviewed"))
            .when(pl.col("grade_id").is_null() | pl.col("status").is_null()).then(pl.lit("no_submission"))
            .otherwise(pl.lit("incorrect")).alias("outcome"))


def correctness_by_track(table: pl.DataFrame) -> tuple:
    """Per track and arm, the share of tasks correct, incorrect, implausible and not yet
    reviewed, and without a submission (or a grade), as stacked bars with the counts."""
    t = tasks(table)
    colours = colours_for(table)
    schema = {"track": pl.String, "experiment": pl.String, "arm": pl.String, "tasks": pl.Int64,
              **{o: pl.Int64 for o in OUTCOMES}, "correct_rate": pl.Float64}
    if t.height == 0:
        fig = style.figure(height=3.0, width=5.0)
        empty_note(fig.add_subplot())
        return fig, pl.DataFrame(schema=schema)
    t = t.with_columns(pl.col("track").fill_null(NO_TRACK), outcome(t))
    counts = (t.group_by(["track", "experiment", "arm"])
              .agg(pl.len().cast(pl.Int64).alias("tasks"),
                   *[(pl.col("outcome") == o).sum().cast(pl.Int64).alias(o) for o in OUTCOMES])
              .with_columns((pl.col("correct") / pl.col("tasks")).alias("correct_rate"))
              .sort(["track", "experiment", "arm"]).select(list(schema)).cast(schema))
    several_exp = counts.get_column("experiment").n_unique() > 1
    n = counts.height
    fig = style.figure(height=1.4 + 0.32 * n + 0.25 * counts.get_column("track").n_unique(), width=7.0)
    ax = fig.add_subplot()
    ys, labels, y, prev_track = [], [], 0.0, None
    for r in counts.iter_rows(named=True):
        if prev_track is not None and r["track"] != prev_track:
            y += 0.5
        prev_track = r["track"]
        ys.append(y)
        arm = f"{r['experiment']} / {r['arm']}" if several_exp else r["arm"]
        labels.append(f"{r['track']} · {arm}")
        y += 1
    for yy, r in zip(ys, counts.iter_rows(named=True)):
        left = 0.0
        for o in OUTCOMES:
            share = r[o] / r["tasks"] if r["tasks"] else 0.0
            if share <= 0:
                continue
            ax.barh(yy, share, left=left, height=0.75, color=style.OUTCOME_COLOURS[o],
                    edgecolor="white", lw=0.5, label=OUTCOME_LABELS[o], zorder=2)
            if share >= 0.06:
                ax.text(left + share / 2, yy, str(r[o]), ha="center", va="center", fontsize=style.FONT_SIZE - 2,
                        color="white" if o in ("correct", "incorrect") else "#222222", zorder=3)
            left += share
        ax.text(1.01, yy, f"{100 * r['correct_rate']:.0f}% of {r['tasks']}", va="center", ha="left",
                fontsize=style.FONT_SIZE - 2, transform=ax.get_yaxis_transform())
    ax.set_yticks(ys, labels)
    for tick, r in zip(ax.get_yticklabels(), counts.iter_rows(named=True)):
        tick.set_color(colours[r["arm"]])
    ax.set_ylim(y - 0.5, -0.6)
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(_percent_formatter())
    ax.set_xlabel("share of tasks")
    ax.grid(axis="y", visible=False)
    ax.set_title("Correctness per track and arm")
    seen = {}
    for h, lab in zip(*ax.get_legend_handles_labels()):
        seen.setdefault(lab, h)
    ordered = [OUTCOME_LABELS[o] for o in OUTCOMES if OUTCOME_LABELS[o] in seen]
    fig.legend([seen[lab] for lab in ordered], ordered, loc="outside lower center", ncols=len(ordered))
    return fig, counts


def _percent_formatter():
    from matplotlib.ticker import PercentFormatter
    return PercentFormatter(xmax=1.0, decimals=0)


def scaling(table: pl.DataFrame) -> tuple:
    """Strong scaling (docs/mpi.md): per kernel with a distributed grade, the speedup over the
    track's single-process baseline against the ranks it ran on (log2 both ways), the best
    correct grade at each rank count with its 95% CI; single-process grades at 1 rank. The
    dotted line is ideal scaling from 1× at 1 rank."""
    cols = ["kernel", "kernel_name", "ranks", "speedup", "speedup_low", "speedup_high"]
    if not set(cols + ["correct"]) <= set(table.columns):        # a table from before the ranks column
        table = pl.DataFrame(schema={c: OBS_DTYPES[c] for c in cols + ["correct"]})
    rows = table.filter(pl.col("correct") & pl.col("speedup").is_not_null() & pl.col("ranks").is_not_null())
    distributed = rows.filter(pl.col("ranks") > 1).get_column("kernel").unique()
    data = (rows.filter(pl.col("kernel").is_in(distributed))
            .sort("speedup", descending=True)
            .unique(subset=["kernel", "ranks"], keep="first")
            .select(cols)
            .sort(["kernel_name", "ranks"]))
    fig = style.figure(height=3.4, width=5.2)
    ax = fig.add_subplot()
    if data.height == 0:
        empty_note(ax, "no distributed grades")
        return fig, data
    colours = style.arm_colours(data.get_column("kernel_name").unique(maintain_order=True).to_list())
    for name in data.get_column("kernel_name").unique(maintain_order=True).to_list():
        part = data.filter(pl.col("kernel_name") == name)
        r, sp = part.get_column("ranks").to_list(), part.get_column("speedup").to_list()
        lo, hi = part.get_column("speedup_low").to_list(), part.get_column("speedup_high").to_list()
        err = [[max(s - (low if _positive(low) else s), 0) for s, low in zip(sp, lo)],
               [max((h if _positive(h) else s) - s, 0) for s, h in zip(sp, hi)]]
        ax.errorbar(r, sp, yerr=err, marker="o", ms=4, lw=1.2, capsize=2, color=colours[name], label=name)
    top = max(data.get_column("ranks").to_list())
    ax.plot([1, top], [1, top], ls=":", color="#888888", lw=1, label="ideal (from 1× at 1 rank)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel("speedup over the track's baseline")
    ax.legend(fontsize="small", ncol=legend_columns(data.get_column("kernel_name").unique().to_list(), 5.2))
    return fig, data


def draw(name: str, table: pl.DataFrame) -> tuple:
    """The figure called ``name`` (one of FIGURES) of ``table``."""
    if name not in FIGURES:
        raise ValueError(f"no figure {name!r}: expected one of {', '.join(FIGURES)}")
    return globals()[name](table)


# ---- reading the table, and the scripts' command line ------------------------------------

# The observations table's columns and types: a CSV is read back with them.
OBS_DTYPES = SCHEMA


def load_observations(path) -> pl.DataFrame:
    """The observations table from a .parquet or a .csv file (a CSV's columns are read
    with the table's types)."""
    from pathlib import Path
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        return pl.read_parquet(path)
    if path.suffix.lower() == ".csv":
        header = pl.read_csv(path, n_rows=0).columns
        return pl.read_csv(path, schema_overrides={c: t for c, t in OBS_DTYPES.items() if c in header})
    raise ValueError(f"{path}: expected a .parquet or .csv observations table")


def script_main(names: list[str], description: str | None = None, argv: list[str] | None = None) -> int:
    """The command line of the scripts in analysis/: draw the figures ``names`` of the
    observations table --obs into the folder --out (NAME.pdf, NAME.png and NAME.csv each)."""
    import argparse
    import sys
    from pathlib import Path
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--obs", required=True, help="the observations table (.parquet or .csv)")
    p.add_argument("--out", default="figures", help="folder for NAME.pdf, NAME.png, NAME.csv (default figures/)")
    args = p.parse_args(argv)
    if not Path(args.obs).is_file():
        print(f"error: {args.obs}: no such file", file=sys.stderr)
        return 2
    try:
        table = load_observations(args.obs)
    except (ValueError, pl.exceptions.PolarsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for name in names:
        fig, data = draw(name, table)
        paths = style.save(fig, data, args.out, name)
        print(f"{name}: {paths['pdf']}, {paths['png']}, {paths['csv']} ({data.height} row(s))")
    return 0
