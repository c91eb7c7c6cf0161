"""hpcab mcp: a judge's tools served to an MCP client over stdio or streamable HTTP (hpcab.mcp)."""

from __future__ import annotations

import sys

from rich.console import Console

from hpcab.cli.common import judge_url, token_options
from hpcab.errors import HpcabError


def cmd_mcp(args, out: Console) -> int:
    import logging

    from hpcab import mcp
    from hpcab.client import JudgeClient
    from hpcab.judge.tokens import client_token

    judge_url(args.judge, "mcp")
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
        judge = JudgeClient(args.judge, client_token(args.token_file, args.agent), args.rank)
        mcp.serve_stdio(mcp.make_server(judge, judge_name=name))
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


def register(sub) -> None:
    s = sub.add_parser("mcp", help="serve a judge's tools to an MCP client (Claude Code, Codex, ...) over stdio "
                                   "or streamable HTTP: list_kernels, get_task, score, submit, get_grade")
    s.add_argument("--judge", required=True, help="the judge's URL, e.g. http://127.0.0.1:8000")
    s.add_argument("--http", metavar="HOST:PORT",
                   help="serve the streamable HTTP transport at http://HOST:PORT/mcp instead of stdio; each client "
                        "sends its own judge token as Authorization: Bearer")
    s.add_argument("--rank", type=int, default=0, help="the rank of the judge addressed (default 0)")
    token_options(s)
    s.set_defaults(func=cmd_mcp)
