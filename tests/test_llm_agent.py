"""The LLM agent (hpcab/agents/llm.py) against scripted model servers (tests/fake_model.py:
OpenAI-compatible and Anthropic Messages, on loopback) and a real judge (`hpcab serve`).

No hosted model or local inference server is reachable here: the fakes play back the tool
calls a model would make and check the requests as a real server would."""

import json
import os
import sqlite3
import subprocess
import sys
import time

import pytest

from hpcab.agents.base import Budget, BudgetExhausted, Session, Task
from hpcab.agents.llm import TOOLS, LLMAgent, ModelError, parse_options, render_prompts
from hpcab.agents.llm_providers import Provider, ToolResult, Transport, make_provider
from hpcab.client import JudgeError
from hpcab.errors import InputError
from tests.conftest import EXAMPLES, ROOT
from tests.fake_model import FakeModel, call, check_openai_types, error, last_tool_results, reply

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
    assert first["tool_choice"] == "auto" and "max_completion_tokens" not in first
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


def test_the_compile_tool_answers_the_compilers_report_and_spends_no_score(start_judge, tmp_path):
    judge = start_judge(*JUDGE_ARGS)
    session = make_session(judge, tmp_path, Budget(submissions=1, scores=1))
    script = [reply(call("write_file", path="gemm.c", content=GEMM_C)),
              reply(call("compile", path="gemm.c", disassemble=True)),
              reply(call("compile", path="nope.c")),
              reply(call("submit", path="gemm.c"))]
    with FakeModel(script) as fake:
        make_agent(fake).solve(session.task, session)
    assert fake.problems == []
    report = last_tool_results(fake.requests[2])[0]
    assert report.startswith("gemm: gemm.c compiled with gcc") and "gemm.c:" in report
    assert "optimized: loop vectorized" in report and "<gemm>:" in report
    assert "no file 'nope.c'" in last_tool_results(fake.requests[3])[0]
    assert session.scores == 0 and session.remaining()["scores"] == 1
    assert [e["ok"] for e in events(tmp_path, "compile")] == [True]


def test_the_profile_tool_answers_where_the_time_goes_and_spends_a_profile(start_judge, tmp_path):
    from hpcab.profile import available
    if not available()[0]:
        pytest.skip(f"no profiles on this machine: {available()[1]}")
    judge = start_judge(*JUDGE_ARGS)
    session = make_session(judge, tmp_path, Budget(submissions=1, profiles=1))
    script = [reply(call("write_file", path="gemm.c", content=GEMM_C)),
              reply(call("profile", path="gemm.c")),
              reply(call("profile", path="gemm.c")),
              reply(call("submit", path="gemm.c"))]
    with FakeModel(script) as fake:
        make_agent(fake).solve(session.task, session)
    assert fake.problems == []
    assert "`profile` {path, flagset?}" in fake.requests[0]["messages"][0]["content"]
    assert "- profiles: 1" in fake.requests[0]["messages"][1]["content"]
    answer = last_tool_results(fake.requests[2])[0]
    assert "hot functions" in answer and "gemm  [candidate]" in answer and "c[j] += a * b[j];" in answer
    assert "profile budget of 1 spent" in last_tool_results(fake.requests[3])[0]
    assert session.profiles == 1 and session.scores == 0
    assert [e["status"] for e in events(tmp_path, "profile")] == ["ok"]


