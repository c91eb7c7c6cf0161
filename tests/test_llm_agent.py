"""The LLM agent (hpcab/agents/llm.py) against scripted model servers (tests/fake_model.py:
OpenAI-compatible and Anthropic Messages, on loopback) and a real judge (`hpcab serve`).

No hosted model or local inference server is reachable here: the fakes play back the tool
calls a model would make and check the requests as a real server would."""

import json
import os
import sqlite3
import time

import pytest

from hpcab.agents.base import Budget, BudgetExhausted, Session, Task
from hpcab.agents.llm import TOOLS, LLMAgent, ModelError, parse_options, render_prompts
from hpcab.errors import InputError
from tests.conftest import EXAMPLES
from tests.fake_model import FakeModel, call, error, last_tool_results, reply

GEMM_C = (EXAMPLES / "gemm.c").read_text()
JUDGE_ARGS = ("--kernels", "gemm", "--target-seconds", "0.05", "--sessions", "2", "--workers", "1")


def make_session(judge, tmp_path, budget: Budget = Budget(submissions=1)) -> Session:
    client = judge.client()
    doc = client.task("gemm")
    task = Task(kernel=doc["kernel"], name=doc["name"], track=doc["track"], doc=doc, workdir=tmp_path / "work")
    return Session(client, task, budget, log_path=tmp_path / "agent.jsonl")


def make_agent(fake: FakeModel, **options) -> LLMAgent:
    options.setdefault("backoff", 0.01)
    return LLMAgent(model_url=fake.url, model_name="fake-model", api=fake.api, **options)


def events(tmp_path, kind: str | None = None) -> list[dict]:
    path = tmp_path / "agent.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [r for r in records if kind is None or r["event"] == kind]


def recorded(judge, submission_id: str) -> tuple[dict, list[tuple]]:
    """The judge database's submission row and its model_calls rows."""
    conn = sqlite3.connect(judge.db)
    conn.row_factory = sqlite3.Row
    try:
        row = dict(conn.execute("SELECT * FROM submissions WHERE id = ?", (submission_id,)).fetchone())
        calls = [tuple(r) for r in conn.execute(
            "SELECT seq, model, prompt_tokens, completion_tokens, cached_tokens FROM model_calls "
            "WHERE submission_id = ? ORDER BY seq", (submission_id,))]
    finally:
        conn.close()
    return row, calls


# ---- a full round -----------------------------------------------------------------------

def test_openai_round_is_graded_and_its_tokens_recorded(start_judge, tmp_path):
    judge = start_judge(*JUDGE_ARGS)
    session = make_session(judge, tmp_path)
    script = [reply(call("write_file", path="gemm.c", content=GEMM_C), text="Writing the i-k-j loop.",
                    usage=(1000, 200, 0)),
              reply(call("score", path="gemm.c"), usage=(1300, 30, 1000)),
              reply(call("submit", path="gemm.c"), usage=(1600, 25, 1200))]
    with FakeModel(script) as fake:
        make_agent(fake).solve(session.task, session)
    assert fake.problems == []
    assert len(fake.requests) == 3                      # the submission ended the loop
    first = fake.requests[0]
    assert first["model"] == "fake-model" and first["max_tokens"] == 4096 and first["temperature"] == 0
    assert {t["function"]["name"] for t in first["tools"]} == {t["name"] for t in TOOLS}
    system, user = first["messages"][0]["content"], first["messages"][1]["content"]
    assert "gemm" in system and "restrict" in system and "Correctness comes first" in system
    assert "void gemm(" in user and "alpha * (A @ B)" in user and "NI=400" in user and "c-autopar" in user
    assert last_tool_results(fake.requests[1]) == [f"wrote {len(GEMM_C.encode())} bytes to gemm.c"]
    scored = last_tool_results(fake.requests[2])[0]
    assert "status ok, correct: true" in scored and "speedup vs baseline c-autopar" in scored
    assert (tmp_path / "work" / "gemm.c").read_text() == GEMM_C

    grade = session.submissions[0]
    assert grade["correct"] is True and grade["kind"] == "submit" and grade["label"] == "gemm.c"
    row, calls = recorded(judge, grade["id"])
    assert row["state"] == "graded" and row["grade_id"] == grade["id"]
    assert (row["model_calls"], row["prompt_tokens"], row["completion_tokens"], row["cached_tokens"]) == \
        (3, 3900, 255, 2200)
    assert row["agent_wall_seconds"] > 0
    assert calls == [(0, "fake-model", 1000, 200, 0), (1, "fake-model", 1300, 30, 1000),
                     (2, "fake-model", 1600, 25, 1200)]
    assert len(events(tmp_path, "model_call")) == 3 and events(tmp_path, "llm_end")[-1]["reason"] == "submitted"
    assert events(tmp_path, "fallback_submit") == []
    transcript = json.loads((tmp_path / "work" / "llm-transcript.json").read_text())
    assert transcript["api"] == "openai" and transcript["messages"][-1]["role"] == "tool"


