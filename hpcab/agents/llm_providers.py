"""The model APIs behind the LLM agent (hpcab/agents/llm.py), standard library only.

    provider = make_provider("openai", "http://127.0.0.1:8000/v1", "qwen", api_key=None)
    provider.start(system_prompt, first_user_message)
    reply = provider.complete(TOOLS)             # a Reply: text, tool calls, usage
    provider.add_reply(reply)                    # the assistant turn, into the conversation
    provider.add_tool_results([...])             # the answers to its tool calls
    provider.add_user("...")                     # a plain user message (the nudge)

Two wire formats, one conversation interface:

* OpenAI-compatible chat completions (`POST {base}/chat/completions`): OpenAI, vLLM,
  SGLang, Ollama, llama.cpp's server. Tool calls come as `message.tool_calls` with JSON
  `arguments` strings; results go back as role "tool" messages with `tool_call_id`.
* Anthropic Messages (`POST {base}/v1/messages`): `system` at the top level, tool calls
  as `tool_use` content blocks, results as `tool_result` blocks of the next user message,
  headers `x-api-key` and `anthropic-version: 2023-06-01`.

Transport: the retry policy of the official `openai` Python client, and one rule more.

* Retried, at most `retries` times (default 2): HTTP 408, 409, 429 and >= 500, connection
  resets and timeouts.
* The delay: what the server asks in `retry-after-ms` or `retry-after` (seconds or an HTTP
  date) when that is above 0 and at most 120 s; else exponential backoff with jitter,
  `backoff` (0.5 s) doubling with each retry up to 8 s, less a random 0-25 %. A server
  asking for more than 120 s is not retried.
* `x-should-retry: true` retries whatever the status (a wait over 120 s aside);
  `x-should-retry: false` never.
* Not retried, unless `x-should-retry: true`: another 4xx, and a 500 whose answer is a JSON
  error with a message: the server parsed the request and failed on it, and the identical
  body would fail again (llama.cpp's servers answer a malformed request so). A 502, 503 or
  504, or a 500 with an empty or HTML body, is retried.
* Never retried: a refused connection before the endpoint has ever answered (nothing
  listens there), an untrusted TLS certificate.

A request not retried, or the retries spent, raise ModelError naming the URL, the status
and the server's message. Usage is mapped to hpcab.agents.base.ModelCall as
docs/token_accounting.md says.
"""

from __future__ import annotations

import copy
import email.utils
import http.client
import json
import logging
import math
import random
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable

from hpcab.agents.base import ModelCall
from hpcab.errors import HpcabError

log = logging.getLogger("hpcab.agents.llm")

ANTHROPIC_VERSION = "2023-06-01"
# The official openai client's retry constants (openai/_constants.py).
DEFAULT_RETRIES = 2
INITIAL_BACKOFF = 0.5           # s, the first retry's delay; doubles with each retry
MAX_BACKOFF = 8.0
MAX_RETRY_AFTER = 120.0         # a server asking to wait longer than this is not retried
RETRIED_STATUSES = (408, 409, 429)      # and every status >= 500
TOOL_CHOICES = ("auto", "required", "none")
ANTHROPIC_TOOL_CHOICE = {"auto": "auto", "required": "any", "none": "none"}
MAX_TOKENS_FIELDS = ("max_tokens", "max_completion_tokens")


class ModelError(HpcabError):
    """The model endpoint failed: refused, unreachable after retries, or a request error.
    (An Exception; through HpcabError the command line prints it without a traceback.)"""


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict | None          # None: the model's arguments could not be used (see error)
    error: str | None = None        # why not: "not valid JSON ...", "not an object"
    raw: str = ""                   # the arguments as the model wrote them


@dataclass
class Reply:
    text: str
    tool_calls: list[ToolCall]
    usage: ModelCall | None         # None: the API's answer carried no usage
    stop_reason: str | None
    message: Any = None             # the assistant message to put back into the conversation


@dataclass
class ToolResult:
    call_id: str
    content: str
    is_error: bool = False


# ---- transport -------------------------------------------------------------------------

