"""The autotune optimizer: a staged search over translator variants x flag sets x thread
counts, with /score as the objective, then one submission of the best.

The space (each point one source, language and flag set):
    variants   c (serial), c-omp (the translator's OpenMP C), cpp, fortran
    flag sets  the judge's, except debug (opt, unroll, autopar, ...); c-omp only with autopar
               (its pragmas need OpenMP), the serial variants without it (-fopenmp alone
               changes nothing in serial code)
    threads    c-omp only: 1, 2, 4, ... up to the judge's thread count (num_threads(T) on
               every parallel loop); the serial variants run on one thread

The strategy (docs/writing_an_agent.md, "autotune"), within `max_scores` scores (default
12) and the task's score budget:
    1. screen: each variant once at its natural point (serial at the default flag set,
       c-omp at autopar with all the judge's threads);
    2. refine: the two best correct variants of the screen at every other flag set, and
       c-omp, if among them, at every other thread count;
    3. confirm: the two best points so far scored once more, so a lucky sample does not
       decide alone;
    4. submit hpcab.agents.search.best over every score, simplest point first: a faster
       point must beat a simpler one beyond their confidence intervals.
A kernel the translator cannot read ends with nothing submitted, and says why.
"""

from __future__ import annotations

import re

from hpcab.agents.base import Agent, Session, Task
from hpcab.agents.search import Scored, Variant, best, ranked, score_all
from hpcab.agents.translator import TranslateFailed, timing_flagsets, translated

SERIAL = {"c": "c", "cpp": "cpp", "fortran": "fortran"}     # variant -> language
PARALLEL_FLAGSET = "autopar"
_PRAGMA = re.compile(r"#pragma omp parallel for\b")


def with_threads(source: str, threads: int) -> str:
    """The OpenMP C with num_threads(T) on every parallel loop."""
    return _PRAGMA.sub(f"#pragma omp parallel for num_threads({threads})", source)


def thread_counts(limit: int) -> list[int]:
    counts, t = [], 1
    while t < limit:
        counts.append(t)
        t *= 2
    return counts + [max(limit, 1)]


class AutotuneAgent(Agent):
    name = "autotune"
    languages = ("c", "cpp", "fortran")

    def solve(self, task: Task, session: Session) -> None:
        kernel = task.local_kernel()
        offered = set(task.doc.get("languages", self.languages))
        flagsets = timing_flagsets(task)
        default = flagsets[0]
        threads = int(task.doc.get("threads") or 1)
        budget = int(self.options.get("max_scores", 12))

        sources: dict[str, str] = {}           # variant -> source
        failures = []
        for variant, language in SERIAL.items():
            if language in offered:
                try:
                    sources[variant] = translated(kernel, language, default)
                except TranslateFailed as exc:
                    failures.append(str(exc))
        if "c" in offered and PARALLEL_FLAGSET in flagsets:
            try:
                sources["c-omp"] = translated(kernel, "c", PARALLEL_FLAGSET)
            except TranslateFailed as exc:
                failures.append(str(exc))
            if sources.get("c-omp") == sources.get("c"):     # nothing the translator could parallelise
                sources.pop("c-omp")
        if not sources:
            raise TranslateFailed("\n".join(failures) or "the judge builds none of the translator's languages")

        def point(variant: str, flagset: str, t: int | None = None) -> Variant:
            if variant == "c-omp":
                t = t or threads
                return Variant(f"c-omp@{flagset}/t{t}", with_threads(sources[variant], t), "c", flagset)
            return Variant(f"{variant}@{flagset}", sources[variant], SERIAL[variant], flagset)

        scored: list[Scored] = []
        tried: set[str] = set()

        def run(points: list[Variant]) -> None:
            nonlocal budget
            fresh = [p for p in points if p.label not in tried][:max(budget, 0)]
            tried.update(p.label for p in fresh)
            budget -= len(fresh)
            scored.extend(score_all(session, fresh))

        # 1. screen
        run([point(v, PARALLEL_FLAGSET if v == "c-omp" else default) for v in sources])
        # 2. refine the two best variants
        leaders = []
        for s in ranked(scored):
            family = s.variant.label.split("@")[0]
            if family not in leaders:
                leaders.append(family)
        refine = []
        for family in leaders[:2]:
            if family == "c-omp":
                refine += [point(family, PARALLEL_FLAGSET, t) for t in thread_counts(threads)]
            else:
                refine += [point(family, f) for f in flagsets if f != PARALLEL_FLAGSET]
        run(refine)
        # 3. confirm the two best points
        top = ranked(scored)[:2]
        if budget > 0:
            again = [s.variant for s in top][:budget]
            budget -= len(again)
            scored.extend(score_all(session, again))
        # 4. submit, simplest point first
        simplest_first = sorted(scored, key=lambda s: _complexity(s.variant, default))
        choice = best(simplest_first)
        fallback = point(next(iter(sources)), default)
        v = choice.variant if choice else fallback
        if session.can_submit:
            session.submit(v.source, v.language, v.flagset, label=v.label)


def _complexity(v: Variant, default_flagset: str) -> tuple:
    family, _, rest = v.label.partition("@")
    threads = int(rest.split("/t")[1]) if "/t" in rest else 1
    order = ["c", "cpp", "fortran", "c-omp"]
    return (threads, v.flagset != default_flagset, order.index(family) if family in order else 9)