def test_anthropic_round_maps_its_usage(start_judge, tmp_path, monkeypatch):
    judge = start_judge(*JUDGE_ARGS)
    session = make_session(judge, tmp_path)
    monkeypatch.setenv("HPCAB_TEST_ANTHROPIC_KEY", "sk-test-key")
    script = [reply(call("write_file", path="gemm.c", content=GEMM_C), text="I'll write it.",
                    usage={"input_tokens": 900, "output_tokens": 300, "cache_creation_input_tokens": 800,
                           "cache_read_input_tokens": 0}),
              reply(call("score", path="gemm.c"),
                    usage={"input_tokens": 50, "output_tokens": 20, "cache_creation_input_tokens": 100,
                           "cache_read_input_tokens": 1700}),
              reply(call("submit", path="gemm.c"), usage={"input_tokens": 40, "output_tokens": 15,
                                                          "cache_read_input_tokens": 1900})]
    with FakeModel(script, api="anthropic") as fake:
        make_agent(fake, api_key_env="HPCAB_TEST_ANTHROPIC_KEY").solve(session.task, session)
    assert fake.problems == []
    assert len(fake.requests) == 3
    assert all(h["x-api-key"] == "sk-test-key" and h["anthropic-version"] == "2023-06-01" for h in fake.headers)
    assert "authorization" not in fake.headers[0]
    first = fake.requests[0]
    assert first["system"][0]["text"].startswith("You are an expert") and first["messages"][0]["role"] == "user"
    assert {t["name"] for t in first["tools"]} == {t["name"] for t in TOOLS}
    second = fake.requests[1]["messages"]
    assert second[1]["content"][0] == {"type": "text", "text": "I'll write it."}
    assert second[2]["content"][0]["tool_use_id"] == second[1]["content"][1]["id"]
    assert "correct: true" in last_tool_results(fake.requests[2], "anthropic")[0]

    grade = session.submissions[0]
    assert grade["correct"] is True
    row, calls = recorded(judge, grade["id"])
    # prompt = input + cache read + cache creation; cached = cache read
    assert calls == [(0, "fake-model", 1700, 300, 0), (1, "fake-model", 1850, 20, 1700),
                     (2, "fake-model", 1940, 15, 1900)]
    assert (row["model_calls"], row["prompt_tokens"], row["completion_tokens"], row["cached_tokens"]) == \
        (3, 5490, 335, 3600)


def test_wrong_submission_continues_and_max_turns_submits_the_best_score(start_judge, tmp_path):
    judge = start_judge(*JUDGE_ARGS)
    session = make_session(judge, tmp_path, Budget(submissions=2))
    wrong = GEMM_C.replace("c[j] += a * b[j];", "c[j] += 1.0001 * a * b[j];")
    script = [reply(call("write_file", path="wrong.c", content=wrong),
                    call("write_file", path="gemm.c", content=GEMM_C), usage=(100, 50, 0)),
              reply(call("submit", path="wrong.c"), usage=(200, 60, 10)),
              reply(call("score", path="gemm.c"), call("write_file", path="gemm.c", content="/* half-done */"),
                    usage=(300, 70, 20))]
    with FakeModel(script) as fake:
        make_agent(fake, max_turns=3).solve(session.task, session)
    assert fake.problems == [] and len(fake.requests) == 3
    answer = last_tool_results(fake.requests[2])[0]
    assert "NOT correct. Fix it and submit again." in answer and "status incorrect" in answer
    [fallback] = events(tmp_path, "fallback_submit")
    assert fallback["reason"] == "max_turns" and fallback["path"] == "gemm.c"
    first, second = session.submissions
    assert first["correct"] is False and second["correct"] is True
    # each submission carries the calls made since the previous one
    row, calls = recorded(judge, first["id"])
    assert row["model_calls"] == 2 and calls[1] == (1, "fake-model", 200, 60, 10)
    row, calls = recorded(judge, second["id"])
    assert calls == [(0, "fake-model", 300, 70, 20)]
    assert row["source"] == GEMM_C      # the scored source, not the file as overwritten after the score


