"""hpcab translate: the translator's C, C++ or Fortran for a kernel, or (--report) that
code timed against NumPy over the corpus."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab.cli.common import EXIT_USAGE, say, sessions_option
from hpcab.errors import HpcabError, InputError
from hpcab.gradedoc import fmt_time


def cmd_translate(args, out: Console) -> int:
    err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
    if args.report:
        return _translate_report(args, out)
    if not args.kernel or not args.language:
        raise HpcabError("translate: give a kernel and --language c|cpp|fortran (or --report)")
    from hpcab.corpus import load_corpus
    from hpcab.translate import TranslateError, translate
    kernel = load_corpus().get(args.kernel)
    # The checks lint and grade apply (file present, importable, signature in manifest order):
    # code translated from a reference the judge refuses would be graded against nothing.
    kernel.reference()
    try:
        t = translate(kernel, args.language, args.flags)
    except TranslateError as exc:
        err.print(f"[bold red]error:[/bold red] cannot translate {escape(kernel.name)} to {args.language}:",
                  highlight=False, soft_wrap=True)
        for d in exc.diagnostics:
            say(err, str(d))
        return EXIT_USAGE
    except (ImportError, NotImplementedError) as exc:
        err.print(f"[bold red]error:[/bold red] the translator cannot produce {args.language} for "
                  f"{escape(kernel.name)} yet: {escape(f'{type(exc).__name__}: {exc}')}", markup=True,
                  highlight=False, soft_wrap=True)
        return EXIT_USAGE
    if args.out:
        try:
            Path(args.out).write_text(t.source)
        except OSError as exc:
            raise InputError("--out", args.out, f"cannot write the source: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(t.source)
    what = (f"hand-written: {t.origin} (the override replaces the generated code)" if t.hand_written
            else f"generated from {kernel.reference_path} (flags {t.flagset})")
    say(err, f"{kernel.name} → {args.language}: {what}" + (f"; written to {args.out}" if args.out else ""))
    return 0


def _translate_report(args, out: Console) -> int:
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from hpcab.corpus import load_corpus
    from hpcab.timing.policy import Policy
    from hpcab.toolchain import load_toolchains
    from hpcab.translate.report import VARIANTS, progress_line, report_summary, run_report

    if args.kernel:
        raise HpcabError("translate --report: select kernels with --kernels, not a positional kernel")
    kernels = load_corpus().select(args.kernels)
    if "," in args.preset:
        raise HpcabError("translate --report: --preset takes one preset (S, M or L)")
    policy = Policy(threads=args.threads, timeout_seconds=args.timeout, target_seconds=args.target_seconds,
                    sessions=args.sessions, drift=args.drift)
    toolchains = load_toolchains()
    err = Console(stderr=True)
    lines = not err.is_terminal         # piped or in a log: no live bar is drawn, so a line per kernel
    clock = time.monotonic()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True, disable=lines) as bar:
        task = bar.add_task("translating", total=len(kernels) * len(VARIANTS))
        started, done = [], []

        def step(msg: str) -> None:
            if started:
                bar.advance(task)
            started.append(msg)
            bar.update(task, description=msg)

        def finished(row) -> None:
            done.append(row)
            if lines:
                err.print(progress_line(len(done), len(kernels), row, time.monotonic() - clock),
                          markup=False, highlight=False, soft_wrap=True)
                err.file.flush()
        report = run_report(kernels, toolchains, args.preset, policy, progress=step, finished=finished)
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
    dwarfs = [(f"  {d}", c) for d, c in report.dwarf_means().items()]     # under scientific_computing's line
    for group, cols in [g for t in report.track_means().items()
                        for g in ([t, *dwarfs] if t[0] == "scientific_computing" else [t])]:
        parts = [f"{names[c]} {sp.value:.2f}× (n={n})" if sp else f"{names[c]} - (n=0)"
                 for c, (sp, n) in cols.items()]
        out.print(f"{group}: geometric mean speedup over NumPy — " + ", ".join(parts), highlight=False)
    failures = [(r, c, e) for r in report.rows for c, e in r.entries.items() if not e.ok]
    if failures and args.verbose:
        for r, c, e in failures:
            out.print(f"[red]{r.name} {c}: {escape(e.status)}[/red]", highlight=False)
            if e.message:
                out.print(e.message.strip(), markup=False, highlight=False)
    elif failures:
        out.print(f"{len(failures)} variant(s) without a time; --verbose prints why", highlight=False)
    return 0


def register(sub) -> None:
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
                   help="--report: timed work per target and case, over all its sessions (default 1.0)")
    sessions_option(s)
    s.add_argument("--json", action="store_true", help="--report: print the report as JSON")
    s.add_argument("--verbose", action="store_true", help="--report: say why each failed variant failed")
    s.set_defaults(func=cmd_translate)
