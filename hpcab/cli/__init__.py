"""The hpcab command line: list, show, grade, baseline, translate, lint, new-kernel, calibrate, serve, review,
submit, agent, status, images, reproduce, report, mcp, tokens, probe."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab import __version__
from hpcab.errors import HpcabError, InputError
from hpcab.gradedoc import (fmt_speedup, fmt_time, grade_document, plain_speedup, print_baseline_error, print_grade,
                            speedup_json)

EXIT_INCORRECT = 1
EXIT_USAGE = 2


def cmd_list(args, out: Console) -> int:
    """The kernels that load, then one line per broken kernel the selector covers. Exit 1
    when the selector names a broken kernel by name or ID; a broken kernel listed because
    its track or dwarf (or 'all') was asked for is shown but leaves the exit status 0."""
    from hpcab.corpus import load_corpus
    corpus = load_corpus()
    kernels = corpus.select(args.kernels, skip_broken=True)
    broken = corpus.broken_in(args.kernels)
    if args.mpi:             # the distributed track: kernels with an mpi: block (docs/mpi.md)
        kernels = tuple(k for k in kernels if k.mpi is not None)
    table = Table(title=f"{len(kernels)} kernel(s)" + (" in the distributed track" if args.mpi else ""))
    for col in ("kernel", "track", "dwarf / category", "level", "dtypes", "description"):
        table.add_column(col, overflow="fold")
    for k in kernels:
        dtypes = sorted({a.dtype for a in k.arrays} | {r.dtype for r in k.returns})
        sub = k.dwarf or (k.tsvc or {}).get("category", "")
        desc = k.description if len(k.description) < 60 else k.description[:57] + "..."
        table.add_row(k.name, k.track, sub, f"L{k.level}", ", ".join(dtypes), escape(desc))
    out.print(table)
    if broken:
        _say(out, f"{len(broken)} kernel(s) do not load (`hpcab lint all` lints the rest):")
        for b in broken:
            _say(out, f"  {b.describe()}")
    asked = args.kernels and any(b.named_by(t.strip()) for b in broken for t in args.kernels.split(","))
    return 1 if asked else 0


def _say(console: Console, text: str) -> None:
    """One message line, never wrapped (a pipe must not split a path), never markup."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def cmd_show(args, out: Console) -> int:
    from hpcab.abi import show_abi
    from hpcab.check import tolerance_for
    from hpcab.corpus import load_corpus
    k = load_corpus().get(args.kernel)
    if args.mpi:
        from hpcab.mpi.abi import show_mpi_abi
        sys.stdout.write(show_mpi_abi(k, args.abi or "c"))
        return 0
    if args.abi:
        sys.stdout.write(show_abi(k, args.abi))   # exact text, for copying into a file
        return 0
    out.print(f"[bold]{escape(k.id)}[/bold]  (level {k.level})")
    out.print(k.description, markup=False)
    out.print(f"provenance: {k.provenance}", markup=False)
    out.print(f"sizes: {', '.join(k.sizes)}" + (f"   constraints: {'; '.join(k.constraints)}" if k.constraints else ""),
              markup=False)
    for name, p in k.presets.items():
        out.print(f"  preset {name}: " + " ".join(f"{s}={v}" for s, v in p.items()), markup=False)
    tol = tolerance_for(k)
    out.print(f"precision: {k.precision}" + ("" if k.precision == "exact" else
              f" (rtol {tol.rtol:g}, atol {tol.atol:g}×max|ref|, normwise {tol.normwise:g})"))
    if k.tsvc:
        out.print(f"tsvc: {k.tsvc['category']} — {k.tsvc['optimization']}", markup=False)
    for line in _roofline_lines(k):
        _say(out, line)
    _say(out, _baseline_line(k))
    _say(out, f"reference: {k.reference_path}" + ("" if k.reference_path.is_file() else " (missing)"))
    out.print("\nC ABI (see --abi c|cpp|fortran|cuda|python|pythran):")
    out.print(show_abi(k, "c"), markup=False, highlight=False)
    return 0


def _roofline_lines(k) -> list[str]:
    """The manifest's lower bounds and their values at each preset; with the time they give
    on this machine when `hpcab probe` has already measured it (never measured here)."""
    from hpcab.roofline import bound, cached_machine
    if k.roofline is None:
        return ["roofline: none declared (the plausibility check cannot bound this kernel)"]
    machine = cached_machine()
    lines = [f"roofline (lower bounds): flops {k.roofline.flops}; bytes {k.roofline.bytes}"]
    for name, sizes in k.presets.items():
        flops, nbytes = k.roofline.evaluate(sizes)
        line = f"  preset {name}: {flops:,} flop, {nbytes:,} bytes"
        if nbytes:
            line += f", {flops / nbytes:.3g} flop/byte"
        if machine is not None:
            b = bound(k, sizes, machine)
            line += f"; at least {fmt_time(b.ns)} here ({b.limited_by}-bound)"
        lines.append(line)
    lines.append(f"  bound on {machine.describe()} (hpcab probe, {machine.measured_at})" if machine is not None
                 else "  (`hpcab probe` measures this machine; then show prints the time each preset needs at least)")
    return lines


def _baseline_line(k) -> str:
    from hpcab.baseline import AUTOPAR_FLAGSET, baseline_name
    from hpcab.translate import override_path
    name = baseline_name(k)
    what = {"numpy": "the NumPy reference itself",
            "numba": "the NumPy reference compiled by numba.njit"}.get(name)
    if what is None:
        override = override_path(k, "c")
        what = (f"the hand-written C {override}" if override.is_file() else "the translator's C") \
            + f", built with the {AUTOPAR_FLAGSET} flag set"
    return f"baseline ({k.track}): {name}, {what} (`hpcab baseline {k.name}` times it)"


def cmd_grade(args, out: Console) -> int:
    from hpcab.build import candidate_from_file
    from hpcab.corpus import load_corpus
    from hpcab.grade import grade
    from hpcab.record import connect, save_grade
    from hpcab.run import Policy
    from hpcab.toolchain import load_toolchains

    kernel = load_corpus().get(args.kernel)
    candidate = candidate_from_file(Path(args.source), args.language)
    toolchains = load_toolchains()
    _flagset(toolchains, args.flags)           # an unknown flag set is a usage error, before any work
    cases = _preset_cases(kernel, args.preset, args.seed)
    _check_threads(args.threads)
    db = _open_db(connect, args.db) if args.db else None     # before the grading, not after its minutes
    policy = Policy(threads=args.threads, timeout_seconds=args.timeout,
                    target_seconds=args.target_seconds, sessions=args.sessions, drift=args.drift)
    with out.status("grading…") as status:
        g = grade(kernel, candidate, cases, toolchains, args.flags, policy,
                  progress=lambda msg: status.update(f"{kernel.name}: {msg}"), ranks=args.ranks,
                  launcher=args.launcher)
    if db is not None:
        save_grade(db, g)
    doc = grade_document(g)
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        print_grade(doc, out, args.db)
    return 0 if g.correct else EXIT_INCORRECT


