"""The hpcab command line. Each command is registered, and handled, by one module:

    kernels.py    list, show
    grade.py      grade, baseline
    compile.py    compile
    profile.py    profile
    translate.py  translate
    corpus.py     lint, sweep, new-kernel, calibrate
    serve.py      serve
    review.py     review
    submit.py     submit
    agent.py      agent (its handler: hpcab.agents.runner)
    status.py     status
    images.py     images verify, images add, images versions
    reproduce.py  reproduce
    mcp.py        mcp
    tokens.py     tokens
    probe.py      probe
    report.py     report
    common.py     what several share: exit statuses, option helpers, the token option

A front end only: library modules do not import it, except hpcab.launch.preflight, which
parses a launch arm's command lines with build_parser.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.markup import escape

from hpcab import __version__
from hpcab.cli import (agent, compile, corpus, grade, images, kernels, mcp, probe, profile, report, reproduce, review,
                       serve, status, submit, tokens, translate)
from hpcab.cli.common import EXIT_USAGE
from hpcab.errors import HpcabError

# The order of `hpcab --help`'s commands.
COMMANDS = (kernels, grade, compile, profile, translate, corpus, serve, review, submit, agent, status, images, reproduce, mcp,
            tokens, probe, report)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hpcab", description="A benchmark for optimizers of numerical code.")
    p.add_argument("--version", action="version", version=f"hpcab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.register(sub)
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
