"""hpcab review: a judge database's implausible grades, and a reviewer's verdict on one."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab.errors import HpcabError


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


def register(sub) -> None:
    s = sub.add_parser("review", help="list implausible grades, or accept or reject one (not scored until reviewed)")
    s.add_argument("grade", nargs="?", help="the grade to give a verdict on (omit to list)")
    s.add_argument("--db", required=True, help="the judge database")
    s.add_argument("--accept", action="store_true", help="the speed is real: score it")
    s.add_argument("--reject", action="store_true", help="a cheat: it stays unscored")
    s.add_argument("--note", help="why (kept with the verdict)")
    s.add_argument("--reviewer", help="who (default: the user name)")
    s.add_argument("--all", action="store_true", help="list reviewed ones too")
    s.set_defaults(func=cmd_review)
