"""The agent API: an optimizer is an Agent whose solve() receives a Task and a Session.

    class MyAgent(Agent):
        name = "mine"
        def solve(self, task: Task, session: Session) -> None:
            doc = session.score(source, "c")        # public cases, not recorded
            session.submit(source, "c")             # public + hidden, recorded: final

The Session is the agent's judge handle for one task: the HTTP JudgeClient or the
in-process judge (--native) behind it, and the task's budgets (submissions, scores, wall
time, tokens) in front of it. A call the budget does not allow raises BudgetExhausted;
the runner (hpcab.agents.runner) ends the task there. See docs/writing_an_agent.md.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Protocol

import attrs

from hpcab.client import JudgeError


class BudgetExhausted(Exception):
    """The task's budget does not allow this call; the task ends."""


class JudgeHandle(Protocol):
    """What a Session talks to: hpcab.client.JudgeClient, or hpcab.agents.native.NativeJudge.
    Errors are hpcab.client.JudgeError for both."""

    def health(self) -> dict: ...
    def kernels(self) -> list[dict]: ...
    def task(self, kernel: str, language: str = "c") -> dict: ...
    def baseline(self, kernel: str) -> dict: ...
    def score(self, kernel: str, source: str, language: str, flagset: str | None = None,
              label: str | None = None, compiler: str | None = None) -> dict: ...
    def submit(self, kernel: str, source: str, language: str, flagset: str | None = None,
               label: str | None = None, compiler: str | None = None, submission_id: str | None = None,
               usage: dict | None = None, given: dict | None = None) -> dict: ...
    def compile(self, kernel: str, source: str, language: str, flagset: str | None = None,
                label: str | None = None, compiler: str | None = None, disassemble: bool = False) -> dict: ...
    def profile(self, kernel: str, source: str, language: str, flagset: str | None = None,
                label: str | None = None, compiler: str | None = None, preset: str | None = None) -> dict: ...
    def skills(self, name: str | None = None) -> dict: ...


@attrs.frozen
class Budget:
    """Per task. None: no limit of that kind (the judge may still enforce its own)."""
    submissions: int | None = 1
    scores: int | None = None
    wall_seconds: float | None = None
    tokens: int | None = None        # prompt + completion tokens of model calls
    profiles: int | None = None


@attrs.frozen
class Task:
    """One kernel to optimise. doc is the judge's GET /task answer for the C prototype
    (name, track, reference source, public cases, tolerance, flag sets, goal); an agent
    that wants another language's prototype asks session.task_for(language)."""
    kernel: str                 # the kernel's ID
    name: str
    track: str
    doc: dict
    workdir: Path               # the agent's own scratch folder for this task

    def local_kernel(self):
        """The kernel's manifest and reference from this machine's corpus (for optimizers that
        transform the reference: translator, numba, pythran)."""
        from hpcab.corpus import load_corpus
        return load_corpus().get(self.kernel)


@attrs.frozen
class ModelCall:
    """One call to a model, as its API counted it."""
    model: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    seconds: float = 0.0

    def as_json(self) -> dict:
        return attrs.asdict(self)


