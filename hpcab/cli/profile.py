"""hpcab profile: where a candidate's calls spend their time, profiled here under perf on a
public case as the judge's POST /profile does (hpcab.profile)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from hpcab.cli.common import EXIT_INCORRECT, candidate_arguments


def cmd_profile(args, out: Console) -> int:
    from hpcab.build import candidate_from_file
    from hpcab.case import preset_case
    from hpcab.cli.grade import _flagset
    from hpcab.corpus import load_corpus
    from hpcab.errors import HpcabError
    from hpcab.profile import ProfileUnavailable, profile, profile_text
    from hpcab.toolchain import load_toolchains

    kernel = load_corpus().get(args.kernel)
    candidate = candidate_from_file(Path(args.source), args.language)
    toolchains = load_toolchains()
    _flagset(toolchains, args.flags)
    try:
        doc = profile(kernel, candidate, toolchains, preset_case(kernel, args.preset), args.flags)
    except ProfileUnavailable as exc:
        raise HpcabError(f"cannot profile on this machine: {exc}") from None
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        out.print(escape(profile_text(doc, candidate.label)), highlight=False, soft_wrap=True)
    return 0 if doc["ok"] and doc["status"] == "ok" else EXIT_INCORRECT


def register(sub) -> None:
    s = sub.add_parser("profile", help="where a candidate's calls spend their time (perf, one public case)")
    candidate_arguments(s)
    s.add_argument("--flags", default=None, help="flag set from toolchains/ (default: opt); line tables (flag set "
                                                 "'profile') are added to it")
    s.add_argument("--preset", default="S", help="the public case: a preset of the kernel (default S)")
    s.add_argument("--json", action="store_true", help="print the profile as JSON")
    s.set_defaults(func=cmd_profile)
