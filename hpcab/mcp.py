"""`hpcab mcp`: the judge as tools of a Model Context Protocol server over stdio.

An external coding agent (an MCP client) starts `hpcab mcp --judge URL` as a child process
and calls five tools: list_kernels, get_task, score, submit, get_grade. No MCP SDK: the
protocol is written here with the standard library. JSON-RPC 2.0, one JSON object per line
on stdin and stdout (the MCP stdio transport); logs go to stderr. Implemented: the
lifecycle (initialize, the initialized notification, ping), tools/list and tools/call,
cancellation and progress notifications; protocol versions 2025-06-18, 2025-03-26 and
2024-11-05 (docs/judge_api.md).

    server = McpServer(JudgeClient(url, token, rank), judge_name="the judge at http://...")
    server.serve(sys.stdin.buffer, sys.stdout.buffer)

The judge handle may be anything with JudgeClient's kernels(), task(kernel, language),
score(...), submit(...) and grade(grade_id); a JudgeError it raises is a tool result with
isError: true, which the model reads, not a JSON-RPC error.
"""

from __future__ import annotations

import io
import json
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from hpcab import __version__

PROTOCOL_VERSION = "2025-06-18"
SUPPORTED_VERSIONS = ("2025-06-18", "2025-03-26", "2024-11-05")

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603

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
and POST /submit, use the score and submit tools."""


class Judge(Protocol):
    """What the server needs of a judge: hpcab.client.JudgeClient, or an in-process stand-in."""

    def kernels(self) -> list[dict]: ...
    def task(self, kernel: str, language: str = "c") -> dict: ...
    def score(self, kernel: str, source: str, language: str, flagset: str | None = None,
              label: str | None = None) -> dict: ...
    def submit(self, kernel: str, source: str, language: str, flagset: str | None = None,
               label: str | None = None) -> dict: ...
    def grade(self, grade_id: str) -> dict: ...


class RpcError(Exception):
    """Answered as a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def error(self) -> dict:
        err = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


class ToolError(Exception):
    """A tool that ran and failed: answered as a tool result with isError: true."""

    def __init__(self, message: str, detail: dict | None = None):
        super().__init__(message)
        self.message, self.detail = message, detail