def _open_db(connect, path: str):
    import sqlite3

    from hpcab.record import DatabaseError
    if Path(path).is_dir():
        raise InputError("--db", path, "is a folder; expected a judge database file (created if missing)")
    try:
        return connect(path)
    except (sqlite3.Error, DatabaseError) as exc:
        raise InputError("--db", path, f"cannot open the judge database: {exc}") from None
    except OSError as exc:             # its folder cannot be made
        raise InputError("--db", path, f"cannot create the judge database: {exc.strerror or exc}") from None


def _preset_cases(kernel, text: str, seed: int) -> list:
    """--preset S or S,M: one case per preset; an unknown one is the flag's mistake."""
    from hpcab.case import preset_case
    from hpcab.errors import did_you_mean
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise InputError("--preset", repr(text), f"expected one of {', '.join(kernel.presets)}, or several: S,M")
    for p in names:
        if p not in kernel.presets:
            raise InputError("--preset", p, f"{kernel.name} has no such preset; expected one of "
                                            f"{', '.join(kernel.presets)}, or several: S,M"
                             + did_you_mean(p, kernel.presets))
    return [preset_case(kernel, p, seed=seed) for p in names]


def _flagset(toolchains, name: str | None):
    from hpcab.errors import did_you_mean
    if name is not None and name not in toolchains.flagsets:
        raise InputError("--flags", name, f"no such flag set in toolchains/; expected one of "
                                          f"{', '.join(sorted(toolchains.flagsets))}"
                         + did_you_mean(name, toolchains.flagsets))
    return toolchains.flagset(name)


def _check_threads(threads: int) -> None:
    """A timed run pins one CPU per thread: more threads than CPUs would be timed oversubscribed."""
    usable = len(os.sched_getaffinity(0))
    if threads > usable:
        raise InputError("--threads", str(threads), f"this machine lets hpcab use {usable} CPU(s); "
                                                    f"expected 1 to {usable}")


def _fmt_timing(t) -> str:
    return f"{fmt_time(t.median_ns)} [{fmt_time(t.ci_low_ns)}, {fmt_time(t.ci_high_ns)}]" if t else "-"


def _fmt_speedup(sp) -> str:
    return fmt_speedup(speedup_json(sp), "\n")


def cmd_baseline(args, out: Console) -> int:
    from hpcab.baseline import measure_baseline
    from hpcab.corpus import load_corpus
    from hpcab.run import Policy
    from hpcab.toolchain import load_toolchains

    kernel = load_corpus().get(args.kernel)
    cases = _preset_cases(kernel, args.preset, args.seed)
    _check_threads(args.threads)
    policy = Policy(threads=args.threads, timeout_seconds=args.timeout, target_seconds=args.target_seconds,
                    sessions=args.sessions, drift=args.drift)
    with out.status("timing the baseline…") as status:
        m = measure_baseline(kernel, cases, load_toolchains(), policy,
                             progress=lambda msg: status.update(f"{kernel.name}: {msg}"))
    name, is_numpy = m.baseline.name, m.baseline.name == "numpy"
    failed, overall = m.failed, m.overall()
    if args.json:
        print(json.dumps(m.document(), indent=2))
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
            out.print(f"[red]{c.case.label}:[/red] {escape(c.message)}", highlight=False, soft_wrap=True)
        if m.error:
            print_baseline_error(name, m.error, out)
        if is_numpy and not failed:
            out.print(f"the {m.track} track's baseline is the NumPy reference itself", highlight=False,
                      soft_wrap=True)
        elif overall is not None:
            over = "" if len(m.cases) == 1 else f", geometric mean of {len(m.cases)} cases"
            out.print(f"baseline {name}: {overall.value:.2f}× over the NumPy reference "
                      f"(95% CI {overall.ci_low:.2f}–{overall.ci_high:.2f}{over}): {plain_speedup(speedup_json(overall), 'NumPy')}",
                      highlight=False, soft_wrap=True)
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
    # The checks lint and grade apply (file present, importable, signature in manifest order):
    # code translated from a reference the judge refuses would be graded against nothing.
    kernel.reference()
    try:
        t = translate(kernel, args.language, args.flags)
    except TranslateError as exc:
        err.print(f"[bold red]error:[/bold red] cannot translate {escape(kernel.name)} to {args.language}:",
                  highlight=False, soft_wrap=True)
        for d in exc.diagnostics:
            _say(err, str(d))
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
    _say(err, f"{kernel.name} → {args.language}: {what}" + (f"; written to {args.out}" if args.out else ""))
    return 0


def _translate_report(args, out: Console) -> int:
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from hpcab.corpus import load_corpus
    from hpcab.run import Policy
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


def cmd_new_kernel(args, out: Console) -> int:
    from hpcab.paths import corpus_dir
    from hpcab.scaffold import new_kernel, next_steps
    files = new_kernel(args.kernel, Path(args.corpus) if args.corpus else corpus_dir())
    out.print(f"created {files[0].parent}:", markup=False, highlight=False)
    for f in files:
        out.print(f"  {f.name}", markup=False, highlight=False)
    out.print("next:", markup=False, highlight=False)
    for step in next_steps(files[0].parent.name, files, args.corpus):
        out.print(f"  {step}", markup=False, highlight=False)
    return 0