def test_an_arm_gives_only_the_tools_it_names_and_the_prompt_describes_no_other(start_judge, tmp_path):
    judge = start_judge(*JUDGE_ARGS)
    session = make_session(judge, tmp_path)
    script = [reply(call("write_file", path="gemm.c", content=GEMM_C)),
              reply(call("compile", path="gemm.c")),
              reply(call("submit", path="gemm.c"))]
    with FakeModel(script) as fake:
        make_agent(fake, tools="score,submit").solve(session.task, session)
    assert fake.problems == []
    first = fake.requests[0]
    assert {t["function"]["name"] for t in first["tools"]} == {"read_task", "write_file", "read_file", "score",
                                                               "submit"}
    system = first["messages"][0]["content"]
    assert "`score` {path" in system and "`submit` {path" in system
    assert "`compile`" not in system and "`profile`" not in system and "profiles:" not in \
        first["messages"][1]["content"]
    assert "unknown tool 'compile'" in last_tool_results(fake.requests[2])[0]
    for tools, message in (("score", "must include submit"), ("score,submit,debug", "unknown tool")):
        with pytest.raises(InputError, match=message):
            LLMAgent(model_url="http://127.0.0.1:9/v1", model_name="m", tools=tools)
    # read_skill without skills to read is left out, so arms with and without skills name the same tools.
    assert parse_options({"model_url": "http://x", "model_name": "m", "tools": "submit,read_skill"})["tool_names"] \
        == ("submit",)


def test_prompt_variants_and_the_hints_ladder(start_judge):
    doc = start_judge(*JUDGE_ARGS).client().task("gemm")
    assert len(doc["hints"]) == 3 and "dense linear algebra" in doc["hints"][0]
    assert "flop/byte" in doc["hints"][1] and doc["hints"][2].startswith("A transformation that fits")
    options = {"model_url": "http://x", "model_name": "m"}
    default, task, _ = render_prompts(doc, None, parse_options(options))
    assert "## Hints" not in task and "Correctness comes first" in default
    terse, task2, _ = render_prompts(doc, None, parse_options(dict(options, prompt="terse", hints="2")))
    assert "Correctness comes first" not in terse and "Wrong on any case scores nothing" in terse
    assert "The calling convention" in terse                          # the fragments it does not replace
    assert "## Hints" in task2 and doc["hints"][0] in task2 and doc["hints"][1] in task2
    assert doc["hints"][2] not in task2
    _, task3, _ = render_prompts(doc, None, parse_options(dict(options, hints="3")))
    assert doc["hints"][2] in task3
    with pytest.raises(InputError, match="prompt variants default, engineer, terse"):
        parse_options(dict(options, prompt="nonesuch"))
    with pytest.raises(InputError, match="hints"):
        parse_options(dict(options, hints="4"))


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
    # Retry-After 0 asks no wait: the backoff's (0.01 s less up to a quarter), as in the openai client
    assert [r["attempt"] for r in retries] == [1, 2] and 0.007 <= retries[0]["delay"] <= 0.01
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
        # Bounded: two retries whose waits follow the backoff (the wall time also holds a
        # grade, whose length is the machine's: only a hang is caught by it).
        assert time.monotonic() - started < 120
    retries = events(tmp_path, "model_retry")
    assert [r["attempt"] for r in retries] == [1, 2] and sum(r["delay"] for r in retries) < 0.2
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


# ---- the request bodies, at the provider (no judge) --------------------------------------

def provider_for(fake: FakeModel, **kw) -> Provider:
    kw.setdefault("backoff", 0.001)
    provider = make_provider(fake.api, fake.url, "fake-model", None, **kw)
    provider.start("the system prompt", "the task")
    return provider


def converse(provider: Provider, turns: int) -> None:
    """turns model calls, each reply's tool calls answered (a reply without one: a nudge)."""
    for _ in range(turns):
        answer = provider.complete(TOOLS)
        provider.add_reply(answer)
        if answer.tool_calls:
            provider.add_tool_results([ToolResult(c.id, f"ran {c.name}") for c in answer.tool_calls])
        else:
            provider.add_user("call a tool")


