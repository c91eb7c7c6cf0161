"""A scripted model server for the LLM agent's tests: an OpenAI-compatible chat-completions
endpoint (api="openai", POST /v1/chat/completions) or an Anthropic Messages endpoint
(api="anthropic", POST /v1/messages), on loopback, in a thread.

It plays back a SCRIPT, one entry per request, and records every request it got:

    fake = FakeModel([reply(call("write_file", path="gemm.c", content=SRC), usage=(100, 20, 0)),
                      error(429, retry_after="0"),
                      error(500, body=""),                      # an empty body, not JSON
                      error(503, headers={"x-should-retry": "false", "retry-after-ms": "5"}),
                      reply(text="done")])
    ... the agent talks to fake.url ...
    fake.requests        # the request bodies, in order (each a dict): len() counts the requests
    fake.responses       # the status and JSON document of each answer, in order
    fake.problems        # protocol mistakes the fake noticed in the requests (should be [])

An entry is reply(...) (tool calls, text, usage), error(status, ...) (an HTTP error: a
JSON error object with the message, or `body` verbatim; `headers` added), or a
callable(request_body) -> one of those. A request past the end of the script is
answered 400 "script exhausted". shutdown_after=N stops the server (its port then refuses
connections) after its N-th answer.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


def call(name: str, _raw: str | None = None, **arguments: Any) -> dict:
    """A tool call; _raw: the arguments string verbatim (e.g. not JSON)."""
    return {"name": name, "arguments": arguments, "raw": _raw}


def reply(*calls: dict, text: str = "", usage: tuple | dict | None = (0, 0, 0)) -> dict:
    """usage: (prompt, completion, cached): OpenAI's prompt_tokens, completion_tokens and
    prompt_tokens_details.cached_tokens, or Anthropic's input_tokens, output_tokens and
    cache_read_input_tokens; or a dict, the Anthropic usage verbatim; None: no usage."""
    return {"kind": "reply", "calls": list(calls), "text": text, "usage": usage}


def error(status: int, message: str = "scripted error", retry_after: str | None = None,
          headers: dict[str, str] | None = None, body: str | None = None) -> dict:
    """body: the answer verbatim (text/html) instead of {"error": {"message": ...}}."""
    return {"kind": "error", "status": status, "message": message, "retry_after": retry_after,
            "headers": headers or {}, "body": body}


class FakeModel:
    def __init__(self, script: list, api: str = "openai", shutdown_after: int | None = None,
                 model: str = "fake-model"):
        assert api in ("openai", "anthropic")
        self.script, self.api, self.shutdown_after, self.model = list(script), api, shutdown_after, model
        self.requests: list[dict] = []
        self.responses: list[tuple[int, Any]] = []      # (status, the JSON answered; None: not JSON)
        self.headers: list[dict] = []
        self.problems: list[str] = []
        self.answered = 0
        self._stopping = False
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):       # quiet
                pass

            def do_POST(self):
                fake._handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        self._closed = False

    @property
    def url(self) -> str:
        """The base URL the agent is given (model_url)."""
        return f"http://127.0.0.1:{self.port}" + ("/v1" if self.api == "openai" else "")

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.server.shutdown()
            self.server.server_close()

    def __enter__(self) -> "FakeModel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- one request ---------------------------------------------------------------------

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        body = json.loads(h.rfile.read(int(h.headers.get("Content-Length") or 0)) or b"{}")
        if self._stopping:              # gone: a request that slipped in is dropped unanswered
            h.close_connection = True
            return
        expected = "/v1/chat/completions" if self.api == "openai" else "/v1/messages"
        with self._lock:
            if h.path != expected:
                self.problems.append(f"request to {h.path}, expected {expected}")
            self.requests.append(body)
            self.headers.append({k.lower(): v for k, v in h.headers.items()})
            self._check(body, self.headers[-1])
            entry = self.script.pop(0) if self.script else error(400, "script exhausted")
            if callable(entry):
                entry = entry(body)
            n = len(self.requests)
        content_type = "application/json"
        if entry["kind"] == "error":
            status = entry["status"]
            if entry.get("body") is not None:
                payload, content_type = entry["body"].encode(), "text/html"
            else:
                payload = json.dumps({"error": {"message": entry["message"], "type": "scripted"}}).encode()
            h.send_response(status)
            if entry.get("retry_after") is not None:
                h.send_header("Retry-After", entry["retry_after"])
            for key, value in entry.get("headers", {}).items():
                h.send_header(key, value)
        else:
            try:
                payload, status = json.dumps(self._render(entry, n)).encode(), 200
            except Exception as exc:            # a bad script entry: say so, do not drop the connection
                self.problems.append(f"cannot render script entry {n}: {exc!r}")
                payload, status = json.dumps({"error": {"message": f"fake: {exc!r}"}}).encode(), 400
            h.send_response(status)
        with self._lock:
            self.responses.append((status, json.loads(payload) if content_type == "application/json" else None))
        h.send_header("Content-Type", content_type)
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)
        h.wfile.flush()
        with self._lock:
            self.answered += 1
            stop = self.shutdown_after is not None and self.answered >= self.shutdown_after
            self._stopping = self._stopping or stop
        if stop:
            threading.Thread(target=self.close, daemon=True).start()

    def _render(self, entry: dict, n: int) -> dict:
        calls, text, usage = entry["calls"], entry["text"], entry["usage"]
        if self.api == "openai":
            tool_calls = [{"id": f"call_{n}_{i}", "type": "function",
                           "function": {"name": c["name"],
                                        "arguments": c["raw"] if c["raw"] is not None else json.dumps(c["arguments"])}}
                          for i, c in enumerate(calls)]
            message = {"role": "assistant", "content": text or None}
            if tool_calls:
                message["tool_calls"] = tool_calls
            doc = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1700000000 + n,
                   "model": self.model,
                   "choices": [{"index": 0, "message": message,
                                "finish_reason": "tool_calls" if tool_calls else "stop"}]}
            if usage is not None:
                p, c, cached = usage
                doc["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c,
                                "prompt_tokens_details": {"cached_tokens": cached}}
            return doc
        content = ([{"type": "text", "text": text}] if text else []) + [
            {"type": "tool_use", "id": f"toolu_{n}_{i}", "name": c["name"], "input": c["arguments"]}
            for i, c in enumerate(calls)]
        doc = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": self.model, "content": content,
               "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None}
        if isinstance(usage, (tuple, list)):
            p, c, cached = usage
            usage = {"input_tokens": p, "output_tokens": c, "cache_read_input_tokens": cached}
        if usage is not None:
            doc["usage"] = dict(usage)
        return doc

    # ---- what a real server would refuse -------------------------------------------------

    def _check(self, body: dict, headers: dict) -> None:
        p = self.problems
        for key in ("model", "messages", "tools"):
            if key not in body:
                p.append(f"request {len(self.requests)}: no {key!r}")
        messages = body.get("messages") or []
        if self.api == "openai":
            limits = [k for k in ("max_tokens", "max_completion_tokens") if k in body]
            if len(limits) != 1:
                p.append(f"request {len(self.requests)}: token limits {limits}, expected one")
            # llama.cpp's servers drop tools sent without tool_choice: the model never sees them.
            if "tools" in body and body.get("tool_choice") not in ("auto", "required", "none"):
                p.append(f"request {len(self.requests)}: tools with tool_choice {body.get('tool_choice')!r}")
            if not messages or messages[0].get("role") != "system":
                p.append("the first message is not the system prompt")
            pending: set[str] = set()
            for m in messages:
                if m.get("role") == "tool":
                    if m.get("tool_call_id") not in pending:
                        p.append(f"tool message for unknown or answered call {m.get('tool_call_id')!r}")
                    pending.discard(m.get("tool_call_id"))
                    continue
                if pending:
                    p.append(f"calls {sorted(pending)} not answered before a {m.get('role')} message")
                    pending = set()
                if m.get("role") == "assistant":
                    if not isinstance(m.get("content"), str):      # llama.cpp's servers answer 500
                        p.append(f"assistant message with content {m.get('content', '(missing)')!r}")
                    for tc in m.get("tool_calls") or []:
                        try:
                            json.loads(tc["function"]["arguments"])
                        except (KeyError, ValueError):
                            p.append(f"assistant tool call {tc.get('id')} with arguments that are not JSON")
                        pending.add(tc.get("id"))
            for t in body.get("tools") or []:
                if t.get("type") != "function" or "parameters" not in t.get("function", {}):
                    p.append(f"malformed tool {t}")
        else:
            if "max_tokens" not in body:
                p.append(f"request {len(self.requests)}: no 'max_tokens'")
            if headers.get("anthropic-version") != "2023-06-01":
                p.append(f"anthropic-version header {headers.get('anthropic-version')!r}")
            if "system" not in body:
                p.append("no top-level system")
            if any(m.get("role") == "system" for m in messages):
                p.append("a system message inside messages")
            expect = "user"
            pending = set()
            for m in messages:
                if m.get("role") != expect:
                    p.append(f"roles do not alternate: {m.get('role')} where {expect} was due")
                content = m.get("content")
                blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
                if not blocks:
                    p.append("a message with empty content")
                if m.get("role") == "user":
                    answered = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
                    if answered != pending:
                        p.append(f"tool_use {sorted(pending)} answered with {sorted(answered)}")
                    pending = set()
                else:
                    pending = {b.get("id") for b in blocks if b.get("type") == "tool_use"}
                for b in blocks:
                    if b.get("type") == "text" and not b.get("text"):
                        p.append("an empty text block")
                expect = "assistant" if expect == "user" else "user"
            for t in body.get("tools") or []:
                if "input_schema" not in t:
                    p.append(f"tool without input_schema {t.get('name')}")


def last_tool_results(body: dict, api: str = "openai") -> list[str]:
    """The tool results a request carries at its end (OpenAI: the trailing tool messages;
    Anthropic: the last user message's tool_result blocks), errors prefixed 'ERROR: '."""
    messages = body["messages"]
    if api == "openai":
        out = []
        for m in reversed(messages):
            if m.get("role") != "tool":
                break
            out.insert(0, m["content"])
        return out
    last = messages[-1]
    if not isinstance(last["content"], list):
        return []
    return [("ERROR: " if b.get("is_error") else "") + (b["content"] if isinstance(b["content"], str) else
                                                        json.dumps(b["content"]))
            for b in last["content"] if b.get("type") == "tool_result"]


Script = list[dict | Callable[[dict], dict]]


def check_openai_types(requests: list[dict], answers: list[dict]) -> None:
    """Every chat-completions body sent, and every answer, against the official `openai`
    package's types: a body must come back equal from its request type (pydantic drops an
    unknown key; equality also rules out a coerced value); an answer must parse as a
    ChatCompletion."""
    from openai.types.chat import ChatCompletion, completion_create_params
    from pydantic import TypeAdapter
    params = TypeAdapter(completion_create_params.CompletionCreateParamsNonStreaming)

    def validated(value):
        """The validated value with pydantic's lazy iterators (the Iterable fields) run out."""
        if isinstance(value, dict):
            return {k: validated(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)) or (hasattr(value, "__next__") and not isinstance(value, str)):
            return [validated(v) for v in value]
        return value
    for body in requests:
        assert validated(params.validate_python(body)) == body
    for doc in answers:
        ChatCompletion.model_validate(doc)
