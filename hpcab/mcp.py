"""`hpcab mcp`: the judge's tools on a Model Context Protocol server (the official `mcp` SDK).

An external coding agent (an MCP client) starts `hpcab mcp --judge URL` as a child process
(stdio), or reaches `hpcab mcp --judge URL --http HOST:PORT` over the streamable HTTP
transport (endpoint /mcp), and calls seven tools: list_kernels, get_task, score, submit,
get_grade, compile, profile; the skill pages are its resources (skill://<name>). The SDK's
MCPServer does the framing, the version negotiation (the initialize handshake up to 2025-11-25, and 2026-07-28's server/discover), progress and cancellation;
this module holds the tools, their argument checks and their summaries (docs/judge_api.md).

    server = make_server(JudgeClient(url, token, rank), judge_name="the judge at http://...")
    server.run()                                   # stdio; serve_http(server, host, port) for HTTP

The judge handle may be anything with JudgeClient's kernels(), task(kernel, language),
score(...), submit(...) and grade(grade_id). Everything a model can get wrong (a missing or
unknown argument, a bad language, a judge's refusal) is a tool result with isError: true
naming the field, not a JSON-RPC error: clients do not show protocol errors to the model
(SEP-1303, protocol 2025-11-25).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from mcp.types import Tool as McpTool

from hpcab import __version__

PROGRESS_SECONDS = 10.0        # a notifications/progress this often during a tool call that asked for them
SUMMARY_MESSAGE_CHARS = 400    # of a failing grade's message, in the summary line (the document has it all)

INSTRUCTIONS = """\
hpcab grades optimized implementations of numerical kernels (NumPy references) on a judge \
that holds the clock and the hidden inputs. Workflow: list_kernels to see what the judge serves; \
get_task for one kernel and a language: the exact prototype to implement, the NumPy reference, \
the public cases, the tolerance, the flag sets, your remaining budget and the goal; write one \
source file implementing exactly that prototype; score it (public cases only, not recorded, \
costs one score of the budget) as often as the budget allows; submit it once you are done \
(public and hidden cases, recorded as your final answer, costs one submission). A grade is \
correct only if every case is within the tolerance (inputs must be left unchanged); its speedup \
is over the track's baseline, timed interleaved with it, with a 95% confidence interval. \
A build error or a wrong answer is a normal result with correct: false; read its message and \
build_diagnostics. get_grade fetches a submitted grade again by its id. Source can be given as \
text (source) or as a file path on this machine (path). Where the task's goal says POST /score \
and POST /submit, use the score and submit tools. compile answers the compiler's optimisation report \
(vectorised and refused loops, by line) without running anything or spending budget; profile runs a \
candidate on a public case under perf and answers where its time goes (hot functions and source lines; one \
profile from the budget). Skill pages \
(know-how for this benchmark) are resources skill://<name>: resources/list names and describes them."""


log = logging.getLogger("hpcab.mcp")


class Judge(Protocol):
    """What the server needs of a judge: hpcab.client.JudgeClient, or an in-process stand-in."""

    def kernels(self) -> list[dict]: ...
    def task(self, kernel: str, language: str = "c") -> dict: ...
    def score(self, kernel: str, source: str, language: str, flagset: str | None = None,
              label: str | None = None) -> dict: ...
    def submit(self, kernel: str, source: str, language: str, flagset: str | None = None,
               label: str | None = None) -> dict: ...
    def grade(self, grade_id: str) -> dict: ...
    def compile(self, kernel: str, source: str, language: str, flagset: str | None = None,
                label: str | None = None, compiler: str | None = None, disassemble: bool = False) -> dict: ...
    def profile(self, kernel: str, source: str, language: str, flagset: str | None = None,
                label: str | None = None, compiler: str | None = None, preset: str | None = None) -> dict: ...




class ToolError(Exception):
    """A tool that ran and failed: answered as a tool result with isError: true."""

    def __init__(self, message: str, field_: str | None = None):
        super().__init__(message)
        self.message, self.field = message, field_

    def detail(self) -> dict:
        """The result's structuredContent error: refused here, so no judge status."""
        return {"status": None, "message": self.message, "field": self.field}


# ---- the tools -------------------------------------------------------------------------