def test_openai_bodies_carry_tool_choice_and_a_string_content_beside_tool_calls():
    script = [reply(call("read_task")), reply(call("read_file", path="a.c"), text="Reading."), reply(text="done")]
    with FakeModel(script) as fake:
        converse(provider_for(fake), 3)
    assert fake.problems == []          # which include: content a string, tool_choice with the tools
    first, second, third = fake.requests
    assert first["tool_choice"] == "auto" and first["temperature"] == 0 and first["max_tokens"] == 4096
    assert second["messages"][2] == {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_1_0", "type": "function", "function": {"name": "read_task", "arguments": "{}"}}]}
    assert third["messages"][4]["content"] == "Reading."
    for choice in ("required", "none"):
        with FakeModel([reply(text="ok")]) as fake:
            provider_for(fake, tool_choice=choice).complete(TOOLS)
        assert fake.requests[0]["tool_choice"] == choice and fake.problems == []
    with pytest.raises(ValueError, match="tool_choice 'sometimes'"):
        provider_for(fake, tool_choice="sometimes")


def test_tool_schemas_name_the_tasks_flag_sets_and_with_list_files_the_files(start_judge, tmp_path):
    """A server that decodes under the schema (llama.cpp) cannot then invent a flag set, or,
    with list_files, a file that is not there."""
    judge = start_judge(*JUDGE_ARGS)
    flagsets = sorted(judge.client().task("gemm")["flagsets"])
    for list_files in (False, True):
        session = make_session(judge, tmp_path / f"list{list_files}")
        script = [reply(call("write_file", path="gemm.c", content=GEMM_C)), reply(call("read_task"))]
        with FakeModel(script) as fake:
            make_agent(fake, list_files=list_files, max_turns=2).solve(session.task, session)
        before, after = ({t["function"]["name"]: t["function"]["parameters"]["properties"] for t in r["tools"]}
                         for r in fake.requests)
        assert before["score"]["flagset"]["enum"] == after["submit"]["flagset"]["enum"] == flagsets
        assert "enum" not in before["score"]["path"]                 # no file yet: any path
        assert "enum" not in after["write_file"]["path"]
        for tool in ("read_file", "score", "submit"):
            assert after[tool]["path"].get("enum") == (["gemm.c"] if list_files else None)


def test_temperature_can_be_omitted_and_the_limit_sent_as_max_completion_tokens():
    with FakeModel([reply(text="ok")]) as fake:
        provider_for(fake, temperature=None, max_tokens_field="max_completion_tokens", max_tokens=99).complete(TOOLS)
    [body] = fake.requests
    assert "temperature" not in body and "max_tokens" not in body and body["max_completion_tokens"] == 99
    assert fake.problems == []
    cfg = parse_options({"model_url": "http://x", "model_name": "m", "temperature": "omit",
                         "max_tokens_field": "max_completion_tokens", "tool_choice": "required"})
    assert (cfg["temperature"], cfg["max_tokens_field"], cfg["tool_choice"]) == \
        (None, "max_completion_tokens", "required")
    assert parse_options({"model_url": "http://x", "model_name": "m", "temperature": "default"})["temperature"] is None
    defaults = parse_options({"model_url": "http://x", "model_name": "m"})
    assert (defaults["temperature"], defaults["max_tokens_field"], defaults["tool_choice"], defaults["retries"],
            defaults["backoff"]) == (0.0, "max_tokens", "auto", 2, 0.5)


def test_anthropic_tool_choice_and_omitted_temperature():
    expected = {"auto": None, "required": {"type": "any"}, "none": {"type": "none"}}
    for choice, wire in expected.items():
        with FakeModel([reply(text="ok")], api="anthropic") as fake:
            provider_for(fake, tool_choice=choice, temperature=None).complete(TOOLS)
        [body] = fake.requests
        assert body.get("tool_choice") == wire and "temperature" not in body and body["max_tokens"] == 4096
        assert fake.problems == []


# ---- the retry policy --------------------------------------------------------------------

def test_a_500_with_a_json_error_is_sent_once_and_named():
    message = "Input should be a valid string: body.messages.2.content"
    with FakeModel([error(500, message), reply(text="never")]) as fake:
        provider = provider_for(fake, retries=5)
        with pytest.raises(ModelError) as err:
            provider.complete(TOOLS)
    assert len(fake.requests) == 1
    text = str(err.value)
    assert f"{fake.url}/chat/completions" in text and "HTTP 500" in text and message in text
    assert "not retried" in text


def test_other_server_errors_are_retried_with_the_same_body():
    retries: list[dict] = []
    script = [error(503, "overloaded"), error(500, body=""), error(502, body="<html>Bad Gateway</html>"),
              error(504, "upstream timeout"), error(408), error(409), reply(text="ok")]
    with FakeModel(script) as fake:
        answer = provider_for(fake, retries=6, on_retry=retries.append).complete(TOOLS)
    assert answer.text == "ok" and len(fake.requests) == 7
    assert all(body == fake.requests[0] for body in fake.requests)
    assert [r["attempt"] for r in retries] == [1, 2, 3, 4, 5, 6] and "HTTP 502: <html>" in retries[2]["error"]
    # the default: 2 retries
    with FakeModel([error(503)] * 4) as fake:
        with pytest.raises(ModelError, match=r"failed 3 time\(s\) in a row \(retries=2\); last: HTTP 503"):
            provider_for(fake).complete(TOOLS)
    assert len(fake.requests) == 3


def test_x_should_retry_decides():
    with FakeModel([error(503, "down", headers={"x-should-retry": "false"}), reply(text="never")]) as fake:
        with pytest.raises(ModelError, match="HTTP 503: down.*x-should-retry: false"):
            provider_for(fake, retries=5).complete(TOOLS)
    assert len(fake.requests) == 1
    # true: even a status that would not be retried, even a 500 that names its error
    script = [error(400, "try again", headers={"x-should-retry": "true"}),
              error(500, "transient", headers={"x-should-retry": "true"}), reply(text="ok")]
    with FakeModel(script) as fake:
        assert provider_for(fake).complete(TOOLS).text == "ok"
    assert len(fake.requests) == 3


def test_retry_after_ms_and_retry_after_are_honoured():
    retries: list[dict] = []
    script = [error(429, headers={"retry-after-ms": "7", "Retry-After": "100"}), error(503, retry_after="0.02"),
              reply(text="ok")]
    with FakeModel(script) as fake:
        started = time.monotonic()
        # a backoff of 30 s: the test would take a minute if the server's delays were not used
        assert provider_for(fake, backoff=30, on_retry=retries.append).complete(TOOLS).text == "ok"
    assert time.monotonic() - started < 10
    assert [r["delay"] for r in retries] == [0.007, 0.02]
    # a server that asks for more than 120 s is not retried
    with FakeModel([error(429, "quota", retry_after="121"), reply(text="never")]) as fake:
        with pytest.raises(ModelError, match="HTTP 429: quota and asks to wait 121 s"):
            provider_for(fake).complete(TOOLS)
    assert len(fake.requests) == 1


def test_backoff_doubles_to_its_cap_less_a_random_quarter():
    delays: list[float] = []
    with FakeModel([error(503)] * 6) as fake:
        transport = Transport(f"{fake.url}/chat/completions", {}, retries=5, backoff=1.0, sleep=delays.append)
        with pytest.raises(ModelError, match=r"failed 6 time\(s\)"):
            transport.post({"model": "m", "messages": [], "max_tokens": 1, "tools": []})
    for delay, full in zip(delays, (1, 2, 4, 8, 8), strict=True):
        assert 0.75 * full <= delay <= full


# ---- usage errors and the score count -----------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (("--model", "/v1"), "--model: '/v1': not an http(s) URL with a host; expected the model server's base URL, "
                         "an http(s) URL such as http://127.0.0.1:8000/v1"),
    (("--model", "localhost:8000/v1"), "--model: 'localhost:8000/v1': not an http(s) URL"),
    (("--model", "http://x", "--option", "tool_choice=sometimes"),
     "agent llm: tool_choice: expected one of auto, required, none, got 'sometimes'"),
    (("--model", "http://x", "--option", "temperature=warm"), "agent llm: temperature: expected a number, or omit"),
    (("--model", "http://x", "--option", "max_tokens_field=max_toks"),
     "agent llm: max_tokens_field: expected one of max_tokens, max_completion_tokens, got 'max_toks'"),
])
def test_bad_model_url_and_llm_options_are_usage_errors(tmp_path, args, message):
    out = tmp_path / "run"
    # A judge URL nothing listens on: a run that got as far as the judge would say so.
    proc = subprocess.run([sys.executable, "-m", "hpcab", "agent", "llm", *args, "--model-name", "m",
                           "--judge", "http://127.0.0.1:9", "--kernels", "gemm", "--out", str(out), "--no-progress"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, env=dict(os.environ, COLUMNS="300"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in " ".join(proc.stderr.split()) and "judge" not in proc.stderr
    assert not out.exists()


def test_only_scores_the_judge_charged_are_counted(start_judge, tmp_path):
    judge = start_judge(*JUDGE_ARGS)
    session = make_session(judge, tmp_path, Budget(submissions=1, scores=2))
    with pytest.raises(JudgeError) as refused:
        session.score(GEMM_C, "c", flagset="no-such-flagset")
    assert refused.value.status == 400 and session.scores == 0 and session.remaining()["scores"] == 2
    assert session.score(GEMM_C, "c")["correct"] is True and session.scores == 1
    conn = sqlite3.connect(judge.db)
    try:
        assert conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 1       # what the judge charged
    finally:
        conn.close()

    # A failure inside the judge while grading is charged (docs/judge_api.md, "Charging"); a
    # grading worker that died, or a refusal, is not.
    from hpcab.judge.service import failure_message

    class FailingJudge:
        def __init__(self, *errors):
            self.errors = list(errors)

        def score(self, *args):
            raise self.errors.pop(0)

    failing = FailingJudge(JudgeError(500, failure_message("score", "0" * 32)),
                           JudgeError(500, "the judge's grading worker died while grading this; it was not graded"),
                           JudgeError(503, "the judge is stopping"),
                           JudgeError(403, "agent 'a' has spent its score budget (3)"))
    session = Session(failing, session.task, Budget(scores=2))
    for _ in range(4):
        with pytest.raises(JudgeError):
            session.score(GEMM_C, "c")
    assert session.scores == 1
    # The judge's own score budget is spent: no score is sent to it again, whatever the task's
    # budget still allows (hpcab.agents.base.score_budget_refused).
    assert session.remaining()["scores"] == 1 and not session.can_score
    with pytest.raises(BudgetExhausted):
        session.score(GEMM_C, "c")


def test_requests_and_answers_match_the_official_openai_types(start_judge, tmp_path):
    pytest.importorskip("openai")
    judge = start_judge(*JUDGE_ARGS)
    runs = [({}, [reply(call("write_file", path="gemm.c", content=GEMM_C), text="Writing it."),
                  reply(call("read_file", path="gemm.c"), call("write_file", _raw='{"path": "x.c", "cont')),
                  reply(text="Let me think."),
                  reply(call("score", path="gemm.c"), usage=None),
                  reply(call("submit", path="gemm.c"))]),
            ({"tool_choice": "required", "temperature": "omit", "max_tokens_field": "max_completion_tokens",
              "max_turns": 2}, [reply(call("read_task"))] * 2)]
    for n, (options, script) in enumerate(runs):
        session = make_session(judge, tmp_path / f"run{n}")
        with FakeModel(script) as fake:
            make_agent(fake, **options).solve(session.task, session)
        assert fake.problems == [] and len(fake.requests) == len(script)
        assert all(status == 200 for status, _ in fake.responses)
        check_openai_types(fake.requests, [doc for _, doc in fake.responses])
    assert session.submissions == [] and "temperature" not in fake.requests[0]