# ---- the tools -------------------------------------------------------------------------

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
class Tool:
    name: str
    title: str
    description: str
    properties: dict
    required: tuple[str, ...]
    run: Callable[[dict], tuple[str, dict]]           # arguments → (summary line, JSON document)
    read_only: bool = True
    idempotent: bool = True
    one_of: tuple[str, ...] = ()                      # exactly one of these arguments must be given
    input_schema: dict = field(init=False)

    def __post_init__(self):
        self.input_schema = {"type": "object", "properties": self.properties, "required": list(self.required),
                             "additionalProperties": False}

    def listing(self) -> dict:
        return {"name": self.name, "title": self.title, "description": self.description,
                "inputSchema": self.input_schema,
                "annotations": {"title": self.title, "readOnlyHint": self.read_only, "destructiveHint": False,
                                "idempotentHint": self.idempotent, "openWorldHint": False}}

    def check(self, arguments: Any) -> dict:
        """The arguments, checked against the input schema (a -32602 naming the argument)."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, f"{self.name}: arguments must be an object")
        # A null optional argument is taken as absent (models send them).
        arguments = {k: v for k, v in arguments.items() if v is not None or k in self.required}
        for name in self.required:
            if name not in arguments:
                raise RpcError(INVALID_PARAMS, f"{self.name}: missing required argument {name!r}",
                               {"tool": self.name, "argument": name})
        for name, value in arguments.items():
            spec = self.properties.get(name)
            if spec is None:
                raise RpcError(INVALID_PARAMS, f"{self.name}: unknown argument {name!r} (expected: "
                                               f"{', '.join(self.properties)})", {"tool": self.name, "argument": name})
            if not isinstance(value, str):
                raise RpcError(INVALID_PARAMS, f"{self.name}: argument {name!r} must be a string",
                               {"tool": self.name, "argument": name})
            if "enum" in spec and value not in spec["enum"]:
                raise RpcError(INVALID_PARAMS, f"{self.name}: argument {name!r} must be one of "
                                               f"{', '.join(spec['enum'])}, not {value!r}",
                               {"tool": self.name, "argument": name})
            if len(value) < spec.get("minLength", 0):
                raise RpcError(INVALID_PARAMS, f"{self.name}: argument {name!r} must not be empty",
                               {"tool": self.name, "argument": name})
        if self.one_of and sum(name in arguments for name in self.one_of) != 1:
            given = " and ".join(repr(n) for n in self.one_of if n in arguments) or "neither"
            raise RpcError(INVALID_PARAMS, f"{self.name}: give exactly one of "
                                           f"{' or '.join(repr(n) for n in self.one_of)} (got {given})",
                           {"tool": self.name, "argument": self.one_of[0]})
        return arguments


def _tools(judge: Judge) -> dict[str, Tool]:
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

    def get_grade(args: dict) -> tuple[str, dict]:
        doc = judge.grade(args["grade_id"])
        return _grade_summary(doc, "grade"), doc

    source_required = ("kernel",)
    source_args = dict(_SOURCE_ARGS, language=dict(_SOURCE_ARGS["language"], enum=_submission_languages()))
    tools = [
        Tool("list_kernels", "List the judge's kernels",
             "List the kernels this judge serves: for each its name, id, track, dwarf, level, a description and the "
             "baseline it is timed against. Start here, then call get_task for the kernel you work on.",
             {}, (), list_kernels),
        Tool("get_task", "Get a kernel's task",
             "Everything needed to write a candidate for one kernel: the exact prototype to implement in the chosen "
             "language (prototype), the NumPy reference it must match (reference), the public cases and their sizes, "
             "how many hidden cases a submission also runs, the tolerance, the baseline, the threads granted, the "
             "languages and compiler flag sets accepted, your remaining score and submission budget, and the goal. "
             "Free: costs no budget.",
             {"kernel": _KERNEL,
              "language": {"type": "string", "default": "c",
                           "description": "The language whose prototype is shown: c (default), cpp, fortran, cuda, "
                                          "...; the task's languages field lists those this judge compiles."}},
             ("kernel",), get_task),
        Tool("score", "Score a candidate (public cases)",
             "Build the candidate and grade it on the public cases only: correctness against the NumPy reference and "
             "the speedup over the track's baseline (95% confidence interval). Not recorded; costs one score from the "
             "budget. A build error or a wrong answer is a normal result with correct: false (read message, the cases "
             "and build_diagnostics). Give the code as source (text) or path (a file); exactly one of them. Takes "
             "seconds to minutes.",
             dict(source_args), source_required, graded(judge.score, "score"), read_only=False, idempotent=False,
             one_of=("source", "path")),
        Tool("submit", "Submit a candidate (final, recorded)",
             "Submit the candidate as the final answer for this kernel: graded on the public and the hidden cases "
             "(a hidden case shows only its status: no sizes, seed, errors or times; an edge-shape case checks odd "
             "sizes) and recorded under the "
             "returned id. Costs one submission from the budget, which is small: score first and submit when done. "
             "Give the code as source (text) or path (a file); exactly one of them. Takes seconds to minutes.",
             dict(source_args), source_required, graded(judge.submit, "submit"), read_only=False, idempotent=False,
             one_of=("source", "path")),
        Tool("get_grade", "Fetch a submission's grade",
             "Fetch a submitted grade again by its id (the id of a submit result); scores are not kept. If it is "
             "still being graded, the answer says so (state queued or grading): ask again a little later. Free.",
             {"grade_id": {"type": "string", "minLength": 1, "description": "The id from a submit result."}},
             ("grade_id",), get_grade),
    ]
    return {t.name: t for t in tools}


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
            f"{doc.get('baseline')}; budget: submissions {used('submissions')}, scores {used('scores')}")


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

class McpServer:
    def __init__(self, judge: Judge, judge_name: str = "the judge", log: Callable[[str], None] | None = None,
                 progress_seconds: float = PROGRESS_SECONDS):
        self.judge, self.judge_name = judge, judge_name
        self.tools = _tools(judge)
        self.log = log or (lambda msg: print(f"hpcab mcp: {msg}", file=sys.stderr, flush=True))
        self.progress_seconds = progress_seconds
        self.protocol_version: str | None = None    # negotiated by initialize
        self.client_info: dict = {}
        self.initialized = False                      # the client's notifications/initialized came
        self._out: Any = None
        self._out_binary = True
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._inflight: dict[Any, threading.Thread] = {}   # request id → the thread running its tools/call
        self._cancelled: set = set()
        self._closed = False

    # ---- the transport ---------------------------------------------------------------

    def serve(self, stdin, stdout) -> None:
        """Read messages from stdin (binary or text, one JSON-RPC message a line) until EOF or
        until stdout is closed, answering on stdout. Tool calls run in threads, so pings,
        listings and cancellations are answered while a grading runs; at EOF the calls still
        running are finished and answered before this returns."""
        self._out, self._out_binary = stdout, not isinstance(stdout, io.TextIOBase)
        self.log(f"serving {self.judge_name} over stdio (MCP {PROTOCOL_VERSION})")
        while not self._closed:
            try:
                line = stdin.readline()
            except (OSError, ValueError) as exc:
                self.log(f"stdin: {exc}; stopping")
                break
            if not line:
                break
            try:
                self.handle_line(line)
            except Exception:                        # no message may end the session
                self.log(f"internal error on a message\n{traceback.format_exc()}")
        with self._state_lock:
            running = list(self._inflight.values())
        if running:
            self.log(f"finishing {len(running)} tool call(s) still running")
        for thread in running:
            thread.join()
        self.log("exiting")

    def handle_line(self, line: bytes | str) -> None:
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                self._send(_error(None, PARSE_ERROR, f"parse error: the message is not UTF-8 ({exc})"))
                return
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except (ValueError, RecursionError) as exc:       # RecursionError: nesting too deep
            self._send(_error(None, PARSE_ERROR, f"parse error: {type(exc).__name__}: {exc}"))
            return
        if isinstance(message, list):              # a batch (JSON-RPC 2.0; MCP 2025-03-26)
            if not message:
                self._send(_error(None, INVALID_REQUEST, "invalid request: an empty batch"))
                return
            answers = [a for a in (self.handle(m, threaded=False) for m in message) if a is not None]
            if answers:
                self._send(answers)
            return
        answer = self.handle(message)
        if answer is not None:
            self._send(answer)

    def _send(self, message: dict | list) -> None:
        # ASCII only: no raw newline or U+2028 can split the line for any reader.
        data = json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n"
        with self._write_lock:
            if self._closed:
                return
            try:
                self._out.write(data.encode() if self._out_binary else data)
                self._out.flush()
            except (OSError, ValueError) as exc:        # the client went away
                self._closed = True
                self.log(f"stdout: {exc}; stopping")

    # ---- messages --------------------------------------------------------------------

    def handle(self, message: Any, threaded: bool = True) -> dict | None:
        """One parsed message → its answer, or None (a notification, a response, or a tools/call
        answered later from its thread). threaded=False answers a tools/call here."""
        if not isinstance(message, dict):
            return _error(None, INVALID_REQUEST, "invalid request: a message must be a JSON object")
        method = message.get("method")
        if "id" not in message:
            if isinstance(method, str):
                self._notification(method, message.get("params"))
            elif "result" not in message and "error" not in message:
                return _error(None, INVALID_REQUEST, "invalid request: no method")
            return None                              # notifications are never answered
        rid = message["id"]
        if method is None and ("result" in message or "error" in message):
            return None                              # a response: this server sends no requests
        if isinstance(rid, bool) or not isinstance(rid, (str, int, float)):
            return _error(None, INVALID_REQUEST, "invalid request: id must be a string or a number")
        if message.get("jsonrpc") != "2.0":
            return _error(rid, INVALID_REQUEST, 'invalid request: jsonrpc must be "2.0"')
        if not isinstance(method, str):
            return _error(rid, INVALID_REQUEST, "invalid request: method must be a string")
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            return _error(rid, INVALID_PARAMS, "invalid params: params must be an object")
        params = params or {}
        try:
            if method == "initialize":
                return _result(rid, self._initialize(params))
            if method == "ping":
                return _result(rid, {})
            if method == "tools/list":
                return _result(rid, {"tools": [t.listing() for t in self.tools.values()]})
            if method == "tools/call":
                tool, arguments = self._tool_call(params)
                if not threaded:
                    return _result(rid, self._run_tool(tool, arguments))
                self._start(rid, tool, arguments, (params.get("_meta") or {}).get("progressToken"))
                return None
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
        except RpcError as exc:
            return {"jsonrpc": "2.0", "id": rid, "error": exc.error()}
        except Exception as exc:                     # a bug here must not end the session
            self.log(f"{method}: internal error\n{traceback.format_exc()}")
            return _error(rid, INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {exc}")

    def _notification(self, method: str, params: Any) -> None:
        if method == "notifications/initialized":
            self.initialized = True
        elif method == "notifications/cancelled":
            rid = params.get("requestId") if isinstance(params, dict) else None
            with self._state_lock:
                if rid in self._inflight:
                    self._cancelled.add(rid)
                    self.log(f"request {rid!r} cancelled: its answer will not be sent (a grading already sent to "
                             f"the judge still runs there)")

    def _initialize(self, params: dict) -> dict:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RpcError(INVALID_PARAMS, "initialize: missing protocolVersion (a string)",
                           {"argument": "protocolVersion"})
        self.protocol_version = requested if requested in SUPPORTED_VERSIONS else PROTOCOL_VERSION
        info = params.get("clientInfo")
        self.client_info = info if isinstance(info, dict) else {}
        self.log(f"initialize from {self.client_info.get('name', '?')} {self.client_info.get('version', '')}"
                 f" (asked for {requested}, speaking {self.protocol_version})")
        server_info = {"name": "hpcab", "version": __version__}
        if self.protocol_version >= "2025-06-18":
            server_info["title"] = "hpcab judge"
        return {"protocolVersion": self.protocol_version, "capabilities": {"tools": {}}, "serverInfo": server_info,
                "instructions": INSTRUCTIONS}

    def _tool_call(self, params: dict) -> tuple[Tool, dict]:
        name = params.get("name")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "tools/call: missing tool name (params.name)", {"argument": "name"})
        tool = self.tools.get(name)
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"unknown tool: {name} (tools/list lists {', '.join(self.tools)})")
        return tool, tool.check(params.get("arguments"))

    def _start(self, rid: Any, tool: Tool, arguments: dict, progress_token: Any) -> None:
        thread = threading.Thread(target=self._call_thread, args=(rid, tool, arguments, progress_token),
                                  name=f"mcp-{tool.name}-{rid}", daemon=True)
        with self._state_lock:
            if rid in self._inflight:
                raise RpcError(INVALID_REQUEST, f"invalid request: id {rid!r} is already in use by a running call")
            self._inflight[rid] = thread
        thread.start()

    def _call_thread(self, rid: Any, tool: Tool, arguments: dict, progress_token: Any) -> None:
        done = threading.Event()
        ticker = None
        if isinstance(progress_token, (str, int)) and not isinstance(progress_token, bool):
            ticker = threading.Thread(target=self._progress, args=(rid, tool.name, progress_token, done), daemon=True)
            ticker.start()
        try:
            answer = _result(rid, self._run_tool(tool, arguments))
        except RpcError as exc:
            answer = {"jsonrpc": "2.0", "id": rid, "error": exc.error()}
        except Exception as exc:
            self.log(f"tools/call {tool.name}: internal error\n{traceback.format_exc()}")
            answer = _error(rid, INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {exc}")
        finally:
            done.set()
            if ticker is not None:
                ticker.join()                        # no progress after the answer
        with self._state_lock:
            cancelled = rid in self._cancelled
            self._cancelled.discard(rid)
        if not cancelled:
            self._send(answer)
        with self._state_lock:
            self._inflight.pop(rid, None)

    def _progress(self, rid: Any, name: str, token: Any, done: threading.Event) -> None:
        started = time.monotonic()
        while not done.wait(self.progress_seconds):
            with self._state_lock:
                if rid in self._cancelled:
                    return
            elapsed = round(time.monotonic() - started)
            self._send({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": elapsed,
                                   "message": f"{name}: waiting for the judge ({elapsed} s)"}})

    def _run_tool(self, tool: Tool, arguments: dict) -> dict:
        """The tool's result; a JudgeError or a ToolError is a result with isError: true."""
        from hpcab.client import JudgeError
        started = time.monotonic()
        try:
            summary, doc = tool.run(arguments)
            summary = " ".join(summary.splitlines())     # one line: the JSON document follows the first newline
        except (JudgeError, ToolError) as exc:
            if isinstance(exc, ToolError):
                text, detail = exc.message, {"error": {"status": None, "message": exc.message, "field": None}}
            else:
                text, detail = _judge_error_text(tool.name, arguments, exc)
            self.log(f"{tool.name}: error after {time.monotonic() - started:.1f} s: {text}")
            result = {"content": [{"type": "text", "text": text}], "isError": True}
            if self._structured():
                result["structuredContent"] = detail
            return result
        self.log(f"{tool.name}: {summary[:200]} ({time.monotonic() - started:.1f} s)")
        result = {"content": [{"type": "text", "text": summary + "\n" + json.dumps(doc, ensure_ascii=False)}],
                  "isError": False}
        if self._structured():
            result["structuredContent"] = doc
        return result

    def _structured(self) -> bool:
        """structuredContent exists from protocol version 2025-06-18 on."""
        return (self.protocol_version or PROTOCOL_VERSION) >= "2025-06-18"


def _result(rid: Any, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def _error(rid: Any, code: int, message: str, data: Any = None) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "error": RpcError(code, message, data).error()}
