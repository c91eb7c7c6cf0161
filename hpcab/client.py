"""JudgeClient: talk to a judge (`hpcab serve`) over HTTP, standard library only.

    client = JudgeClient("http://127.0.0.1:8000", token="...")        # the judge of rank 0
    client = JudgeClient.for_worker(urls, worker=5, token="...")       # judge 5 % len(urls)
    task = client.task("gemm", language="c")
    doc = client.score("gemm", source, "c")       # public cases, not recorded
    doc = client.submit("gemm", source, "c")      # public + hidden, recorded: the final answer

Every request carries the rank the client addresses. A full queue (429) is waited out
as the judge's Retry-After says; a judge that is restarting (connection refused or
reset) is retried for a while, and a submission keeps its submission_id across those
retries, so it is graded and charged once.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

RANK_HEADER = "X-Hpcab-Rank"


class JudgeError(Exception):
    """The judge answered with an error (status >= 400), or could not be reached."""

    def __init__(self, status: int | None, message: str, body: dict | None = None):
        super().__init__(f"{status}: {message}" if status else message)
        self.status, self.message, self.body = status, message, body or {}


class JudgeClient:
    def __init__(self, url: str, token: str | None = None, rank: int = 0, timeout: float = 1800.0,
                 max_wait: float = 900.0, reconnect_seconds: float = 60.0):
        """url: the judge's base URL; rank: the rank of that judge (sent with every request);
        timeout: for one request (a submission is graded before the answer comes);
        max_wait: how long to keep retrying on 429; reconnect_seconds: on a refused or
        dropped connection."""
        self.url, self.token, self.rank = url.rstrip("/"), token, rank
        self.timeout, self.max_wait, self.reconnect_seconds = timeout, max_wait, reconnect_seconds

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
              label: str | None = None, compiler: str | None = None) -> dict:
        return self._request("POST", "/score", submission_body(kernel, source, language, flagset, label, compiler))

    def submit(self, kernel: str, source: str, language: str, flagset: str | None = None,
               label: str | None = None, compiler: str | None = None, submission_id: str | None = None,
               usage: dict | None = None) -> dict:
        """usage: the model calls made since the previous submission (docs/token_accounting.md)."""
        body = submission_body(kernel, source, language, flagset, label, compiler)
        body["submission_id"] = submission_id or uuid.uuid4().hex
        if usage is not None:
            body["usage"] = usage
        return self._request("POST", "/submit", body)

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
        while True:
            req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read() or b"{}")
            except urllib.error.HTTPError as exc:
                payload = _json(exc)
                wait = min(float(exc.headers.get("Retry-After") or 1), 60.0)
                if exc.code == 429 and time.monotonic() - started < self.max_wait:
                    time.sleep(wait)
                    continue
                if exc.code == 503:     # the judge is stopping: it may come back (a restart)
                    down_since = down_since or time.monotonic()
                    if time.monotonic() - down_since < self.reconnect_seconds:
                        time.sleep(wait)
                        continue
                message = (payload.get("error") or {}).get("message") or exc.reason
                raise JudgeError(exc.code, message, payload) from None
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError) as exc:
                reason = getattr(exc, "reason", exc)
                down_since = down_since or time.monotonic()
                if isinstance(reason, TimeoutError) or time.monotonic() - down_since > self.reconnect_seconds:
                    raise JudgeError(None, f"cannot reach the judge at {self.url}: {reason}") from None
                time.sleep(0.5)


def submission_body(kernel: str, source: str, language: str, flagset: str | None, label: str | None,
          compiler: str | None) -> dict:
    body = {"kernel": kernel, "source": source, "language": language}
    for key, value in (("flagset", flagset), ("label", label), ("compiler", compiler)):
        if value is not None:
            body[key] = value
    return body


def _json(exc: urllib.error.HTTPError) -> dict:
    try:
        data = json.loads(exc.read() or b"{}")
        return data if isinstance(data, dict) else {}
    except (ValueError, OSError):
        return {}
