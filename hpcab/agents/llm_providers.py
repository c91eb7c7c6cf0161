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

Transport: 429, 5xx, connection resets and timeouts are retried with exponential backoff
and jitter (a Retry-After header is honoured), at most `retries` times; any other 4xx, a
refused connection before the endpoint has ever answered, or the retries spent raise
ModelError naming the URL. Usage is mapped to hpcab.agents.base.ModelCall as
docs/token_accounting.md says.
"""

from __future__ import annotations

import copy
import email.utils
import http.client
import json
import logging
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
MAX_RETRY_AFTER = 300.0         # a Retry-After longer than this is cut to it


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
    retries: int = 5
    backoff: float = 1.0            # the first retry's delay (s) without Retry-After; doubles
    max_backoff: float = 60.0
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
            delay: float | None = None
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    raw = resp.read()
                self.answered = True
                return _decode(self.url, raw), time.monotonic() - started
            except urllib.error.HTTPError as exc:
                self.answered = True
                message = _error_message(exc)
                if exc.code != 429 and exc.code < 500:
                    raise ModelError(f"the model endpoint {self.url} answered HTTP {exc.code}: {message}") from None
                what = f"HTTP {exc.code}: {message}"
                delay = _retry_after(exc.headers.get("Retry-After"))
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
            if delay is None:
                delay = min(self.max_backoff, self.backoff * 2 ** (attempt - 1)) * random.uniform(0.5, 1.5)
            log.warning("model endpoint %s: %s; retry %d/%d in %.1f s", self.url, what, attempt, self.retries, delay)
            if self.on_retry:
                self.on_retry({"event": "model_retry", "url": self.url, "attempt": attempt, "error": what,
                               "delay": round(delay, 3)})
            self.sleep(delay)


def _decode(url: str, raw: bytes) -> dict:
    try:
        doc = json.loads(raw)
    except ValueError:
        raise ModelError(f"the model endpoint {url} answered something that is not JSON: {raw[:200]!r}") from None
    if not isinstance(doc, dict):
        raise ModelError(f"the model endpoint {url} answered JSON that is not an object: {raw[:200]!r}")
    return doc


def _error_message(exc: urllib.error.HTTPError) -> str:
    try:
        raw = exc.read()
    except OSError:
        raw = b""
    try:
        doc = json.loads(raw)
        err = doc.get("error", doc) if isinstance(doc, dict) else doc
        if isinstance(err, dict):
            return str(err.get("message") or err)[:2000]
        return str(err)[:2000]
    except ValueError:
        return raw.decode(errors="replace").strip()[:2000] or str(exc.reason)


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


# ---- providers -------------------------------------------------------------------------

class Provider:
    """One conversation with one model over one API."""
    api = "?"

    def __init__(self, model_url: str, model_name: str, api_key: str | None = None, *, max_tokens: int = 4096,
                 temperature: float = 0.0, timeout: float = 300.0, retries: int = 5, backoff: float = 1.0,
                 on_retry: Callable[[dict], None] | None = None, prompt_cache: bool = True,
                 max_tokens_field: str = "max_tokens"):
        self.model = model_name
        self.max_tokens_field = max_tokens_field
        self.max_tokens, self.temperature, self.prompt_cache = max_tokens, temperature, prompt_cache
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
        body = {"model": self.model, "messages": self.messages, self.max_tokens_field: self.max_tokens,
                "temperature": self.temperature,
                "tools": [{"type": "function", "function": t} for t in tools]}
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
        message: dict = {"role": "assistant", "content": text or (None if wire_calls else "")}
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
        body = {"model": self.model, "max_tokens": self.max_tokens, "temperature": self.temperature,
                "system": system, "messages": messages,
                "tools": [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]}
                          for t in tools]}
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


PROVIDERS: dict[str, type[Provider]] = {"openai": OpenAIChat, "anthropic": AnthropicMessages}


def make_provider(api: str, model_url: str, model_name: str, api_key: str | None = None, **kw) -> Provider:
    try:
        cls = PROVIDERS[api]
    except KeyError:
        raise ValueError(f"unknown model api {api!r}; expected one of {', '.join(PROVIDERS)}") from None
    return cls(model_url, model_name, api_key, **kw)
