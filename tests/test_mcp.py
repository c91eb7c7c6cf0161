"""`hpcab mcp`, driven by the official MCP SDK's own client (`mcp.Client`): over stdio as a
real `hpcab mcp` child process, and over the streamable HTTP transport, in front of a real
judge. The client runs in its default mode (server/discover, which 2026-07-28 answers),
pinned to the newest revision, and on the 2025-06-18 initialize handshake."""

import json
import os
import socket
import subprocess
import sys
import threading
import time

import anyio
import jsonschema
import mcp_types
import pytest
from mcp import Client, StdioServerParameters

import hpcab
from tests.conftest import CANDIDATES, EXAMPLES, ROOT, wait_for

TOOLS = {"list_kernels", "get_task", "score", "submit", "get_grade", "compile", "profile"}
GEMM_C = (EXAMPLES / "gemm.c").read_text()
NEWEST = mcp_types.version.LATEST_MODERN_VERSION       # 2026-07-28 in mcp 2.3
# (mode given to mcp.Client, the revision the session must speak)
MODES = {"default": ("auto", NEWEST), "newest": (NEWEST, NEWEST), "2025-06-18": ("legacy", "2025-06-18")}


def stdio(*args: str, log) -> StdioServerParameters:
    """`hpcab mcp ARGS` as the SDK starts it; its stderr (the server's log) goes to log."""
    env = {k: v for k, v in os.environ.items() if k != "HPCAB_TOKEN"}
    command = " ".join([f"exec {sys.executable} -m hpcab mcp", *map(_quote, args), f"2>>{_quote(str(log))}"])
    return StdioServerParameters(command="/bin/sh", args=["-c", command], cwd=str(ROOT), env=env)


def _quote(s: str) -> str:
    import shlex
    return shlex.quote(s)


def client(server, mode: str, monkeypatch) -> Client:
    """mcp.Client in one of MODES. 2025-06-18: the SDK always offers its newest handshake
    revision (2025-11-25), so the offer is patched to the older one the server must accept."""
    sdk_mode, _ = MODES[mode]
    if mode == "2025-06-18":
        import mcp.client.session
        monkeypatch.setattr(mcp.client.session, "LATEST_HANDSHAKE_VERSION", "2025-06-18")
    return Client(server, mode=sdk_mode, read_timeout_seconds=600)


def document(result) -> dict:
    """A tool result's JSON document: its structured content, which must equal the JSON after
    the summary line of its text."""
    assert [c.type for c in result.content] == ["text"]
    summary, _, text = result.content[0].text.partition("\n")
    assert summary and json.loads(text) == result.structured_content
    return result.structured_content


def summary(result) -> str:
    return result.content[0].text.split("\n", 1)[0]


