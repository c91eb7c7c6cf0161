"""hpcab agent: an optimizer run on kernels against a judge (hpcab.agents.runner holds the
command; docs/writing_an_agent.md)."""

from __future__ import annotations

from hpcab.cli.common import token_options


def register(sub) -> None:
    s = sub.add_parser("agent", help="run an optimizer on kernels against a judge, with a final table "
                                     "(docs/writing_an_agent.md)")
    from hpcab.agents.runner import add_arguments, command as cmd_agent
    add_arguments(s)
    token_options(s, token_file=False)          # add_arguments has --token-file
    s.set_defaults(func=cmd_agent)
