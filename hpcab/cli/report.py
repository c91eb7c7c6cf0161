"""hpcab report: a static HTML report of judge databases or run folders (docs/plotting.md)."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.markup import escape

from hpcab.errors import HpcabError


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


def register(sub) -> None:
    s = sub.add_parser("report", help="a static HTML report of judge databases or run folders: summaries, "
                                      "figures and every task (docs/plotting.md)")
    s.add_argument("--db", action="append", required=True, metavar="FILE",
                   help="a judge database or a run folder (repeat for more)")
    s.add_argument("--out", required=True, help="the folder for index.html and its figures")
    s.add_argument("--experiment", action="append", metavar="PREFIX",
                   help="only the experiments whose name starts with PREFIX (repeat for more)")
    s.set_defaults(func=cmd_report)
