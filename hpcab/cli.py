"""The hpcab command line: list, show, grade, baseline, translate, lint."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab import __version__
from hpcab.errors import HpcabError
from hpcab.gradedoc import (fmt_speedup, fmt_time, grade_document, plain_speedup, print_baseline_error, print_grade,
                            speedup_json)

EXIT_INCORRECT = 1
EXIT_USAGE = 2


def cmd_list(args, out: Console) -> int:
    from hpcab.corpus import load_corpus
    kernels = load_corpus().select(args.kernels)
    table = Table(title=f"{len(kernels)} kernel(s)")
    for col in ("kernel", "track", "dwarf / category", "level", "dtypes", "description"):
        table.add_column(col, overflow="fold")
    for k in kernels:
        dtypes = sorted({a.dtype for a in k.arrays} | {r.dtype for r in k.returns})
        sub = k.dwarf or (k.tsvc or {}).get("category", "")
        desc = k.description if len(k.description) < 60 else k.description[:57] + "..."
        table.add_row(k.name, k.track, sub, f"L{k.level}", ", ".join(dtypes), escape(desc))
    out.print(table)
    return 0


def cmd_show(args, out: Console) -> int:
    from hpcab.abi import show_abi
    from hpcab.check import tolerance_for
    from hpcab.corpus import load_corpus
    k = load_corpus().get(args.kernel)
    if args.abi:
        sys.stdout.write(show_abi(k, args.abi))   # exact text, for copying into a file
        return 0
    out.print(f"[bold]{k.id}[/bold]  (level {k.level})")
    out.print(k.description, markup=False)
    out.print(f"provenance: {k.provenance}", markup=False)
    out.print(f"sizes: {', '.join(k.sizes)}" + (f"   constraints: {'; '.join(k.constraints)}" if k.constraints else ""))
    for name, p in k.presets.items():
        out.print(f"  preset {name}: " + " ".join(f"{s}={v}" for s, v in p.items()))
    tol = tolerance_for(k)
    out.print(f"precision: {k.precision}" + ("" if k.precision == "exact" else
              f" (rtol {tol.rtol:g}, atol {tol.atol:g}×max|ref|, normwise {tol.normwise:g})"))
    if k.tsvc:
        out.print(f"tsvc: {k.tsvc['category']} — {k.tsvc['optimization']}", markup=False)
    out.print(f"reference: {k.reference_path}")
    out.print("\nC ABI (see --abi c|cpp|fortran|cuda):")
    out.print(show_abi(k, "c"), markup=False, highlight=False)
    return 0


def cmd_grade(args, out: Console) -> int:
    from hpcab.build import candidate_from_file
    from hpcab.case import preset_case
    from hpcab.corpus import load_corpus
    from hpcab.grade import grade
    from hpcab.record import connect, save_grade
    from hpcab.run import Policy
    from hpcab.toolchain import load_toolchains

    kernel = load_corpus().get(args.kernel)
    candidate = candidate_from_file(Path(args.source), args.language)
    toolchains = load_toolchains()
    toolchains.flagset(args.flags)             # an unknown flag set is a usage error, before any work
    cases = [preset_case(kernel, p, seed=args.seed) for p in args.preset.split(",")]
    policy = Policy(threads=args.threads, timeout_seconds=args.timeout,
                    target_seconds=args.target_seconds)
    with out.status("grading…") as status:
        g = grade(kernel, candidate, cases, toolchains, args.flags, policy,
                  progress=lambda msg: status.update(f"{kernel.name}: {msg}"))
    if args.db:
        save_grade(connect(args.db), g)
    doc = grade_document(g)
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        print_grade(doc, out, args.db)
    return 0 if g.correct else EXIT_INCORRECT


def _fmt_timing(t) -> str:
    return f"{fmt_time(t.median_ns)} [{fmt_time(t.ci_low_ns)}, {fmt_time(t.ci_high_ns)}]" if t else "-"


def _fmt_speedup(sp) -> str:
    return fmt_speedup(speedup_json(sp))


def cmd_baseline(args, out: Console) -> int:
    from hpcab.baseline import measure_baseline
    from hpcab.case import preset_case
    from hpcab.corpus import load_corpus
    from hpcab.grade import geometric_mean_speedup
    from hpcab.run import Policy
    from hpcab.toolchain import load_toolchains

    kernel = load_corpus().get(args.kernel)
    cases = [preset_case(kernel, p, seed=args.seed) for p in args.preset.split(",")]
    policy = Policy(threads=args.threads, timeout_seconds=args.timeout, target_seconds=args.target_seconds)
    with out.status("timing the baseline…") as status:
        m = measure_baseline(kernel, cases, load_toolchains(), policy,
                             progress=lambda msg: status.update(f"{kernel.name}: {msg}"))
    name, is_numpy = m.baseline.name, m.baseline.name == "numpy"
    failed = [c for c in m.cases if c.status != "ok"]
    overall = None if is_numpy or failed else geometric_mean_speedup(
        [c.speedup_over_numpy for c in m.cases if c.speedup_over_numpy])
    if overall is not None and not all(c.speedup_over_numpy for c in m.cases):
        overall = None
    if args.json:
        print(json.dumps({
            "kernel": m.kernel_id, "track": m.track, "baseline": name, "origin": m.baseline.origin or None,
            "hand_written": m.baseline.hand_written, "error": m.error, "threads": m.policy.threads,
            "speedup_vs_numpy": speedup_json(overall),
            "cases": [{"label": c.case.label, "sizes": c.case.sizes, "seed": c.case.seed, "status": c.status,
                       "message": c.message,
                       "numpy_median_ns": c.numpy_timing.median_ns if c.numpy_timing else None,
                       "numpy_ci95_ns": [c.numpy_timing.ci_low_ns, c.numpy_timing.ci_high_ns] if c.numpy_timing else None,
                       "baseline_median_ns": c.baseline_timing.median_ns if c.baseline_timing else None,
                       "baseline_ci95_ns": ([c.baseline_timing.ci_low_ns, c.baseline_timing.ci_high_ns]
                                            if c.baseline_timing else None),
                       "speedup_vs_numpy": speedup_json(c.speedup_over_numpy)} for c in m.cases],
        }, indent=2))
    else:
        title = (f"{m.kernel_id} — the {m.track} baseline: {name}"
                 + (f" ({m.baseline.origin})" if m.baseline.origin else "") + f", {m.policy.threads} thread(s)")
        table = Table(title=escape(title))
        cols = ["case", "numpy (median, 95% CI)"] + ([] if is_numpy else [f"{name} (median, 95% CI)",
                                                                           f"{name} vs numpy"])
        for col in cols:
            table.add_column(col)
        for c in m.cases:
            row = [c.case.describe(), _fmt_timing(c.numpy_timing) if c.status == "ok" else f"[red]{c.status}[/red]"]
            if not is_numpy:
                row += [_fmt_timing(c.baseline_timing), _fmt_speedup(c.speedup_over_numpy)]
            table.add_row(*row)
        out.print(table)
        for c in failed:
            out.print(f"[red]{c.case.label}:[/red] {escape(c.message)}", highlight=False)
        if m.error:
            print_baseline_error(name, m.error, out)
        if is_numpy and not failed:
            out.print(f"the {m.track} track's baseline is the NumPy reference itself", highlight=False)
        elif overall is not None:
            over = "" if len(m.cases) == 1 else f", geometric mean of {len(m.cases)} cases"
            out.print(f"baseline {name}: {overall.value:.2f}× over the NumPy reference "
                      f"(95% CI {overall.ci_low:.2f}–{overall.ci_high:.2f}{over}): {plain_speedup(overall.value, 'NumPy')}",
                      highlight=False)
    if failed or m.error:
        return EXIT_INCORRECT
    return 0


def cmd_translate(args, out: Console) -> int:
    err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
    if args.report:
        return _translate_report(args, out)
    if not args.kernel or not args.language:
        raise HpcabError("translate: give a kernel and --language c|cpp|fortran (or --report)")
    from hpcab.corpus import load_corpus
    from hpcab.translate import TranslateError, translate
    kernel = load_corpus().get(args.kernel)
    try:
        t = translate(kernel, args.language, args.flags)
    except TranslateError as exc:
        err.print(f"[bold red]error:[/bold red] cannot translate {kernel.name} to {args.language}:",
                  highlight=False)
        for d in exc.diagnostics:
            err.print(str(d), markup=False, highlight=False)
        return EXIT_USAGE
    except (ImportError, NotImplementedError) as exc:
        err.print(f"[bold red]error:[/bold red] the translator cannot produce {args.language} for {kernel.name} "
                  f"yet: {type(exc).__name__}: {exc}", markup=True, highlight=False)
        return EXIT_USAGE
    if args.out:
        Path(args.out).write_text(t.source)
    else:
        sys.stdout.write(t.source)
    what = (f"hand-written: {t.origin} (the override replaces the generated code)" if t.hand_written
            else f"generated from {kernel.reference_path} (flags {t.flagset})")
    err.print(f"{kernel.name} → {args.language}: {what}" + (f"; written to {args.out}" if args.out else ""),
              markup=False, highlight=False)
    return 0


def _translate_report(args, out: Console) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from hpcab.corpus import load_corpus
    from hpcab.run import Policy
    from hpcab.toolchain import load_toolchains
    from hpcab.translate.report import VARIANTS, report_summary, run_report

    if args.kernel:
        raise HpcabError("translate --report: select kernels with --kernels, not a positional kernel")
    kernels = load_corpus().select(args.kernels)
    if "," in args.preset:
        raise HpcabError("translate --report: --preset takes one preset (S, M or L)")
    policy = Policy(threads=args.threads, timeout_seconds=args.timeout, target_seconds=args.target_seconds)
    toolchains = load_toolchains()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("translating", total=len(kernels) * len(VARIANTS))
        started = []

        def step(msg: str) -> None:
            if started:
                bar.advance(task)
            started.append(msg)
            bar.update(task, description=msg)
        report = run_report(kernels, toolchains, args.preset, policy, progress=step)
        bar.advance(task)
    if args.json:
        print(json.dumps(report_summary(report), indent=2))
        return 0
    names = {"c": "C", "fortran": "Fortran", "c-autopar": "C autopar"}
    table = Table(title=f"translated code against NumPy — preset {report.preset}, {policy.threads} thread(s)")
    for col in (["kernel", "track"] + [names[c] for c, _, _ in VARIANTS] + ["NumPy"]
                + [f"{names[c]} vs NumPy" for c, _, _ in VARIANTS]):
        table.add_column(col)
    hand = False
    for r in report.rows:
        times, speeds = [], []
        for column, _, _ in VARIANTS:
            e = r.entries[column]
            mark = "*" if e.hand_written else ""
            hand = hand or e.hand_written
            times.append(fmt_time(e.time_ns) + mark if e.ok else f"[red]{escape(e.status)}[/red]")
            speeds.append(f"{e.speedup.value:.2f}×" if e.ok and e.speedup else "-")
        table.add_row(r.name, r.track, *times, fmt_time(r.numpy_ns), *speeds)
    table.caption = ("each speedup is over NumPy timed interleaved in the same session; NumPy: the first session's"
                     + ("; * hand-written override, not generated" if hand else ""))
    out.print(table)
    for track, cols in report.track_means().items():
        parts = [f"{names[c]} {sp.value:.2f}× (n={n})" if sp else f"{names[c]} - (n=0)"
                 for c, (sp, n) in cols.items()]
        out.print(f"{track}: geometric mean speedup over NumPy — " + ", ".join(parts), highlight=False)
    failures = [(r, c, e) for r in report.rows for c, e in r.entries.items() if not e.ok]
    if failures and args.verbose:
        for r, c, e in failures:
            out.print(f"[red]{r.name} {c}: {escape(e.status)}[/red]", highlight=False)
            if e.message:
                out.print(e.message.strip(), markup=False, highlight=False)
    elif failures:
        out.print(f"{len(failures)} variant(s) without a time; --verbose prints why", highlight=False)
    return 0


def cmd_lint(args, out: Console) -> int:
    from hpcab.corpus import load_corpus
    from hpcab.translate import lint
    kernels = load_corpus().select(args.selector)
    dirty, total = [], 0
    for k in kernels:
        try:
            diagnostics = lint(k)
        except (ImportError, NotImplementedError) as exc:
            raise HpcabError(f"lint: the translator cannot lint yet: {type(exc).__name__}: {exc}") from None
        for d in diagnostics:
            out.print(str(d), markup=False, highlight=False)
        if diagnostics:
            dirty.append(k.name)
            total += len(diagnostics)
    clean = len(kernels) - len(dirty)
    summary = f"{len(kernels)} kernel(s) linted: {clean} clean"
    if dirty:
        summary += f", {len(dirty)} with {total} diagnostic(s) ({', '.join(dirty)})"
    out.print(summary, markup=False, highlight=False)
    return 1 if dirty else 0


def _measurement_options(s: argparse.ArgumentParser, timed: str) -> None:
    s.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    s.add_argument("--threads", type=int, default=1, help=f"threads granted to {timed} (default 1)")
    s.add_argument("--timeout", type=float, default=120.0, help="wall-clock limit per case, seconds (default 120)")
    s.add_argument("--target-seconds", type=float, default=1.0,
                   help="timed work per target before stopping repetitions (default 1.0)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hpcab", description="A benchmark for optimizers of numerical code.")
    p.add_argument("--version", action="version", version=f"hpcab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("list", help="list the corpus's kernels")
    s.add_argument("--kernels", help="selector: names, tracks, dwarfs, levels (e.g. gemm,structured_grids,L2)")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("show", help="describe a kernel, or print its ABI for a language")
    s.add_argument("kernel")
    s.add_argument("--abi", choices=("c", "cpp", "fortran", "cuda"), help="print exactly the prototype to implement")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("grade", help="build, check and time a candidate against the NumPy reference")
    s.add_argument("kernel")
    s.add_argument("--source", required=True, help="the candidate's source file")
    s.add_argument("--language", choices=("c", "cpp", "fortran"), help="default: from the file's suffix")
    s.add_argument("--preset", default="S", help="S, M or L, or several: S,M (default S)")
    s.add_argument("--flags", default=None, help="flag set from toolchains/ (default: opt)")
    s.add_argument("--db", help="record the grade in this SQLite judge database")
    _measurement_options(s, "the candidate and NumPy")
    s.add_argument("--json", action="store_true", help="print the grade as JSON")
    s.set_defaults(func=cmd_grade)

    s = sub.add_parser("baseline", help="time the track's baseline and the NumPy reference (no candidate)")
    s.add_argument("kernel")
    s.add_argument("--preset", default="S", help="S, M or L, or several: S,M (default S)")
    _measurement_options(s, "the baseline and NumPy")
    s.add_argument("--json", action="store_true", help="print the measurement as JSON")
    s.set_defaults(func=cmd_baseline)

    s = sub.add_parser("translate", help="print the translator's C, C++ or Fortran for a kernel, "
                                         "or (--report) time it against NumPy")
    s.add_argument("kernel", nargs="?")
    s.add_argument("--language", choices=("c", "cpp", "fortran"))
    s.add_argument("--flags", choices=("opt", "autopar"), default="opt",
                   help="the flag set the code is generated for (autopar: parallel loops; default opt)")
    s.add_argument("--out", help="write the source to this file instead of stdout")
    s.add_argument("--report", action="store_true",
                   help="grade the generated C, Fortran and C autopar against NumPy, kernel by kernel")
    s.add_argument("--preset", default="M", help="--report: the preset (default M)")
    s.add_argument("--kernels", help="--report: selector (default: every kernel)")
    s.add_argument("--threads", type=int, default=2, help="--report: threads (default 2)")
    s.add_argument("--timeout", type=float, default=120.0, help="--report: wall-clock limit per grade, seconds")
    s.add_argument("--target-seconds", type=float, default=1.0,
                   help="--report: timed work per target before stopping repetitions (default 1.0)")
    s.add_argument("--json", action="store_true", help="--report: print the report as JSON")
    s.add_argument("--verbose", action="store_true", help="--report: say why each failed variant failed")
    s.set_defaults(func=cmd_translate)

    s = sub.add_parser("lint", help="check that references are in the canonical NumPy subset the translator reads")
    s.add_argument("selector", help="a kernel, 'all', or a selector (names, tracks, dwarfs, levels)")
    s.set_defaults(func=cmd_lint)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # A pipe or a CI log gets wide tables instead of rich's 80-column default.
    out = Console(width=None if sys.stdout.isatty() else 160)
    try:
        return args.func(args, out)
    except HpcabError as exc:
        Console(stderr=True).print(f"[bold red]error:[/bold red] {exc}", markup=True, highlight=False)
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
