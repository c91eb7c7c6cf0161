"""JudgeClient: talk to a judge (`hpcab serve`) over HTTP, standard library only.

    client = JudgeClient("http://127.0.0.1:8000", token="...")        # the judge of rank 0
    client = JudgeClient.for_worker(urls, worker=5, token="...")       # judge 5 % len(urls)
    task = client.task("gemm", language="c")
    doc = client.score("gemm", source, "c")       # public cases, not recorded
    doc = client.submit("gemm", source, "c")      # public + hidden, recorded: the final answer

Every request carries the rank the client addresses. A full queue (429) is waited out
as the judge's Retry-After says; a judge that is restarting (connection refused or
reset) is retried for a while, and a submission keeps its submission_id (a score its
score_id) across those retries, so it is graded and charged once. on_retry, when given,
hears one line each time a request starts waiting. The token never appears in the
client's repr, its errors or those lines.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

RANK_HEADER = "X-Hpcab-Rank"
MAX_TOKEN_CHARS = 512
# RFC 6750's b64token: what may follow "Bearer " in one header line.
_TOKEN = re.compile(r"[A-Za-z0-9._~+/-]+=*")


def plausible_token(text: str) -> str | None:
    """None when text could be a bearer token, else why not, without quoting any of it
    (the text may be a file of other agents' tokens)."""
    if not text:
        return "it is empty"
    if len(text) > MAX_TOKEN_CHARS:
        return f"it is {len(text)} characters long (a token has at most {MAX_TOKEN_CHARS})"
    if not text.isascii() or not all(c.isprintable() or c.isspace() for c in text):
        return "it holds non-printable or non-ASCII characters"
    if text.lstrip()[:1] in ("{", "[") or ":" in text or re.match(r"---(\s|$)", text):
        return "it looks like a JSON or YAML document, not a token"
    if any(c.isspace() for c in text):
        return "it holds whitespace (a token is one word)"
    if not _TOKEN.fullmatch(text):
        return "it holds characters a bearer token cannot have (only letters, digits, -._~+/ and a trailing =)"
    return None


class JudgeError(Exception):
    """The judge answered with an error (status >= 400), or could not be reached."""

    def __init__(self, status: int | None, message: str, body: dict | None = None):
        super().__init__(f"{status}: {message}" if status else message)
        self.status, self.message, self.body = status, message, body or {}


class JudgeClient:
    def __init__(self, url: str, token: str | None = None, rank: int = 0, timeout: float = 1800.0,
                 max_wait: float = 900.0, reconnect_seconds: float = 60.0,
                 on_retry: Callable[[str], None] | None = None):
        """url: the judge's base URL; rank: the rank of that judge (sent with every request);
        timeout: for one request (a submission is graded before the answer comes);
        max_wait: how long to keep retrying on 429; reconnect_seconds: on a refused or
        dropped connection, or a stopping judge (503); on_retry: called with one line when
        a request starts waiting (once per reason and request, not once per retry)."""
        reason = plausible_token(token) if token else None
        if reason:
            # Checked here: http.client would put a malformed header, token and all, in its error.
            raise ValueError(f"JudgeClient: the token is not a plausible bearer token: {reason}")
        self.url, self.token, self.rank = url.rstrip("/"), token, rank
        self.timeout, self.max_wait, self.reconnect_seconds = timeout, max_wait, reconnect_seconds
        self.on_retry = on_retry

    def __repr__(self) -> str:
        token = "<hidden>" if self.token else None
        return f"JudgeClient(url={self.url!r}, rank={self.rank}, token={token})"

    @classmethod
    def for_worker(cls, urls: list[str], worker: int, token: str | None = None, **kw) -> "JudgeClient":
        """Worker w talks to judge w % J."""
        rank = worker % len(urls)
        return cls(urls[rank], token, rank, **kw)

    # ---- the endpoints -----------------------------------------------------------------

    def health(self) -> dict:
        return self._request("GET", "/health")

    def kernels(self) -> list[dict]:
        return self._request("GET", "/kernels")["kernels"]

    def task(self, kernel: str, language: str = "c") -> dict:
        return self._request("GET", f"/task/{urllib.parse.quote(kernel)}?language={urllib.parse.quote(language)}")

    def baseline(self, kernel: str) -> dict:
        return self._request("GET", f"/baseline/{urllib.parse.quote(kernel)}")

    def score(self, kernel: str, source: str, language: str, flagset: str | None = None,
              label: str | None = None, compiler: str | None = None, score_id: str | None = None) -> dict:
        """score_id: made once per call and kept across the retries, so that the judge
        charges a retried score once."""
        body = submission_body(kernel, source, language, flagset, label, compiler)
        body["score_id"] = score_id or uuid.uuid4().hex
        return self._request("POST", "/score", body)

    def submit(self, kernel: str, source: str, language: str, flagset: str | None = None,
               label: str | None = None, compiler: str | None = None, submission_id: str | None = None,
               usage: dict | None = None, given: dict | None = None) -> dict:
        """usage: the model calls made since the previous submission (docs/token_accounting.md);
        given: what the agent was given (its prompt, skills, tools, hints: docs/agent_tools.md)."""
        body = submission_body(kernel, source, language, flagset, label, compiler)
        body["submission_id"] = submission_id or uuid.uuid4().hex
        if usage is not None:
            body["usage"] = usage
        if given:
            body["given"] = given
        return self._request("POST", "/submit", body)

    def skills(self, name: str | None = None) -> dict:
        """GET /skills ({"skills": [{name, description}]}), or GET /skills/<name> (its page)."""
        return self._request("GET", "/skills" + (f"/{urllib.parse.quote(name, safe='')}" if name else ""))

    def compile(self, kernel: str, source: str, language: str, flagset: str | None = None,
                label: str | None = None, compiler: str | None = None, disassemble: bool = False) -> dict:
        """The compiler's report on the candidate (POST /compile): nothing runs, no budget."""
        body = submission_body(kernel, source, language, flagset, label, compiler)
        if disassemble:
            body["disassemble"] = True
        return self._request("POST", "/compile", body)

    def profile(self, kernel: str, source: str, language: str, flagset: str | None = None,
                label: str | None = None, compiler: str | None = None, preset: str | None = None) -> dict:
        """Where the candidate's calls spend their time (POST /profile): one public case, under
        perf; charged to the agent's profile budget, not a grade."""
        body = submission_body(kernel, source, language, flagset, label, compiler)
        if preset:
            body["preset"] = preset
        return self._request("POST", "/profile", body)

    def grade(self, grade_id: str) -> dict:
        return self._request("GET", f"/grades/{urllib.parse.quote(grade_id)}")

    def submit_file(self, kernel: str, path: Path | str, language: str | None = None, score_only: bool = False,
                    flagset: str | None = None) -> dict:
        from hpcab.build import candidate_from_file
        c = candidate_from_file(Path(path), language)
        call = self.score if score_only else self.submit
        return call(kernel, c.source, c.language, flagset, c.label)

    # ---- transport ---------------------------------------------------------------------

    def _request(self, method: str, path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        headers = {RANK_HEADER: str(self.rank), "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        started = time.monotonic()
        down_since: float | None = None
        announced: set[str] = set()       # the reasons this request has said it waits for

        def waiting(reason: str, line: str) -> None:
            if reason not in announced:
                announced.add(reason)
                if self.on_retry:
                    self.on_retry(line)

        while True:
            req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    raw = resp.read()
                    status = resp.status
            except urllib.error.HTTPError as exc:
                payload = _json(exc)
                wait = _retry_after(exc)
                message = (payload.get("error") or {}).get("message") or exc.reason
                if exc.code == 429 and time.monotonic() - started < self.max_wait:
                    waiting("queue", ("the judge's limit of compiler reports a minute is reached" if path == "/compile"
                                      else "the judge's queue is full") + f"; retrying in {wait:g} s "
                                     f"(for up to {self.max_wait:g} s)…")
                    time.sleep(wait)
                    continue
                if exc.code == 503:     # the judge is stopping: it may come back (a restart)
                    down_since = down_since or time.monotonic()
                    if time.monotonic() - down_since < self.reconnect_seconds:
                        waiting("stopping", f"the judge at {self.url} is stopping (503: {_one_line(message)}); "
                                            f"retrying for up to {self.reconnect_seconds:g} s…")
                        time.sleep(wait)
                        continue
                    if announced:
                        message = f"{message}; gave up after {time.monotonic() - down_since:.0f} s of retries"
                raise JudgeError(exc.code, _one_line(message), payload) from None
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError) as exc:
                cause = getattr(exc, "reason", exc)
                reason = _reason(cause, self.timeout)
                down_since = down_since or time.monotonic()
                # A timeout is not retried (the judge may be grading it still); nor is a
                # malformed URL (a reason that is only text): neither gets better by waiting.
                final = isinstance(cause, TimeoutError) or isinstance(cause, str)
                if final or time.monotonic() - down_since >= self.reconnect_seconds:
                    after = "" if final or not announced else \
                        f"; gave up after {time.monotonic() - down_since:.0f} s of retries"
                    raise JudgeError(None, f"cannot reach the judge at {self.url} ({reason}){after}") from None
                waiting("down", f"cannot reach the judge at {self.url} ({reason}); "
                                f"retrying for up to {self.reconnect_seconds:g} s…")
                time.sleep(0.5)
                continue
            try:
                return json.loads(raw or b"{}")
            except ValueError:
                # Something else answers at this URL (a proxy's page, another service).
                raise JudgeError(status, f"the answer from {self.url} is not JSON; is it a judge?") from None


def submission_body(kernel: str, source: str, language: str, flagset: str | None, label: str | None,
          compiler: str | None) -> dict:
    body = {"kernel": kernel, "source": source, "language": language}
    for key, value in (("flagset", flagset), ("label", label), ("compiler", compiler)):
        if value is not None:
            body[key] = value
    return body


def _retry_after(exc: urllib.error.HTTPError) -> float:
    """The Retry-After seconds (1 when absent or not a number), at most 60."""
    try:
        return min(max(float(exc.headers.get("Retry-After") or 1), 0.0), 60.0)
    except ValueError:
        return 1.0


def _reason(reason: object, timeout: float) -> str:
    """Why a connection failed, in a few words."""
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, http.client.RemoteDisconnected):      # before its base, ConnectionResetError
        return "the connection was closed without an answer"
    if isinstance(reason, ConnectionResetError):
        return "connection reset"
    if isinstance(reason, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(reason, socket.gaierror):
        return f"the host name does not resolve: {reason.strerror or reason}"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror.lower()
    return _one_line(str(reason)) or type(reason).__name__


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _json(exc: urllib.error.HTTPError) -> dict:
    try:
        data = json.loads(exc.read() or b"{}")
        return data if isinstance(data, dict) else {}
    except (ValueError, OSError):
        return {}