@attrs.define
class Session:
    """The agent's view of the judge for one task, with the budgets applied.

    Every model call the agent makes is reported with add_usage(); the calls since the
    previous submission travel with the next submission and are recorded with its grade."""
    judge: JudgeHandle
    task: Task
    budget: Budget
    log_path: Path | None = None            # JSON lines: every score, submission and model call
    started: float = attrs.field(factory=time.monotonic)
    scores: int = 0
    profiles: int = 0
    submissions: list[dict] = attrs.field(factory=list)        # the grade documents, in order
    score_docs: list[dict] = attrs.field(factory=list)
    calls: list[ModelCall] = attrs.field(factory=list)
    _unsent: list[ModelCall] = attrs.field(factory=list)
    judge_refused_scores: str = ""          # the judge's own score budget is spent: its refusal
    # What the agent was given (its prompt, skills, tools, hints), sent with each submission
    # and recorded with its grade (docs/agent_tools.md); None: the agent does not say.
    given: dict | None = None
    _lock: threading.Lock = attrs.field(factory=threading.Lock)

    # ---- budget ------------------------------------------------------------------------

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def tokens(self) -> int:
        return sum(c.prompt_tokens + c.completion_tokens for c in self.calls)

    def remaining(self) -> dict[str, float | int | None]:
        b = self.budget
        return {
            "submissions": None if b.submissions is None else b.submissions - len(self.submissions),
            "scores": None if b.scores is None else b.scores - self.scores,
            "wall_seconds": None if b.wall_seconds is None else max(b.wall_seconds - self.elapsed, 0.0),
            "tokens": None if b.tokens is None else b.tokens - self.tokens,
            "profiles": None if b.profiles is None else b.profiles - self.profiles,
        }

    def check(self, what: str = "") -> None:
        """Raise BudgetExhausted if the wall time or the tokens are spent (agents with a loop
        call this each turn; score/submit call it themselves)."""
        left = self.remaining()
        if left["wall_seconds"] is not None and left["wall_seconds"] <= 0:
            raise BudgetExhausted(f"wall-time budget of {self.budget.wall_seconds:g} s spent{what}")
        if left["tokens"] is not None and left["tokens"] <= 0:
            raise BudgetExhausted(f"token budget of {self.budget.tokens} spent{what}")

    @property
    def can_submit(self) -> bool:
        left = self.remaining()["submissions"]
        return left is None or left > 0

    @property
    def can_score(self) -> bool:
        """False once the task's score budget is spent, or once the judge refused a score
        because its own budget for this agent is (its tokens file: a 403)."""
        if self.judge_refused_scores:
            return False
        left = self.remaining()["scores"]
        return left is None or left > 0

    # ---- the judge ---------------------------------------------------------------------

    def task_for(self, language: str) -> dict:
        return self.judge.task(self.task.kernel, language)

    def score(self, source: str, language: str, flagset: str | None = None, label: str | None = None,
              compiler: str | None = None) -> dict:
        """Public cases only, not recorded by the judge: the agent's own test bench."""
        self.check(" before this score")
        if not self.can_score:
            raise BudgetExhausted(f"score budget of {self.budget.scores} spent")
        try:
            doc = self.judge.score(self.task.kernel, source, language, flagset, label, compiler)
        except JudgeError as exc:
            if charged(exc):
                self.scores += 1
            if score_budget_refused(exc):
                self.judge_refused_scores = exc.message
                self.log({"event": "score_refused", "language": language, "flagset": flagset, "label": label,
                          "message": exc.message})
            raise
        self.scores += 1            # counted once the judge charged it, as its scores_used does
        self.score_docs.append(doc)
        self.log({"event": "score", "language": language, "flagset": flagset, "label": label,
                   "status": doc.get("status"), "speedup": speedup_of(doc)})
        return doc

    def compile(self, source: str, language: str, flagset: str | None = None, label: str | None = None,
                compiler: str | None = None, disassemble: bool = False) -> dict:
        """The compiler's report (POST /compile): nothing runs, no budget spent."""
        self.check(" before this compile")
        doc = self.judge.compile(self.task.kernel, source, language, flagset, label, compiler, disassemble)
        self.log({"event": "compile", "language": language, "flagset": flagset, "label": label, "ok": doc.get("ok"),
                  "counts": doc.get("counts")})
        return doc

    def profile(self, source: str, language: str, flagset: str | None = None, label: str | None = None,
                compiler: str | None = None) -> dict:
        """Where the candidate's calls spend their time (POST /profile), on a public case.
        Charged to the task's profile budget once the judge made it."""
        self.check(" before this profile")
        left = self.remaining()["profiles"]
        if left is not None and left <= 0:
            raise BudgetExhausted(f"profile budget of {self.budget.profiles} spent")
        doc = self.judge.profile(self.task.kernel, source, language, flagset, label, compiler)
        self.profiles += 1
        self.log({"event": "profile", "language": language, "flagset": flagset, "label": label,
                  "status": doc.get("status"), "samples": doc.get("samples")})
        return doc

    def submit(self, source: str, language: str, flagset: str | None = None, label: str | None = None,
               compiler: str | None = None) -> dict:
        """Public and hidden cases, recorded: the agent's answer. The model calls made since
        the previous submission are recorded with this grade."""
        if not self.can_submit:
            raise BudgetExhausted(f"submission budget of {self.budget.submissions} spent")
        with self._lock:
            calls, self._unsent = self._unsent, []
        usage = usage_document(calls, self.elapsed) if calls else None
        doc = self.judge.submit(self.task.kernel, source, language, flagset, label, compiler,
                                submission_id=uuid.uuid4().hex, usage=usage, given=self.given)
        self.submissions.append(doc)
        self.log({"event": "submit", "language": language, "flagset": flagset, "label": label,
                   "grade_id": doc.get("id"), "status": doc.get("status"), "speedup": speedup_of(doc)})
        return doc

    def add_usage(self, call: ModelCall) -> None:
        """Report one model call (the LLM agent does this after every completion)."""
        with self._lock:
            self.calls.append(call)
            self._unsent.append(call)
        self.log({"event": "model_call", **call.as_json()})

    def unsent_usage(self) -> dict | None:
        """The model calls no submission has carried yet (a task that ended without one)."""
        with self._lock:
            return usage_document(self._unsent, self.elapsed) if self._unsent else None

    def log(self, record: dict) -> None:
        if self.log_path is None:
            return
        record = {"time": round(self.elapsed, 3), "kernel": self.task.kernel, **record}
        with self._lock, open(self.log_path, "a") as f:
            f.write(json.dumps(record) + "\n")


