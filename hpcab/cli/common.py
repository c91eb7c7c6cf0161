"""What several commands share: exit statuses, message lines, presets and threads checked,
and the options of measuring and of a judge's URL and token."""

from __future__ import annotations

import argparse
import os

from rich.console import Console

from hpcab.errors import HpcabError, InputError

EXIT_INCORRECT = 1
EXIT_USAGE = 2


def say(console: Console, text: str) -> None:
    """One message line, never wrapped (a pipe must not split a path), never markup."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def preset_cases(kernel, text: str, seed: int) -> list:
    """--preset S or S,M: one case per preset; an unknown one is the flag's mistake."""
    from hpcab.case import preset_case
    from hpcab.errors import did_you_mean
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise InputError("--preset", repr(text), f"expected one of {', '.join(kernel.presets)}, or several: S,M")
    for p in names:
        if p not in kernel.presets:
            raise InputError("--preset", p, f"{kernel.name} has no such preset; expected one of "
                                            f"{', '.join(kernel.presets)}, or several: S,M"
                             + did_you_mean(p, kernel.presets))
    return [preset_case(kernel, p, seed=seed) for p in names]


def check_threads(threads: int) -> None:
    """A timed run pins one CPU per thread: more threads than CPUs would be timed oversubscribed."""
    usable = len(os.sched_getaffinity(0))
    if threads > usable:
        raise InputError("--threads", str(threads), f"this machine lets hpcab use {usable} CPU(s); "
                                                    f"expected 1 to {usable}")


def judge_url(url: str, command: str) -> None:
    from urllib.parse import urlsplit
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
        raise HpcabError(f"{command}: --judge takes the judge's URL, e.g. http://127.0.0.1:8000, not {url!r}")


def measurement_options(s: argparse.ArgumentParser, timed: str) -> None:
    s.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    s.add_argument("--threads", type=positive_int, default=1, help=f"threads granted to {timed} (default 1)")
    s.add_argument("--timeout", type=positive_float, default=120.0,
                   help="wall-clock limit of one measuring session, seconds (default 120)")
    s.add_argument("--target-seconds", type=positive_float, default=1.0,
                   help="timed work per target and case, over all its sessions (default 1.0)")
    sessions_option(s)


def candidate_arguments(s: argparse.ArgumentParser) -> None:
    """A kernel and a candidate's source file, with its language (hpcab grade, hpcab compile)."""
    s.add_argument("kernel")
    s.add_argument("--source", required=True, help="the candidate's source file")
    s.add_argument("--language", choices=("c", "cpp", "fortran", "python", "pythran"),
                   help="default: from the file's suffix (.py: python, or pythran with a '#pythran export' line)")


def sessions_option(s: argparse.ArgumentParser) -> None:
    from hpcab.timing.policy import Policy
    default = Policy()
    s.add_argument("--sessions", type=positive_int, default=default.sessions, metavar="N",
                   help=f"independent measuring sessions per scored case (default {default.sessions}): time for "
                        "precision; the interval narrows about as 1/sqrt(N), each session costs some 0.65 s to start "
                        "(docs/measurement_statistics.md)")
    s.add_argument("--drift", type=fraction, default=default.drift, metavar="SD",
                   help=f"this machine's grade-to-grade variation, a relative standard deviation added to every "
                        f"interval (default {default.drift:g}; measure it with benchmarks/timing_quality.py)")


def _number(text: str, convert, ok, expected: str):
    """An argument's number, or argparse's error saying what was expected."""
    try:
        value = convert(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise argparse.ArgumentTypeError(f"{text!r}: expected {expected}")
    return value


def fraction(text: str) -> float:
    return _number(text, float, lambda v: 0 <= v < 1, "a fraction, at least 0 and below 1 (0.03 is 3 %)")


def positive_float(text: str) -> float:
    return _number(text, float, lambda v: 0 < v < float("inf"), "a positive number of seconds")


def positive_int(text: str) -> int:
    return _number(text, int, lambda v: v >= 1, "a whole number of at least 1")


def token_options(s, token_file: bool = True) -> None:
    if token_file:
        s.add_argument("--token-file", help="a file holding the bearer token, or the judge's tokens file with "
                                            "--agent (default: $HPCAB_TOKEN)")
    s.add_argument("--agent", metavar="NAME",
                   help="with the judge's tokens file as --token-file: the agent whose token to use")
