"""Everything the roles would check at their start, checked before a launch submits anything.

`python -m hpcab.launch --arm A --check` and the launch itself call check_roles(arm): the
kernel selectors against this machine's corpus, the roles' command lines (built exactly as
the launcher builds them) against `hpcab serve` and `hpcab agent`'s own parsers, the
judge's presets, the optimizer and its options through the agent class itself (the code
`hpcab agent` runs at its start), flag sets against toolchains/, the files the options
name, the inference command's placeholders and the images against their lock. Every
problem is one line naming the arm file and the field; all of them are reported at once.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

from hpcab.errors import HpcabError, InputError, closest
from hpcab.launch.arm import Arm
from hpcab.launch.plan import instances, verified_images
from hpcab.launch.roles import fill

# What a placeholder the roles fill only once their servers answer stands for, to parse.
_STAND_INS = {"{port}": "1", "{judge_url}": "http://127.0.0.1:1", "{judge_rank}": "0",
              "{model_url}": "http://127.0.0.1:1/v1"}
# The llm agent's options that come from the arm's model: (its option, the arm's field)
_MODEL_FIELDS = {"model_url": "model.url", "model_name": "model.name", "api": "model.api"}
# Options naming a file or folder the agent reads (replay: dir, db).
_PATH_OPTIONS = {"dir": "folder", "db": "file"}


class ArmProblems(HpcabError):
    """Every problem found, one line each (InputErrors naming the arm file and the field)."""

    def __init__(self, problems: list[InputError]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def check_roles(arm: Arm) -> dict[str, tuple]:
    """Raise ArmProblems listing every problem; else return verified_images(arm)."""
    from hpcab.corpus import load_corpus
    src = str(arm.path)
    problems: list[InputError] = []

    def bad(field: str, message: str) -> None:
        problems.append(InputError(src, field, message))

    corpus = load_corpus()
    selectors = [("kernels", arm.kernels)] + [(f"legs[{i}]", s) for i, s in enumerate(arm.raw.get("legs") or ())]
    for field, selector in selectors:
        try:
            corpus.select(selector)
            # The judge refuses to start on a selected kernel that does not load: so does the check.
            corpus.refuse_broken(selector, lambda _warning: None)
        except InputError as exc:         # Corpus.select says what the term may have meant
            bad(field, f"{exc.field!r} {exc.message}")
        except HpcabError as exc:
            bad(field, str(exc))
    selectors_ok = not problems
    known = len(problems)
    _check_optimizer_name(arm, bad)
    optimizer_ok = len(problems) == known
    _check_inference(arm, bad)
    if selectors_ok:        # the command lines are built from the kernels
        _check_commands(arm, corpus, bad, agent=optimizer_ok)
    images = {}
    try:
        images = verified_images(arm)
    except HpcabError as exc:       # names the lock and its entry: kept whole, after the arm's field
        bad("images_lock", str(exc))
    if problems:
        raise ArmProblems(problems)
    return images


def _did_you_mean(word: str, vocabulary) -> str:
    close = closest(word, vocabulary)
    return f"; did you mean {close!r}?" if close else ""


def _check_optimizer_name(arm: Arm, bad) -> None:
    from hpcab.agents import AGENTS
    if arm.role("agent").command:
        return                  # a command of the arm's own: the optimizer is not hpcab agent's
    name = arm.optimizer
    if name not in AGENTS and ":" not in name:
        bad("optimizer", f"unknown optimizer {name!r}{_did_you_mean(name, AGENTS)}"
                         + ("" if _did_you_mean(name, AGENTS) else
                            f" (expected one of {', '.join(AGENTS)}, or module:Class)"))


def _check_inference(arm: Arm, bad) -> None:
    inference = arm.role("inference")
    if not inference.count or not inference.command:
        return
    words = " ".join(inference.command)
    if "{port}" not in words:
        bad("roles.inference.command", "has no '{port}': the server must listen on the port its role picks "
                                       "(e.g. --port '{port}'), or it is never found healthy")
    if "{model}" in words and not arm.model:
        bad("roles.inference.command", "uses '{model}' but the arm has no model (model: {name: ...})")


def _check_commands(arm: Arm, corpus, bad, agent: bool = True) -> None:
    """The first judge's and the first agent worker's command lines, as the launcher submits
    them, parsed by hpcab's own parser and checked by the code each command runs first."""
    import sys

    with tempfile.TemporaryDirectory(prefix="hpcab-check-") as tmp:
        run = Path(tmp)
        seen: set[str] = set()
        for leg in range(len(arm.legs)):
            for inst in instances(arm, run, run / "tokens.json", leg):
                if inst.role in seen or inst.role == "inference" or (inst.role == "agent" and not agent):
                    continue
                seen.add(inst.role)
                if arm.role(inst.role).command or list(inst.argv[:3]) != [sys.executable, "-m", "hpcab"]:
                    continue    # the arm's own command: what it accepts is its own business
                argv = [fill(a, _STAND_INS) for a in inst.argv[3:]]
                field = f"roles.{inst.role}.args"
                args = _parse(argv, field, bad)
                if args is None:
                    continue
                if inst.role == "judge":
                    _check_judge(args, corpus, field, bad)
                else:
                    _check_agent(arm, args, bad)