@dataclass
class Transport:
    """POST JSON to one URL, with the retry policy above."""
    url: str
    headers: dict[str, str]
    timeout: float = 300.0
    retries: int = DEFAULT_RETRIES
    backoff: float = INITIAL_BACKOFF    # the first retry's delay (s) without retry-after; doubles
    max_backoff: float = MAX_BACKOFF
    on_retry: Callable[[dict], None] | None = None
    sleep: Callable[[float], None] = time.sleep
    answered: bool = False          # has this endpoint ever answered (any HTTP status)?

    def post(self, body: dict) -> tuple[dict, float]:
        """The decoded JSON answer and the seconds the successful request took."""
        data = json.dumps(body).encode()
        attempt = 0
        while True:
            req = urllib.request.Request(self.url, data=data, method="POST",
                                         headers={"Content-Type": "application/json", **self.headers})
            started = time.monotonic()
            wait: float | None = None
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    raw = resp.read()
                self.answered = True
                return _decode(self.url, raw), time.monotonic() - started
            except urllib.error.HTTPError as exc:
                self.answered = True
                message, parsed = _error_message(exc)
                what = f"HTTP {exc.code}: {message}"
                wait = _retry_after(exc.headers)
                refusal = _not_retried(exc.code, exc.headers, wait, parsed)
                if refusal is not None:
                    raise ModelError(f"the model endpoint {self.url} answered {what}{refusal}") from None
            except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                if not self.answered and isinstance(reason, (ConnectionRefusedError, socket.gaierror)):
                    raise ModelError(f"cannot reach the model endpoint {self.url}: {reason} "
                                     f"(is the server running, and is the URL right?)") from None
                if isinstance(reason, ssl.SSLCertVerificationError):
                    raise ModelError(f"the model endpoint {self.url}: TLS certificate not trusted: {reason}") from None
                what = f"{type(reason).__name__}: {reason}" if str(reason) else type(reason).__name__
            attempt += 1
            if attempt > self.retries:
                raise ModelError(f"the model endpoint {self.url} failed {attempt} time(s) in a row "
                                 f"(retries={self.retries}); last: {what}")
            if wait is not None and 0 < wait <= MAX_RETRY_AFTER:
                delay = wait
            else:           # the openai client's jitter: up to a quarter off, never more
                delay = min(self.max_backoff, self.backoff * 2 ** (attempt - 1)) * (1 - 0.25 * random.random())
            log.warning("model endpoint %s: %s; retry %d/%d in %.1f s", self.url, what, attempt, self.retries, delay)
            if self.on_retry:
                self.on_retry({"event": "model_retry", "url": self.url, "attempt": attempt, "error": what,
                               "delay": round(delay, 3)})
            self.sleep(delay)


def _not_retried(status: int, headers, wait: float | None, parsed: bool) -> str | None:
    """None: retry this HTTP error answer; else not, and the end of the error message saying why."""
    if wait is not None and wait > MAX_RETRY_AFTER:
        return f" and asks to wait {wait:.0f} s, more than {MAX_RETRY_AFTER:.0f} s (not retried)"
    flag = (headers.get("x-should-retry") or "").strip().lower()
    if flag == "true":              # the server says, either way
        return None
    if flag == "false":
        return " (not retried: x-should-retry: false)"
    if status == 500 and parsed:
        return " (not retried: the server parsed the request and failed on it; the same request would fail again)"
    if status in RETRIED_STATUSES or status >= 500:
        return None
    return ""


def _decode(url: str, raw: bytes) -> dict:
    try:
        doc = json.loads(raw)
    except ValueError:
        raise ModelError(f"the model endpoint {url} answered something that is not JSON: {raw[:200]!r}") from None
    if not isinstance(doc, dict):
        raise ModelError(f"the model endpoint {url} answered JSON that is not an object: {raw[:200]!r}")
    return doc


def _error_message(exc: urllib.error.HTTPError) -> tuple[str, bool]:
    """The server's error message, and whether it came as a JSON error with a message
    (the server parsed the request) rather than an empty, HTML or text body (a proxy, a crash)."""
    try:
        raw = exc.read()
    except OSError:
        raw = b""
    try:
        doc = json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace").strip()[:2000] or str(exc.reason), False
    err = doc.get("error", doc) if isinstance(doc, dict) else doc
    if isinstance(err, dict):
        message = err.get("message") or err.get("detail")
        return str(message or err)[:2000], isinstance(message, str) and bool(message.strip())
    return str(err)[:2000], isinstance(doc, dict) and isinstance(err, str) and bool(err.strip())