def cmd_calibrate(args, out: Console) -> int:
    from hpcab.calibrate import TARGETS, presets_yaml, rewrite_presets, run_child
    from hpcab.corpus import load_corpus
    if not args.max_seconds > 0:
        raise HpcabError(f"--max-seconds {args.max_seconds:g}: expected a positive number of seconds")
    kernel = load_corpus(Path(args.corpus) if args.corpus else None).get(args.kernel)
    result = run_child(kernel, args.max_seconds)
    out.print(f"{kernel.name}: NumPy reference on one core; time ~ work^{result['exponent']:.2f}",
              markup=False, highlight=False)
    def ns(seconds):
        return None if seconds is None else seconds * 1e9
    for p, target in TARGETS.items():
        sizes = result["proposed"][p]
        how = "predicted" if result["predicted"][p] else "measured"
        out.print(f"  {p}: current {' '.join(f'{k}={v}' for k, v in kernel.presets[p].items())} "
                  f"{fmt_time(ns(result['measured'][p]))}; proposed {' '.join(f'{k}={v}' for k, v in sizes.items())} "
                  f"{fmt_time(ns(result['proposed_seconds'][p]))} ({how}; target {fmt_time(ns(target))}"
                  f"{'; cut short by the 2 GB limit' if result['capped'][p] else ''})", markup=False, highlight=False)
    snippet = presets_yaml(result["proposed"])
    out.print(snippet.rstrip(), markup=False, highlight=False)
    if args.write:
        rewrite_presets(kernel, result["proposed"])
        out.print(f"wrote the presets into {kernel.manifest_path}", markup=False, highlight=False)
    return 0


def cmd_sweep(args, out: Console) -> int:
    """Every failed finding of the selected kernels' baselines, one line each; exit 1 if any."""
    from hpcab.corpus import load_corpus
    from hpcab.sweep import sweep_kernel
    from hpcab.toolchain import load_toolchains
    kernels = load_corpus(Path(args.corpus) if args.corpus else None).select(args.selector)
    lacking = [k.name for k in kernels if args.preset not in k.presets]
    if lacking:
        raise HpcabError(f"--preset {args.preset}: not a preset of {', '.join(lacking)}")
    toolchains = load_toolchains()
    failed = 0
    for k in kernels:
        for finding in sweep_kernel(k, toolchains, args.preset):
            if not finding.ok:
                failed += 1
                _say(out, str(finding))
    _say(out, f"{len(kernels)} kernel(s) swept at {args.preset}: {failed} finding(s) failed")
    return 1 if failed else 0


def cmd_lint(args, out: Console) -> int:
    """Every broken kernel the selector covers is reported (file: field: problem), and the
    others are linted; exit 1 when any has a problem."""
    from hpcab.corpus import load_corpus
    from hpcab.gate import lint_kernel
    corpus = load_corpus(Path(args.corpus) if args.corpus else None)
    kernels = corpus.select(args.selector, skip_broken=True)
    broken = corpus.broken_in(args.selector)
    for b in broken:
        _say(out, b.describe())
    dirty, total = [], 0
    for k in kernels:
        diagnostics = lint_kernel(k)
        for d in diagnostics:
            _say(out, d)
        if diagnostics:
            dirty.append(k.name)
            total += len(diagnostics)
    clean = len(kernels) - len(dirty)
    summary = f"{len(kernels)} kernel(s) linted: {clean} clean"
    if dirty:
        summary += f", {len(dirty)} with {total} diagnostic(s) ({', '.join(dirty)})"
    if broken:
        summary += f"; {len(broken)} do not load ({', '.join(b.id for b in broken)})"
    _say(out, summary)
    return 1 if dirty or broken else 0


def cmd_serve(args, out: Console) -> int:
    from hpcab.judge.server import HttpLimits, configure_logging, serve
    from hpcab.judge.service import JudgeConfig
    from hpcab.judge.slots import parse_slots

    try:
        # A judge grading on R ranks times, by default, in a slot of R CPUs (as many as there
        # are: more ranks share them; docs/mpi.md).
        width = max(args.threads, min(args.mpi_ranks, len(os.sched_getaffinity(0))))
        slots = parse_slots(args.slot, args.threads if args.slot else width)
    except ValueError as exc:
        raise HpcabError(str(exc)) from None
    if not args.build_timeout > 0:
        raise HpcabError(f"--build-timeout {args.build_timeout:g}: a compile needs a positive number of seconds")
    if not args.memory_gib > 0:
        raise HpcabError(f"--memory-gib {args.memory_gib:g}: a candidate needs a positive amount of memory")
    if not args.grade_timeout > 0:
        raise HpcabError(f"--grade-timeout {args.grade_timeout:g}: a grade needs a positive number of seconds")
    presets = tuple(p.strip() for p in args.presets.split(",") if p.strip())
    hidden = tuple(p.strip() for p in args.hidden_presets.split(",") if p.strip())
    config = JudgeConfig(db=Path(args.db), rank=args.rank, kernels=args.kernels,
                         tokens=Path(args.tokens) if args.tokens else None, workers=args.workers, queue=args.queue,
                         slots=slots, threads=args.threads, presets=presets, hidden_presets=hidden,
                         target_seconds=args.target_seconds, timeout_seconds=args.timeout,
                         sessions=args.sessions, drift=args.drift, build_seconds=args.build_timeout,
                         grade_seconds=args.grade_timeout, memory_bytes=int(args.memory_gib * 2**30),
                         secret_file=Path(args.secret_file) if args.secret_file else None,
                         sandbox="none" if args.unsandboxed else "bubblewrap",
                         mpi_ranks=args.mpi_ranks, mpi_launcher=args.mpi_launcher)
    if not 0 <= args.mpi_ranks <= 64:
        raise InputError("--mpi-ranks", str(args.mpi_ranks), "expected 0 (no distributed grades) to 64")
    configure_logging(Path(args.log) if args.log else None)
    if args.unsandboxed:
        Console(stderr=True).print("[bold yellow]warning:[/bold yellow] --unsandboxed: candidates compile and run "
                                   "without the bubblewrap sandbox", markup=True, highlight=False, soft_wrap=True)
    for name in ("max_body", "max_connections", "header_timeout", "body_timeout", "keep_alive_timeout"):
        if getattr(args, name) < 0 or (name != "max_connections" and not getattr(args, name) > 0):
            raise HpcabError(f"--{name.replace('_', '-')} {getattr(args, name):g}: expected a positive number")
    limits = HttpLimits(max_body=args.max_body, max_connections=args.max_connections,
                        header_seconds=args.header_timeout, body_seconds=args.body_timeout,
                        keep_alive_seconds=args.keep_alive_timeout)
    return serve(config, args.host, args.port, limits, Path(args.url_file) if args.url_file else None,
                 announce=lambda msg: print(msg, flush=True))


def _token(args) -> str | None:
    from hpcab.judge.tokens import client_token
    return client_token(args.token_file, getattr(args, "agent", None))