@functools.cache
def _submission_languages() -> list[str]:
    """The languages a submission may name: the judge validates against this same schema."""
    from hpcab.schema import load_schema
    return list(load_schema("submission")["properties"]["language"]["enum"])


_KERNEL = {"type": "string", "minLength": 1,
           "description": "The kernel's name (e.g. gemm) or its full id "
                          "(scientific_computing/dense_linear_algebra/gemm), as list_kernels gives them."}
_SOURCE_ARGS = {
    "kernel": _KERNEL,
    "language": {"type": "string",
                 "description": "The source's language, one of the task's languages. Default: from the path's suffix "
                                "(.c, .cpp/.cc/.cxx, .f90/.f, .cu, ...) when path is given, else c."},
    "source": {"type": "string", "minLength": 1,
               "description": "The whole source file as text. Give either source or path, not both."},
    "path": {"type": "string", "minLength": 1,
             "description": "A source file on the machine this MCP server runs on, read by the server (absolute, or "
                            "relative to the server's working directory). Give either source or path, not both."},
    "flagset": {"type": "string", "minLength": 1,
                "description": "A compiler flag set named in the task's flagsets (default: the task's default_flagset, "
                               "usually opt). Raw compiler flags are not accepted."},
}


@dataclass
class ToolSpec:
    """One tool: what tools/list shows, and the argument rules checked before it runs."""
    name: str
    title: str
    description: str
    properties: dict
    required: tuple[str, ...]
    run: Callable[[dict], tuple[str, dict]]           # arguments → (summary line, JSON document); blocking
    read_only: bool = True
    idempotent: bool = True
    one_of: tuple[str, ...] = ()                      # exactly one of these arguments must be given
    input_schema: dict = field(init=False)

    def __post_init__(self):
        self.input_schema = {"type": "object", "properties": self.properties, "required": list(self.required),
                             "additionalProperties": False}

    def check(self, arguments: dict) -> dict:
        """The arguments, checked against the input schema; a ToolError names the argument."""
        # A null optional argument is taken as absent (models send them).
        arguments = {k: v for k, v in arguments.items() if v is not None or k in self.required}
        for name in self.required:
            if name not in arguments:
                raise ToolError(f"{self.name}: missing required argument {name!r}", name)
        for name, value in arguments.items():
            spec = self.properties.get(name)
            if spec is None:
                expected = ", ".join(self.properties) or "no arguments"
                raise ToolError(f"{self.name}: unknown argument {name!r} (expected: {expected})", name)
            if spec.get("type") == "boolean":
                if not isinstance(value, bool):
                    raise ToolError(f"{self.name}: argument {name!r} must be true or false, not "
                                    f"{type(value).__name__}", name)
                continue
            if not isinstance(value, str):
                raise ToolError(f"{self.name}: argument {name!r} must be a string, not {type(value).__name__}", name)
            if "enum" in spec and value not in spec["enum"]:
                raise ToolError(f"{self.name}: argument {name!r} must be one of {', '.join(spec['enum'])}, "
                                f"not {value!r}", name)
            if len(value) < spec.get("minLength", 0):
                raise ToolError(f"{self.name}: argument {name!r} must not be empty", name)
        if self.one_of and sum(name in arguments for name in self.one_of) != 1:
            given = " and ".join(repr(n) for n in self.one_of if n in arguments) or "neither"
            raise ToolError(f"{self.name}: give exactly one of {' or '.join(repr(n) for n in self.one_of)} "
                            f"(got {given})", self.one_of[0])
        return arguments