def _retry_after(headers) -> float | None:
    """The seconds the server asks to wait: retry-after-ms, else retry-after (seconds or an
    HTTP date); None when it asks nothing readable."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            continue
        if math.isnan(seconds):
            continue
        return min(seconds, MAX_RETRY_AFTER + 1)     # inf, or an overflow: too long
    try:
        return email.utils.parsedate_to_datetime(headers.get("retry-after")).timestamp() - time.time()
    except (TypeError, ValueError, OverflowError):
        return None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


# ---- providers -------------------------------------------------------------------------

class Provider:
    """One conversation with one model over one API."""
    api = "?"

    def __init__(self, model_url: str, model_name: str, api_key: str | None = None, *, max_tokens: int = 4096,
                 temperature: float | None = 0.0, timeout: float = 300.0, retries: int = DEFAULT_RETRIES,
                 backoff: float = INITIAL_BACKOFF, on_retry: Callable[[dict], None] | None = None,
                 prompt_cache: bool = True, max_tokens_field: str = "max_tokens", tool_choice: str = "auto",
                 seed: int | None = None):
        """temperature None: none sent (the server's default; OpenAI's reasoning models take
        no other); max_tokens_field: the OpenAI body's name for max_tokens; tool_choice:
        auto, required or none, sent whenever tools are; seed: the OpenAI body's seed (an
        arm's repeats: each attempt its own), none sent when None (Anthropic has none)."""
        if tool_choice not in TOOL_CHOICES:
            raise ValueError(f"tool_choice {tool_choice!r}; expected one of {', '.join(TOOL_CHOICES)}")
        if max_tokens_field not in MAX_TOKENS_FIELDS:
            raise ValueError(f"max_tokens_field {max_tokens_field!r}; expected one of {', '.join(MAX_TOKENS_FIELDS)}")
        self.model = model_name
        self.max_tokens_field, self.tool_choice = max_tokens_field, tool_choice
        self.max_tokens, self.temperature, self.prompt_cache = max_tokens, temperature, prompt_cache
        self.seed = seed
        self.transport = Transport(self.endpoint(model_url), self.auth_headers(api_key), timeout, retries, backoff,
                                   on_retry=on_retry)
        self.system = ""
        self.messages: list[dict] = []

    @property
    def url(self) -> str:
        return self.transport.url

    def endpoint(self, base: str) -> str:
        raise NotImplementedError

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        raise NotImplementedError

    def start(self, system: str, user: str) -> None:
        raise NotImplementedError

    def complete(self, tools: list[dict]) -> Reply:
        raise NotImplementedError

    def add_reply(self, reply: Reply) -> None:
        self.messages.append(reply.message)

    def add_tool_results(self, results: list[ToolResult]) -> None:
        raise NotImplementedError

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def transcript(self) -> dict:
        return {"api": self.api, "url": self.url, "model": self.model, "system": self.system,
                "messages": self.messages}


class OpenAIChat(Provider):
    api = "openai"

    def endpoint(self, base: str) -> str:
        base = base.rstrip("/")
        if base.endswith("/chat/completions"):
            return base
        if not urllib.parse.urlsplit(base).path:        # http://host:8000 -> its /v1
            base += "/v1"
        return base + "/chat/completions"

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def start(self, system: str, user: str) -> None:
        self.system = system
        self.messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def complete(self, tools: list[dict]) -> Reply:
        body: dict = {"model": self.model, "messages": self.messages, self.max_tokens_field: self.max_tokens}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.seed is not None:
            body["seed"] = self.seed
        if tools:
            # tool_choice always: without it llama.cpp's servers drop the tools unseen.
            body["tools"] = [{"type": "function", "function": t} for t in tools]
            body["tool_choice"] = self.tool_choice
        doc, seconds = self.transport.post(body)
        choices = doc.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ModelError(f"the model endpoint {self.url} answered without choices: {json.dumps(doc)[:300]}")
        choice = choices[0]
        msg = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        text = msg.get("content") if isinstance(msg.get("content"), str) else ""
        calls, wire_calls = [], []
        for n, tc in enumerate(msg.get("tool_calls") or []):
            fn = tc.get("function") if isinstance(tc, dict) and isinstance(tc.get("function"), dict) else {}
            call_id = str(tc.get("id") or f"call_{len(self.messages)}_{n}") if isinstance(tc, dict) else f"call_{n}"
            name = str(fn.get("name") or "")
            raw = fn.get("arguments")
            args, error = _parse_arguments(raw)
            calls.append(ToolCall(call_id, name, args, error, raw if isinstance(raw, str) else json.dumps(raw)))
            # Arguments that are not JSON go back as {}: some servers parse the history's
            # arguments and would refuse the whole request; the tool error tells the model.
            wire_calls.append({"id": call_id, "type": "function",
                               "function": {"name": name, "arguments": json.dumps(args) if args is not None else "{}"}})
        # "" and never null, even beside tool calls: llama.cpp's servers answer 500 to a null
        # or missing content, and OpenAI takes "".
        message: dict = {"role": "assistant", "content": text}
        if wire_calls:
            message["tool_calls"] = wire_calls
        usage = doc.get("usage")
        call = None
        if isinstance(usage, dict):
            details = usage.get("prompt_tokens_details")
            cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
            call = ModelCall(self.model, _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens")),
                             cached, round(seconds, 3))
        return Reply(text, calls, call, choice.get("finish_reason"), message)

    def add_tool_results(self, results: list[ToolResult]) -> None:
        for r in results:
            content = ("ERROR: " + r.content) if r.is_error else r.content
            self.messages.append({"role": "tool", "tool_call_id": r.call_id, "content": content})


