"""The judge client and `hpcab submit` say what they are doing and never print a token:
`--token-file` with the judge's own tokens file (with and without `--agent`), a judge
that is not there (the "retrying" line, then one line of error), plausible_token, and the
client's on_retry and score_id against a tiny loopback HTTP server."""

import http.server
import json
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
import traceback

import pytest

from hpcab.client import JudgeClient, JudgeError, plausible_token
from hpcab.errors import HpcabError
from hpcab.judge.tokens import client_token, issue_tokens
from tests.conftest import EXAMPLES, ROOT, rows

FAST = ("--target-seconds", "0.05", "--sessions", "2", "--workers", "1")


def cli_env() -> dict:
    env = dict(os.environ)
    env.pop("HPCAB_TOKEN", None)
    return env


def hpcab(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "hpcab", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env=cli_env())


def free_port() -> int:
    """A port where nothing listens: bound by the OS, then let go."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


# ---- hpcab submit against a real judge with tokens ------------------------------------

def test_submit_takes_an_agents_token_from_the_judges_tokens_file(start_judge, tmp_path):
    tokens_file = tmp_path / "tokens.json"
    tokens = issue_tokens(["alice", "bob"], 1, tokens_file)
    judge = start_judge("--kernels", "gemm", "--tokens", str(tokens_file), *FAST)
    gemm = str(EXAMPLES / "gemm.c")

    out = hpcab("submit", "gemm", gemm, "--judge", judge.url, "--score", "--token-file", str(tokens_file),
                "--agent", "bob")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "CORRECT" in out.stdout
    assert rows(judge.db, "SELECT COUNT(*) FROM scores WHERE agent = 'bob'") == [(1,)]

    # Without --agent: refused before any request, in one line naming the file and the agents.
    out = hpcab("submit", "gemm", gemm, "--judge", judge.url, "--score", "--token-file", str(tokens_file))
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    line = out.stderr.strip()
    assert str(tokens_file) in line and "alice, bob" in line and "--agent NAME" in line
    assert "Traceback" not in out.stderr

    out_unknown = hpcab("submit", "gemm", gemm, "--judge", judge.url, "--score", "--token-file", str(tokens_file),
                        "--agent", "carol")
    assert out_unknown.returncode == 2
    assert len(out_unknown.stderr.strip().splitlines()) == 1
    assert "carol" in out_unknown.stderr and "alice, bob" in out_unknown.stderr

    for result in (out, out_unknown):
        for token in tokens.values():
            assert token not in result.stdout and token not in result.stderr
    assert rows(judge.db, "SELECT COUNT(*) FROM scores") == [(1,)]       # the refusals reached no judge
    log = judge.log.read_text()
    assert not any(token in log for token in tokens.values())


def test_submit_to_a_judge_that_is_not_there_says_it_retries_then_fails_in_one_line(tmp_path):
    tokens_file = tmp_path / "tokens.json"
    tokens = issue_tokens(["alice"], 1, tokens_file)
    url = f"http://127.0.0.1:{free_port()}"
    proc = subprocess.Popen([sys.executable, "-m", "hpcab", "submit", "gemm", str(EXAMPLES / "gemm.c"),
                             "--judge", url, "--score", "--token-file", str(tokens_file), "--agent", "alice",
                             "--reconnect-seconds", "3"],
                            cwd=ROOT, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen: list[tuple[float, str]] = []

    def read() -> None:
        for line in proc.stderr:
            seen.append((time.monotonic(), line))
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        stdout = proc.stdout.read()
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    exited = time.monotonic()
    reader.join(timeout=10)
    stderr = "".join(line for _, line in seen)

    assert proc.returncode == 2, stderr
    assert "Traceback" not in stderr and "Traceback" not in stdout
    retrying = [(t, line) for t, line in seen if "retrying" in line]
    assert len(retrying) == 1, stderr                                   # once, not once per attempt
    assert f"cannot reach the judge at {url} (connection refused)" in retrying[0][1]
    assert "up to 3 s" in retrying[0][1]
    # Said while waiting, not with the final error: the wait is 3 s after that line.
    assert exited - retrying[0][0] > 1.0, stderr
    errors = error_lines(stderr)
    assert len(errors) == 1 and url in errors[0] and "connection refused" in errors[0], stderr
    assert len(stderr.strip().splitlines()) == 2, stderr                # the retry line and the error
    assert tokens["alice"] not in stderr and tokens["alice"] not in stdout


def test_mcp_takes_the_agent_option_too(tmp_path):
    tokens_file = tmp_path / "tokens.json"
    tokens = issue_tokens(["alice"], 1, tokens_file)
    out = subprocess.run([sys.executable, "-m", "hpcab", "mcp", "--judge", "http://127.0.0.1:9", "--token-file",
                          str(tokens_file)], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         stdin=subprocess.DEVNULL, env=cli_env())
    assert out.returncode == 2 and "--agent NAME" in out.stderr and out.stdout == ""
    assert tokens["alice"] not in out.stderr


# ---- reading --token-file (the one helper behind every command) ------------------------

def token_of(path=None, agent=None) -> str | None:
    return client_token(str(path) if path else None, agent)


def test_token_file_forms(tmp_path, monkeypatch):
    monkeypatch.delenv("HPCAB_TOKEN", raising=False)
    token = secrets.token_urlsafe(32)
    plain = tmp_path / "alice.token"
    plain.write_text(token + "\n")
    assert token_of(plain) == token

    tokens_json = tmp_path / "tokens.json"
    tokens = issue_tokens(["alice", "bob"], 1, tokens_json)
    assert token_of(tokens_json, "bob") == tokens["bob"]
    tokens_yaml = tmp_path / "tokens.yaml"                  # the judge reads YAML as well
    tokens_yaml.write_text("agents:\n" + "".join(f"  - name: {n}\n    token: {t}\n    submissions: 1\n"
                                                 for n, t in tokens.items()))
    assert token_of(tokens_yaml, "alice") == tokens["alice"]

    def refused(*args) -> str:
        with pytest.raises(HpcabError) as err:
            token_of(*args)
        message = str(err.value)
        assert "\n" not in message
        assert not any(t in message for t in (token, *tokens.values())), message
        return message

    for path in (tokens_json, tokens_yaml):
        message = refused(path)
        assert str(path) in message and "alice, bob" in message and "--agent NAME" in message
    assert "alice, bob" in refused(tokens_json, "carol") and "carol" in refused(tokens_json, "carol")
    assert "not the judge's tokens file" in refused(plain, "alice")
    assert "--token-file" in refused(None, "alice")
    assert "no such token file" in refused(tmp_path / "missing")

    doc = tmp_path / "other.json"
    doc.write_text(json.dumps({"token": token}))
    assert "JSON or YAML" in refused(doc)
    spaced = tmp_path / "spaced"
    spaced.write_text(f"{token} {token}\n")
    assert "whitespace" in refused(spaced)
    binary = tmp_path / "binary"
    binary.write_bytes(b"\xff\xfe" + token.encode())
    assert "UTF-8" in refused(binary)

    monkeypatch.setenv("HPCAB_TOKEN", token)
    assert token_of() == token
    monkeypatch.setenv("HPCAB_TOKEN", f"{token}\n{token}")
    assert "$HPCAB_TOKEN" in refused()


def test_plausible_token():
    for good in (secrets.token_urlsafe(32), secrets.token_hex(16), "abc.DEF~ghi+jkl/mno==", "x" * 512):
        assert plausible_token(good) is None, good
    secret = "s3cr3t" * 4
    bad = {
        "": "empty",
        f"{secret} {secret}": "whitespace",
        f"{secret}\n{secret}": "whitespace",
        json.dumps({"agents": [{"name": "a", "token": secret}]}): "JSON or YAML",
        f"agents:\n- name: a\n  token: {secret}\n": "JSON or YAML",
        f"---\n{secret}": "JSON or YAML",
        secret * 30: "characters long",
        f"{secret}\x00": "non-printable",
        f"{secret}\x1b[2J": "non-printable",
        f"{secret}é": "non-ASCII",
        f'"{secret}"': "characters a bearer token cannot have",
    }
    for text, why in bad.items():
        reason = plausible_token(text)
        assert reason is not None and why in reason, (text, reason)
        assert secret not in reason


def test_the_client_hides_its_token():
    token = secrets.token_urlsafe(32)
    client = JudgeClient("http://127.0.0.1:9", token)
    assert token not in repr(client) and "hidden" in repr(client)
    assert "None" in repr(JudgeClient("http://127.0.0.1:9"))
    with pytest.raises(ValueError) as err:
        JudgeClient("http://127.0.0.1:9", f"{token}\r\nX-Injected: 1")
    assert token not in str(err.value)


# ---- the client's retries, against a tiny real HTTP server -------------------------------

class TinyJudge:
    """ThreadingHTTPServer on loopback answering POSTs with the statuses given, in turn
    (the last one repeats); keeps each request's body and Authorization header."""

    def __init__(self, statuses: list[int], retry_after: str = "1"):
        self.statuses, self.bodies, self.authorizations = list(statuses), [], []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.bodies.append(body)
                outer.authorizations.append(self.headers.get("Authorization"))
                status = outer.statuses.pop(0) if len(outer.statuses) > 1 else outer.statuses[0]
                doc = ({"id": body.get("score_id"), "correct": True} if status == 200 else
                       {"error": {"message": {429: "the queue is full", 503: "the judge is stopping"}.get(
                           status, "no")}})
                data = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status in (429, 503):
                    self.send_header("Retry-After", retry_after)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_on_retry_hears_a_full_queue_once_and_score_keeps_its_score_id():
    lines: list[str] = []
    token = secrets.token_urlsafe(32)
    with TinyJudge([429, 429, 200]) as judge:
        client = JudgeClient(judge.url, token, on_retry=lines.append, max_wait=60)
        doc = client.score("gemm", "int x;", "c")
        assert len(judge.bodies) == 3
        assert lines == ["the judge's queue is full; retrying in 1 s (for up to 60 s)…"]   # one wait, one line
        ids = {body["score_id"] for body in judge.bodies}
        assert len(ids) == 1 and doc["id"] in ids and len(doc["id"]) == 32 and int(doc["id"], 16) >= 0
        assert judge.authorizations == [f"Bearer {token}"] * 3
        # The next call is a new score: a new id. One given is sent as it is.
        client.score("gemm", "int x;", "c")
        client.score("gemm", "int x;", "c", score_id="ab" * 16)
        assert judge.bodies[3]["score_id"] not in ids and judge.bodies[4]["score_id"] == "ab" * 16
        assert len(lines) == 1                                            # no wait, no line