def _specs(judge: Judge) -> list[ToolSpec]:
    def list_kernels(args: dict) -> tuple[str, dict]:
        kernels = judge.kernels()
        names = ", ".join(f"{k.get('name')} (L{k.get('level')}, {k.get('track')})" for k in kernels)
        return f"{len(kernels)} kernel(s): {names}", {"kernels": kernels}

    def get_task(args: dict) -> tuple[str, dict]:
        doc = judge.task(args["kernel"], args.get("language", "c"))
        return _task_summary(doc), doc

    def graded(call: Callable, what: str) -> Callable[[dict], tuple[str, dict]]:
        def run(args: dict) -> tuple[str, dict]:
            source, language, label = _source(args)
            doc = call(args["kernel"], source, language, flagset=args.get("flagset"), label=label)
            return _grade_summary(doc, what), doc
        return run

    def compile_report(args: dict) -> tuple[str, dict]:
        from hpcab.compile_report import report_summary
        source, language, label = _source(args)
        doc = judge.compile(args["kernel"], source, language, flagset=args.get("flagset"), label=label,
                            disassemble=args.get("disassemble") is True)
        return report_summary(doc, label or "the source"), doc

    def profile(args: dict) -> tuple[str, dict]:
        from hpcab.profile import profile_summary
        source, language, label = _source(args)
        doc = judge.profile(args["kernel"], source, language, flagset=args.get("flagset"), label=label,
                            preset=args.get("preset"))
        return profile_summary(doc, label or "the source"), doc

    def get_grade(args: dict) -> tuple[str, dict]:
        doc = judge.grade(args["grade_id"])
        return _grade_summary(doc, "grade"), doc

    source_args = dict(_SOURCE_ARGS, language=dict(_SOURCE_ARGS["language"], enum=_submission_languages()))
    return [
        ToolSpec("list_kernels", "List the judge's kernels",
                 "List the kernels this judge serves: for each its name, id, track, dwarf, level, a description and "
                 "the baseline it is timed against. Start here, then call get_task for the kernel you work on.",
                 {}, (), list_kernels),
        ToolSpec("get_task", "Get a kernel's task",
                 "Everything needed to write a candidate for one kernel: the exact prototype to implement in the "
                 "chosen language (prototype), the NumPy reference it must match (reference), the public cases and "
                 "their sizes, how many hidden cases a submission also runs, the tolerance, the baseline, the threads "
                 "granted, the languages and compiler flag sets accepted, your remaining score and submission budget, "
                 "and the goal. Free: costs no budget.",
                 {"kernel": _KERNEL,
                  "language": {"type": "string", "default": "c",
                               "description": "The language whose prototype is shown: c (default), cpp, fortran, "
                                              "cuda, ...; the task's languages field lists those this judge compiles."}},
                 ("kernel",), get_task),
        ToolSpec("score", "Score a candidate (public cases)",
                 "Build the candidate and grade it on the public cases only: correctness against the NumPy reference "
                 "and the speedup over the track's baseline (95% confidence interval). Not recorded; costs one score "
                 "from the budget. A build error or a wrong answer is a normal result with correct: false (read "
                 "message, the cases and build_diagnostics). Give the code as source (text) or path (a file); exactly "
                 "one of them. Takes seconds to minutes.",
                 dict(source_args), ("kernel",), graded(judge.score, "score"), read_only=False, idempotent=False,
                 one_of=("source", "path")),
        ToolSpec("compile", "The compiler's report on a candidate",
                 "Compile the candidate exactly as score would, without running it, and return the compiler's "
                 "optimisation report on its own file, line by line: loops vectorised or unrolled, loops it did not "
                 "vectorise and why (GCC/gfortran -fopt-info, clang -Rpass), its other diagnostics, and with "
                 "disassemble: true the kernel's machine code. Costs no budget (a per-minute rate limit). Give the "
                 "code as source (text) or path (a file); exactly one of them.",
                 dict(source_args, disassemble={"type": "boolean", "default": False,
                                                "description": "Also return the kernel's disassembly (objdump)."}),
                 ("kernel",), compile_report, one_of=("source", "path")),
        ToolSpec("profile", "Profile a candidate (public case)",
                 "Build the candidate as score would (plus line tables) and run it alone on one public case under "
                 "perf, in the same sandbox and limits as a graded run: the hot functions and their share of the "
                 "samples taken inside its calls, the hot lines of its own source, the split across threads, the "
                 "software counters (page faults, context switches) and, where the machine has them, hardware "
                 "counters (cycles, instructions, IPC, cache and branch misses). Not a grade: no answer is checked. "
                 "Costs one profile from the budget. Give the code as source (text) or path (a file); exactly one.",
                 dict(source_args, preset={"type": "string", "minLength": 1,
                                           "description": "Which public case (a preset the task's public_cases "
                                                          "name); default: the largest."}),
                 ("kernel",), profile, read_only=False, idempotent=False, one_of=("source", "path")),
        ToolSpec("submit", "Submit a candidate (final, recorded)",
                 "Submit the candidate as the final answer for this kernel: graded on the public and the hidden cases "
                 "(a hidden case shows only its status: no sizes, seed, errors or times; an edge-shape case checks odd "
                 "sizes) and recorded under the returned id. Costs one submission from the budget, which is small: "
                 "score first and submit when done. Give the code as source (text) or path (a file); exactly one of "
                 "them. Takes seconds to minutes.",
                 dict(source_args), ("kernel",), graded(judge.submit, "submit"), read_only=False, idempotent=False,
                 one_of=("source", "path")),
        ToolSpec("get_grade", "Fetch a submission's grade",
                 "Fetch a submitted grade again by its id (the id of a submit result); scores are not kept. If it is "
                 "still being graded, the answer says so (state queued or grading): ask again a little later. Free.",
                 {"grade_id": {"type": "string", "minLength": 1, "description": "The id from a submit result."}},
                 ("grade_id",), get_grade),
    ]


