"""hpcab list and hpcab show: the corpus's kernels, and one kernel's description and ABI."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab.cli.common import say
from hpcab.gradedoc import fmt_time


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
        say(out, f"{len(broken)} kernel(s) do not load (`hpcab lint all` lints the rest):")
        for b in broken:
            say(out, f"  {b.describe()}")
    asked = args.kernels and any(b.named_by(t.strip()) for b in broken for t in args.kernels.split(","))
    return 1 if asked else 0


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
        say(out, line)
    say(out, _baseline_line(k))
    say(out, f"reference: {k.reference_path}" + ("" if k.reference_path.is_file() else " (missing)"))
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


def register(sub) -> None:
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
