"""``hpcab report``: a static HTML report of judge databases and run folders.

The sources are extracted into the observations table (hpcab.experiments.extract); the
report folder gets the six figures (NAME.png shown in the page, NAME.pdf and NAME.csv
beside it), the table itself (observations.csv) and index.html: one page, inline CSS, no
script, that opens offline. The images are referenced relatively, so the folder is the unit
to copy. Every string that comes from a database is escaped: labels, kernel names, agents
and messages are untrusted text.
"""

from __future__ import annotations

import datetime as _dt
import glob
import html
import math
import os
from pathlib import Path

import attrs
import polars as pl

from hpcab import __version__
from hpcab.measure import verdict

COMPARISON_CAPTIONS = {
    "paired_scatter": "Per kernel, arm A's best speedup against arm B's (log axes); above the dashed diagonal "
                      "B was faster. A kernel only one arm solved sits on the other's margin.",
    "spend_change": "Per kernel both solved, the speedup change (B/A) against the spend change (B/A, tokens per "
                    "attempt), the quadrants named and counted.",
    "arm_summary": "Per arm, the gated geometric-mean speedup over its solved kernels with its 95% CI, and the "
                   "solve rate and fast_1, fast_2, fast_5 (shares of all tasks).",
}
CAPTIONS = {
    "speedup_summary": "Geometric-mean speedup over the track's baseline per arm, with its 95% bootstrap CI "
                       "over tasks (correct final answers only); a lighter bar: the CI includes 1× (no "
                       "measurable difference). Above each bar fast₁ and fast₂, the share of all tasks that "
                       "are correct, at least 1× and 2× the baseline, and measurably faster (CI above 1×).",
    "speedup_vs_spend": "Each task's speedup against its cost (spend in USD when the arm records it, else "
                        "tokens, else the agent's wall time; one panel per measure). Hollow markers in the "
                        "grey band: tasks without a speedup (incorrect, or not measured); lighter markers: "
                        "a speedup whose 95% CI includes 1× (no measurable difference).",
    "tokens_per_task": "Tokens (prompt + completion) per task, summed over the task's submissions; an arm "
                       "that calls no model shows 0.",
    "kernel_speedups": "Speedup over the track's baseline per kernel and arm on a signed log₂ scale: a bar to "
                       "the right is faster, to the left slower, 1× at the centre line; whiskers are the "
                       "95% CI, and a lighter bar is one whose CI includes 1× (no measurable difference); an × "
                       "marks an arm without a correct answer on that kernel.",
    "correctness_by_track": "Share of tasks per track and arm that are correct, incorrect, implausible and "
                            "not yet reviewed, or without a (graded) submission; the count in each segment.",
    "scaling": "Strong scaling of the distributed track (docs/mpi.md): per kernel with a distributed grade, the "
               "speedup over the track's single-process baseline against the MPI ranks (log₂ both ways), the best "
               "correct grade at each rank count with its 95% CI; the dotted line is ideal scaling.",
}

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5rem auto; max-width: 1150px;
       padding: 0 1rem; color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.88rem; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } tbody tr:nth-child(even) { background: #fafafa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td .verdict { white-space: normal; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: 0.2rem 1rem; font-size: 0.9rem; }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; word-break: break-all; }
.problems { border: 2px solid #c0392b; background: #fdecea; padding: 0.6rem 1rem; margin: 1rem 0; }
.problems h2 { margin-top: 0; border: none; color: #c0392b; }
.ok { border: 1px solid #27ae60; background: #eafaf1; padding: 0.4rem 1rem; }
figure { margin: 1.2rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9rem; color: #444; max-width: 60rem; }
.correct { color: #1e8449; } .incorrect { color: #c0392b; } .muted { color: #777; }
code { font-size: 0.85rem; }
"""


class ReportError(Exception):
    """A usage error: a source that does not exist."""


@attrs.define
class Report:
    path: Path                      # index.html
    table: pl.DataFrame
    problems: list[str]
    figures: dict[str, dict[str, Path]]


def check_sources(sources: list[str], flag: str = "--db") -> None:
    """Each source must be a judge database, or a folder holding one (a run folder, an
    `hpcab agent --out` folder), or a glob that matches one; each error names the flag."""
    from hpcab.experiments.extract import _is_agent_folder, _is_run_folder
    for s in sources:
        matches = [Path(m) for m in glob.glob(os.path.expanduser(s))] or [Path(os.path.expanduser(s))]
        if not any(m.exists() for m in matches):
            raise ReportError(f"{flag} {s}: no such judge database or folder")
        if any(m.is_file() or _is_run_folder(m) or (m / "judge.db").is_file() for m in matches):
            continue
        if any(_is_agent_folder(m) for m in matches):
            raise ReportError(f"{flag} {s}: an `hpcab agent --out` folder without a judge database (judge.db is "
                              f"written there only with --native); give the database of the judge it used")
        raise ReportError(f"{flag} {s}: a folder holding no judge database (expected judge-<rank>.db beside an "
                          f"arm.yaml, or an `hpcab agent --native --out` folder's judge.db)")


def build_report(sources: list[str], out_dir: str | Path, experiments: list[str] | None = None,
                 now: _dt.datetime | None = None) -> Report:
    """Extract the sources, draw the figures into out_dir and write out_dir/index.html."""
    from hpcab.analysis import figures as figs
    from hpcab.analysis import style
    from hpcab.experiments.extract import extract
    from hpcab.experiments.stats import summarize

    check_sources(sources)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ex = extract(sources, experiments, flag="--db")
    table = ex.table
    problems = [*ex.problems, *ex.unmatched]
    if table.height == 0:
        problems.append("no observations: nothing was read from the sources (none matched, or they hold no "
                        "submission or grade)")
    table.write_csv(out / "observations.csv")

    drawn: dict[str, dict[str, Path]] = {}
    for name in figs.FIGURES:
        try:
            fig, data = figs.draw(name, table)
            drawn[name] = style.save(fig, data, out, name)
        except Exception as exc:      # noqa: BLE001 - one figure failing must not lose the report
            problems.append(f"figure {name}: not drawn ({type(exc).__name__}: {exc})")

    per_arm = summarize(table, ["experiment", "arm"])
    costs = _arm_costs(table)
    per_arm = per_arm.join(costs, on=["experiment", "arm"], how="left")
    per_track = summarize(table.with_columns(pl.col("track").fill_null("(none)")), ["experiment", "arm", "track"])
    per_dwarf = summarize(table.with_columns(pl.col("dwarf").fill_null("(none)")), ["experiment", "arm", "dwarf"])

    comparison = _comparison(table, out, problems)
    page = _page(sources, experiments, ex, table, problems, per_arm, per_track, per_dwarf, drawn,
                 now or _dt.datetime.now(_dt.UTC), comparison)
    index = out / "index.html"
    tmp = out / ".index.html.tmp"
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(index)
    return Report(index, table, problems, drawn)


def _comparison(table: pl.DataFrame, out: Path, problems: list[str]) -> str:
    """With two arms or more: the comparison paired by kernel (hpcab.experiments.compare),
    its overall tests as a table and its figures; else nothing."""
    if table.height == 0 or table.get_column("arm").n_unique() < 2:
        return ""
    from hpcab.analysis.comparison import figure_files
    from hpcab.experiments.compare import compare
    try:
        c = compare(table, "arm")
        files = figure_files(c, out)
    except Exception as exc:      # noqa: BLE001 - the comparison failing must not lose the report
        problems.append(f"comparison: not made ({type(exc).__name__}: {exc})")
        return ""
    rows = []
    for r in c.pairs.filter(pl.col("group") == "all").iter_rows(named=True):
        ratio = (fmt_speedup(r["best_hl_ratio"], r["best_hl_low"], r["best_hl_high"]) if r["best_n"] else "-")
        rows.append([(f"{esc(r['b'])} vs {esc(r['a'])}", False), (str(r["kernels"]), True),
                     (f"{r['solved_a_only']} / {r['solved_b_only']} / {r['solved_both']} / {r['solved_neither']}",
                      True), (_p(r["mcnemar_p"]), True), (str(r["best_n"]), True), (ratio, True),
                     (_p(r["best_wilcoxon_p"]) + f" (Holm {_p(r['best_wilcoxon_p_holm'])})", True),
                     (str(r["excluded"]), True)])
    table_html = _table(["B vs A", "kernels", "solved A only / B only / both / neither", "McNemar p",
                         "solved by both", "B/A (Hodges-Lehmann, 95% CI)", "Wilcoxon p", "excluded"], rows,
                        "comparison")
    figures = "".join(f'<figure id="fig-{esc(name)}"><img src="{esc(f["png"].name)}" alt="{esc(name)}">'
                      f"<figcaption><strong>{esc(name)}</strong>. "
                      f"{esc(COMPARISON_CAPTIONS[name.split('-')[0]])} "
                      f'<a href="{esc(f["pdf"].name)}">PDF</a> · <a href="{esc(f["csv"].name)}">data (CSV)</a>'
                      f"</figcaption></figure>" for name, f in files.items())
    return ('<section id="comparison"><h2>Arms compared, paired by kernel</h2>'
            "<p>Each pair of arms over the kernels both attempted (best of k where an arm ran a kernel k times): "
            "McNemar's exact test on the kernels solved by one arm only; over the kernels both solved, the "
            "Wilcoxon signed-rank test on the log speedup ratio and the Hodges-Lehmann ratio with its 95% CI. "
            "p-values are two-sided, Holm-corrected across the pairs; a grade flagged implausible and not "
            "reviewed is excluded and counted (docs/plotting.md, \"Comparing arms\"; `python -m hpcab.experiments "
            "compare` gives every group and the spend).</p>" + table_html + figures + "</section>")


def _p(x) -> str:
    return "-" if x is None or not _finite(x) else (f"{x:.2g}" if x >= 1e-4 else "&lt;1e-4")


def _arm_costs(table: pl.DataFrame) -> pl.DataFrame:
    schema = {"experiment": pl.String, "arm": pl.String, "tokens": pl.Int64, "spend_usd": pl.Float64}
    if table.height == 0:
        return pl.DataFrame(schema=schema)
    spend = pl.col("spend_usd").fill_nan(None)
    return table.group_by(["experiment", "arm"]).agg(
        pl.col("tokens").fill_null(0).sum().cast(pl.Int64).alias("tokens"),
        pl.when(spend.is_not_null().any()).then(spend.sum()).otherwise(None).alias("spend_usd"))


# ---- HTML --------------------------------------------------------------------------------

def esc(value) -> str:
    """Any value as escaped HTML text; None as a dash."""
    return "-" if value is None else html.escape(str(value), quote=True)


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def fmt_speedup(v, lo=None, hi=None) -> str:
    """1.52× [1.31, 1.77] faster: the value, its 95% CI and the gate's verdict on the CI
    (hpcab.measure.verdict); without a CI, the value alone."""
    if not _finite(v):
        return "-"
    if not (_finite(lo) and _finite(hi)):
        return f"{v:.2f}×"
    return f"{v:.2f}× [{lo:.2f}, {hi:.2f}] {verdict(lo, hi)}"


def _speedup_cell(v, lo=None, hi=None) -> str:
    """fmt_speedup as escaped HTML, the verdict free to wrap onto its own line in the cell."""
    text = fmt_speedup(v, lo, hi)
    head, sep, word = text.partition("] ")
    return esc(head + "]") + f'<span class="verdict"> {esc(word)}</span>' if sep else esc(text)


def _pct(v) -> str:
    return f"{100 * v:.0f}%" if _finite(v) else "-"


def _int(v) -> str:
    return f"{int(v):,}" if _finite(v) else "-"


def _usd(v) -> str:
    return f"${v:,.4f}" if _finite(v) else "-"


def _table(headers: list[str], rows: list[list[tuple[str, bool]]], cls: str) -> str:
    """rows: cells as (already escaped HTML, numeric?)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "\n".join("<tr>" + "".join(f'<td class="num">{c}</td>' if num else f"<td>{c}</td>" for c, num in r)
                     + "</tr>" for r in rows)
    if not rows:
        body = f'<tr><td colspan="{len(headers)}" class="muted">none</td></tr>'
    return f'<table class="{cls}">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>'


def _summary_table(summary: pl.DataFrame, keys: list[str], cls: str, costs: bool = False) -> str:
    fast = [c for c in summary.columns if c.startswith("fast_")]
    headers = [*keys, "tasks", "correct", "correct rate", "geomean speedup [95% CI]",
               *[f"fast {c[5:]}" for c in fast]] + (["tokens", "spend"] if costs else [])
    rows = []
    for r in summary.iter_rows(named=True):
        cells = [(esc(r[k]), False) for k in keys]
        cells += [(_int(r["tasks"]), True), (_int(r["correct"]), True), (_pct(r["correct_rate"]), True),
                  (_speedup_cell(r["geomean"], r["geomean_low"], r["geomean_high"]), True)]
        cells += [(_pct(r[c]), True) for c in fast]
        if costs:
            cells += [(_int(r.get("tokens")), True), (esc(_usd(r.get("spend_usd"))), True)]
        rows.append(cells)
    return _table(headers, rows, cls)


def _task_table(table: pl.DataFrame) -> str:
    from hpcab.analysis.figures import tasks
    t = tasks(table)
    headers = ["experiment", "arm", "run", "agent", "kernel", "track", "label", "status", "correct",
               "speedup [95% CI]", "tokens"]
    rows = []
    for r in t.iter_rows(named=True):
        status = r["status"] or (r["state"] if r["state"] != "graded" else None)
        if r["status"] == "implausible":
            status = f"implausible ({r['review'] or 'unreviewed'})"
        ok = bool(r["correct"])
        rows.append([(esc(r["experiment"]), False), (esc(r["arm"]), False), (esc(r["run"]), False),
                     (esc(r["agent"]), False), (f'<span title="{esc(r["kernel"])}">{esc(r["kernel_name"])}</span>',
                                                False),
                     (esc(r["track"]), False), (esc(r["label"]), False), (esc(status), False),
                     (f'<span class="{"correct" if ok else "incorrect"}">{"yes" if ok else "no"}</span>', False),
                     (_speedup_cell(r["speedup"], r["speedup_low"], r["speedup_high"]), True),
                     (_int(r["task_tokens"]), True)])
    return _table(headers, rows, "tasks")


def _distinct(table: pl.DataFrame, col: str) -> list[str]:
    if table.height == 0 or col not in table.columns:
        return []
    return sorted(str(v) for v in table.get_column(col).drop_nulls().unique().to_list())


def _page(sources, experiments, ex, table, problems, per_arm, per_track, per_dwarf, drawn, now,
          comparison: str = "") -> str:
    envs = []
    if table.height:
        env = (table.filter(pl.col("environment_id").is_not_null())
               .group_by("environment_id").agg(pl.col("cpu_model").drop_nulls().first(),
                                               pl.col("hpcab_version").drop_nulls().unique().sort(),
                                               pl.col("image_digest").drop_nulls().unique().sort(), pl.len())
               .sort("environment_id"))
        for r in env.iter_rows(named=True):
            envs.append(f"<li><code>{esc(r['environment_id'])}</code>: {esc(r['cpu_model'])}; hpcab "
                        f"{esc(', '.join(r['hpcab_version']) or '-')}; image "
                        f"{esc(', '.join(r['image_digest']) or '-')} ({r['len']} row(s))</li>")
    runs = "".join(f"<li>{esc(r.experiment)} / {esc(r.arm)}: run <code>{esc(r.run)}</code> "
                   f"({esc(r.kind)}{', ' + esc(r.state) if r.state else ''}) — "
                   + ", ".join(f"<code>{esc(p)}</code>" for p, _ in r.dbs) + "</li>" for r in ex.runs)
    n_tasks = int(table.get_column("final").sum()) if table.height else 0
    meta = [
        ("generated", esc(now.strftime("%Y-%m-%d %H:%M:%S UTC"))),
        ("by", f"hpcab {esc(__version__)}"),
        ("sources", ", ".join(f"<code>{esc(s)}</code>" for s in sources)),
        ("experiments", esc(", ".join(experiments)) if experiments else "all"),
        ("observations", (f"{table.height} row(s), {n_tasks} task(s), "
                          f"{len(_distinct(table, 'submission_id'))} submission(s)")),
        ("hpcab versions recorded", esc(", ".join(_distinct(table, "hpcab_version")) or "-")),
        ("image digests", esc(", ".join(_distinct(table, "image_digest")) or "-")),
        ("runs read", f"<ul>{runs}</ul>" if runs else "none"),
        ("environments", f"<ul>{''.join(envs)}</ul>" if envs else "none"),
    ]
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>hpcab report</title>", '<link rel="icon" href="data:,">', f"<style>{CSS}</style>",
             "</head>", "<body>",
             "<header>", "<h1>hpcab report</h1>",
             '<dl class="meta">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in meta) + "</dl>", "</header>"]
    if problems:
        parts.append('<section class="problems" id="problems" role="alert"><h2>Problems '
                     f"({len(problems)})</h2><ul>" + "".join(f"<li>{esc(p)}</li>" for p in problems)
                     + "</ul></section>")
    else:
        parts.append('<p class="ok" id="problems">No problems: every source was read.</p>')
    parts += ['<section id="arms"><h2>Per arm</h2>',
              ("<p>Over each task's final answer (a task: experiment, run, arm, leg, agent, kernel). The geometric "
               "mean is over the correct tasks' speedups vs the track's baseline, its CI a bootstrap over tasks; "
               "fast p is the share of all tasks that are correct and at least p times the baseline, and for "
               "p ≥ 1 measurably faster (the speedup's 95% CI above 1). After each speedup's CI, the gate's "
               "verdict: faster (the CI above 1), slower (below 1) or no measurable difference.</p>"),
              _summary_table(per_arm, ["experiment", "arm"], "per-arm", costs=True), "</section>",
              '<section id="tracks"><h2>Per track</h2>',
              _summary_table(per_track, ["experiment", "arm", "track"], "per-track"), "</section>",
              '<section id="dwarfs"><h2>Per dwarf</h2>',
              _summary_table(per_dwarf, ["experiment", "arm", "dwarf"], "per-dwarf"), "</section>",
              '<section id="figures"><h2>Figures</h2>']
    from hpcab.analysis.figures import FIGURES
    for name in FIGURES:
        if name not in drawn:
            parts.append(f'<p class="muted">{esc(name)}: not drawn (see the problems above).</p>')
            continue
        files = drawn[name]
        parts.append(f'<figure id="fig-{name}"><img src="{esc(files["png"].name)}" alt="{esc(name)}">'
                     f"<figcaption><strong>{esc(name)}</strong>. {esc(CAPTIONS[name])} "
                     f'<a href="{esc(files["pdf"].name)}">PDF</a> · '
                     f'<a href="{esc(files["csv"].name)}">data (CSV)</a></figcaption></figure>')
    parts += ["</section>", comparison, '<section id="tasks"><h2>Tasks</h2>',
              "<p>Each task's final answer; all rows are in <a href=\"observations.csv\">observations.csv</a>.</p>",
              _task_table(table), "</section>", "</body>", "</html>", ""]
    return "\n".join(parts)