def _source(args: dict) -> tuple[str, str, str | None]:
    """(source text, language, label) from the source or the path argument (Tool.check has
    made sure exactly one is given)."""
    language = args.get("language")
    if "source" in args:
        return args["source"], language or "c", None
    from hpcab.build import candidate_from_file
    from hpcab.errors import HpcabError
    path = Path(args["path"]).expanduser()
    path = path if path.is_absolute() else Path.cwd() / path
    try:
        candidate = candidate_from_file(path, language)       # the language from the suffix unless given
    except HpcabError as exc:
        if getattr(exc, "field", None) == "language":
            raise ToolError(f"cannot tell the language of {path} from its suffix {path.suffix!r}: "
                            f"give the language argument") from None
        raise ToolError(f"cannot read the source: {exc}") from None
    except (OSError, ValueError) as exc:
        raise ToolError(f"cannot read the source {path}: {exc}") from None
    return candidate.source, candidate.language, candidate.label


def _task_summary(doc: dict) -> str:
    budget = doc.get("budget") or {}

    def used(kind: str) -> str:
        limit = budget.get(kind)
        return f"{budget.get(kind + '_used', '?')} of {'unlimited' if limit is None else limit} used"
    return (f"task {doc.get('name')} ({doc.get('kernel')}) in {doc.get('language')}: implement the prototype; "
            f"{len(doc.get('public_cases') or [])} public case(s), {doc.get('hidden_cases')} hidden; baseline "
            f"{doc.get('baseline')}; budget: submissions {used('submissions')}, scores {used('scores')}, "
            f"profiles {used('profiles')}")


def _grade_summary(doc: dict, what: str) -> str:
    from hpcab.gradedoc import fmt_speedup, plain_speedup
    if "status" not in doc and "state" in doc:            # GET /grades/<id> on 202
        return (f"grade {doc.get('id')}: {doc['state']}, not finished yet; call get_grade again in a few seconds")
    kernel = str(doc.get("kernel") or "?").rsplit("/", 1)[-1]
    parts = [f"{doc.get('kind') or what} {doc.get('id')} of {kernel}: status {doc.get('status')}, "
             + ("correct" if doc.get("correct") else "NOT correct")]
    base, numpy = doc.get("speedup_vs_baseline"), doc.get("speedup_vs_numpy")
    if base:
        parts.append(f"speedup vs the {doc.get('baseline')} baseline {fmt_speedup(base)} (95% CI; "
                     f"{plain_speedup(base, 'the baseline')})")
    elif doc.get("correct"):
        parts.append("no speedup vs the baseline")
    if numpy and doc.get("baseline") != "numpy":            # else it is the speedup above
        parts.append(f"vs NumPy {fmt_speedup(numpy)}")
    message = str(doc.get("message") or "")
    if message and (not doc.get("correct") or doc.get("status") != "ok"):
        parts.append(_clip(message))
    if doc.get("status") == "build_error":
        errors = [line for line in str(doc.get("build_diagnostics") or "").splitlines() if "error" in line]
        if errors:
            parts.append("first error: " + _clip(errors[0].strip()) + " (all of it in build_diagnostics)")
    if doc.get("kind") == "submit":
        parts.append("recorded")
    return "; ".join(parts)