class AnthropicMessages(Provider):
    api = "anthropic"

    def endpoint(self, base: str) -> str:
        base = base.rstrip("/")
        if base.endswith("/messages"):
            return base
        return base + ("/messages" if base.endswith("/v1") else "/v1/messages")

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    def start(self, system: str, user: str) -> None:
        self.system = system
        self.messages = [{"role": "user", "content": user}]

    def complete(self, tools: list[dict]) -> Reply:
        system: Any = self.system
        messages = self.messages
        if self.prompt_cache:
            # Two cache breakpoints: the system prompt (with the tools before it) and the
            # conversation so far; the provider bills cache reads far below fresh input.
            system = [{"type": "text", "text": self.system, "cache_control": {"type": "ephemeral"}}]
            messages = _with_cache_breakpoint(self.messages)
        body: dict = {"model": self.model, "max_tokens": self.max_tokens, "system": system, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if tools:
            body["tools"] = [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]}
                             for t in tools]
            if self.tool_choice != "auto":      # auto is the API's default
                body["tool_choice"] = {"type": ANTHROPIC_TOOL_CHOICE[self.tool_choice]}
        doc, seconds = self.transport.post(body)
        content = doc.get("content")
        if not isinstance(content, list):
            raise ModelError(f"the model endpoint {self.url} answered without content: {json.dumps(doc)[:300]}")
        blocks, texts, calls = [], [], []
        for n, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                if not block.get("text"):
                    continue                    # the API refuses empty text blocks in the history
                texts.append(str(block["text"]))
            elif block.get("type") == "tool_use":
                block = dict(block, id=str(block.get("id") or f"toolu_{len(self.messages)}_{n}"))
                inp = block.get("input")
                if isinstance(inp, dict):
                    calls.append(ToolCall(block["id"], str(block.get("name") or ""), inp, None, json.dumps(inp)))
                else:
                    calls.append(ToolCall(block["id"], str(block.get("name") or ""), None,
                                          "the tool input is not a JSON object", json.dumps(inp)))
                    block["input"] = {}
            blocks.append(block)
        if not blocks:
            blocks = [{"type": "text", "text": "(no answer)"}]
        usage = doc.get("usage")
        call = None
        if isinstance(usage, dict):
            read, created = _int(usage.get("cache_read_input_tokens")), _int(usage.get("cache_creation_input_tokens"))
            call = ModelCall(self.model, _int(usage.get("input_tokens")) + read + created,
                             _int(usage.get("output_tokens")), read, round(seconds, 3))
        return Reply("\n".join(texts), calls, call, doc.get("stop_reason"), {"role": "assistant", "content": blocks})

    def add_tool_results(self, results: list[ToolResult]) -> None:
        self.messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": r.call_id, "content": r.content,
             **({"is_error": True} if r.is_error else {})}
            for r in results]})


def _with_cache_breakpoint(messages: list[dict]) -> list[dict]:
    """A copy of the conversation whose last block carries cache_control (the stored
    history never does, so at most two breakpoints are ever sent)."""
    if not messages:
        return messages
    last = copy.deepcopy(messages[-1])
    if isinstance(last["content"], str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    if last["content"]:
        last["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return [*messages[:-1], last]


def _parse_arguments(raw: Any) -> tuple[dict | None, str | None]:
    if raw is None or raw == "":
        return {}, None
    if isinstance(raw, dict):
        return raw, None
    if not isinstance(raw, str):
        return None, f"the arguments are a {type(raw).__name__}, not a JSON object"
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return None, f"the arguments are not valid JSON ({exc}); they began: {raw[:200]!r}"
    if not isinstance(value, dict):
        return None, f"the arguments are JSON but not an object: {raw[:200]!r}"
    return value, None


def url_problem(url: str) -> str | None:
    """Why url cannot be a model server's base URL; None: it can."""
    parts = urllib.parse.urlsplit(url.strip())
    try:
        _ = parts.port                  # raises on a port that is not a number
    except ValueError as exc:
        return str(exc)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not an http(s) URL with a host"
    return None


PROVIDERS: dict[str, type[Provider]] = {"openai": OpenAIChat, "anthropic": AnthropicMessages}


def make_provider(api: str, model_url: str, model_name: str, api_key: str | None = None, **kw) -> Provider:
    try:
        cls = PROVIDERS[api]
    except KeyError:
        raise ValueError(f"unknown model api {api!r}; expected one of {', '.join(PROVIDERS)}") from None
    return cls(model_url, model_name, api_key, **kw)
