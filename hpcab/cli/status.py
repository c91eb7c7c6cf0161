"""hpcab status: a launched run's state (python -m hpcab.launch)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console


def cmd_status(args, out: Console) -> int:
    from hpcab.launch.status import print_status, read_status
    print_status(Path(args.run_dir), out)
    return 0 if read_status(Path(args.run_dir))["state"] in ("succeeded", "running") else 1


def register(sub) -> None:
    s = sub.add_parser("status", help="a launched run's state: each role's job, state and log (python -m hpcab.launch)")
    s.add_argument("run_dir", help="the run folder the launcher printed")
    s.set_defaults(func=cmd_status)