def _clip(text: str) -> str:
    return text if len(text) <= SUMMARY_MESSAGE_CHARS else text[:SUMMARY_MESSAGE_CHARS] + "…"


def _judge_error_text(tool: str, args: dict, exc: Exception) -> tuple[str, dict]:
    status = getattr(exc, "status", None)
    message = getattr(exc, "message", None) or str(exc)
    body = getattr(exc, "body", None) or {}
    field_ = (body.get("error") or {}).get("field") if isinstance(body, dict) else None
    what = ", ".join(f"{k} {args[k]!r}" for k in ("kernel", "language", "flagset", "grade_id", "path") if k in args)
    text = (f"{tool}{' (' + what + ')' if what else ''} failed: "
            + (f"the judge answered {status}: {message}" if status else message)
            + (f" [field: {field_}]" if field_ else ""))
    return text, {"error": {"status": status, "message": message, "field": field_}}



# ---- the server ------------------------------------------------------------------------

class _Server(MCPServer):
    """MCPServer whose tools are hpcab's ToolSpecs: the SDK speaks the protocol; listing
    and calling are here, so a bad argument is an isError result that names it (the SDK's
    own function tools would drop an unknown argument and word a missing one as a pydantic
    report)."""

    def __init__(self, specs_for: Callable[[Context | None], dict[str, ToolSpec]], progress_seconds: float, **kw):
        super().__init__(**kw)
        self.specs_for, self.progress_seconds = specs_for, progress_seconds

    async def list_tools(self) -> list[McpTool]:
        return [McpTool(name=s.name, title=s.title, description=s.description, input_schema=s.input_schema,
                        annotations=ToolAnnotations(title=s.title, read_only_hint=s.read_only, destructive_hint=False,
                                                    idempotent_hint=s.idempotent, open_world_hint=False))
                for s in self.specs_for(None).values()]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None):
        specs = self.specs_for(context)
        spec = specs.get(name)
        try:
            if spec is None:
                raise ToolError(f"unknown tool {name!r} (tools/list lists {', '.join(specs)})", "name")
            arguments = spec.check(arguments)
        except ToolError as exc:
            log.info("refused: %s", exc.message)
            return _error_result(exc.message, exc.detail())
        return await _run(spec, arguments, context, self.progress_seconds)


def make_server(judge: Judge, judge_name: str = "the judge", progress_seconds: float = PROGRESS_SECONDS,
                judge_for: Callable[[Context], Judge] | None = None) -> MCPServer:
    """The MCP server of one judge handle. judge_for(ctx), where given, picks the handle for
    each tool call instead (the HTTP transport: each client's own token)."""
    specs = {s.name: s for s in _specs(judge)}

    def specs_for(ctx: Context | None) -> dict[str, ToolSpec]:
        if judge_for is None or ctx is None:
            return specs
        return {s.name: s for s in _specs(judge_for(ctx))}
    log.info("serving %s (MCP SDK %s)", judge_name, _sdk_version())
    server = _Server(specs_for, progress_seconds, name="hpcab", title="hpcab judge", version=__version__,
                     instructions=INSTRUCTIONS, log_level="WARNING")
    add_skill_resources(server)
    return server


def add_skill_resources(server: MCPServer) -> None:
    """The skill pages (hpcab.skills: the project's skills/, the pages a judge of this version
    serves at GET /skills) as resources skill://<name>, Markdown."""
    from mcp.server.mcpserver.resources import TextResource

    from hpcab.skills import load_skills
    for skill in load_skills().values():
        server.add_resource(TextResource(uri=f"skill://{skill.name}", name=skill.name, title=skill.name,
                                         description=skill.description, mime_type="text/markdown",
                                         text=skill.content))


