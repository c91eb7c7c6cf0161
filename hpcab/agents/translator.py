"""The translator optimizer: the translator's C and Fortran under each flag set.

Every (language, flag set) pair is scored on the public cases, and the variant chosen by
hpcab.agents.search.best is submitted. Under the autopar flag set the C is the
translator's parallel C (OpenMP loops), which is the scientific track's c-autopar
baseline itself: expect a speedup near 1 there. A kernel the translator cannot translate
ends with nothing submitted, and says why.
"""

from __future__ import annotations

from hpcab.agents.base import Agent, Session, Task
from hpcab.agents.search import Variant, score_all, submit_best

DEBUG_FLAGSETS = {"debug"}         # never for timing (toolchains/flagsets.toml says so)


class TranslateFailed(Exception):
    pass


def translated(kernel, language: str, flagset: str) -> str:
    from hpcab.translate import TranslateError, translate
    try:
        return translate(kernel, language, flagset).source
    except TranslateError as exc:
        raise TranslateFailed(f"the translator cannot translate {kernel.name} to {language}:\n{exc}") from None


def timing_flagsets(task: Task) -> list[str]:
    """The judge's flag sets an optimizer may time with, the default first."""
    default = task.doc.get("default_flagset", "opt")
    names = [n for n in task.doc.get("flagsets", {}) if n not in DEBUG_FLAGSETS]
    return [default] + sorted(n for n in names if n != default)


class TranslatorAgent(Agent):
    name = "translator"
    languages = ("c", "fortran")

    def solve(self, task: Task, session: Session) -> None:
        kernel = task.local_kernel()
        offered = set(task.doc.get("languages", self.languages))
        variants, failures = [], []
        for language in (lang for lang in self.options.get("languages", self.languages) if lang in offered):
            for flagset in timing_flagsets(task):
                try:
                    source = translated(kernel, language, flagset)
                except TranslateFailed as exc:
                    failures.append(str(exc))
                    break               # the flag set does not change what the translator can read
                variants.append(Variant(f"{language}@{flagset}", source, language, flagset))
        if not variants:
            raise TranslateFailed("\n".join(failures) or f"the judge builds none of {', '.join(self.languages)}")
        submit_best(session, score_all(session, variants), fallback=variants[0])


class NoopAgent(Agent):
    """The `noop` control (docs/writing_an_agent.md): the translator's C at the judge's default
    flag set, submitted unchanged, no score: what an agent gets for doing nothing, the floor
    an arm is compared with (python -m hpcab.experiments compare)."""
    name = "noop"
    languages = ("c",)

    def solve(self, task: Task, session: Session) -> None:
        flagset = task.doc.get("default_flagset", "opt")
        source = translated(task.local_kernel(), "c", flagset)
        session.submit(source, "c", flagset, label=f"noop c@{flagset}")
