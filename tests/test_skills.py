"""The skill pages (skills/<name>/SKILL.md; hpcab.skills): their format, that everything
they name exists, and how they are served (GET /skills, the LLM agent's skills= option; the
MCP resources are in tests/test_mcp.py)."""

import json
import re

import pytest

from hpcab.agents.llm import OPTIONS, SKILL_TOOL, TOOLS
from hpcab.cli import build_parser
from hpcab.client import JudgeClient, JudgeError
from hpcab.errors import InputError
from hpcab.judge.server import GET_ROUTES, POST_ROUTES
from hpcab.judge.service import NOT_FOR_SUBMISSIONS
from hpcab.mcp import _specs
from hpcab.skills import load_skill, load_skills, select_skills
from hpcab.toolchain import load_toolchains
from tests.conftest import EXAMPLES, ROOT
from tests.fake_model import FakeModel, call, last_tool_results, reply

SKILLS = load_skills()
# What the issue asks for at least: the rules, one per language, and the practices.
EXPECTED = {"rules", "c", "cpp", "fortran", "python-numba", "loop-transformations", "vectorization", "openmp",
            "memory-blocking", "floating-point", "mpi", "gpu"}


def test_at_least_twelve_skills_each_in_the_agent_skills_format():
    assert EXPECTED <= set(SKILLS), sorted(EXPECTED - set(SKILLS))
    for skill in SKILLS.values():
        assert skill.path == ROOT / "skills" / skill.name / "SKILL.md"
        assert 20 <= len(skill.description) <= 300, skill.name
        assert skill.body.count("\n") >= 40, f"{skill.name}: a page, not a stub"


def _code_spans(text: str) -> list[str]:
    text = re.sub(r"```.*?```", lambda m: "\n".join(f"`{line}`" for line in m.group(0).splitlines()), text,
                  flags=re.S)
    return re.findall(r"`([^`\n]+)`", text)


@pytest.mark.parametrize("name", sorted(SKILLS))
def test_every_command_endpoint_flag_set_and_tool_a_skill_names_exists(name):
    spans = _code_spans(SKILLS[name].content)
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    flagsets = set(load_toolchains().flagsets) - NOT_FOR_SUBMISSIONS
    tools = {t["name"] for t in TOOLS + [SKILL_TOOL]} | {s.name for s in _specs(JudgeClient("http://127.0.0.1:9"))}
    for span in spans:
        for m in re.finditer(r"(?:^|\s|\$ )hpcab ([a-z-]+)((?: [^|;&]*)?)", span):
            command, rest = m.group(1), m.group(2)
            assert command in commands, f"{name}: `{span}` names no hpcab command"
            options = {o for a in commands[command]._actions for o in a.option_strings}
            for option in re.findall(r"(?<!\S)(--[a-z][a-z-]*)", rest):
                assert option in options, f"{name}: `{span}`: hpcab {command} has no {option}"
        for m in re.finditer(r"\b(GET|POST) /([a-z]+)", span):
            routes = GET_ROUTES if m.group(1) == "GET" else POST_ROUTES
            assert m.group(2) in routes, f"{name}: `{span}` is no endpoint of the judge"
        for m in re.finditer(r"flagset: ([a-z][a-z0-9_-]*)", span):
            assert m.group(1) in flagsets, f"{name}: `{span}` names no flag set a submission may use"
        for m in re.finditer(r"(?:--flags|\"flagset\": \")\s*([a-z][a-z0-9_-]*)", span):
            assert m.group(1) in flagsets, f"{name}: `{span}` names no flag set a submission may use"
    for m in re.finditer(r"the `([a-z_]+)` tool", SKILLS[name].content):
        assert m.group(1) in tools, f"{name}: no tool {m.group(1)!r}"