# ---- the model's mistakes ---------------------------------------------------------------

def test_malformed_tool_calls_and_escaping_paths_get_tool_errors(start_judge, tmp_path):
    judge = start_judge(*JUDGE_ARGS)
    session = make_session(judge, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    (work / "link").symlink_to(tmp_path)
    script = [reply(call("write_file", _raw='{"path": "gemm.c", "content": "unterminated'), usage=(10, 5, 0)),
              reply(call("rm_rf", path="/"), usage=(10, 5, 0)),
              reply(call("write_file", path="gemm.c"), call("score", _raw="[1, 2]"), usage=(10, 5, 0)),
              reply(call("write_file", path="../escape.c", content="x"),
                    call("write_file", path="/tmp/escape.c", content="x"),
                    call("read_file", path="sub/../../judge.db"),
                    call("write_file", path="link/escape.c", content="x"),
                    call("read_file", path="gemm.c"), usage=(10, 5, 0)),
              reply(text="I am done.", usage=(10, 5, 0)),
              reply(text="Really done.", usage=(10, 5, 0))]
    with FakeModel(script) as fake:
        make_agent(fake).solve(session.task, session)          # no exception: every mistake was answered
    assert fake.problems == []              # the broken arguments went back to the server as {}
    results = [last_tool_results(r) for r in fake.requests[1:5]]
    assert results[0][0].startswith("ERROR: write_file: the arguments are not valid JSON")
    assert "unknown tool 'rm_rf'" in results[1][0]
    assert "missing required argument(s) content" in results[2][0]
    assert "not an object" in results[2][1]
    refused = results[3]
    assert all(r.startswith("ERROR: ") for r in refused)
    assert "'..'" in refused[0] and "absolute" in refused[1] and "'..'" in refused[2]
    assert "outside your working folder" in refused[3] and "no file 'gemm.c'" in refused[4]
    assert not (tmp_path / "escape.c").exists() and not os.path.exists("/tmp/escape.c")
    assert "without calling a tool" in fake.requests[5]["messages"][-1]["content"]     # the nudge, once
    assert len(fake.requests) == 6 and session.submissions == [] and session.scores == 0
    assert events(tmp_path, "llm_end")[-1]["reason"] == "no_tool_call"
    assert len(session.calls) == 6


# ---- the endpoint's failures ------------------------------------------------------------

def test_429_and_5xx_are_retried(start_judge, tmp_path):
    judge = start_judge(*JUDGE_ARGS)
    session = make_session(judge, tmp_path)
    script = [error(429, "slow down", retry_after="0"), error(503, "overloaded"),
              reply(call("read_task"), usage=(10, 5, 0)), reply(text="a", usage=None), reply(text="b")]
    with FakeModel(script) as fake:
        make_agent(fake).solve(session.task, session)
    assert len(fake.requests) == 5 and fake.requests[0] == fake.requests[1] == fake.requests[2]
    assert "# Task: `gemm`" in last_tool_results(fake.requests[3])[0]
    retries = events(tmp_path, "model_retry")
    assert [r["attempt"] for r in retries] == [1, 2] and retries[0]["delay"] == 0
    assert "HTTP 429: slow down" in retries[0]["error"] and "HTTP 503" in retries[1]["error"]
    assert len(session.calls) == 2          # the refused requests cost nothing, nor one without usage
    assert [e["turn"] for e in events(tmp_path, "usage_missing")] == [2]


def test_endpoint_errors_raise_model_error_in_bounded_time(start_judge, tmp_path):
    judge = start_judge(*JUDGE_ARGS)
    # A server that goes away after two answers: retried, then a clear error; the file that
    # scored correct before is submitted on the way out.
    session = make_session(judge, tmp_path)
    script = [reply(call("write_file", path="gemm.c", content=GEMM_C), usage=(10, 5, 0)),
              reply(call("score", path="gemm.c"), usage=(20, 5, 0))] + [reply(call("read_task"))] * 3
    with FakeModel(script, shutdown_after=2) as fake:
        started = time.monotonic()
        with pytest.raises(ModelError) as err:
            make_agent(fake, retries=2, backoff=0.05).solve(session.task, session)
        assert time.monotonic() - started < 20
    assert f"{fake.url}/chat/completions" in str(err.value) and "failed 3 time(s)" in str(err.value)
    assert len(fake.requests) == 2 and len(session.calls) == 2
    assert events(tmp_path, "llm_end")[-1]["reason"] == "ModelError"
    assert events(tmp_path, "fallback_submit")[0]["reason"] == "ModelError"
    [grade] = session.submissions
    assert grade["correct"] is True and recorded(judge, grade["id"])[0]["model_calls"] == 2

    # Nothing listening at the first call: at once, whatever the retries.
    session = make_session(judge, tmp_path / "refused")
    started = time.monotonic()
    with pytest.raises(ModelError, match=r"cannot reach the model endpoint http://127\.0\.0\.1:\d+/v1"):
        LLMAgent(model_url=fake.url, model_name="m", retries=5, backoff=1).solve(session.task, session)
    assert time.monotonic() - started < 5

    # A 4xx other than 429 fails at once with the server's message.
    session = make_session(judge, tmp_path / "bad-request")
    with FakeModel([error(400, "model 'nope' does not exist")]) as fake:
        with pytest.raises(ModelError, match=r"HTTP 400: model 'nope' does not exist"):
            make_agent(fake).solve(session.task, session)
    assert len(fake.requests) == 1


def test_token_budget_ends_the_task(start_judge, tmp_path):
    judge = start_judge(*JUDGE_ARGS)
    session = make_session(judge, tmp_path, Budget(submissions=1, tokens=500))
    with FakeModel([reply(call("read_task"), usage=(400, 150, 0))] * 3) as fake:
        with pytest.raises(BudgetExhausted, match="token budget of 500"):
            make_agent(fake).solve(session.task, session)
    assert len(fake.requests) == 1 and session.tokens == 550
    assert "tokens (prompt + completion, all turns): 500" in fake.requests[0]["messages"][1]["content"]


# ---- prompts and options ----------------------------------------------------------------

def test_prompts_render_for_every_language(start_judge):
    client = start_judge(*JUDGE_ARGS).client()
    for language, marker in (("c", "gnu17"), ("cpp", 'extern "C"'), ("fortran", 'bind(C, name="gemm")')):
        doc = client.task("gemm", language)
        system, task_text, nudge = render_prompts(doc, None, parse_options(
            {"model_url": "http://x", "model_name": "m", "language": language}))
        assert marker in system and "workspace_size" in task_text and "gemm." in nudge
        assert "$" not in system.replace("$omp", "")


def test_prompt_overrides_and_options(tmp_path):
    (tmp_path / "system.md").write_text("You write $language_name for $name. Costs $$5.\n")
    cfg = parse_options({"model_url": "http://x", "model_name": "m", "prompts_dir": str(tmp_path),
                         "max_turns": "7", "keep_going": "yes", "temperature": "0.2"})
    assert (cfg["max_turns"], cfg["keep_going"], cfg["temperature"]) == (7, True, 0.2)
    system, task_text, _ = render_prompts({"name": "gemm"}, None, cfg)
    assert system.startswith("You write C for gemm. Costs $5.\n\nThe calling convention")
    assert "# Task: `gemm`" in task_text
    (tmp_path / "system.md").write_text("$nope")
    with pytest.raises(InputError, match="system.md.*nope"):
        render_prompts({"name": "gemm"}, None, cfg)
    with pytest.raises(InputError, match="unknown option"):
        LLMAgent(model_url="http://x", model_name="m", max_turn=3)
    with pytest.raises(InputError, match="model_name"):
        LLMAgent(model_url="http://x")
    with pytest.raises(InputError, match="max_turns"):
        LLMAgent(model_url="http://x", model_name="m", max_turns="many")