def _parse(argv: list[str], field: str, bad):
    from hpcab.cli import build_parser
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return build_parser().parse_args(argv)
    except SystemExit:
        said = [line for line in err.getvalue().splitlines() if line.strip()]
        bad(field, said[-1].split("error: ", 1)[-1] if said else f"`hpcab {' '.join(argv)}` does not parse")
        return None


def _check_judge(args, corpus, field: str, bad) -> None:
    from hpcab.judge.service import check_presets
    from hpcab.judge.slots import parse_slots
    presets = tuple(p.strip() for p in args.presets.split(",") if p.strip())
    hidden = tuple(p.strip() for p in args.hidden_presets.split(",") if p.strip())
    try:
        check_presets(corpus.select(args.kernels), presets + hidden)
    except InputError as exc:
        bad(field, f"--presets/--hidden-presets: {exc.message}")
    try:
        parse_slots(args.slot, args.threads)
    except ValueError as exc:
        bad(field, f"--slot/--threads: {exc}")


def _check_agent(arm: Arm, args, bad) -> None:
    from hpcab.agents.runner import agent_from_args
    try:
        agent = agent_from_args(args)
    except InputError as exc:
        bad(*_agent_field(exc))
        return
    options = getattr(agent, "options", {}) or {}
    for key, value in options.items():
        if key == "flagset" or key.endswith("_flagset"):
            from hpcab.toolchain import load_toolchains
            try:
                load_toolchains().flagset(str(value))
            except InputError as exc:
                bad(f"options.{key}", exc.message)
        kind = _PATH_OPTIONS.get(key)
        if kind and arm.optimizer == "replay":
            path = Path(str(value))
            if not (path.is_dir() if kind == "folder" else path.is_file()):
                bad(f"options.{key}", f"{value}: no such {kind}")


def _agent_field(exc: InputError) -> tuple[str, str]:
    """The arm's field an error of the agent's option checks is about."""
    if exc.source == "agent" and exc.field == "name":
        return "optimizer", exc.message
    if exc.source == "--model":
        return "model.url", f"{exc.field}: {exc.message}"
    if exc.source == "--option":
        return "options", f"{exc.field}: {exc.message}"
    if exc.field in _MODEL_FIELDS:
        return _MODEL_FIELDS[exc.field], exc.message
    if exc.field == "option":
        # "unknown option(s) a, b; known: x, y, ...": a guess for each unknown one
        unknown, _, known = exc.message.removeprefix("unknown option(s) ").partition("; known: ")
        guesses = [f"{u!r}: did you mean {c!r}?" for u in unknown.split(", ")
                   if (c := closest(u, known.split(", ")))]
        return "options", exc.message + (f" ({'; '.join(guesses)})" if guesses else "")
    return f"options.{exc.field}" if exc.field else "options", exc.message
