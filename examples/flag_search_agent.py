"""An example optimizer: the translator's C, a few variants of it, the best one submitted.

Run it with (docs/writing_an_agent.md):

    hpcab agent examples/flag_search_agent.py:FlagSearchAgent --kernels gemm --native
    hpcab agent examples/flag_search_agent.py:FlagSearchAgent --kernels L1 --judge URL --option unroll=8

What it does for each kernel:
  1. starts from the translator's C for the kernel (hpcab.translate.translate, on this
     machine's copy of the corpus: Task.local_kernel());
  2. makes a few variants: the same C under the judge's other flag sets, the C with a
     `#pragma GCC unroll N` before each innermost loop, and the translator's OpenMP C;
  3. scores each on the public cases (session.score) and keeps the fastest correct one;
  4. submits it (session.submit). When the scores run out first (this task's --scores or
     --wall-seconds, or the judge's own score budget), it submits the best scored so far,
     or the starting point if none was scored: a task never ends with nothing submitted.
"""

from __future__ import annotations

from dataclasses import dataclass

from hpcab.agents import Agent, BudgetExhausted, Session, Task
from hpcab.client import JudgeError
from hpcab.translate import TranslateError, translate


@dataclass(frozen=True)
class Variant:
    name: str           # the submission's label: the results table's "variant" column shows it
    source: str
    flagset: str


def unroll_innermost_loops(source: str, factor: int) -> str:
    """The C with `#pragma GCC unroll factor` before every loop that holds no other loop.
    It relies on the translator's layout (one `for (...) {` per line, bodies indented);
    on other code a pragma before an outer loop is still valid C, only less useful."""
    lines = source.splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.lstrip().startswith("for (") and not _holds_a_loop(lines, i):
            indent = line[:len(line) - len(line.lstrip())]
            out.append(f"{indent}#pragma GCC unroll {factor}")
        out.append(line)
    return "\n".join(out) + "\n"


def _holds_a_loop(lines: list[str], start: int) -> bool:
    depth = len(lines[start]) - len(lines[start].lstrip())
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= depth:
            return False        # back at the loop's own indentation: its body has ended
        if line.lstrip().startswith("for ("):
            return True
    return False


def speedup(doc: dict) -> float | None:
    """The median speedup of a correct grade: over the track's baseline, else over NumPy."""
    if not doc.get("correct"):
        return None
    sp = doc.get("speedup_vs_baseline") or doc.get("speedup_vs_numpy")
    return sp["value"] if sp else None


class FlagSearchAgent(Agent):
    name = "flag-search"
    languages = ("c",)

    def variants(self, task: Task) -> list[Variant]:
        """The starting point first: the translator's serial C at the judge's default flag set."""
        kernel = task.local_kernel()
        default = task.doc["default_flagset"]
        offered = set(task.doc["flagsets"]) - {"debug"}        # debug is never for timing
        serial = translate(kernel, "c", default).source         # raises TranslateError outside the subset
        found = [Variant(f"c@{default}", serial, default)]
        found += [Variant(f"c@{f}", serial, f) for f in sorted(offered) if f not in (default, "autopar")]
        factor = int(self.options.get("unroll", 4))
        found.append(Variant(f"c+unroll{factor}@{default}", unroll_innermost_loops(serial, factor), default))
        if "autopar" in offered:                                 # OpenMP pragmas need autopar's -fopenmp
            parallel = translate(kernel, "c", "autopar").source
            if parallel != serial:
                found.append(Variant("c-omp@autopar", parallel, "autopar"))
        return found

    def solve(self, task: Task, session: Session) -> None:
        try:
            variants = self.variants(task)
        except TranslateError as exc:
            raise RuntimeError(f"the translator cannot read {task.name}: {exc}") from None
        best, best_speed = variants[0], None
        try:
            for v in variants:
                if not session.can_score:           # no scores left (this task's or the judge's)
                    break
                doc = session.score(v.source, "c", flagset=v.flagset, label=v.name)
                s = speedup(doc)
                if s is not None and (best_speed is None or s > best_speed):
                    best, best_speed = v, s
        except BudgetExhausted:
            pass                    # this task's own budget (--scores, --wall-seconds) ended the search
        except JudgeError as exc:
            if exc.status != 403:   # 403: the judge's score budget for this agent is spent
                raise
        # The guard: whatever ended the search, the best so far (or the starting point) is the answer.
        if session.can_submit:
            session.submit(best.source, "c", flagset=best.flagset, label=best.name)
