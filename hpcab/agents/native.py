"""NativeJudge: the judge in the agent's own process (`hpcab agent --native`).

The same hpcab.judge.service.Judge that `hpcab serve` runs, with the same database,
hidden cases, worker pool, sandbox and measurement slots, called directly instead of over
HTTP; its methods and errors are those of hpcab.client.JudgeClient, so an agent cannot
tell the two apart. Candidates still build and run in the judge's sandboxed child
processes, never in this one.
"""

from __future__ import annotations

from hpcab.client import JudgeError, submission_body
from hpcab.judge.service import ApiError, Judge, JudgeConfig
from hpcab.judge.tokens import OPEN_AGENT, Agent as JudgeAgent


class NativeJudge:
    def __init__(self, config: JudgeConfig, agent: str = OPEN_AGENT):
        self.judge = Judge(config)
        self.agent = JudgeAgent(agent, None, None)

    def close(self) -> None:
        self.judge.close()

    def __enter__(self) -> "NativeJudge":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except ApiError as exc:
            raise JudgeError(exc.status, exc.message, {"error": {"message": exc.message, "field": exc.field}}) \
                from None

    def health(self) -> dict:
        return self._call(self.judge.health)

    def kernels(self) -> list[dict]:
        return self._call(self.judge.list_kernels)["kernels"]

    def task(self, kernel: str, language: str = "c") -> dict:
        return self._call(self.judge.task, kernel, language, self.agent)

    def baseline(self, kernel: str) -> dict:
        return self._call(self.judge.baseline, kernel)

    def score(self, kernel: str, source: str, language: str, flagset: str | None = None,
              label: str | None = None, compiler: str | None = None) -> dict:
        return self._call(self.judge.score, submission_body(kernel, source, language, flagset, label, compiler), self.agent)

    def submit(self, kernel: str, source: str, language: str, flagset: str | None = None,
               label: str | None = None, compiler: str | None = None, submission_id: str | None = None,
               usage: dict | None = None, given: dict | None = None) -> dict:
        body = submission_body(kernel, source, language, flagset, label, compiler)
        if submission_id:
            body["submission_id"] = submission_id
        if usage is not None:
            body["usage"] = usage
        if given:
            body["given"] = given
        return self._call(self.judge.submit, body, self.agent)

    def skills(self, name: str | None = None) -> dict:
        return self._call(self.judge.skills, name or "")

    def compile(self, kernel: str, source: str, language: str, flagset: str | None = None,
                label: str | None = None, compiler: str | None = None, disassemble: bool = False) -> dict:
        body = submission_body(kernel, source, language, flagset, label, compiler)
        if disassemble:
            body["disassemble"] = True
        return self._call(self.judge.compile, body, self.agent)

    def profile(self, kernel: str, source: str, language: str, flagset: str | None = None,
                label: str | None = None, compiler: str | None = None, preset: str | None = None) -> dict:
        body = submission_body(kernel, source, language, flagset, label, compiler)
        if preset:
            body["preset"] = preset
        return self._call(self.judge.profile, body, self.agent)

    def grade(self, grade_id: str) -> dict:
        return self._call(self.judge.grade, grade_id, self.agent)

