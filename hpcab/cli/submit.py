"""hpcab submit: send a candidate to a judge, graded and recorded (or --score: public cases only)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.console import Console

from hpcab.cli.common import EXIT_INCORRECT, judge_url, token_options
from hpcab.errors import HpcabError
from hpcab.gradedoc import print_grade


def cmd_submit(args, out: Console) -> int:
    from hpcab.client import JudgeClient, JudgeError
    from hpcab.judge.tokens import client_token

    judge_url(args.judge, "submit")
    if not args.reconnect_seconds >= 0:
        raise HpcabError(f"--reconnect-seconds {args.reconnect_seconds:g}: give 0 or more seconds")

    def say(line: str) -> None:
        # sys.stderr looked up now: inside out.status rich has swapped it for a proxy that
        # prints above the spinner.
        print(f"hpcab submit: {line}", file=sys.stderr, flush=True)

    client = JudgeClient(args.judge, client_token(args.token_file, args.agent), args.rank,
                         reconnect_seconds=args.reconnect_seconds, on_retry=say)
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


def register(sub) -> None:
    s = sub.add_parser("submit", help="send a candidate to a judge: graded and recorded (or --score: public only)")
    s.add_argument("kernel")
    s.add_argument("source", help="the candidate's source file")
    s.add_argument("--judge", required=True, help="the judge's URL, e.g. http://127.0.0.1:8000")
    s.add_argument("--score", action="store_true", help="public cases only, not recorded (POST /score)")
    s.add_argument("--rank", type=int, default=0, help="the rank of the judge addressed (default 0)")
    s.add_argument("--language", choices=("c", "cpp", "fortran", "cuda", "hip", "python", "pythran"),
                   help="default: from the suffix (.py: python, or pythran with a '#pythran export' line)")
    s.add_argument("--flags", default=None, help="flag set from toolchains/ (default: the judge's default)")
    token_options(s)
    s.add_argument("--reconnect-seconds", type=float, default=60.0, metavar="S",
                   help="how long to keep retrying a judge that cannot be reached or is stopping (default 60)")
    s.add_argument("--json", action="store_true", help="print the grade document as JSON")
    s.set_defaults(func=cmd_submit)
