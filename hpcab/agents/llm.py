"""LLMAgent: a tool-calling model writes the kernel (`hpcab agent llm`).

    hpcab agent llm --model http://127.0.0.1:8000/v1 --model-name qwen --option max_turns=20
    hpcab agent llm --model https://api.anthropic.com --model-name claude-... --option api=anthropic

The model gets a prompt assembled from the fragments in hpcab/agents/prompts/ (see
docs/prompts.md) and its tools: read_task, write_file, read_file (inside the task's
workdir only), and the judge's that its arm gives it (option tools): score (the public
cases), compile (the compiler's report), profile (perf on a public case), submit (the final
answer), read_skill (a skill page, with option skills). Each turn
the agent calls the model, runs the tool calls it asked for and sends back the results,
until the model submits a correct file, max_turns is reached, or the model twice answers
without a tool call (it is nudged once). A task that ends without a correct submission
submits the best file that scored correct, if there is one (option submit_best). Every completion's usage is
reported with session.add_usage (docs/token_accounting.md). The HTTP side, both APIs and
the retry policy are in llm_providers.py; the prompt and the grade summaries the model
reads in llm_prompts.py.

Options (`--option key=value`; strings are converted; a bad value is a usage error):
    model_url       the API's base URL (required): http://host:8000/v1, https://api.anthropic.com
    model_name      the model's name as the API knows it (required)
    api             openai (default; any OpenAI-compatible chat-completions server) or anthropic
    api_key_env     the environment variable holding the key (default OPENAI_API_KEY or
                    ANTHROPIC_API_KEY); unset or empty: no key is sent (local servers)
    language        c (default), cpp or fortran: the language the model is asked to write
    max_turns       30: model calls at most
    max_tokens      4096: per completion
    max_tokens_field  max_tokens: the OpenAI body's name for it; max_completion_tokens for
                    OpenAI's reasoning models (which refuse max_tokens); Anthropic: always max_tokens
    temperature     0; omit (or default): no temperature sent, the server's default (OpenAI's
                    reasoning models take no other)
    tool_choice     auto (default), required or none: sent with the tools (OpenAI: as is;
                    llama.cpp's servers ignore tools sent without it. Anthropic: required is
                    {"type": "any"}, none {"type": "none"}, auto is left to its default)
    timeout         300: seconds per request
    retries         2: retries of a request on 408, 409, 429, 5xx, a reset or a timeout (not a
                    500 with a JSON error: see llm_providers.py for the whole policy)
    backoff         0.5: seconds before the first retry (doubled each time up to 8, with jitter)
    keep_going      false: after a correct submission, go on while the submission budget allows
    submit_best     true: at an end without a correct submission, submit the best correct score
    prompts_dir     a folder whose files replace the prompt fragments of the same name
    max_file_bytes  262144: the largest file write_file writes and read_file returns
    prompt_cache    true: Anthropic cache_control breakpoints (system, conversation)
    transcript      true: write the conversation to <workdir>/llm-transcript.json at the end
    skills          none (default), all, or NAME,NAME,...: the judge's skill pages (GET /skills) whose
                    names and descriptions the system prompt lists; the tool read_skill reads one
    tools           all (default) or NAME,NAME,...: the judge's tools given, among score, compile,
                    profile, submit (always) and read_skill (only with skills); the prompt
                    describes those given and no other
    prompt          default, or a variant of hpcab/agents/prompts/variants/ (terse, engineer):
                    fragments that replace the default's of the same name
    hints           0 (default) to 3: the rungs of the judge's hints ladder (GET /task, field
                    hints: the kernel's class, what it isolates or its roofline bound, a worked
                    transformation) shown after the task
    seed            -1 (default: none sent): the OpenAI body's seed; an arm's repeats give each
                    attempt its own (docs/launch.md)
    list_files      false: read_file's path is one of the working folder's files, score's and
                    submit's one of its sources in a language the judge takes (an enum in the tool
                    schemas, which then change when a file is written: that restarts a prompt cache). For servers that decode under the schema (llama.cpp,
                    vLLM), so a small model cannot name a file that does not exist. The flagset of
                    score and submit is always one of the task's flag sets.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path, PurePosixPath
from typing import Any

from hpcab.agents.base import Agent, BudgetExhausted, Session, Task, speedup_of
from hpcab.agents.llm_prompts import (DEFAULT_VARIANT, FRAGMENTS, JUDGE_TOOLS, LANGUAGES, prompt_name,
                                     render_prompts, summarize_grade, variants)
from hpcab.agents.llm_providers import (DEFAULT_RETRIES, INITIAL_BACKOFF, MAX_TOKENS_FIELDS, TOOL_CHOICES,
                                        ModelError, ToolCall, ToolResult, make_provider, url_problem)
from hpcab.build import language_of
from hpcab.client import JudgeError
from hpcab.errors import InputError

__all__ = ["LLMAgent", "ModelError", "TOOLS", "FRAGMENTS", "parse_options", "render_prompts", "summarize_grade"]

TRANSCRIPT = "llm-transcript.json"
OMIT = ("omit", "default")          # temperature=omit: no temperature in the request

# name -> (type, default); None default: required
OPTIONS: dict[str, tuple[type, Any]] = {
    "model_url": (str, None), "model_name": (str, None), "api": (str, "openai"), "api_key_env": (str, ""),
    "language": (str, "c"), "max_turns": (int, 30), "max_tokens": (int, 4096), "temperature": (float, 0.0),
    "timeout": (float, 300.0), "retries": (int, DEFAULT_RETRIES), "backoff": (float, INITIAL_BACKOFF),
    "keep_going": (bool, False), "submit_best": (bool, True), "prompts_dir": (str, ""),
    "max_file_bytes": (int, 262144), "prompt_cache": (bool, True), "max_tokens_field": (str, "max_tokens"),
    "tool_choice": (str, "auto"), "transcript": (bool, True), "list_files": (bool, False),
    "skills": (str, "none"), "tools": (str, "all"), "prompt": (str, DEFAULT_VARIANT), "hints": (int, 0),
    "seed": (int, -1),
}
# The judge's tools an arm may give or withhold (option tools); read_task, write_file and
# read_file are the agent's own working folder, always there.
GIVEN_TOOLS = JUDGE_TOOLS + ("read_skill",)
PROFILE_LINES = 15         # a profile tool answer's functions and lines at most
# The options whose value is one of a few words.
CHOICES: dict[str, tuple[str, ...]] = {"api": ("openai", "anthropic"), "tool_choice": TOOL_CHOICES,
                                       "max_tokens_field": MAX_TOKENS_FIELDS}

REPORT_REMARKS = 60        # a compile tool answer's remarks at most (the model's context is small)
_PATH = {"type": "string", "description": "a path relative to your working folder, e.g. gemm.c"}
_FLAGSET = {"type": "string", "description": "a flag set named in the task (default: the task's default)"}
TOOLS: list[dict] = [
    {"name": "read_task", "description": "Return the task description again.",
     "parameters": {"type": "object", "properties": {}, "additionalProperties": False}},
    {"name": "write_file", "description": "Write a text file into your working folder (replacing it if it exists).",
     "parameters": {"type": "object", "properties": {"path": _PATH, "content": {"type": "string"}},
                    "required": ["path", "content"], "additionalProperties": False}},
    {"name": "read_file", "description": "Read a text file of your working folder.",
     "parameters": {"type": "object", "properties": {"path": _PATH}, "required": ["path"],
                    "additionalProperties": False}},
    {"name": "score", "description": "Compile the file and grade it on the public cases (not recorded): status, "
                                     "correctness per case, compiler diagnostics, speedup over the baseline.",
     "parameters": {"type": "object", "properties": {"path": _PATH, "flagset": _FLAGSET}, "required": ["path"],
                    "additionalProperties": False}},
    {"name": "compile", "description": "Compile the file as score would, without running it (costs no score): "
                                       "the compiler's optimisation report by source line (loops vectorised or "
                                       "unrolled, loops not vectorised and why) and its diagnostics; with "
                                       "disassemble, the kernel's machine code too.",
     "parameters": {"type": "object", "properties": {"path": _PATH, "flagset": _FLAGSET,
                                                     "disassemble": {"type": "boolean", "default": False}},
                    "required": ["path"], "additionalProperties": False}},
    {"name": "profile", "description": "Run the file alone on a public case under a sampling profiler (costs one "
                                       "profile): the hot functions and the hot lines of your source with their "
                                       "share of the time, the threads, and the machine's counters.",
     "parameters": {"type": "object", "properties": {"path": _PATH, "flagset": _FLAGSET}, "required": ["path"],
                    "additionalProperties": False}},
    {"name": "submit", "description": "Submit the file as the FINAL answer: graded on the public and hidden "
                                      "cases and recorded.",
     "parameters": {"type": "object", "properties": {"path": _PATH, "flagset": _FLAGSET}, "required": ["path"],
                    "additionalProperties": False}},
]
# Offered only with skills (the option skills=all|NAME,...): the page of one, by name.
SKILL_TOOL = {"name": "read_skill", "description": "Read a skill page: know-how written for this benchmark, "
                                                   "named in the system prompt.",
              "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
                             "additionalProperties": False}}
_REQUIRED = {t["name"]: t["parameters"].get("required", []) for t in TOOLS + [SKILL_TOOL]}
_PARAMS = {t["name"]: set(t["parameters"]["properties"]) for t in TOOLS + [SKILL_TOOL]}


class ToolError(Exception):
    """A tool call the model can correct: answered as a tool error, the loop goes on."""


class LLMAgent(Agent):
    name = "llm"
    languages = ("c", "cpp", "fortran")

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.config = parse_options(options)
        self.languages = (self.config["language"],)

    # ---- the loop ----------------------------------------------------------------------

    def solve(self, task: Task, session: Session) -> None:
        cfg = self.config
        language = cfg["language"]
        doc = task.doc if language == "c" and task.doc.get("language", "c") == "c" else session.task_for(language)
        if doc.get("languages") and language not in doc["languages"]:
            raise InputError("agent llm", "language", f"the judge cannot compile {language!r} "
                                                      f"(it takes {', '.join(doc['languages'])})")
        skills = self._skills(session)
        system, task_text, nudge = render_prompts(doc, session, cfg, skills)
        session.given = given_document(system, task_text, cfg, skills)
        key = os.environ.get(cfg["api_key_env"] or ("ANTHROPIC_API_KEY" if cfg["api"] == "anthropic"
                                                     else "OPENAI_API_KEY")) or None
        provider = make_provider(cfg["api"], cfg["model_url"], cfg["model_name"], key, max_tokens=cfg["max_tokens"],
                                 temperature=cfg["temperature"], timeout=cfg["timeout"], retries=cfg["retries"],
                                 backoff=cfg["backoff"], on_retry=session.log,
                                 prompt_cache=cfg["prompt_cache"], max_tokens_field=cfg["max_tokens_field"],
                                 tool_choice=cfg["tool_choice"], seed=cfg["seed"] if cfg["seed"] >= 0 else None)
        provider.start(system, task_text)
        tools = _Toolbox(task, session, doc, task_text, cfg, skills)
        session.log({"event": "llm_start", "api": cfg["api"], "url": provider.url, "model": cfg["model_name"],
                       "language": language, "skills": [s["name"] for s in skills]})
        reason = "max_turns"
        try:
            idle = 0
            for turn in range(cfg["max_turns"]):
                session.check(f" before model turn {turn + 1}")
                wall = session.remaining()["wall_seconds"]      # no request outlives the wall budget by much
                provider.transport.timeout = cfg["timeout"] if wall is None else max(1.0, min(cfg["timeout"], wall))
                reply = provider.complete(tools.schemas())
                if reply.usage is not None:
                    session.add_usage(reply.usage)
                else:
                    session.log({"event": "usage_missing", "turn": turn + 1})
                provider.add_reply(reply)
                session.log({"event": "llm_turn", "turn": turn + 1, "stop_reason": reply.stop_reason,
                               "tools": [c.name for c in reply.tool_calls], "text": reply.text[:300]})
                if not reply.tool_calls:
                    idle += 1
                    if idle >= 2:
                        reason = "no_tool_call"
                        break
                    provider.add_user(nudge)
                    continue
                idle = 0
                provider.add_tool_results([tools.run(call) for call in reply.tool_calls])
                if tools.finished:
                    reason = "submitted"
                    break
        except (BudgetExhausted, ModelError) as exc:
            reason = type(exc).__name__
            session.log({"event": "llm_end", "reason": reason, "error": str(exc)})
            try:
                self._fallback(tools, session, reason)
            except Exception as fallback_exc:       # the first error is the one to report
                session.log({"event": "fallback_failed", "error": f"{type(fallback_exc).__name__}: {fallback_exc}"})
            raise
        finally:
            if cfg["transcript"]:
                _write_transcript(task.workdir / TRANSCRIPT, provider)
        session.log({"event": "llm_end", "reason": reason})
        self._fallback(tools, session, reason)

    def _skills(self, session: Session) -> list[dict]:
        """The skills the option names, as the judge serves them (GET /skills): name, description."""
        if self.config["skills"].strip() in ("none", ""):
            return []
        from hpcab.skills import select_skills
        return select_skills({s["name"]: s for s in session.judge.skills()["skills"]}, self.config["skills"])

    def _fallback(self, tools: "_Toolbox", session: Session, reason: str) -> None:
        """No correct submission yet: submit the best file that scored correct (say so in the log)."""
        best = tools.best
        if any(d.get("correct") is True for d in session.submissions) or best is None \
                or not self.config["submit_best"] or not session.can_submit:
            return
        session.log({"event": "fallback_submit", "reason": reason, "path": best["path"],
                       "flagset": best["flagset"], "scored_speedup": best["speedup"],
                       "note": "the task ended without a correct submission; submitting the best file that "
                               "scored correct"})
        session.submit(best["source"], best["language"], best["flagset"], label=best["path"])


# ---- options ---------------------------------------------------------------------------

def parse_options(options: dict) -> dict:
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise InputError("agent llm", "option", f"unknown option(s) {', '.join(unknown)}; "
                                                f"known: {', '.join(OPTIONS)}")
    cfg = {}
    for key, (kind, default) in OPTIONS.items():
        value = options.get(key, default)
        if value is None:
            raise InputError("agent llm", key, "required (--model URL gives model_url, --model-name model_name)")
        if key == "temperature" and isinstance(value, str) and value.strip().lower() in OMIT:
            cfg[key] = None
            continue
        try:
            if kind is bool and isinstance(value, str):
                if value.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                    raise ValueError(value)
                value = value.lower() in ("1", "true", "yes", "on")
            value = kind(value)
        except (TypeError, ValueError):
            expected = "a number, or omit (no temperature sent)" if key == "temperature" else kind.__name__
            raise InputError("agent llm", key, f"expected {expected}, got {value!r}") from None
        cfg[key] = value
    for key, words in CHOICES.items():
        if cfg[key] not in words:
            raise InputError("agent llm", key, f"expected one of {', '.join(words)}, got {cfg[key]!r}")
    problem = url_problem(cfg["model_url"])
    if problem:     # checked here, before any judge or model is asked: a usage error (exit 2)
        raise InputError("--model", repr(cfg["model_url"]),
                         f"{problem}; expected the model server's base URL, an http(s) URL such as "
                         f"http://127.0.0.1:8000/v1 (or --option model_url=URL)")
    if cfg["language"] not in LANGUAGES:
        raise InputError("agent llm", "language", f"expected one of {', '.join(LANGUAGES)}, got {cfg['language']!r}")
    for key in ("max_turns", "max_tokens", "max_file_bytes"):
        if cfg[key] < 1:
            raise InputError("agent llm", key, f"must be at least 1, got {cfg[key]}")
    if cfg["retries"] < 0 or cfg["timeout"] <= 0 or cfg["backoff"] < 0:
        raise InputError("agent llm", "retries/timeout/backoff", "retries >= 0, timeout > 0, backoff >= 0")
    if cfg["skills"].strip() not in ("none", ""):
        from hpcab.skills import load_skills, select_skills
        select_skills(load_skills(), cfg["skills"])      # an unknown name: a usage error before any work
    cfg["tool_names"] = given_tools(cfg["tools"], cfg["skills"])
    if cfg["prompt"] not in variants():
        raise InputError("agent llm", "prompt", f"expected one of the prompt variants {', '.join(variants())} "
                                                f"(hpcab/agents/prompts/variants/), got {cfg['prompt']!r}")
    if not 0 <= cfg["hints"] <= 3:
        raise InputError("agent llm", "hints", f"expected 0 (none) to 3 (class, bound, worked transformation), "
                                               f"got {cfg['hints']}")
    if cfg["prompts_dir"] and not Path(cfg["prompts_dir"]).is_dir():
        raise InputError("agent llm", "prompts_dir", f"{cfg['prompts_dir']} is not a folder")
    return cfg


def given_document(system: str, task_text: str, cfg: dict, skills: list[dict]) -> dict:
    """What the model was given, as a submission's `given` (schemas/submission.schema.json):
    the prompt's text (system prompt, then the task; the judge stores it by its hash), the
    variant, skills, tools and hints."""
    return {"prompt_text": system + "\n\n" + task_text, "prompt": cfg["prompt"], "skills": [s["name"] for s in skills],
            "tools": list(cfg["tool_names"]), "hints": cfg["hints"]}


def given_tools(value: str, skills: str) -> tuple[str, ...]:
    """The option tools (all, or names separated by commas) as the judge's tools given, in
    GIVEN_TOOLS' order; submit is always among them (a task ends in a submission), and
    read_skill only with skills to read (else left out: an arm with skills none and one with
    skills all may name the same tools)."""
    names = GIVEN_TOOLS if value.strip() == "all" else tuple(n.strip() for n in value.split(",") if n.strip())
    unknown = sorted(set(names) - set(GIVEN_TOOLS))
    if unknown:
        raise InputError("agent llm", "tools", f"unknown tool(s) {', '.join(unknown)}; expected all or names among "
                                               f"{', '.join(GIVEN_TOOLS)}")
    if "submit" not in names:
        raise InputError("agent llm", "tools", "must include submit: a task ends in a submission")
    no_skills = skills.strip() in ("none", "")
    return tuple(t for t in GIVEN_TOOLS if t in names and not (t == "read_skill" and no_skills))


# ---- the tools -------------------------------------------------------------------------

class _Toolbox:
    def __init__(self, task: Task, session: Session, doc: dict, task_text: str, cfg: dict,
                 skills: list[dict] | None = None):
        self.task, self.session, self.doc, self.task_text, self.cfg = task, session, doc, task_text, cfg
        self.skills = [s["name"] for s in skills or []]
        self.given = cfg.get("tool_names") or GIVEN_TOOLS
        self.workdir = Path(task.workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.best: dict | None = None           # the best correct score: path, source, language, flagset, speedup
        self.finished = False                   # a submission ended the task

    def schemas(self) -> list[dict]:
        """TOOLS with the values this task allows: score's and submit's flagset one of the task's
        flag sets; with the option list_files, read_file's path one of the working folder's
        files, and score's and submit's one of its sources in a language the judge takes. A
        server that decodes under the schema (llama.cpp's function calling, vLLM's guided
        decoding, OpenAI's strict mode) then cannot name a flag set or a file that is not
        there: small models otherwise invent them."""
        flagsets = sorted(self.doc.get("flagsets") or {})
        files = sorted(p.relative_to(self.workdir).as_posix() for p in self.workdir.rglob("*")
                       if p.is_file() and p.name != TRANSCRIPT) if self.cfg["list_files"] else []
        sources = [f for f in files if self._language(self.workdir / f) is not None]
        tools = [t for t in copy.deepcopy(TOOLS) if t["name"] not in JUDGE_TOOLS or t["name"] in self.given]
        for tool in tools:
            properties = tool["parameters"]["properties"]
            if "flagset" in properties and flagsets:       # new dicts: the tools share _PATH and _FLAGSET
                properties["flagset"] = dict(properties["flagset"], enum=flagsets)
            allowed = {"read_file": files, "score": sources, "compile": sources, "profile": sources,
                       "submit": sources}.get(tool["name"])
            if allowed:
                properties["path"] = dict(properties["path"], enum=allowed)
        if self.skills and "read_skill" in self.given:
            tool = copy.deepcopy(SKILL_TOOL)
            tool["parameters"]["properties"]["name"]["enum"] = list(self.skills)
            tools.append(tool)
        return tools

    def _language(self, full: Path) -> str | None:
        """The language of a file by its suffix, if the judge compiles it for this task."""
        try:
            language = language_of(full)
        except InputError:
            return None
        if language is None or (self.doc.get("languages") and language not in self.doc["languages"]):
            return None
        return language

    def run(self, call: ToolCall) -> ToolResult:
        try:
            if self.finished:
                raise ToolError("not run: the task ended with the submission made earlier in this turn")
            offered = [t["name"] for t in TOOLS if t["name"] not in JUDGE_TOOLS or t["name"] in self.given] + (
                ["read_skill"] if self.skills and "read_skill" in self.given else [])
            if call.name not in offered:
                raise ToolError(f"unknown tool {call.name!r}; the tools are {', '.join(offered)}")
            if call.arguments is None:
                raise ToolError(f"{call.name}: {call.error}. Call it again with a JSON object of arguments.")
            missing = [k for k in _REQUIRED[call.name] if k not in call.arguments]
            if missing:
                raise ToolError(f"{call.name}: missing required argument(s) {', '.join(missing)}")
            args = {k: v for k, v in call.arguments.items() if k in _PARAMS[call.name]}     # extras: ignored
            try:
                result = getattr(self, "tool_" + call.name)(**args)
            except (OSError, UnicodeError) as exc:
                raise ToolError(f"{call.name}: {type(exc).__name__}: {exc}") from None
            self.session.log({"event": "tool", "name": call.name, "path": call.arguments.get("path"), "ok": True})
            return ToolResult(call.id, result)
        except ToolError as exc:
            self.session.log({"event": "tool", "name": call.name, "ok": False, "error": str(exc)[:300]})
            return ToolResult(call.id, str(exc), is_error=True)

    def _path(self, path: Any) -> Path:
        if not isinstance(path, str) or not path.strip():
            raise ToolError("path must be a non-empty string, relative to your working folder (e.g. "
                            f"{prompt_name(self.doc, self.cfg)})")
        if "\x00" in path or "\\" in path or len(path) > 200:
            raise ToolError(f"path {path[:80]!r}: use a short relative path of plain names separated by /")
        p = PurePosixPath(path)
        if p.is_absolute() or Path(path).is_absolute():
            raise ToolError(f"path {path!r} is absolute; only paths relative to your working folder are allowed")
        if ".." in p.parts:
            raise ToolError(f"path {path!r} contains '..'; only paths inside your working folder are allowed")
        full = self.workdir / p
        if not full.resolve().is_relative_to(self.workdir.resolve()):
            raise ToolError(f"path {path!r} leads outside your working folder")
        if p.as_posix() == TRANSCRIPT:
            raise ToolError(f"{TRANSCRIPT} is reserved for the agent; choose another name")
        return full

    def _read(self, path: Any) -> tuple[Path, str]:
        full = self._path(path)
        if not full.is_file():
            raise ToolError(f"no file {path!r} in your working folder; write it first with write_file")
        if full.stat().st_size > self.cfg["max_file_bytes"]:
            raise ToolError(f"{path!r} is larger than {self.cfg['max_file_bytes']} bytes")
        return full, full.read_text(errors="replace")

    def tool_read_task(self) -> str:
        return self.task_text

    def tool_write_file(self, path: Any, content: Any) -> str:
        if not isinstance(content, str):
            raise ToolError("write_file: content must be a string (the whole file)")
        size = len(content.encode())
        if size > self.cfg["max_file_bytes"]:
            raise ToolError(f"write_file: {size} bytes is more than the limit of {self.cfg['max_file_bytes']}")
        full = self._path(path)
        if full.is_dir():
            raise ToolError(f"{path!r} is a folder")
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(content)
        return f"wrote {size} bytes to {path}"

    def tool_read_file(self, path: Any) -> str:
        return self._read(path)[1]

    def _source(self, path: Any, flagset: Any) -> tuple[str, str]:
        """The file's text and language, checked as the judge would take them."""
        full, source = self._read(path)
        if flagset is not None and not isinstance(flagset, str):
            raise ToolError(f"flagset must be a string: one of {', '.join(self.doc.get('flagsets') or {})}")
        try:
            language = language_of(full)
        except InputError:
            language = None
        if language is None:
            raise ToolError(f"cannot tell the language of {path!r} from its suffix; name it "
                            f"{prompt_name(self.doc, self.cfg)}")
        if self.doc.get("languages") and language not in self.doc["languages"]:
            raise ToolError(f"the judge does not compile {language} here (it takes {', '.join(self.doc['languages'])})")
        return source, language

    def _grade(self, kind: str, path: Any, flagset: Any = None) -> dict:
        source, language = self._source(path, flagset)
        s = self.session
        if kind == "score" and not s.can_score:
            raise ToolError("no scores left in the budget; submit the file you trust most")
        if kind == "submit" and not s.can_submit:
            raise ToolError("no submissions left in the budget")
        try:
            call = s.score if kind == "score" else s.submit
            doc = call(source, language, flagset, label=str(path))
        except JudgeError as exc:
            if exc.status is not None and 400 <= exc.status < 500:
                raise ToolError(f"the judge refused the request: {exc.message}") from None
            raise
        if kind == "score" and doc.get("correct") is True and doc.get("status") == "ok":
            speed = speedup_of(doc)
            best = self.best
            if best is None or (speed is not None and (best["speedup"] is None or speed > best["speedup"])):
                self.best = {"path": str(path), "source": source, "language": language, "flagset": flagset,
                             "speedup": speed}
        return doc

    def tool_score(self, path: Any, flagset: Any = None) -> str:
        return summarize_grade(self._grade("score", path, flagset), self.session)

    def tool_compile(self, path: Any, flagset: Any = None, disassemble: Any = False) -> str:
        from hpcab.compile_report import report_text
        source, language = self._source(path, flagset)
        try:
            doc = self.session.compile(source, language, flagset, label=str(path), disassemble=disassemble is True)
        except JudgeError as exc:
            if exc.status is not None and 400 <= exc.status < 500:
                raise ToolError(f"the judge refused the request: {exc.message}") from None
            raise
        return report_text(doc, str(path), REPORT_REMARKS)

    def tool_profile(self, path: Any, flagset: Any = None) -> str:
        from hpcab.profile import profile_text
        source, language = self._source(path, flagset)
        try:
            doc = self.session.profile(source, language, flagset, label=str(path))
        except BudgetExhausted as exc:
            raise ToolError(f"not profiled: {exc}") from None
        except JudgeError as exc:
            if exc.status is not None and 400 <= exc.status < 500:
                raise ToolError(f"the judge refused the request: {exc.message}") from None
            raise
        return profile_text(doc, str(path), PROFILE_LINES)

    def tool_read_skill(self, name: Any) -> str:
        if not isinstance(name, str) or name not in self.skills:
            raise ToolError(f"read_skill: no skill {str(name)[:80]!r}; the skills are {', '.join(self.skills)}")
        try:
            return self.session.judge.skills(name)["content"]
        except JudgeError as exc:
            raise ToolError(f"the judge refused the request: {exc.message}") from None

    def tool_submit(self, path: Any, flagset: Any = None) -> str:
        """A correct submission ends the task (unless keep_going); a wrong one does while no
        submission is left."""
        doc = self._grade("submit", path, flagset)
        can = self.session.can_submit
        self.finished = not can or (doc.get("correct") is True and not self.cfg["keep_going"])
        head = "SUBMITTED (recorded)." if doc.get("correct") is True else \
            "SUBMITTED (recorded), but NOT correct." + (" Fix it and submit again." if can else "")
        return head + "\n" + summarize_grade(doc, self.session)


def _write_transcript(path: Path, provider) -> None:
    try:
        path.write_text(json.dumps(provider.transcript(), indent=1))
    except (OSError, TypeError, ValueError):
        pass
