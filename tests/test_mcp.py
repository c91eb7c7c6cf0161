"""`hpcab mcp`: the MCP stdio server, driven as a client would drive it: a real `hpcab mcp`
child process, newline-delimited JSON-RPC on its pipes, in front of a real judge."""

import json
import os
import queue
import subprocess
import sys
import threading
import time

import jsonschema
import pytest

import hpcab
from tests.conftest import CANDIDATES, EXAMPLES, ROOT

TOOLS = {"list_kernels", "get_task", "score", "submit", "get_grade"}
GEMM_C = (EXAMPLES / "gemm.c").read_text()
NO_JUDGE = "http://127.0.0.1:9"     # the protocol tests never reach a judge


class McpClient:
    """A minimal MCP client over a child's stdin and stdout. Every line the server writes
    must be one JSON object; its stderr is kept in a file."""

    def __init__(self, *args: str, log_dir, env: dict | None = None):
        env = dict(os.environ if env is None else env)
        env.pop("HPCAB_TOKEN", None)
        self.stderr_path = log_dir / "mcp.stderr"
        self.proc = subprocess.Popen([sys.executable, "-m", "hpcab", "mcp", *args], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(self.stderr_path, "wb"))
        self.messages: queue.Queue = queue.Queue()
        self.bad_lines: list[bytes] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
                assert isinstance(message, (dict, list))
            except (ValueError, AssertionError):
                self.bad_lines.append(line)
                continue
            self.messages.put(message)
        self.messages.put(None)

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def notify(self, method: str, params: dict | None = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def receive(self, timeout: float = 120) -> dict:
        message = self.messages.get(timeout=timeout)
        assert message is not None, f"the server closed stdout: {self.stderr()}"
        return message

    def request(self, method: str, params: dict | None = None, timeout: float = 120) -> dict:
        """Send a request; the response with its id (notifications meanwhile are dropped)."""
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params else {})})
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(max(deadline - time.monotonic(), 0.1))
            if message.get("id") == rid:
                assert message["jsonrpc"] == "2.0"
                return message

    def call(self, tool: str, timeout: float = 120, **arguments) -> dict:
        """tools/call; the result (a JSON-RPC error fails the test)."""
        answer = self.request("tools/call", {"name": tool, "arguments": arguments}, timeout)
        assert "result" in answer, answer
        return answer["result"]

    def initialize(self, version: str = "2025-06-18") -> dict:
        answer = self.request("initialize", {"protocolVersion": version, "capabilities": {},
                                             "clientInfo": {"name": "hpcab-tests", "version": "1"}})
        self.notify("notifications/initialized")
        return answer

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def close(self, timeout: float = 30) -> int:
        """Close stdin, as the MCP stdio shutdown does; the server must exit by itself."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


@pytest.fixture
def mcp(tmp_path):
    """mcp(*args) → a started McpClient; each is closed (and must exit 0) after the test."""
    clients = []

    def start(*args: str) -> McpClient:
        clients.append(McpClient(*args, log_dir=tmp_path))
        return clients[-1]
    yield start
    for c in clients:
        assert c.close() == 0, c.stderr()
        assert not c.bad_lines, f"stdout carried lines that are not JSON messages: {c.bad_lines[:3]}"


def document(result: dict) -> dict:
    """A tool result's JSON document: its structuredContent, which must equal the JSON after
    the summary line of its text."""
    assert [c["type"] for c in result["content"]] == ["text"]
    summary, _, text = result["content"][0]["text"].partition("\n")
    assert summary and json.loads(text) == result["structuredContent"]
    return result["structuredContent"]


def test_a_full_round_against_a_real_judge(start_judge, mcp):
    judge = start_judge("--kernels", "gemm", "--target-seconds", "0.05", "--sessions", "2", "--workers", "1")
    client = mcp("--judge", judge.url)

    init = client.initialize()["result"]
    assert init["protocolVersion"] == "2025-06-18"
    assert init["serverInfo"]["name"] == "hpcab" and init["serverInfo"]["version"] == hpcab.__version__
    assert init["capabilities"] == {"tools": {}}
    assert "submit" in init["instructions"] and "score" in init["instructions"]
    assert client.request("ping")["result"] == {}

    tools = {t["name"]: t for t in client.request("tools/list")["result"]["tools"]}
    assert set(tools) == TOOLS
    for t in tools.values():
        jsonschema.validators.validator_for(t["inputSchema"]).check_schema(t["inputSchema"])
        assert t["inputSchema"]["type"] == "object" and len(t["description"]) > 50
    assert tools["score"]["inputSchema"]["required"] == ["kernel"]
    assert tools["get_grade"]["inputSchema"]["required"] == ["grade_id"]

    kernels = document(client.call("list_kernels"))["kernels"]
    assert [k["name"] for k in kernels] == ["gemm"]

    result = client.call("get_task", kernel="gemm")
    assert result["isError"] is False
    task = document(result)
    assert task["name"] == "gemm" and task["language"] == "c" and "void gemm(" in task["prototype"]
    assert task["public_cases"] and "tolerance" in task and "flagsets" in task and "goal" in task
    assert result["content"][0]["text"].startswith("task gemm ")

    # score: the source as text; correct, with a speedup and its interval in the summary
    result = client.call("score", kernel="gemm", language="c", source=GEMM_C)
    scored = document(result)
    assert result["isError"] is False and scored["kind"] == "score" and scored["correct"] is True
    summary = result["content"][0]["text"].split("\n", 1)[0]
    assert "status ok" in summary and "correct" in summary and "baseline" in summary and "95% CI" in summary

    # a wrong answer is a normal result, from a path (language from the suffix)
    result = client.call("score", kernel="gemm", path=str(CANDIDATES / "gemm_off_by_one.c"))
    wrong = document(result)
    assert result["isError"] is False and wrong["status"] == "incorrect" and wrong["correct"] is False
    assert "NOT correct" in result["content"][0]["text"].split("\n", 1)[0]

    result = client.call("score", kernel="gemm", path=str(CANDIDATES / "gemm_compile_error.c"))
    assert document(result)["status"] == "build_error"
    assert "first error: candidate.c:" in result["content"][0]["text"].split("\n", 1)[0]

    # tool errors: the judge's (an unknown kernel) and the server's (a missing file)
    result = client.call("get_task", kernel="no_such_kernel")
    assert result["isError"] is True and "no_such_kernel" in result["content"][0]["text"]
    assert "404" in result["content"][0]["text"]
    missing = ROOT / "no" / "such" / "file.c"
    result = client.call("score", kernel="gemm", path=str(missing))
    assert result["isError"] is True and str(missing) in result["content"][0]["text"]

    # submit (from a path), then fetch the recorded grade by its id
    result = client.call("submit", timeout=300, kernel="gemm", path=str(EXAMPLES / "gemm.c"), flagset="opt")
    submitted = document(result)
    assert result["isError"] is False and submitted["kind"] == "submit" and submitted["correct"] is True
    assert any(c["visibility"] == "hidden" for c in submitted["cases"])
    assert "recorded" in result["content"][0]["text"].split("\n", 1)[0]
    fetched = document(client.call("get_grade", grade_id=submitted["id"]))
    assert fetched["id"] == submitted["id"] and fetched["kind"] == "submit" and fetched["correct"] is True
    result = client.call("get_grade", grade_id="0" * 32)
    assert result["isError"] is True and "404" in result["content"][0]["text"]


def test_protocol_errors_are_answered_and_the_server_carries_on(mcp):
    client = mcp("--judge", NO_JUDGE)
    # a notification is never answered, even an unknown one or one before initialize
    client.notify("notifications/whatever", {"x": 1})
    assert client.request("ping")["result"] == {}

    # a version the server does not speak: it answers with its own; an older one it speaks: that one
    assert client.initialize("1999-01-01")["result"]["protocolVersion"] == "2025-06-18"
    assert client.initialize("2024-11-05")["result"]["protocolVersion"] == "2024-11-05"
    assert client.initialize()["result"]["protocolVersion"] == "2025-06-18"

    client.send_raw(b'{"jsonrpc": "2.0", "id": 7, "method": "ping"\n')          # malformed JSON
    answer = client.receive()
    assert answer["id"] is None and answer["error"]["code"] == -32700
    client.send_raw(b"\xff\xfe not utf-8\n")
    assert client.receive()["error"]["code"] == -32700
    client.send_raw(b"[" * 100_000 + b"\n")                                       # nested too deep
    assert client.receive()["error"]["code"] == -32700
    assert client.request("ping")["result"] == {}                                  # still answering

    assert client.request("resources/list")["error"]["code"] == -32601
    answer = client.request("no/such/method")
    assert answer["error"]["code"] == -32601 and "no/such/method" in answer["error"]["message"]
    client.send({"jsonrpc": "2.0", "id": 99, "params": {}})                        # no method
    assert client.receive() == {"jsonrpc": "2.0", "id": 99, "error": {
        "code": -32600, "message": "invalid request: method must be a string"}}
    client.send_raw(b"[1, 2]\n")                                                   # a batch of nonsense
    assert [a["error"]["code"] for a in client.receive()] == [-32600, -32600]

    # invalid arguments: -32602 naming the argument (checked before any judge is asked)
    answer = client.request("tools/call", {"name": "get_task", "arguments": {}})
    assert answer["error"]["code"] == -32602 and "'kernel'" in answer["error"]["message"]
    assert answer["error"]["data"] == {"tool": "get_task", "argument": "kernel"}
    answer = client.request("tools/call", {"name": "get_grade"})
    assert answer["error"]["code"] == -32602 and "'grade_id'" in answer["error"]["message"]
    answer = client.request("tools/call", {"name": "score", "arguments": {"kernel": "gemm"}})
    assert answer["error"]["code"] == -32602 and "'source' or 'path'" in answer["error"]["message"]
    answer = client.request("tools/call", {"name": "submit", "arguments": {"kernel": "gemm", "source": "x",
                                                                           "language": "cobol"}})
    assert answer["error"]["code"] == -32602 and "'language'" in answer["error"]["message"]
    answer = client.request("tools/call", {"name": "score", "arguments": {"kernel": "gemm", "source": "x",
                                                                          "path": "x.c"}})
    assert answer["error"]["code"] == -32602 and "got 'source' and 'path'" in answer["error"]["message"]
    answer = client.request("tools/call", {"name": "get_task", "arguments": {"kernel": "gemm", "file": "x"}})
    assert answer["error"]["code"] == -32602 and "'file'" in answer["error"]["message"]
    answer = client.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert answer["error"]["code"] == -32602 and "no_such_tool" in answer["error"]["message"]
    answer = client.request("initialize", {"capabilities": {}})
    assert answer["error"]["code"] == -32602 and "protocolVersion" in answer["error"]["message"]

    assert client.request("ping")["result"] == {}
    assert client.messages.empty()                                                 # nothing unasked for
    assert "initialize from hpcab-tests" in client.stderr()


def test_token_file_errors_like_submit(tmp_path):
    out = subprocess.run([sys.executable, "-m", "hpcab", "mcp", "--judge", NO_JUDGE, "--token-file",
                          str(tmp_path / "nope")], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 2 and "no such token file" in " ".join(out.stderr.split()) and out.stdout == ""


def test_in_process_judge_handle_slow_calls_errors_and_cancellation():
    """McpServer with a stand-in judge: a slow tool call does not hold up pings; a
    JudgeError is an isError result; a cancelled call is not answered; progress comes."""
    from hpcab.client import JudgeError
    from hpcab.mcp import McpServer

    release = threading.Event()

    class Judge:
        def kernels(self):
            return [{"name": "gemm", "level": 1, "track": "t"}]

        def task(self, kernel, language="c"):
            raise JudgeError(404, f"unknown kernel {kernel!r}")

        def score(self, kernel, source, language, flagset=None, label=None):
            release.wait(30)
            return {"id": "s", "kind": "score", "kernel": kernel, "status": "ok", "correct": True, "message": "",
                    "baseline": "numpy", "speedup_vs_baseline": {"value": 2.0, "ci95": [1.9, 2.1]},
                    "speedup_vs_numpy": {"value": 2.0, "ci95": [1.9, 2.1]}, "cases": []}

        submit = score

        def grade(self, grade_id):
            return {"id": grade_id, "state": "grading"}

    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    server = McpServer(Judge(), log=lambda msg: None, progress_seconds=0.05)
    with open(r_in, "rb") as stdin, open(w_out, "wb") as stdout, open(w_in, "wb") as to_server, \
            open(r_out, "rb") as from_server:
        thread = threading.Thread(target=server.serve, args=(stdin, stdout), daemon=True)
        thread.start()

        def send(message):
            to_server.write(json.dumps(message).encode() + b"\n")
            to_server.flush()

        send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "score", "arguments": {"kernel": "gemm", "source": "int x;"}, "_meta": {"progressToken": "p"}}})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "submit", "arguments": {"kernel": "gemm", "source": "int x;"}}})
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
        send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "get_task", "arguments": {"kernel": "nope"}}})
        send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "name": "get_grade", "arguments": {"grade_id": "g"}}})

        def receive():
            return json.loads(from_server.readline())

        answers, progress = {}, []
        while len(answers) < 3 or not progress:      # ping, get_task, get_grade while score waits
            m = receive()
            if m.get("method") == "notifications/progress":
                progress.append(m)
            else:
                answers[m["id"]] = m
        assert set(answers) == {3, 4, 5}
        assert answers[4]["result"]["isError"] is True and "'nope'" in answers[4]["result"]["content"][0]["text"]
        assert "not finished" in answers[5]["result"]["content"][0]["text"]
        assert progress[0]["params"]["progressToken"] == "p" and progress[0]["params"]["message"]
        release.set()
        to_server.close()                            # EOF: the server finishes call 1, drops call 2, exits
        thread.join(10)
        stdout.close()
        rest = [json.loads(line) for line in from_server]
    assert not thread.is_alive()
    final = [m for m in rest if "id" in m]
    assert [m["id"] for m in final] == [1]
    assert final[0]["result"]["structuredContent"]["correct"] is True
    assert "2.00×" in final[0]["result"]["content"][0]["text"]