async def _run(spec: ToolSpec, arguments: dict, ctx: Context | None, progress_seconds: float) -> CallToolResult:
    """Run a blocking tool in a worker thread; while it waits for the judge, report progress
    every progress_seconds (sent only to a request that carried a progress token). A
    cancelled call abandons its thread: a grading already sent still runs at the judge."""
    from hpcab.client import JudgeError
    started = time.monotonic()

    async def tick() -> None:
        while ctx is not None:
            await anyio.sleep(progress_seconds)
            elapsed = round(time.monotonic() - started)
            await ctx.report_progress(elapsed, None, f"{spec.name}: waiting for the judge ({elapsed} s)")
    outcome: Any = None
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(tick)
            try:
                outcome = await _in_daemon_thread(_outcome, spec.run, arguments)
            finally:
                tg.cancel_scope.cancel()
    except anyio.get_cancelled_exc_class():
        log.info("%s: cancelled after %.1f s (a grading already sent to the judge still runs there)",
                 spec.name, time.monotonic() - started)
        raise
    if isinstance(outcome, (JudgeError, ToolError)):
        if isinstance(outcome, ToolError):
            text, detail = outcome.message, outcome.detail()
        else:
            text, detail = _judge_error_text(spec.name, arguments, outcome)
        log.info("%s: error after %.1f s: %s", spec.name, time.monotonic() - started, text)
        return _error_result(text, detail)
    summary, doc = outcome
    summary = " ".join(summary.splitlines())         # one line: the JSON document follows the first newline
    log.info("%s: %s (%.1f s)", spec.name, summary[:200], time.monotonic() - started)
    return CallToolResult(content=[TextContent(type="text", text=summary + "\n" + json.dumps(doc, ensure_ascii=False))],
                          structured_content=doc, is_error=False)


async def _in_daemon_thread(fn: Callable, *args: Any) -> Any:
    """fn(*args) in a daemon thread. Not anyio's worker threads: the interpreter joins those
    at exit, so a call abandoned at the judge (cancelled, or stdin closed) would hold the
    process until the SDK client's SIGTERM."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def deliver(outcome: tuple) -> None:
        if not future.done():                      # done: the call was cancelled
            future.set_result(outcome)

    def target() -> None:
        try:
            outcome: tuple = (True, fn(*args))
        except BaseException as exc:
            outcome = (False, exc)
        try:
            loop.call_soon_threadsafe(deliver, outcome)
        except RuntimeError:                       # the loop is closed: nobody waits
            pass
    threading.Thread(target=target, name="hpcab-mcp-call", daemon=True).start()
    ok, value = await future
    if not ok:
        raise value
    return value


def _outcome(run: Callable[[dict], tuple[str, dict]], arguments: dict) -> Any:
    """run(arguments), or the JudgeError or ToolError it raised (the model reads those)."""
    from hpcab.client import JudgeError
    try:
        return run(arguments)
    except (JudgeError, ToolError) as exc:
        return exc


def _error_result(text: str, detail: dict) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content={"error": detail},
                          is_error=True)


def _sdk_version() -> str:
    from importlib.metadata import version
    return version("mcp")


# ---- the transports --------------------------------------------------------------------

def serve_stdio(server: MCPServer) -> None:
    """Until stdin ends: the MCP stdio shutdown (the client closes stdin, then waits 2 s
    before SIGTERM). Calls still running are abandoned at once; a grading already sent
    still runs, and is recorded, at the judge."""
    log.info("serving over stdio")
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    log.info("stdin closed: exiting")


def serve_http(server: MCPServer, host: str, port: int) -> None:
    """The streamable HTTP transport at http://HOST:PORT/mcp, until SIGINT or SIGTERM."""
    import uvicorn
    app = server.streamable_http_app(host=host, **_http_security(host))
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    log.info("serving streamable HTTP at http://%s:%d/mcp", host, port)
    uvicorn.Server(config).run()
    log.info("stopped: exiting")


def _http_security(host: str) -> dict:
    """Loopback: the SDK's DNS-rebinding check (Host must be loopback). Another address is
    meant to be reached from other nodes, by whatever name they know it: no Host check;
    each request is authorized by the judge token it carries."""
    if host in ("127.0.0.1", "localhost", "::1"):
        return {}
    from mcp.server.transport_security import TransportSecuritySettings
    return {"transport_security": TransportSecuritySettings(enable_dns_rebinding_protection=False)}


def bearer_token(ctx: Context) -> str | None:
    """The token of an HTTP request's `Authorization: Bearer` header (None: stdio, or none sent)."""
    headers = ctx.headers or {}
    value = next((v for k, v in headers.items() if k.lower() == "authorization"), None)
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None