def charged(exc: JudgeError) -> bool:
    """Whether the judge charged the score it answered with exc (docs/judge_api.md, "Charging"):
    only when the grading failed inside the judge, a 500 carrying the message of
    hpcab.judge.service.failure_message (tests/test_llm_agent.py ties the two). A refusal
    (400, 403, 409, 429, 503) or a grading worker that died (500) is not charged. No answer
    at all (status None): not known, so not counted; the runner ends the run there."""
    return exc.status == 500 and "It is charged to the score budget" in exc.message


def score_budget_refused(exc: JudgeError) -> bool:
    """Whether the judge refused a score because the agent's score budget (the judge's
    tokens file) is spent: the 403 of hpcab.judge.service's score admission, whose message
    says so (tests/test_agents.py ties the two). Not retried: every later score gets it too."""
    return exc.status == 403 and "spent its score budget" in exc.message


def usage_document(calls: list[ModelCall], wall_seconds: float) -> dict:
    """The `usage` of a submission (schemas/submission.schema.json): totals and every call."""
    return {
        "calls": [c.as_json() for c in calls],
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "cached_tokens": sum(c.cached_tokens for c in calls),
        "wall_seconds": round(wall_seconds, 3),
    }


class Agent:
    """An optimizer. Subclasses set `name` and implement solve(); options come from the
    command line (`hpcab agent NAME --option key=value`) or the arm file."""
    name = "agent"
    # Languages the agent writes; the runner checks the judge can compile one of them.
    languages: tuple[str, ...] = ("c",)

    def __init__(self, **options: Any):
        self.options = options

    def solve(self, task: Task, session: Session) -> None:
        """Work on the task until it is submitted or the budget ends."""
        raise NotImplementedError


def speedup_of(doc: dict) -> float | None:
    """The baseline speedup's point value (None: wrong, not timed, or no baseline)."""
    s = doc.get("speedup_vs_baseline") or {}
    return s.get("value") if isinstance(s, dict) else None
