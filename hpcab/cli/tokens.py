"""hpcab tokens: write a judge's tokens file, a fresh random token per agent."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console


def cmd_tokens(args, out: Console) -> int:
    from hpcab.judge.tokens import issue_tokens
    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    if len(names) == 1 and names[0].isdigit():
        names = [f"worker-{i}" for i in range(int(names[0]))]
    issue_tokens(names, args.submissions, Path(args.out), args.scores, args.profiles)
    out.print(f"wrote {len(names)} token(s) to {args.out} (mode 600): {', '.join(names)}", highlight=False)
    return 0


def register(sub) -> None:
    s = sub.add_parser("tokens", help="write a tokens file for a judge: a fresh random token per agent")
    s.add_argument("--agents", required=True, help="names separated by commas, or a count N (worker-0 …)")
    s.add_argument("--submissions", type=int, required=True, help="submission budget of each agent")
    s.add_argument("--scores", type=int, default=None, help="score budget of each agent (default: no limit)")
    s.add_argument("--profiles", type=int, default=None, help="profile budget of each agent (default: no limit)")
    s.add_argument("--out", required=True, help="the tokens file to write (mode 600)")
    s.set_defaults(func=cmd_tokens)