def test_on_retry_hears_a_stopping_judge_then_one_error_without_the_token():
    lines: list[str] = []
    token = secrets.token_urlsafe(32)
    with TinyJudge([503], retry_after="0.2") as judge:
        client = JudgeClient(judge.url, token, on_retry=lines.append, reconnect_seconds=1)
        with pytest.raises(JudgeError) as err:
            client.submit("gemm", "int x;", "c")
    assert len(judge.bodies) > 2 and len({b["submission_id"] for b in judge.bodies}) == 1
    assert len(lines) == 1 and "is stopping" in lines[0] and "retrying for up to 1 s" in lines[0]
    assert err.value.status == 503 and "gave up after" in str(err.value)
    assert_hidden(err.value, token)


def test_on_retry_hears_an_unreachable_judge_once():
    lines: list[str] = []
    token = secrets.token_urlsafe(32)
    url = f"http://127.0.0.1:{free_port()}"
    client = JudgeClient(url, token, on_retry=lines.append, reconnect_seconds=1.5)
    with pytest.raises(JudgeError) as err:
        client.health()
    assert lines == [f"cannot reach the judge at {url} (connection refused); retrying for up to 1.5 s…"]
    assert err.value.status is None and "\n" not in str(err.value)
    assert str(err.value).startswith(f"cannot reach the judge at {url} (connection refused); gave up after")
    assert_hidden(err.value, token)
    # Without retries there is no wait, so nothing to announce.
    lines.clear()
    with pytest.raises(JudgeError):
        JudgeClient(url, token, on_retry=lines.append, reconnect_seconds=0).health()
    assert lines == []


def assert_hidden(exc: BaseException, token: str) -> None:
    """Neither the token nor the Authorization header is in the error, however it is printed."""
    shown = "".join(traceback.format_exception(exc)) + repr(exc) + repr(exc.args) + repr(vars(exc))
    assert token not in shown and "Authorization" not in shown and "Bearer" not in shown
