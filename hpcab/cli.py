"""The hpcab command line: list, show, grade."""

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

EXIT_INCORRECT = 1
EXIT_USAGE = 2


def _fmt_time(ns: float | None) -> str:
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.0f} ns"


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
    if args.json:
        print(json.dumps(grade_summary(g), indent=2))
        return 0 if g.correct else EXIT_INCORRECT
    _print_grade(g, out, args.db)
    return 0 if g.correct else EXIT_INCORRECT


def grade_summary(g) -> dict:
    sp = g.speedup_numpy
    return {
        "id": g.id, "kernel": g.kernel_id, "status": g.status, "correct": g.correct, "message": g.message,
        "language": g.candidate.language, "compiler": g.build.compiler, "flagset": g.build.flagset,
        "build_cached": g.build.cached,
        "speedup_vs_numpy": None if sp is None else {"value": sp.value, "ci95": [sp.ci_low, sp.ci_high]},
        "cases": [{
            "label": c.case.label, "sizes": c.case.sizes, "seed": c.case.seed, "status": c.status,
            "message": c.message,
            "max_abs_err": c.check.max_abs_err if c.check else None,
            "max_rel_err": c.check.max_rel_err if c.check else None,
            "normwise_err": c.check.normwise_err if c.check else None,
            "median_ns": c.timing.median_ns if c.timing else None,
            "ci95_ns": [c.timing.ci_low_ns, c.timing.ci_high_ns] if c.timing else None,
            "samples": c.timing.n if c.timing else 0,
            "numpy_median_ns": c.numpy_timing.median_ns if c.numpy_timing else None,
        } for c in g.cases],
    }


def _print_grade(g, out: Console, db: str | None) -> None:
    if g.status == "build_error":
        out.print(f"[bold red]BUILD ERROR[/bold red] {g.kernel_id} ({g.build.compiler}, flags {g.build.flagset})")
        out.print(g.build.diagnostics.strip() or "(no diagnostics)", markup=False, highlight=False)
        return
    table = Table(title=f"{g.kernel_id} — {g.candidate.label or g.candidate.language} "
                        f"({g.build.compiler} {g.build.compiler_version}, flags {g.build.flagset}"
                        f"{', cached build' if g.build.cached else ''})")
    for col in ("case", "result", "max abs err", "max rel err", "time (median, 95% CI)", "numpy", "speedup vs numpy"):
        table.add_column(col)
    for c in g.cases:
        colour = "green" if c.correct else "red"
        t = c.timing
        time_txt = f"{_fmt_time(t.median_ns)} [{_fmt_time(t.ci_low_ns)}, {_fmt_time(t.ci_high_ns)}]" if t else "-"
        sp = c.speedup_numpy
        table.add_row(c.case.describe(), f"[{colour}]{'correct' if c.correct else c.status}[/{colour}]",
                      f"{c.check.max_abs_err:.2e}" if c.check else "-",
                      f"{c.check.max_rel_err:.2e}" if c.check else "-",
                      time_txt, _fmt_time(c.numpy_timing.median_ns if c.numpy_timing else None),
                      f"{sp.value:.2f}× [{sp.ci_low:.2f}, {sp.ci_high:.2f}]" if sp else "-")
    out.print(table)
    for c in g.cases:
        if c.message:
            out.print(f"[red]{c.case.label}:[/red] {c.message}", markup=True, highlight=False)
    if g.correct:
        sp = g.speedup_numpy
        plain = (f"{sp.value:.2f}× faster than" if sp.value >= 1 else f"{1 / sp.value:.2f}× slower than")
        out.print(f"[bold green]CORRECT[/bold green] on {len(g.cases)} case(s) — speedup {sp.value:.2f}× over "
                  f"the NumPy reference (95% CI {sp.ci_low:.2f}–{sp.ci_high:.2f}): {plain} NumPy")
    else:
        out.print(f"[bold red]{g.status.upper()}[/bold red]")
    out.print(f"grade {g.id}" + (f" recorded in {db}" if db else " (not recorded: pass --db FILE)"))


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
    s.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    s.add_argument("--threads", type=int, default=1, help="threads granted to the candidate and NumPy (default 1)")
    s.add_argument("--timeout", type=float, default=120.0, help="wall-clock limit per case, seconds (default 120)")
    s.add_argument("--target-seconds", type=float, default=1.0,
                   help="timed work per target before stopping repetitions (default 1.0)")
    s.add_argument("--json", action="store_true", help="print the grade as JSON")
    s.set_defaults(func=cmd_grade)
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
