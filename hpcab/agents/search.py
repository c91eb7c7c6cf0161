"""What the automatic optimizers share: a variant (source, language, flag set), its score on
the public cases, and the rule that picks the one to submit.

The rule (docs/writing_an_agent.md, "How the automatic optimizers choose"): only correct
variants count; the fastest by median speedup over the track's baseline (over NumPy where
the baseline was not timed) wins, unless its confidence interval overlaps the interval of
a simpler variant (listed earlier), which then wins: a difference inside the noise never
buys complexity.
"""

from __future__ import annotations

import attrs

from hpcab.agents.base import BudgetExhausted, Session, score_budget_refused
from hpcab.client import JudgeError


@attrs.frozen
class Variant:
    label: str                  # e.g. "c-omp@autopar/t2"
    source: str
    language: str
    flagset: str | None = None


@attrs.frozen
class Scored:
    variant: Variant
    doc: dict | None            # the judge's grade document (None: the judge refused: see error)
    error: str = ""

    @property
    def correct(self) -> bool:
        return bool(self.doc and self.doc.get("correct"))

    @property
    def speedup(self) -> tuple[float, float, float] | None:
        """(value, ci low, ci high) over the baseline, else over NumPy; None if not timed."""
        if not self.doc:
            return None
        sp = self.doc.get("speedup_vs_baseline") or self.doc.get("speedup_vs_numpy")
        return (sp["value"], sp["ci95"][0], sp["ci95"][1]) if sp else None


def score_all(session: Session, variants: list[Variant]) -> list[Scored]:
    """Score each variant in order until the score budget ends (the task's, or the judge's
    own: its refusal stops the scoring, and the caller still submits what it has); a
    variant the judge refuses for another reason is recorded with its message, not raised."""
    scored = []
    for v in variants:
        if not session.can_score:
            break
        try:
            doc = session.score(v.source, v.language, v.flagset, label=v.label)
        except BudgetExhausted:
            break
        except JudgeError as exc:
            if score_budget_refused(exc):           # session.can_score is False from now on
                break
            if exc.status in (None, 401, 403):     # the judge is gone or refuses us: nothing more to try
                raise
            scored.append(Scored(v, None, str(exc)))
            continue
        scored.append(Scored(v, doc))
    return scored


def best(scored: list[Scored]) -> Scored | None:
    """The variant to submit (see the module's docstring); None when none is correct."""
    winner = None
    for s in scored:
        if not s.correct or s.speedup is None:
            continue
        if winner is None:
            winner = s
            continue
        value, low, _ = s.speedup
        w_value, _, w_high = winner.speedup
        if value > w_value and low > w_high:      # faster beyond the noise: the later variant wins
            winner = s
    return winner


def ranked(scored: list[Scored]) -> list[Scored]:
    """Correct variants, fastest first."""
    return sorted((s for s in scored if s.correct and s.speedup), key=lambda s: -s.speedup[0])


def submit_best(session: Session, scored: list[Scored], fallback: Variant | None = None) -> dict | None:
    """Submit the chosen variant; with no correct one, the fallback (so the task still ends
    with a recorded answer), else nothing."""
    choice = best(scored)
    v = choice.variant if choice else fallback
    if v is None or not session.can_submit:
        return None
    return session.submit(v.source, v.language, v.flagset, label=v.label)