def cmd_submit(args, out: Console) -> int:
    from hpcab.client import JudgeClient, JudgeError

    _judge_url(args.judge, "submit")
    if not args.reconnect_seconds >= 0:
        raise HpcabError(f"--reconnect-seconds {args.reconnect_seconds:g}: give 0 or more seconds")

    def say(line: str) -> None:
        # sys.stderr looked up now: inside out.status rich has swapped it for a proxy that
        # prints above the spinner.
        print(f"hpcab submit: {line}", file=sys.stderr, flush=True)

    client = JudgeClient(args.judge, _token(args), args.rank, reconnect_seconds=args.reconnect_seconds,
                         on_retry=say)
    what = "scoring" if args.score else "submitting"
    try:
        with out.status(f"{what} {Path(args.source).name} for {args.kernel} at {args.judge}…"):
            doc = client.submit_file(args.kernel, args.source, args.language, score_only=args.score,
                                     flagset=args.flags)
    except JudgeError as exc:
        if exc.status is None:          # unreachable: the message says so
            raise HpcabError(exc.message) from None
        raise HpcabError(f"the judge at {args.judge} refused: {exc}") from None
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        print_grade(doc, out, recorded_in=None if args.score else f"the judge's database ({args.judge})")
    return 0 if doc["correct"] else EXIT_INCORRECT


def _judge_url(url: str, command: str) -> None:
    from urllib.parse import urlsplit
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
        raise HpcabError(f"{command}: --judge takes the judge's URL, e.g. http://127.0.0.1:8000, not {url!r}")


def cmd_mcp(args, out: Console) -> int:
    import logging

    from hpcab import mcp
    from hpcab.client import JudgeClient

    _judge_url(args.judge, "mcp")
    host, port = _mcp_http_address(args.http) if args.http else (None, None)
    if host is not None and (args.token_file or args.agent):
        raise HpcabError("mcp --http: each HTTP client sends its own judge token (Authorization: Bearer), "
                         "so --token-file and --agent are for stdio only")
    handler = logging.StreamHandler(sys.stderr)      # stdout carries the protocol only
    handler.setFormatter(logging.Formatter("hpcab mcp: %(message)s"))
    log = logging.getLogger("hpcab.mcp")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    name = f"the judge at {args.judge} (rank {args.rank})"
    if host is None:
        mcp.serve_stdio(mcp.make_server(JudgeClient(args.judge, _token(args), args.rank), judge_name=name))
        return 0

    def judge_for(ctx) -> JudgeClient:
        try:
            return JudgeClient(args.judge, mcp.bearer_token(ctx), args.rank)
        except ValueError as exc:            # not a plausible token: the client's mistake, a tool error
            raise mcp.ToolError(f"the Authorization header's token: {exc}", "Authorization") from None
    server = mcp.make_server(JudgeClient(args.judge, None, args.rank), judge_name=name, judge_for=judge_for)
    mcp.serve_http(server, host, port)
    return 0