@pytest.mark.parametrize("mode", list(MODES))
def test_a_full_round_against_a_real_judge(start_judge, tmp_path, monkeypatch, mode):
    judge = start_judge("--kernels", "gemm", "--target-seconds", "0.05", "--sessions", "2", "--workers", "1")
    log = tmp_path / "mcp.log"
    full = mode == "default"           # the other modes: the protocol, on fewer gradings

    async def round_trip():
        async with client(stdio("--judge", judge.url, log=log), mode, monkeypatch) as c:
            assert c.protocol_version == MODES[mode][1]
            if c.server_info is not None:          # optional from 2026-07-28 on
                assert c.server_info.name == "hpcab" and c.server_info.version == hpcab.__version__
            if mode != "newest":                     # a pinned client adopts without asking the server
                assert c.server_capabilities.tools is not None
            if mode == "2025-06-18":
                assert "submit" in c.instructions and "score" in c.instructions

            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert set(tools) == TOOLS
            for t in tools.values():
                jsonschema.validators.validator_for(t.input_schema).check_schema(t.input_schema)
                assert t.input_schema["type"] == "object" and len(t.description) > 50
                assert t.input_schema["additionalProperties"] is False
            assert tools["score"].input_schema["required"] == ["kernel"]
            assert tools["get_grade"].input_schema["required"] == ["grade_id"]
            assert tools["submit"].annotations.read_only_hint is False

            assert [k["name"] for k in document(await c.call_tool("list_kernels", {}))["kernels"]] == ["gemm"]
            result = await c.call_tool("get_task", {"kernel": "gemm"})
            task = document(result)
            assert result.is_error is False and task["name"] == "gemm" and "void gemm(" in task["prototype"]
            assert summary(result).startswith("task gemm ")

            # score: the source as text; correct, with a speedup and its interval in the summary
            result = await c.call_tool("score", {"kernel": "gemm", "language": "c", "source": GEMM_C})
            scored = document(result)
            assert result.is_error is False and scored["kind"] == "score" and scored["correct"] is True
            assert "status ok" in summary(result) and "95% CI" in summary(result)

            # a refused argument is a tool result the model reads, naming the field
            result = await c.call_tool("submit", {"kernel": "gemm", "source": "x", "language": "cobol"})
            assert result.is_error is True and "'language'" in result.content[0].text
            assert result.structured_content["error"]["field"] == "language"
            if not full:
                return

            # a wrong answer is a normal result, from a path (language from the suffix)
            result = await c.call_tool("score", {"kernel": "gemm", "path": str(CANDIDATES / "gemm_off_by_one.c")})
            assert result.is_error is False and document(result)["status"] == "incorrect"
            assert "NOT correct" in summary(result)
            result = await c.call_tool("score", {"kernel": "gemm", "path": str(CANDIDATES / "gemm_compile_error.c")})
            assert document(result)["status"] == "build_error"
            assert "first error: gemm_compile_error.c:" in summary(result)   # the file's own name

            # tool errors: the judge's (an unknown kernel) and the server's (a missing file)
            result = await c.call_tool("get_task", {"kernel": "no_such_kernel"})
            assert result.is_error is True and "no_such_kernel" in result.content[0].text
            assert "404" in result.content[0].text
            missing = ROOT / "no" / "such" / "file.c"
            result = await c.call_tool("score", {"kernel": "gemm", "path": str(missing)})
            assert result.is_error is True and str(missing) in result.content[0].text

            # the compiler's report, from a path: remarks on the file's own lines, no budget spent
            result = await c.call_tool("compile", {"kernel": "gemm", "path": str(EXAMPLES / "gemm.c"),
                                                   "disassemble": True})
            report = document(result)
            assert result.is_error is False and report["ok"] is True and report["counts"]["optimized"] > 0
            assert summary(result).startswith("compile of gemm.c (gemm): compiled with gcc")
            assert "<gemm>:" in report["disassembly"]
            assert tools["compile"].annotations.read_only_hint is True
            result = await c.call_tool("compile", {"kernel": "gemm", "source": GEMM_C, "disassemble": "yes"})
            assert result.is_error is True and "'disassemble' must be true or false" in result.content[0].text

            # the profile (where perf can sample): the kernel's function and its hot line, by path
            from hpcab.profile import available
            if available()[0]:
                result = await c.call_tool("profile", {"kernel": "gemm", "path": str(EXAMPLES / "gemm.c")})
                prof = document(result)
                assert result.is_error is False and prof["status"] == "ok", result.content[0].text[:300]
                assert prof["functions"][0]["function"] == "gemm" and prof["lines"][0]["source"]
                assert summary(result).startswith("profile of gemm.c (gemm): ok") and "hottest function gemm" in \
                    summary(result)
            result = await c.call_tool("profile", {"kernel": "gemm", "source": GEMM_C, "preset": 3})
            assert result.is_error is True and "'preset' must be a string" in result.content[0].text

            # the skill pages are resources
            resources = {str(r.uri): r for r in (await c.list_resources()).resources}
            assert len(resources) >= 12 and "skill://rules" in resources
            assert resources["skill://rules"].mime_type == "text/markdown" and resources["skill://rules"].description
            page = (await c.read_resource("skill://vectorization")).contents[0].text
            assert page.startswith("---\nname: vectorization\n") and "hpcab compile" in page

            # submit (from a path), then fetch the recorded grade by its id
            result = await c.call_tool("submit", {"kernel": "gemm", "path": str(EXAMPLES / "gemm.c"),
                                                  "flagset": "opt"})
            submitted = document(result)
            assert result.is_error is False and submitted["kind"] == "submit" and submitted["correct"] is True
            assert any(case["visibility"] == "hidden" for case in submitted["cases"])
            assert "recorded" in summary(result)
            fetched = document(await c.call_tool("get_grade", {"grade_id": submitted["id"]}))
            assert fetched["id"] == submitted["id"] and fetched["correct"] is True
            result = await c.call_tool("get_grade", {"grade_id": "0" * 32})
            assert result.is_error is True and "404" in result.content[0].text

    anyio.run(round_trip)
    text = log.read_text()
    assert "serving the judge at" in text and "stdin closed: exiting" in text, text