def test_a_bad_page_is_refused_naming_the_file_and_the_field(tmp_path):
    def page(folder: str, text: str):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "SKILL.md"
        path.write_text(text)
        return path
    for folder, text, field in [("a", "no front matter\n", "front matter"),
                                ("b", "---\nname: c\ndescription: x y z\n---\nbody\n", "name"),
                                ("Bad_Name", "---\nname: Bad_Name\ndescription: x y z\n---\n", "name"),
                                ("d", "---\nname: d\n---\nbody\n", "description"),
                                ("e", "---\nname: [e\n---\n", "front matter")]:
        with pytest.raises(InputError) as exc:
            load_skill(page(folder, text))
        assert exc.value.field == field and str(tmp_path / folder / "SKILL.md") in str(exc.value)


def test_select_all_none_or_names():
    assert [s.name for s in select_skills(SKILLS, "all")] == list(SKILLS)
    assert select_skills(SKILLS, "none") == []
    assert [s.name for s in select_skills(SKILLS, "rules, c,rules")] == ["rules", "c"]
    with pytest.raises(InputError) as exc:
        select_skills(SKILLS, "rules,nonesuch")
    assert exc.value.field == "nonesuch"


def test_the_judge_serves_the_skills(start_judge):
    judge = start_judge("--kernels", "gemm")
    client = judge.client()
    listed = client.skills()["skills"]
    assert [s["name"] for s in listed] == list(SKILLS)
    assert all(s["description"] == SKILLS[s["name"]].description for s in listed)
    page = client.skills("openmp")
    assert page["name"] == "openmp" and page["content"] == SKILLS["openmp"].content
    with pytest.raises(JudgeError) as exc:
        client.skills("nonesuch")
    assert exc.value.status == 404 and "GET /skills" in exc.value.message


def test_the_llm_agent_lists_the_chosen_skills_and_reads_one(start_judge, tmp_path):
    from hpcab.agents.base import Budget
    from tests.test_llm_agent import make_agent, make_session
    assert OPTIONS["skills"] == (str, "none")
    judge = start_judge("--kernels", "gemm", "--target-seconds", "0.05", "--sessions", "2", "--workers", "1")
    gemm = (EXAMPLES / "gemm.c").read_text()
    # (call's own first parameter is called name: the argument goes as raw JSON)
    script = [reply(call("read_skill", json.dumps({"name": "vectorization"}))),
              reply(call("read_skill", json.dumps({"name": "rules"}))),
              reply(call("write_file", path="gemm.c", content=gemm)),
              reply(call("submit", path="gemm.c"))]
    session = make_session(judge, tmp_path, Budget(submissions=1))
    with FakeModel(script) as fake:
        make_agent(fake, skills="vectorization,openmp").solve(session.task, session)
    assert fake.problems == []
    first = fake.requests[0]
    system = first["messages"][0]["content"]
    assert "`vectorization`: " + SKILLS["vectorization"].description in system and "`openmp`" in system
    assert "`rules`" not in system
    offered = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert offered["read_skill"]["parameters"]["properties"]["name"]["enum"] == ["vectorization", "openmp"]
    assert last_tool_results(fake.requests[1]) == [SKILLS["vectorization"].content]
    assert "no skill 'rules'" in last_tool_results(fake.requests[2])[0]

    # skills=none (the default): no list in the prompt, no read_skill tool
    (tmp_path / "bare").mkdir()
    session = make_session(judge, tmp_path / "bare", Budget(submissions=1))
    with FakeModel([reply(call("write_file", path="gemm.c", content=gemm)),
                    reply(call("submit", path="gemm.c"))]) as fake:
        make_agent(fake).solve(session.task, session)
    first = fake.requests[0]
    assert "read_skill" not in {t["function"]["name"] for t in first["tools"]}
    assert "Skill pages" not in first["messages"][0]["content"]


def test_an_unknown_skill_in_the_llm_agents_option_is_a_usage_error_before_any_work():
    from hpcab.agents.llm import LLMAgent
    with pytest.raises(InputError) as exc:
        LLMAgent(model_url="http://127.0.0.1:9/v1", model_name="m", skills="rules,nonesuch")
    assert "nonesuch" in str(exc.value) and "no such skill" in str(exc.value)
    assert LLMAgent(model_url="http://127.0.0.1:9/v1", model_name="m", skills="all").config["skills"] == "all"