def _mcp_http_address(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise HpcabError(f"mcp --http takes HOST:PORT (e.g. 127.0.0.1:8765, or 0.0.0.0:8765 for other nodes), "
                         f"not {value!r}")
    return host, int(port)


def cmd_status(args, out: Console) -> int:
    from hpcab.launch.status import print_status, read_status
    print_status(Path(args.run_dir), out)
    return 0 if read_status(Path(args.run_dir))["state"] in ("succeeded", "running") else 1


def cmd_tokens(args, out: Console) -> int:
    from hpcab.judge.tokens import issue_tokens
    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    if len(names) == 1 and names[0].isdigit():
        names = [f"worker-{i}" for i in range(int(names[0]))]
    issue_tokens(names, args.submissions, Path(args.out), args.scores)
    out.print(f"wrote {len(names)} token(s) to {args.out} (mode 600): {', '.join(names)}", highlight=False)
    return 0


def cmd_probe(args, out: Console) -> int:
    from hpcab.roofline import probe
    from hpcab.toolchain import load_toolchains
    cpus = None
    if args.cpus:
        try:
            cpus = tuple(int(c) for c in args.cpus.split(",") if c.strip())
        except ValueError:
            raise HpcabError(f"probe: --cpus takes CPU numbers separated by commas, not {args.cpus!r}") from None
    with out.status("probing memory bandwidth and peak flop rates…"):
        m = probe(load_toolchains(), threads=args.threads, cpus=cpus, fresh=args.fresh)
    if args.json:
        print(json.dumps(m.document(), indent=2))
        return 0
    origin = (f"from the cache (measured {m.measured_at}; --fresh measures again)" if m.cached
              else f"measured now in {m.seconds:.2f} s")
    table = Table(title=escape(f"{m.cpu_model}: {m.threads} thread(s) on CPU {','.join(map(str, m.cpus))}"))
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name, value in m.bandwidth.items():
        table.add_row(f"memory bandwidth, {name}", f"{value / 1e9:.1f} GB/s")
    for name, value in m.peak.items():
        table.add_row(f"peak, {name}", f"{value / 1e9:.1f} GF/s")
    table.add_row("caches reached" + (" (assumed)" if m.cache_source == "assumed" else ""),
                  f"{m.cache_bytes / 2**20:.1f} MiB")
    table.add_row("bandwidth arrays", f"3 × {m.stream_array_bytes / 2**20:.0f} MiB")
    table.caption = escape(f"{origin}; built by {m.compiler} {m.compiler_version} with flag set {m.flagset}"
                           + (f"; caches: {'; '.join(m.caches)}" if m.caches else ""))
    out.print(table)
    return 0


def cmd_review(args, out: Console) -> int:
    import getpass

    from hpcab.record import DatabaseError, connect, implausible_grades, review_grade
    conn = connect(args.db)
    if args.grade:
        if args.accept == args.reject:
            raise HpcabError("review: give --accept or --reject with a grade id")
        try:
            review_grade(conn, args.grade, "accepted" if args.accept else "rejected", args.note or "",
                         args.reviewer or getpass.getuser())
        except DatabaseError as exc:
            raise HpcabError(f"review: {exc}") from None
        out.print(f"grade {args.grade} {'accepted' if args.accept else 'rejected'}", highlight=False)
        return 0
    rows = implausible_grades(conn, pending_only=not args.all)
    table = Table(title=f"{len(rows)} implausible grade(s)" + ("" if args.all else " waiting for review"))
    table.add_column("grade", no_wrap=True)
    for col in ("created", "kernel", "agent", "label", "why", "verdict"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(r["id"], r["created_at"], r["kernel"], r["agent"] or "-", escape(r["label"]),
                      escape(r["message"][:200]), r["verdict"] or "-")
    out.print(table)
    return 0


def cmd_images(args, out: Console) -> int:
    from hpcab.launch.images import load_lock, verify_rows
    lock = load_lock(args.lock)
    rows = verify_rows(lock, args.names or None)
    if not rows:
        out.print(f"{lock.path}: the lock lists no image; nothing to verify", highlight=False)
        return 0
    # Digests shortened to 16 hex digits in the table; each failure is printed in full below it.
    table = Table(title=f"images of {lock.path}")
    for col in ("name", "file", "expected", "actual", "ok"):
        table.add_column(col, overflow="fold", no_wrap=col in ("expected", "actual"))
    for r in rows:
        table.add_row(escape(r["name"]), escape(r["file"]), r["expected"][:16] + "…" if r["expected"] else "-",
                      r["actual"][:16] + "…" if r["actual"] else "-",
                      "[green]ok[/green]" if r["ok"] else f"[red]{r['state'].upper()}[/red]")
    out.print(table)
    for r in rows:
        if not r["ok"]:
            out.print(f"[red]{escape(r['error'])}[/red]", highlight=False)
    return 0 if all(r["ok"] for r in rows) else 1


def cmd_images_add(args, out: Console) -> int:
    import datetime as dt

    from hpcab.launch.images import add_entry, default_lock_path, docker_archive_config_digest, sha256_file
    from hpcab.toolchain import load_toolchains
    toolchains = load_toolchains()
    image = toolchains.images.get(args.name)
    if image is None:
        raise InputError("toolchains/images.toml", "images",
                         f"no image {args.name!r}; known: {', '.join(sorted(toolchains.images))}")
    lock = Path(args.lock) if args.lock else default_lock_path()
    sif = Path(args.sif)
    if not sif.is_file():
        raise InputError(args.sif, "", "no such SIF file")
    if args.docker_archive and args.oci_config_digest:
        raise HpcabError("images add: give --docker-archive TAR or --oci-config-digest sha256:HEX, not both")
    # Neither: a SIF built from an apptainer/*.def file, which has no OCI config (recorded as null).
    config = args.oci_config_digest or (docker_archive_config_digest(Path(args.docker_archive))
                                        if args.docker_archive else None)
    if args.toolchains_json:
        try:
            versions = json.loads(Path(args.toolchains_json).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(args.toolchains_json, "", f"expected a JSON object tool -> version: {exc}") from None
    else:       # what toolchains/ declares for the image (hpcab images versions inside it says what is there)
        versions = toolchains.matrix()["images"][args.name]["versions"]
    # The SIF is recorded relative to the lock's folder when it lies under it.
    try:
        where = os.path.relpath(sif.resolve(), lock.resolve().parent)
        where = where if not where.startswith("..") else str(sif.resolve())
    except ValueError:
        where = str(sif.resolve())
    entry = {"name": args.name, "role": image.role, "hardware": image.hardware, "sif": where,
             "sif_sha256": sha256_file(sif), "oci_config_digest": config, "toolchains": versions,
             "apptainer_version": args.apptainer_version,
             "built_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
    add_entry(lock, entry)
    out.print(f"{lock}: {args.name} → {where}\n  sif_sha256 {entry['sif_sha256']}\n  oci_config_digest {config}",
              highlight=False)
    return 0


def cmd_images_versions(args, out: Console) -> int:
    from hpcab.launch.images import installed_versions
    print(json.dumps(installed_versions(), indent=2))
    return 0


def cmd_reproduce(args, out: Console) -> int:
    import shutil
    import subprocess

    from hpcab.corpus import load_corpus
    from hpcab.environment import image_digest
    from hpcab.record import connect
    from hpcab.reproduce import TEST, DifferentImage, find_grade, recorded_image, reproduce, triple_json
    from hpcab.toolchain import load_toolchains

    db = Path(args.db)
    if not db.is_file():
        raise InputError(args.db, "", "no such judge database")
    conn = connect(db)
    grade_id = find_grade(conn, args.grade)
    then, now = recorded_image(conn, grade_id), image_digest()
    hint = ""
    if then != now and then != "native":
        # The image is available when the lock lists it with a local SIF: re-run inside it.
        from hpcab.launch.images import default_lock_path, entry_for_digest, exec_prefix, load_lock, verify
        entry = entry_for_digest(load_lock(args.lock), then) if args.lock or default_lock_path().exists() else None
        if entry is not None and entry.path is not None and entry.path.is_file():
            if shutil.which("apptainer"):
                digest = verify(entry)
                argv = exec_prefix(entry, [db.resolve().parent, Path.cwd()], 1 if entry.hardware != "cpu" else 0,
                                   digest) + ["python", "-m", "hpcab", "reproduce", grade_id, "--db", str(db.resolve())]
                argv += ["--json"] if args.json else []
                print(f"grade {grade_id} ran in image {entry.name} ({entry.path}): re-running inside it",
                      file=sys.stderr, flush=True)
                return subprocess.run(argv).returncode
            hint = f" (the lock's image {entry.name!r}, {entry.path}, is that image, but no apptainer is on PATH)"
        elif entry is not None:
            hint = f" (the lock's image {entry.name!r} is that image, but its SIF {entry.sif} is not here)"
    toolchains, corpus = load_toolchains(), load_corpus()
    try:
        with out.status("re-grading…") as status:
            rep = reproduce(conn, grade_id, toolchains, corpus, allow_different_image=args.allow_different_image,
                            progress=lambda msg: status.update(f"reproducing {grade_id[:12]}: {msg}"))
    except DifferentImage as exc:
        err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
        err.print(f"[bold red]refused:[/bold red] {escape(str(exc))}{escape(hint)}", highlight=False, soft_wrap=True)
        _print_differences(exc.differences, err)
        return EXIT_USAGE
    doc = rep.document()
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0 if rep.reproduced else 1
    out.print(f"grade {rep.grade_id} ({rep.kernel}) re-graded as {rep.new_grade.id}", highlight=False)
    table = Table(title="recorded → now")
    for col in ("what", "recorded", "now", "reproduced"):
        table.add_column(col, overflow="fold")

    def yes(ok) -> str:
        return "-" if ok is None else ("[green]yes[/green]" if ok else "[red]NO[/red]")

    table.add_row("status", rep.recorded_status, rep.status, yes(rep.recorded_status == rep.status))
    for label, was, is_ in rep.case_statuses:
        table.add_row(f"  case {escape(label)}", was, is_, yes(was == is_))
    for s in rep.speedups:
        table.add_row(f"speedup {s.name} (95% CI)", fmt_speedup(triple_json(s.recorded), "\n"),
                      fmt_speedup(triple_json(s.now), "\n"), yes(s.reproduced))
        if s.ratio is not None:
            r = s.ratio
            table.add_row("  ratio now / recorded", "", f"{r[0]:.3f} [{r[1]:.3f}, {r[2]:.3f}]", yes(s.reproduced))
    table.add_row("image", rep.image_recorded, rep.image_now, yes(rep.image_recorded == rep.image_now))
    out.print(table)
    _print_differences(list(rep.differences), out)
    out.print(f"test: {TEST}", highlight=False)
    if rep.reproduced:
        out.print("[green]REPRODUCED[/green]: the same correctness, and every speedup's ratio to the recorded one "
                  "has a 95% interval that holds 1" + (" (in a different image)" if rep.image_recorded != rep.image_now
                                                       else ""))
    else:
        why = [w for w, bad in (("correctness differs", not rep.correctness_reproduced),
                                ("a speedup differs from the recorded one: its ratio's 95% interval excludes 1",
                                 not rep.speedup_reproduced))
               if bad]
        out.print(f"[red]NOT REPRODUCED[/red]: {'; '.join(why)}")
    return 0 if rep.reproduced else 1


def _print_differences(diffs: list, out: Console) -> None:
    if not diffs:
        out.print("environment: the same fingerprint as recorded", highlight=False)
        return
    out.print("environment differences (recorded → now):", highlight=False)
    for field, was, is_ in diffs:
        out.print(f"  {escape(field)}: {escape(str(was))} → {escape(str(is_))}", highlight=False)


def cmd_report(args, out: Console) -> int:
    from hpcab.report import ReportError, build_report
    try:
        rep = build_report(args.db, args.out, args.experiment)
    except ReportError as exc:      # it names the flag and the source itself
        raise HpcabError(str(exc)) from None
    out.print(f"report: {rep.path} ({rep.table.height} observation(s), {len(rep.figures)} figure(s))",
              markup=False, highlight=False)
    if rep.problems:
        err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
        for p in rep.problems:
            err.print(f"[yellow]problem:[/yellow] {escape(p)}", highlight=False)
        return 1
    return 0


def _measurement_options(s: argparse.ArgumentParser, timed: str) -> None:
    s.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    s.add_argument("--threads", type=_positive_int, default=1, help=f"threads granted to {timed} (default 1)")
    s.add_argument("--timeout", type=_positive_float, default=120.0,
                   help="wall-clock limit of one measuring session, seconds (default 120)")
    s.add_argument("--target-seconds", type=_positive_float, default=1.0,
                   help="timed work per target and case, over all its sessions (default 1.0)")
    _sessions_option(s)


def _sessions_option(s: argparse.ArgumentParser) -> None:
    from hpcab.run import Policy
    default = Policy()
    s.add_argument("--sessions", type=_positive_int, default=default.sessions, metavar="N",
                   help=f"independent measuring sessions per scored case (default {default.sessions}): time for "
                        "precision; the interval narrows about as 1/sqrt(N), each session costs some 0.65 s to start "
                        "(docs/measurement_statistics.md)")
    s.add_argument("--drift", type=_fraction, default=default.drift, metavar="SD",
                   help=f"this machine's grade-to-grade variation, a relative standard deviation added to every "
                        f"interval (default {default.drift:g}; measure it with benchmarks/timing_quality.py)")


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a fraction, at least 0 and below 1 (0.03 is 3 %)")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive number of seconds")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of at least 1") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of at least 1")
    return value


def _token_options(s, token_file: bool = True) -> None:
    if token_file:
        s.add_argument("--token-file", help="a file holding the bearer token, or the judge's tokens file with "
                                            "--agent (default: $HPCAB_TOKEN)")
    s.add_argument("--agent", metavar="NAME",
                   help="with the judge's tokens file as --token-file: the agent whose token to use")


def build_parser() -> argparse.ArgumentParser:
    from hpcab.run import Policy
    defaults = Policy()
    p = argparse.ArgumentParser(prog="hpcab", description="A benchmark for optimizers of numerical code.")
    p.add_argument("--version", action="version", version=f"hpcab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("list", help="list the corpus's kernels")
    s.add_argument("--kernels", help="selector: names, tracks, dwarfs, levels (e.g. gemm,structured_grids,L2)")
    s.add_argument("--mpi", action="store_true", help="only the distributed track's kernels (an mpi: block; docs/mpi.md)")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("show", help="describe a kernel, or print its ABI for a language")
    s.add_argument("kernel")
    s.add_argument("--abi", choices=("c", "cpp", "fortran", "cuda", "python", "pythran"),
                   help="print exactly the prototype to implement")
    s.add_argument("--mpi", action="store_true",
                   help="the distributed prototype (c, cpp or fortran) of a kernel with an mpi: block (docs/mpi.md)")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("grade", help="build, check and time a candidate against the NumPy reference")
    s.add_argument("kernel")
    s.add_argument("--source", required=True, help="the candidate's source file")
    s.add_argument("--language", choices=("c", "cpp", "fortran", "python", "pythran"),
                   help="default: from the file's suffix (.py: python, or pythran with a '#pythran export' line)")
    s.add_argument("--preset", default="S", help="S, M or L, or several: S,M (default S)")
    s.add_argument("--flags", default=None, help="flag set from toolchains/ (default: opt)")
    s.add_argument("--db", help="record the grade in this SQLite judge database")
    s.add_argument("--ranks", type=int, help="grade a distributed candidate on this many MPI ranks "
                                             "(a kernel with an mpi: block; docs/mpi.md)")
    s.add_argument("--launcher", choices=("mpirun", "srun"), default="mpirun",
                   help="with --ranks: start the ranks with mpirun (sandboxed, this node) or srun "
                        "(inside a Slurm allocation; default mpirun)")
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
                   help="--report: timed work per target and case, over all its sessions (default 1.0)")
    _sessions_option(s)
    s.add_argument("--json", action="store_true", help="--report: print the report as JSON")
    s.add_argument("--verbose", action="store_true", help="--report: say why each failed variant failed")
    s.set_defaults(func=cmd_translate)

    s = sub.add_parser("lint", help="check references: the canonical NumPy subset the translator reads, and the "
                                     "corpus gate (zeros, constants or a replayed answer must not pass)")
    s.add_argument("selector", help="a kernel, 'all', or a selector (names, tracks, dwarfs, levels)")
    s.add_argument("--corpus", help="the corpus folder (default: the project's corpus/)")
    s.set_defaults(func=cmd_lint)

    s = sub.add_parser("sweep", help="check every baseline of the selected kernels in this process: the "
                                     "translator's C and Fortran builds, and numba for loop-level kernels, "
                                     "against the reference (tests/test_corpus_sweep.py runs a sample)")
    s.add_argument("selector", help="a kernel, 'all', or a selector (names, tags, tracks, TSVC categories)")
    s.add_argument("--preset", default="S", help="the preset the baselines are checked at (default: S)")
    s.add_argument("--corpus", help="the corpus folder (default: the project's corpus/)")
    s.set_defaults(func=cmd_sweep)

    s = sub.add_parser("new-kernel", help="create a kernel folder: a working example manifest, NumPy reference and "
                                          "check stub to edit (docs/adding_a_kernel.md)")
    s.add_argument("kernel", metavar="TRACK/[DWARF/]NAME",
                   help="e.g. loop_level_reasoning/s000_example or scientific_computing/structured_grids/my_stencil")
    s.add_argument("--corpus", help="the corpus folder (default: the project's corpus/)")
    s.set_defaults(func=cmd_new_kernel)

    s = sub.add_parser("calibrate", help="time a kernel's NumPy reference on one core and propose S, M, L presets "
                                         "(~10 ms, ~100 ms, ~1 s; L within 2 GB)")
    s.add_argument("kernel")
    s.add_argument("--corpus", help="the corpus folder (default: the project's corpus/)")
    s.add_argument("--write", action="store_true", help="rewrite the manifest's presets (comments kept)")
    s.add_argument("--max-seconds", type=float, default=60.0,
                   help="stop measuring after about this long (default 60)")
    s.set_defaults(func=cmd_calibrate)

    s = sub.add_parser("serve", help="run a judge: the HTTP grading service (docs/judge_api.md)")
    s.add_argument("--db", required=True, help="the judge database (SQLite; created if missing)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    s.add_argument("--rank", type=int, default=0, help="this judge's rank J: it answers requests meant for J only")
    s.add_argument("--kernels", help="selector of the kernels served (default: all)")
    s.add_argument("--tokens", help="tokens file (schemas/tokens.schema.json); without it the judge is open")
    s.add_argument("--workers", type=int, default=2, help="grading worker processes (default 2)")
    s.add_argument("--queue", type=int, default=16, help="gradings accepted at once before 429 (default 16)")
    s.add_argument("--slot", action="append", metavar="CPUS",
                   help="a measurement slot: CPUs timed on together, e.g. 3 or 2,3 (repeat for more slots; "
                        "default: one slot of the last --threads CPUs)")
    s.add_argument("--threads", type=int, default=1, help="threads granted to each timed run (default 1)")
    s.add_argument("--presets", default="S", help="presets of the public cases (default S)")
    s.add_argument("--hidden-presets", default="S", help="presets of the hidden cases (default S)")
    s.add_argument("--target-seconds", type=float, default=0.5,
                   help="timed work per target and case, over all its sessions (default 0.5)")
    _sessions_option(s)
    s.add_argument("--timeout", type=float, default=120.0,
                   help="wall-clock limit of one measuring session (a case has --sessions), seconds (default 120)")
    s.add_argument("--grade-timeout", type=float, default=defaults.grade_seconds, metavar="SECONDS",
                   help="wall-clock limit of a grade's measuring, all its cases and sessions together, warm-ups "
                        f"included, seconds (default {defaults.grade_seconds:g})")
    s.add_argument("--build-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="wall-clock limit of a candidate's compile, seconds (default 60): past it the compiler's "
                        "processes are killed and the grade is a build error")
    s.add_argument("--memory-gib", type=float, default=defaults.memory_bytes / 2**30, metavar="GIB",
                   help="memory a candidate's processes may hold together, shared memory and memfd pages "
                        f"included (a memory cgroup where the freezer has one), GiB (default "
                        f"{defaults.memory_bytes / 2**30:g})")
    s.add_argument("--secret-file", help="the judge's secret for hidden cases (default: DB.secret, made on first start)")
    s.add_argument("--mpi-ranks", type=int, default=0, metavar="R",
                   help="grade submissions built with an MPI compiler (mpicc, mpicxx, mpifort) on R ranks, for "
                        "kernels with an mpi: block (docs/mpi.md); give the slots R CPUs (--slot). Default 0: none")
    s.add_argument("--mpi-launcher", choices=("mpirun", "srun"), default="mpirun",
                   help="what starts the ranks: mpirun (sandboxed, this node) or srun (inside a Slurm allocation)")
    s.add_argument("--max-body", type=int, default=8 << 20, help="largest request body in bytes (default 8 MiB)")
    s.add_argument("--max-connections", type=int, default=0,
                   help="open connections at most; beyond, the one that waited longest for a request is closed "
                        "(default: from the open-files limit)")
    s.add_argument("--header-timeout", type=float, default=10.0,
                   help="seconds for a request's line and headers to arrive (default 10)")
    s.add_argument("--body-timeout", type=float, default=60.0,
                   help="seconds for a request's body to arrive (default 60)")
    s.add_argument("--keep-alive-timeout", type=float, default=5.0,
                   help="seconds an idle connection is kept open between requests (default 5)")
    s.add_argument("--url-file", help="write the judge's URL to this file once it is ready")
    s.add_argument("--log", help="append the request log here instead of stderr")
    s.add_argument("--unsandboxed", action="store_true",
                   help="grade without the bubblewrap sandbox (no isolation of candidates from the judge, its "
                        "files and the network; each grade records sandbox \"none\"). Without it the judge "
                        "refuses to start where bubblewrap cannot run")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("review", help="list implausible grades, or accept or reject one (not scored until reviewed)")
    s.add_argument("grade", nargs="?", help="the grade to give a verdict on (omit to list)")
    s.add_argument("--db", required=True, help="the judge database")
    s.add_argument("--accept", action="store_true", help="the speed is real: score it")
    s.add_argument("--reject", action="store_true", help="a cheat: it stays unscored")
    s.add_argument("--note", help="why (kept with the verdict)")
    s.add_argument("--reviewer", help="who (default: the user name)")
    s.add_argument("--all", action="store_true", help="list reviewed ones too")
    s.set_defaults(func=cmd_review)

    s = sub.add_parser("submit", help="send a candidate to a judge: graded and recorded (or --score: public only)")
    s.add_argument("kernel")
    s.add_argument("source", help="the candidate's source file")
    s.add_argument("--judge", required=True, help="the judge's URL, e.g. http://127.0.0.1:8000")
    s.add_argument("--score", action="store_true", help="public cases only, not recorded (POST /score)")
    s.add_argument("--rank", type=int, default=0, help="the rank of the judge addressed (default 0)")
    s.add_argument("--language", choices=("c", "cpp", "fortran", "cuda", "hip", "python", "pythran"),
                   help="default: from the suffix (.py: python, or pythran with a '#pythran export' line)")
    s.add_argument("--flags", default=None, help="flag set from toolchains/ (default: the judge's default)")
    _token_options(s)
    s.add_argument("--reconnect-seconds", type=float, default=60.0, metavar="S",
                   help="how long to keep retrying a judge that cannot be reached or is stopping (default 60)")
    s.add_argument("--json", action="store_true", help="print the grade document as JSON")
    s.set_defaults(func=cmd_submit)

    s = sub.add_parser("agent", help="run an optimizer on kernels against a judge, with a final table "
                                     "(docs/writing_an_agent.md)")
    from hpcab.agents.runner import add_arguments, command as cmd_agent
    add_arguments(s)
    _token_options(s, token_file=False)          # add_arguments has --token-file
    s.set_defaults(func=cmd_agent)

    s = sub.add_parser("status", help="a launched run's state: each role's job, state and log (python -m hpcab.launch)")
    s.add_argument("run_dir", help="the run folder the launcher printed")
    s.set_defaults(func=cmd_status)

    s = sub.add_parser("images", help="the Apptainer image lock (docs/images.md)")
    images = s.add_subparsers(dest="images_command", required=True)
    s = images.add_parser("verify", help="check each SIF's sha256 against the lock: exit 0 if all match, 1 if any "
                                         "differs or is missing")
    s.add_argument("--lock", help="the lock file (default: apptainer/images.lock.json)")
    s.add_argument("names", nargs="*", metavar="NAME|PATH",
                   help="the images to check, by name or by SIF file (default: every image of the lock)")
    s.set_defaults(func=cmd_images)
    s = images.add_parser("add", help="record a built image in the lock: its SIF's sha256, OCI config digest and "
                                      "toolchain versions (nix run .#sif calls it)")
    s.add_argument("--name", required=True, help="the image, as toolchains/images.toml names it (e.g. judge-cpu)")
    s.add_argument("--sif", required=True, help="the SIF file built")
    s.add_argument("--docker-archive", help="the docker-archive tar it was built from (its config is hashed)")
    s.add_argument("--oci-config-digest", help="or the OCI config digest itself, sha256:HEX (neither: a SIF built "
                                               "from an apptainer/*.def file; recorded as null)")
    s.add_argument("--apptainer-version", required=True, help="the Apptainer that built the SIF")
    s.add_argument("--toolchains-json", help="JSON {tool: version} read inside the image (hpcab images versions); "
                                             "default: the versions toolchains/ declares")
    s.add_argument("--lock", help="the lock file (default: apptainer/images.lock.json)")
    s.set_defaults(func=cmd_images_add)
    s = images.add_parser("versions", help="print the installed toolchain versions as JSON (run inside an image)")
    s.set_defaults(func=cmd_images_versions)

    s = sub.add_parser("reproduce", help="grade a recorded grade's submission again and say whether its correctness "
                                         "and speedup reproduce (docs/images.md)")
    s.add_argument("grade", help="the grade's id (or a unique prefix of 6 or more hex digits)")
    s.add_argument("--db", required=True, help="the judge database that recorded it")
    s.add_argument("--allow-different-image", action="store_true",
                   help="re-run even though the grade ran in another image (or natively), and list what differs")
    s.add_argument("--lock", help="the image lock that may hold the grade's image (default: apptainer/images.lock.json)")
    s.add_argument("--json", action="store_true", help="print the comparison as JSON")
    s.set_defaults(func=cmd_reproduce)

    s = sub.add_parser("mcp", help="serve a judge's tools to an MCP client (Claude Code, Codex, ...) over stdio "
                                   "or streamable HTTP: list_kernels, get_task, score, submit, get_grade")
    s.add_argument("--judge", required=True, help="the judge's URL, e.g. http://127.0.0.1:8000")
    s.add_argument("--http", metavar="HOST:PORT",
                   help="serve the streamable HTTP transport at http://HOST:PORT/mcp instead of stdio; each client "
                        "sends its own judge token as Authorization: Bearer")
    s.add_argument("--rank", type=int, default=0, help="the rank of the judge addressed (default 0)")
    _token_options(s)
    s.set_defaults(func=cmd_mcp)

    s = sub.add_parser("tokens", help="write a tokens file for a judge: a fresh random token per agent")
    s.add_argument("--agents", required=True, help="names separated by commas, or a count N (worker-0 …)")
    s.add_argument("--submissions", type=int, required=True, help="submission budget of each agent")
    s.add_argument("--scores", type=int, default=None, help="score budget of each agent (default: no limit)")
    s.add_argument("--out", required=True, help="the tokens file to write (mode 600)")
    s.set_defaults(func=cmd_tokens)

    s = sub.add_parser("probe", help="measure this machine's memory bandwidth and peak flop rates "
                                     "(the roofline plausibility check's figures; cached)")
    s.add_argument("--threads", type=int, default=1, help="threads to measure with (default 1)")
    s.add_argument("--cpus", help="CPUs to pin to, e.g. 2,3 (default: the last --threads CPUs, as the judge)")
    s.add_argument("--fresh", action="store_true", help="measure again instead of reading the cache")
    s.add_argument("--json", action="store_true", help="print the figures as JSON")
    s.set_defaults(func=cmd_probe)

    s = sub.add_parser("report", help="a static HTML report of judge databases or run folders: summaries, "
                                      "figures and every task (docs/plotting.md)")
    s.add_argument("--db", action="append", required=True, metavar="FILE",
                   help="a judge database or a run folder (repeat for more)")
    s.add_argument("--out", required=True, help="the folder for index.html and its figures")
    s.add_argument("--experiment", action="append", metavar="PREFIX",
                   help="only the experiments whose name starts with PREFIX (repeat for more)")
    s.set_defaults(func=cmd_report)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # A pipe or a CI log gets wide tables instead of rich's 80-column default.
    out = Console(width=None if sys.stdout.isatty() else 160)
    try:
        return args.func(args, out)
    except HpcabError as exc:
        # One line however long (soft_wrap), and the message's brackets are not markup.
        Console(stderr=True).print(f"[bold red]error:[/bold red] {escape(str(exc))}", markup=True,
                                   highlight=False, soft_wrap=True)
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