@pytest.mark.parametrize("mode", list(MODES))
def test_refused_arguments_are_tool_results_naming_the_field(tmp_path, monkeypatch, mode):
    """Since 2025-11-25 (SEP-1303) a bad argument is an isError result, which clients show to
    the model, not a JSON-RPC error, which they do not. Checked before any judge is asked."""
    log = tmp_path / "mcp.log"
    cases = [
        ("get_task", {}, "kernel", "missing required argument 'kernel'"),
        ("get_grade", {}, "grade_id", "'grade_id'"),
        ("score", {"kernel": "gemm"}, "source", "'source' or 'path' (got neither)"),
        ("score", {"kernel": "gemm", "source": "x", "path": "x.c"}, "source", "got 'source' and 'path'"),
        ("get_task", {"kernel": "gemm", "file": "x"}, "file", "unknown argument 'file' (expected: kernel, language)"),
        ("get_task", {"kernel": 3}, "kernel", "must be a string"),
        ("get_task", {"kernel": ""}, "kernel", "must not be empty"),
        ("score", {"kernel": "gemm", "source": "x", "flagset": ""}, "flagset", "'flagset' must not be empty"),
        ("no_such_tool", {}, "name", "unknown tool 'no_such_tool'"),
    ]

    async def refuse():
        async with client(stdio("--judge", "http://127.0.0.1:9", log=log), mode, monkeypatch) as c:
            for tool, arguments, field, words in cases:
                result = await c.call_tool(tool, arguments)
                assert result.is_error is True, (tool, arguments)
                assert words in result.content[0].text, (tool, arguments, result.content[0].text)
                assert result.structured_content["error"]["field"] == field
    anyio.run(refuse)


class SlowJudge:
    """An in-process stand-in judge whose score waits until released."""

    def __init__(self):
        self.release = threading.Event()
        self.started = threading.Event()

    def kernels(self):
        return [{"name": "gemm", "level": 1, "track": "t"}]

    def task(self, kernel, language="c"):
        from hpcab.client import JudgeError
        raise JudgeError(404, f"unknown kernel {kernel!r}")

    def score(self, kernel, source, language, flagset=None, label=None):
        self.started.set()
        self.release.wait(30)
        return {"id": "s", "kind": "score", "kernel": kernel, "status": "ok", "correct": True, "message": "",
                "baseline": "numpy", "speedup_vs_baseline": {"value": 2.0, "ci95": [1.9, 2.1], "verdict": "faster"},
                "cases": []}

    submit = score

    def grade(self, grade_id):
        return {"id": grade_id, "state": "grading"}


@pytest.mark.parametrize("mode", ["legacy", NEWEST])
def test_progress_cancellation_and_concurrent_calls_in_process(mode):
    """The server object in-process (the SDK's in-memory transport): a slow call reports
    progress and does not hold up others; a cancelled call leaves the session usable."""
    from hpcab.mcp import make_server
    judge = SlowJudge()
    server = make_server(judge, progress_seconds=0.05)
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, message))

    async def run():
        async with Client(server, mode=mode) as c:
            results = {}

            async def slow():
                results["score"] = await c.call_tool("score", {"kernel": "gemm", "source": "int x;"},
                                                     progress_callback=on_progress)
            async with anyio.create_task_group() as tg:
                tg.start_soon(slow)
                await anyio.to_thread.run_sync(judge.started.wait, 10)
                # while score waits: other calls are answered, a judge error is a tool result
                result = await c.call_tool("get_task", {"kernel": "nope"})
                assert result.is_error and "'nope'" in result.content[0].text and "404" in result.content[0].text
                result = await c.call_tool("get_grade", {"grade_id": "g"})
                assert "not finished" in result.content[0].text
                await anyio.to_thread.run_sync(wait_for, lambda: progress, "progress")
                judge.release.set()
            assert results["score"].structured_content["correct"] is True
            assert "2.00×" in results["score"].content[0].text
            assert progress[0][1].startswith("score: waiting for the judge")

            # a cancelled call: its answer is dropped, the session carries on
            judge.release.clear()
            judge.started.clear()
            with anyio.move_on_after(0.5) as scope:
                await c.call_tool("submit", {"kernel": "gemm", "source": "int x;"})
            assert scope.cancelled_caught
            assert [k["name"] for k in (await c.call_tool("list_kernels", {})).structured_content["kernels"]] \
                == ["gemm"]
            judge.release.set()
    anyio.run(run)


