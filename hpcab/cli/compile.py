"""hpcab compile: the compiler's report on a candidate, built here as a score would build it
(hpcab.compile_report; nothing runs)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from hpcab.cli.common import EXIT_INCORRECT, candidate_arguments


def cmd_compile(args, out: Console) -> int:
    from hpcab.build import candidate_from_file
    from hpcab.cli.grade import _flagset
    from hpcab.compile_report import compile_report, report_text
    from hpcab.corpus import load_corpus
    from hpcab.toolchain import load_toolchains

    kernel = load_corpus().get(args.kernel)
    candidate = candidate_from_file(Path(args.source), args.language)
    toolchains = load_toolchains()
    _flagset(toolchains, args.flags)
    doc = compile_report(kernel, candidate, toolchains, args.flags, args.disassemble)
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        out.print(escape(report_text(doc, candidate.label)), highlight=False, soft_wrap=True)
    return 0 if doc["ok"] else EXIT_INCORRECT


def register(sub) -> None:
    s = sub.add_parser("compile", help="the compiler's optimisation report on a candidate (nothing runs)")
    candidate_arguments(s)
    s.add_argument("--flags", default=None, help="flag set from toolchains/ (default: opt); the report's flags "
                                                 "(flag set 'report') are added to it")
    s.add_argument("--disassemble", action="store_true", help="also print the kernel's symbol, disassembled")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.set_defaults(func=cmd_compile)
