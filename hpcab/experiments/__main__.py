"""`python -m hpcab.experiments`: run folders and judge databases into one observations table.

    python -m hpcab.experiments --runs 'runs/corpus-*' [--runs GLOB ...] [--experiment PREFIX ...]
        [--by track] [--out data/observations.csv] [--out data/observations.parquet]
    python -m hpcab.experiments compare --runs 'runs/skills-*' [--by skills] [--arms none,all] [--out DIR]

Prints one line per experiment x arm (runs, tasks, submissions, correct, geometric mean
speedup with its 95% CI), with --by track (or dwarf, level) one more line per experiment x arm
x group beneath it, a line for each --runs glob and --experiment prefix that matched
nothing, and writes the table to each --out (CSV or parquet, by the suffix). Exit status:
0; 1 when a file could not be read (each named on stderr; the table of the rest is still
written; a run folder that never started is skipped with a warning line); 2 for a usage error (no --runs glob matched anything, an --out that is neither
.csv nor .parquet).

`compare` compares arms paired by kernel (hpcab.experiments.compare): the solved table with
McNemar's test, the Wilcoxon test and the Hodges-Lehmann and geometric-mean ratios with their
intervals, spend side by side; with --out, its tables and figures (hpcab.analysis.comparison).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path

from hpcab.experiments.extract import SUFFIXES, Extraction, extract, write_observations


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m hpcab.experiments", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", action="append", required=True, metavar="GLOB",
                   help="run folders (holding arm.yaml or judge-*.db), hpcab agent --out folders (holding "
                        "judge.db) and/or judge .db files (repeatable; quote it so the shell does not expand it)")
    p.add_argument("--experiment", action="append", metavar="PREFIX",
                   help="keep runs whose experiment starts with PREFIX (repeatable; default: all)")
    p.add_argument("--by", action="append", default=[], choices=BY_COLUMNS,
                   help="also summarise each experiment x arm per track, dwarf or level (repeatable: by all "
                        "of them together)")
    p.add_argument("--out", action="append", default=[], metavar="FILE",
                   help="write the table here: .csv or .parquet (repeatable; none: only the summary)")
    return p


BY_COLUMNS = ("track", "dwarf", "level")


def _fmt(x: float) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:.3g}"


def _speed(gm: float | None, low: float | None, high: float | None) -> str:
    from hpcab.measure import verdict
    if gm is None or math.isnan(gm):
        return "geomean speedup -"
    if low is None or math.isnan(low):        # one correct task: no interval
        return f"geomean speedup {_fmt(gm)}x (one correct task: no CI)"
    return f"geomean speedup {_fmt(gm)}x [95% CI {_fmt(low)}, {_fmt(high)}] {verdict(low, high)}"


def summary_lines(result: Extraction, by: list[str] | tuple[str, ...] = ()) -> list[str]:
    from hpcab.experiments.stats import summarize
    groups: dict[tuple, list[dict]] = {}
    if by:
        for row in summarize(result.table, ["experiment", "arm", *by], ps=()).iter_rows(named=True):
            groups.setdefault((row["experiment"], row["arm"]), []).append(row)
    lines = []
    for row in result.summary().iter_rows(named=True):
        runs = f"{row['runs']} run" + ("s" if row["runs"] != 1 else "")
        if row["runs_not_succeeded"]:
            # What status.json says of the runs that have not succeeded (running, failed, ...).
            states = Counter(r.state for r in result.runs if (r.experiment, r.arm) == (row["experiment"], row["arm"])
                             and r.kind == "run" and r.state not in ("succeeded", None))
            runs += " (" + ", ".join(f"{n} {state}" for state, n in sorted(states.items())) + ")"
        speed = _speed(row["geomean"], row["geomean_low"], row["geomean_high"])
        lines.append(f"{row['experiment']} / {row['arm']}: {runs}, {row['tasks']} tasks, {row['submissions']} "
                     f"submissions, {row['correct']} correct, {speed}")
        for g in groups.get((row["experiment"], row["arm"]), []):
            name = ", ".join(f"{c} {'-' if g[c] is None else g[c]}" for c in by)
            lines.append(f"  {name}: {g['tasks']} tasks, {g['correct']} correct, "
                         f"{_speed(g['geomean'], g['geomean_low'], g['geomean_high'])}")
    lines += [f"nothing matched: {what}" for what in result.unmatched]
    return lines


def compare_parser() -> argparse.ArgumentParser:
    from hpcab.experiments import compare
    p = argparse.ArgumentParser(prog="python -m hpcab.experiments compare",
                                description=compare.__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", action="append", required=True, metavar="GLOB",
                   help="run folders, hpcab agent --out folders and/or judge .db files (repeatable)")
    p.add_argument("--experiment", action="append", metavar="PREFIX", help="keep runs whose experiment starts "
                                                                            "with PREFIX (repeatable)")
    p.add_argument("--by", default="arm", metavar="COLUMN",
                   help="what an arm is: a column of the observations (arm, skills, tools, prompt_variant, hints, "
                        "model, optimizer, ...; default arm)")
    p.add_argument("--arms", default=None, metavar="A,B,...", help="these values of --by, in this order (default: "
                                                                    "every one, sorted)")
    p.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default 0)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write arms.csv, pairs.csv, kernels.csv and the comparison's figures (PDF, PNG, CSV) here")
    return p


def compare_main(argv: list[str]) -> int:
    from hpcab.experiments.compare import compare
    args = compare_parser().parse_args(argv)
    result = extract(args.runs, args.experiment)
    if len([u for u in result.unmatched if u.startswith("--runs ")]) == len(args.runs):
        print("error: no --runs glob matched a run folder or a .db file: nothing to compare", file=sys.stderr)
        return 2
    for line in result.warnings:
        print(f"warning: {line}", file=sys.stderr)
    try:
        c = compare(result.table, args.by, [a.strip() for a in args.arms.split(",")] if args.arms else None,
                    seed=args.seed)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in c.lines():
        print(line)
    for problem in result.problems:
        print(f"error: {problem}", file=sys.stderr)
    if args.out:
        from hpcab.analysis.comparison import write_comparison
        for path in write_comparison(c, Path(args.out)):
            print(f"wrote {path}")
    return 1 if result.problems else 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["compare"]:
        return compare_main(argv[1:])
    args = parser().parse_args(argv)
    bad = [o for o in args.out if Path(o).suffix not in SUFFIXES]
    if bad:
        print(f"error: --out {bad[0]}: the table is written as .csv or .parquet (by the suffix)", file=sys.stderr)
        return 2
    result = extract(args.runs, args.experiment)
    if len([u for u in result.unmatched if u.startswith("--runs ")]) == len(args.runs):
        for line in result.unmatched:
            print(f"error: {line}", file=sys.stderr)
        print("error: no --runs glob matched a run folder or a .db file: nothing to extract", file=sys.stderr)
        return 2
    for line in result.warnings:
        print(f"warning: {line}", file=sys.stderr)
    for line in summary_lines(result, args.by):
        print(line)
    for problem in result.problems:
        print(f"error: {problem}", file=sys.stderr)
    for out in args.out:
        path = write_observations(result.table, out)
        print(f"wrote {result.table.height} rows to {path}")
    return 1 if result.problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