def test_the_sdk_clients_shutdown_ends_the_server_cleanly_mid_call(tmp_path):
    """The SDK client closes stdin, waits 2 s, then sends SIGTERM. With a call still waiting
    on the judge, the server must log its exit and be gone before that SIGTERM."""
    listener = socket.socket()                   # a judge that accepts and never answers
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    log = tmp_path / "mcp.log"

    async def run():
        async with Client(stdio("--judge", url, log=log)) as c:
            async with anyio.create_task_group() as tg:
                tg.start_soon(c.call_tool, "get_task", {"kernel": "gemm"})
                await anyio.to_thread.run_sync(listener.accept)     # the call is at the judge
                started = time.monotonic()
                tg.cancel_scope.cancel()
        return time.monotonic() - started
    try:
        took = anyio.run(run)
    finally:
        listener.close()
    text = log.read_text()
    assert "stdin closed: exiting" in text, text
    assert took < 2.0, f"the client waited {took:.1f} s: the server was killed, not stopped"


def test_streamable_http_each_client_with_its_own_token(start_judge, tmp_path):
    """`hpcab mcp --http`: the SDK client over HTTP; each request's bearer token is the
    judge token it is charged to, and a request without one is refused by the judge."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    from hpcab.judge.tokens import issue_tokens
    tokens = issue_tokens(["alice"], 1, tmp_path / "tokens.yaml")
    judge = start_judge("--kernels", "gemm", "--tokens", str(tmp_path / "tokens.yaml"), "--target-seconds", "0.05",
                        "--sessions", "2", "--workers", "1")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(tmp_path / "mcp.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "hpcab", "mcp", "--judge", judge.url, "--http",
                             f"127.0.0.1:{port}"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)

    def listening():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            assert proc.poll() is None, (tmp_path / "mcp.log").read_text()
            return False
    try:
        wait_for(listening, "the MCP HTTP endpoint", timeout=60)

        async def as_agent(token):
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            async with httpx2.AsyncClient(headers=headers, timeout=600) as http:
                async with Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as c:
                    assert c.protocol_version == NEWEST
                    assert {t.name for t in (await c.list_tools()).tools} == TOOLS
                    task = await c.call_tool("get_task", {"kernel": "gemm"})
                    if not token:
                        return task
                    scored = await c.call_tool("score", {"kernel": "gemm", "source": GEMM_C})
                    return task, scored
        refused = anyio.run(as_agent, None)
        assert refused.is_error is True and "401" in refused.content[0].text
        task, scored = anyio.run(as_agent, tokens["alice"])
        assert document(task)["budget"]["submissions"] == 1
        assert document(scored)["correct"] is True
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
    assert "serving streamable HTTP at http://127.0.0.1:" in (tmp_path / "mcp.log").read_text()


@pytest.mark.parametrize("args, words", [
    (["--token-file", "nope"], "no such token file"),
    (["--http", "127.0.0.1:8765", "--token-file", "t"], "each HTTP client sends its own judge token"),
    (["--http", "8765"], "takes HOST:PORT"),
    (["--http", "host:99999"], "takes HOST:PORT"),
])
def test_usage_errors_exit_2(tmp_path, args, words):
    out = subprocess.run([sys.executable, "-m", "hpcab", "mcp", "--judge", "http://127.0.0.1:9", *args],
                         capture_output=True, text=True, cwd=tmp_path, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 2 and words in " ".join(out.stderr.split()) and out.stdout == ""


def test_garbage_on_stdin_does_not_end_the_session(tmp_path):
    """Lines no client would send (not JSON, not UTF-8, nested too deep) are answered or
    dropped; the next request is still answered."""
    proc = subprocess.Popen([sys.executable, "-m", "hpcab", "mcp", "--judge", "http://127.0.0.1:9"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(tmp_path / "log", "wb"))
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
    lines = [json.dumps(init).encode(), b'{"jsonrpc": "2.0", "id": 7, "method": "ping"', b"\xff\xfe not utf-8",
             b"[" * 100_000, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(),
             json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode()]
    by_id: dict = {}
    reader = threading.Thread(target=_collect_answers, args=(proc.stdout, by_id), daemon=True)
    reader.start()
    proc.stdin.write(b"\n".join(lines) + b"\n")
    proc.stdin.flush()
    # Like a real client, close stdin only once the answer came: the stdio shutdown abandons
    # a request still in flight when stdin ends (closing first lost the answer under load).
    wait_for(lambda: 2 in by_id or proc.poll() is not None, "the answer to tools/list")
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    reader.join(timeout=10)
    assert by_id[1]["result"]["protocolVersion"] == "2025-06-18"
    assert {t["name"] for t in by_id[2]["result"]["tools"]} == TOOLS


def _collect_answers(stream, by_id: dict) -> None:
    for line in stream:
        if line.strip():
            answer = json.loads(line)
            by_id[answer.get("id")] = answer
