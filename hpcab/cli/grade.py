"""hpcab grade and hpcab baseline: a candidate, or the track's baseline, timed here
against the NumPy reference (no judge)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab.cli.common import EXIT_INCORRECT, candidate_arguments, check_threads, measurement_options, preset_cases
from hpcab.errors import InputError
from hpcab.gradedoc import fmt_speedup, fmt_time, grade_document, plain_speedup, print_baseline_error, print_grade
from hpcab.measure import speedup_json


def cmd_grade(args, out: Console) -> int:
    from hpcab.build import candidate_from_file
    from hpcab.corpus import load_corpus
    from hpcab.grade import grade
    from hpcab.record import connect, save_grade
    from hpcab.timing.policy import Policy
    from hpcab.toolchain import load_toolchains

    kernel = load_corpus().get(args.kernel)
    candidate = candidate_from_file(Path(args.source), args.language)
    toolchains = load_toolchains()
    _flagset(toolchains, args.flags)           # an unknown flag set is a usage error, before any work
    cases = preset_cases(kernel, args.preset, args.seed)
    check_threads(args.threads)
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


def _flagset(toolchains, name: str | None):
    from hpcab.errors import did_you_mean
    if name is not None and name not in toolchains.flagsets:
        raise InputError("--flags", name, f"no such flag set in toolchains/; expected one of "
                                          f"{', '.join(sorted(toolchains.flagsets))}"
                         + did_you_mean(name, toolchains.flagsets))
    return toolchains.flagset(name)


def cmd_baseline(args, out: Console) -> int:
    from hpcab.grade import measure_baseline
    from hpcab.corpus import load_corpus
    from hpcab.timing.policy import Policy
    from hpcab.toolchain import load_toolchains

    kernel = load_corpus().get(args.kernel)
    cases = preset_cases(kernel, args.preset, args.seed)
    check_threads(args.threads)
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


def _fmt_timing(t) -> str:
    return f"{fmt_time(t.median_ns)} [{fmt_time(t.ci_low_ns)}, {fmt_time(t.ci_high_ns)}]" if t else "-"


def _fmt_speedup(sp) -> str:
    return fmt_speedup(speedup_json(sp), "\n")


def register(sub) -> None:
    s = sub.add_parser("grade", help="build, check and time a candidate against the NumPy reference")
    candidate_arguments(s)
    s.add_argument("--preset", default="S", help="S, M or L, or several: S,M (default S)")
    s.add_argument("--flags", default=None, help="flag set from toolchains/ (default: opt)")
    s.add_argument("--db", help="record the grade in this SQLite judge database")
    s.add_argument("--ranks", type=int, help="grade a distributed candidate on this many MPI ranks "
                                             "(a kernel with an mpi: block; docs/mpi.md)")
    s.add_argument("--launcher", choices=("mpirun", "srun"), default="mpirun",
                   help="with --ranks: start the ranks with mpirun (sandboxed, this node) or srun "
                        "(inside a Slurm allocation; default mpirun)")
    measurement_options(s, "the candidate and NumPy")
    s.add_argument("--json", action="store_true", help="print the grade as JSON")
    s.set_defaults(func=cmd_grade)

    s = sub.add_parser("baseline", help="time the track's baseline and the NumPy reference (no candidate)")
    s.add_argument("kernel")
    s.add_argument("--preset", default="S", help="S, M or L, or several: S,M (default S)")
    measurement_options(s, "the baseline and NumPy")
    s.add_argument("--json", action="store_true", help="print the measurement as JSON")
    s.set_defaults(func=cmd_baseline)
