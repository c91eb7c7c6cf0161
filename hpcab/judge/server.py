"""The judge's HTTP layer: `hpcab serve` (docs/judge_api.md, "HTTP limits").

uvicorn (h11) serves an ASGI app, JSON in and out. Per request, in this order: the rank
the client addressed (X-Hpcab-Rank; a mismatch is 421 and nothing is done), the bearer
token, the body (Content-Length, size, a place in the queue, read under a deadline and a
cap on bytes being read at once, JSON with bounded nesting and no NaN), then the judge
(hpcab.judge.service), called in a bounded thread pool. /health is answered on the event
loop, so it answers while every grading thread is busy.

What uvicorn does not bound is bounded in GuardedH11: the time to send a request's
headers, and the number of open connections (the longest-waiting half-sent request is
dropped for a new one). Logs name the agent, never its token.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
import errno
import http
import json
import logging
import resource
import signal
import socket
import sys
import time
import urllib.parse
from pathlib import Path

import attrs
import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from hpcab.errors import HpcabError
from hpcab.judge.service import ApiError, Judge, JudgeConfig

log = logging.getLogger("hpcab.judge")

RANK_HEADER = "X-Hpcab-Rank"
DEFAULT_MAX_BODY = 8 << 20          # a 4 MiB source, JSON-escaped, fits
DISCARD_LIMIT = 64 << 20            # an oversized body up to this is read and dropped before the 413
MAX_HEADER_BYTES = 64 << 10         # request line and headers; beyond: 431 (400 while still arriving)
MAX_JSON_DEPTH = 64
DRAIN_SECONDS = 2.0                 # for the body of a request refused before it was read
READ_THREADS = 8                    # threads for reads beyond the queue's gradings
GET_ROUTES = ("health", "kernels", "task", "baseline", "grades", "skills")
POST_ROUTES = ("score", "submit", "compile", "profile")


@attrs.frozen
class HttpLimits:
    max_body: int = DEFAULT_MAX_BODY
    max_connections: int = 0            # 0: from the open-files limit (default_max_connections)
    header_seconds: float = 10.0        # request line and headers, from the first byte
    body_seconds: float = 60.0          # the whole body, from the end of the headers
    keep_alive_seconds: float = 5.0     # an idle connection between requests

    @property
    def body_bytes(self) -> int:
        """Bytes of bodies being read and parsed at once: two of the largest."""
        return 2 * self.max_body

    def connections(self) -> int:
        return self.max_connections or default_max_connections()


def default_max_connections() -> int:
    """What the open-files limit leaves after the judge's own files (database, pipes,
    workers, compilers): never so many that accept() runs out of descriptors."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 16
    return max(16, min(4096, soft - 160))


class ClientGone(Exception):
    """The client closed the connection before its request was read: nothing to answer."""


def error_body(status: int, message: str, field: str | None = None) -> dict:
    return {"error": {"status": status, "message": message, **({"field": field} if field else {})}}


def raw_response(status: int, message: str, headers: dict[str, str] | None = None) -> bytes:
    """A whole HTTP/1.1 error response, for answers written before (or without) a parsed
    request: always JSON, always closing the connection."""
    data = (json.dumps(error_body(status, message)) + "\n").encode()
    lines = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}", "Content-Type: application/json",
             f"Content-Length: {len(data)}", "Connection: close", *(f"{k}: {v}" for k, v in (headers or {}).items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


# ---- the connection layer ------------------------------------------------------------

class ConnectionGuard:
    """Open connections, and since when each has waited for a request's headers (None
    while its request is read, graded or answered). At the cap, a new connection replaces
    the one that has waited longest; with none waiting, it is refused."""

    def __init__(self, cap: int):
        self.cap = cap
        self.waiting_since: dict[GuardedH11, float | None] = {}

    def admit(self, conn: "GuardedH11") -> bool:
        if len(self.waiting_since) >= self.cap:
            waiting = [(t, id(c), c) for c, t in self.waiting_since.items() if t is not None]
            if not waiting:
                return False
            min(waiting)[2].drop(503, "the judge has too many open connections; this one waited longest "
                                      "for a request and was closed")
        self.waiting_since[conn] = time.monotonic()
        return True

    def set_waiting(self, conn: "GuardedH11", waiting: bool) -> None:
        if conn in self.waiting_since:
            self.waiting_since[conn] = time.monotonic() if waiting else None

    def discard(self, conn: "GuardedH11") -> None:
        self.waiting_since.pop(conn, None)


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline on a request's headers, the connection cap,
    and JSON for the errors it answers itself. `limits` and `guard` are set on a subclass
    per server (serve_app)."""

    limits: HttpLimits
    guard: ConnectionGuard

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        if not self.guard.admit(self):
            self.drop(503, "the judge has too many open connections, all busy; retry later", {"Retry-After": "1"})
            return
        self._arm_header_deadline()

    def connection_lost(self, exc) -> None:
        self.guard.discard(self)
        self._cancel_header_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE and self._header_timer is None and not self.transport.is_closing():
            self._arm_header_deadline()     # the first byte of a request that follows another
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:   # the request line and headers are in
            self._cancel_header_deadline()
            self.guard.set_waiting(self, False)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self.guard.set_waiting(self, True)      # idle: uvicorn's keep-alive timeout closes it

    def _arm_header_deadline(self) -> None:
        self._cancel_header_deadline()
        self._header_timer = self.loop.call_later(self.limits.header_seconds, self._header_timeout)

    def _cancel_header_deadline(self) -> None:
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _header_timeout(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE:
            self.drop(408, f"the request line and headers did not arrive within {self.limits.header_seconds:g} s")

    def drop(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        """Answer an error and close, outside any request cycle."""
        self.guard.discard(self)
        self._cancel_header_deadline()
        if not self.transport.is_closing():
            self.transport.write(raw_response(status, message, headers))
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        # h11 refused the request (malformed, or headers over MAX_HEADER_BYTES).
        self.drop(400, f"malformed HTTP request, or its headers exceed {MAX_HEADER_BYTES} bytes")


# ---- the application ---------------------------------------------------------------

class Request:
    """What one request's handling learns as it goes, for the reply and the log line."""

    def __init__(self, scope: dict):
        self.method: str = scope["method"]
        self.path: str = scope["path"]
        self.query = scope.get("query_string", b"").decode("latin-1")
        self.headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        self.header_bytes = len(scope.get("raw_path", b"")) + sum(len(k) + len(v) + 4 for k, v in scope["headers"])
        self.agent = "-"
        self.close = False
        self.body_left = "content-length" in self.headers or "transfer-encoding" in self.headers


class JudgeApp:
    """The ASGI application: routing, rank, auth, body limits, then the judge in a thread."""

    def __init__(self, judge: Judge, limits: HttpLimits):
        self.judge, self.limits = judge, limits
        # Every accepted grading holds a thread for its whole grading; reads get the rest.
        self.threads = cf.ThreadPoolExecutor(max_workers=judge.config.queue + READ_THREADS,
                                             thread_name_prefix="judge-call")
        self._body_bytes = 0
        self._body_freed: asyncio.Condition | None = None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":     # uvicorn runs with lifespan and websockets off
            return
        started = time.monotonic()
        req = Request(scope)
        try:
            if req.header_bytes > MAX_HEADER_BYTES:
                req.close = True
                raise ApiError(431, f"the request's line and headers are {req.header_bytes} bytes; at most "
                                    f"{MAX_HEADER_BYTES} are accepted")
            status, body, headers = 200, await self._route(req, receive), {}
        except ClientGone:
            return
        except ApiError as exc:
            status, headers = exc.status, dict(exc.headers)
            body = exc.body if exc.body is not None else error_body(exc.status, exc.message, exc.field)
        except Exception as exc:    # a judge bug: answer 500, keep serving
            log.exception("internal error on %s %s", req.method, req.path)
            status, headers = 500, {}
            body = error_body(500, f"internal judge error ({type(exc).__name__}); the operator's log has the details")
        # An answer given before the body was read (a refusal): the body is drained for a
        # moment, so a client still sending reads the answer instead of a reset; a body that
        # does not come in that moment closes the connection.
        if req.body_left and not req.close and not await self._discard(req, receive, DISCARD_LIMIT,
                                                                       min(DRAIN_SECONDS, self.limits.body_seconds)):
            req.close = True
        await self._reply(send, status, body, headers, req.close)
        extra = f" {body.get('status')}" if status == 200 and isinstance(body.get("status"), str) else ""
        log.info("rank=%s agent=%s %s %s %d%s %.3fs", self.judge.config.rank, req.agent, req.method,
                 req.path, status, extra, time.monotonic() - started)

    async def _route(self, req: Request, receive) -> dict:
        judge = self.judge
        parts = req.path.strip("/").split("/")
        route, rest = parts[0], "/".join(parts[1:])
        if route not in GET_ROUTES + POST_ROUTES:
            raise ApiError(404, f"no such endpoint {req.path[:200]!r}; see docs/judge_api.md")
        expected = "POST" if route in POST_ROUTES else "GET"
        if req.method != expected:
            raise ApiError(405, f"{req.path[:200]} takes {expected}, not {req.method[:20]}", {"Allow": expected})
        self._check_rank(req, required=route != "health")
        if route == "health":
            return judge.health()
        agent = judge.tokens.agent(req.headers.get("authorization"))
        if agent is None:
            raise ApiError(401, "a valid bearer token is required (Authorization: Bearer <token>)",
                           {"WWW-Authenticate": 'Bearer realm="hpcab-judge"'})
        req.agent = agent.name
        if route == "kernels":
            return await self._call(judge.list_kernels)
        if route == "skills":
            return await self._call(judge.skills, urllib.parse.unquote(rest))
        if route in ("task", "baseline", "grades") and not rest:
            raise ApiError(404, f"{req.path}: name the {'grade id' if route == 'grades' else 'kernel'} in the path")
        if route == "task":
            query = urllib.parse.parse_qs(req.query)
            return await self._call(judge.task, rest, (query.get("language") or ["c"])[0], agent)
        if route == "baseline":
            return await self._call(judge.baseline, rest)
        if route == "grades":
            return await self._call(judge.grade, rest, agent)
        body = await self._read_json(req, receive)
        handlers = {"score": judge.score, "submit": judge.submit, "compile": judge.compile, "profile": judge.profile}
        return await self._call(handlers[route], body, agent)

    def _check_rank(self, req: Request, required: bool) -> None:
        sent = req.headers.get(RANK_HEADER.lower())
        if sent is None:
            if required:
                raise ApiError(400, f"every request must carry the {RANK_HEADER} header: the rank of the judge "
                                    f"the client meant to address (worker w addresses judge w % J)")
            return
        try:
            rank = int(sent)
        except ValueError:
            raise ApiError(400, f"{RANK_HEADER}: expected an integer, got {sent[:40]!r}") from None
        mine = self.judge.config.rank
        if rank != mine:
            raise ApiError(421, f"this is judge rank {mine}, but the request was meant for rank {rank}; "
                                f"nothing was done")

    async def _call(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.threads, fn, *args)

    # ---- bodies ---------------------------------------------------------------------

    async def _read_json(self, req: Request, receive):
        length = req.headers.get("content-length")
        if length is None or "transfer-encoding" in req.headers:
            req.close = True
            raise ApiError(411, "a POST needs a Content-Length header (chunked bodies are not accepted)")
        try:
            n = int(length)
        except ValueError:
            req.close = True
            raise ApiError(400, f"Content-Length: expected an integer, got {length[:40]!r}") from None
        if n > self.limits.max_body:
            req.close = not await self._discard(req, receive, DISCARD_LIMIT, self.limits.body_seconds)
            raise ApiError(413, f"the body is {n} bytes; at most {self.limits.max_body} are accepted")
        self.judge.refuse_if_full()     # before the body costs memory
        async with self._body_budget(n):
            raw = await self._read_body(req, receive, n)
            return await self._call(parse_json, raw)

    async def _read_body(self, req: Request, receive, n: int) -> bytes:
        chunks, deadline = [], asyncio.get_running_loop().time() + self.limits.body_seconds
        while True:
            message = await self._receive(req, receive, deadline)
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                req.body_left = False
                return b"".join(chunks)

    async def _receive(self, req: Request, receive, deadline: float) -> dict:
        try:
            async with asyncio.timeout_at(deadline):
                message = await receive()
        except TimeoutError:
            req.close = True
            raise ApiError(408, f"the body did not arrive within {self.limits.body_seconds:g} s") from None
        if message["type"] == "http.disconnect":
            raise ClientGone()
        return message

    async def _discard(self, req: Request, receive, limit: int, seconds: float) -> bool:
        """Read and drop a body the judge will not use (up to limit bytes and seconds), so a
        client still sending gets the answer instead of a broken pipe. False if it could not
        be drained."""
        deadline, got = asyncio.get_running_loop().time() + seconds, 0
        try:
            while req.body_left:
                message = await self._receive(req, receive, deadline)
                got += len(message.get("body", b""))
                req.body_left = message.get("more_body", False)
                if got > limit:
                    return False
        except (ApiError, ClientGone):
            return False
        return True

    @contextlib.asynccontextmanager
    async def _body_budget(self, n: int):
        """Hold n of the bytes of bodies being read and parsed at once (HttpLimits.body_bytes);
        a body larger than the whole budget waits until it is alone."""
        if self._body_freed is None:
            self._body_freed = asyncio.Condition()
        freed, cap = self._body_freed, self.limits.body_bytes
        async with freed:
            try:
                await asyncio.wait_for(freed.wait_for(lambda: self._body_bytes == 0 or self._body_bytes + n <= cap),
                                       self.limits.body_seconds)
            except TimeoutError:
                raise ApiError(503, "the judge is reading too many request bodies at once; retry later",
                               {"Retry-After": "2"}) from None
            self._body_bytes += n
        try:
            yield
        finally:
            async with freed:
                self._body_bytes -= n
                freed.notify_all()

    async def _reply(self, send, status: int, body: dict, headers: dict[str, str], close: bool) -> None:
        data = (json.dumps(body) + "\n").encode()
        out = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
        out += [(k.lower().encode(), str(v).encode()) for k, v in headers.items()]
        if close:
            out.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": out})
        await send({"type": "http.response.body", "body": data})


def parse_json(raw: bytes):
    """A request body as JSON: UTF-8, no NaN or Infinity, nested at most MAX_JSON_DEPTH."""
    def no_constant(name: str):
        raise ApiError(400, f"malformed JSON in the body: {name} is not a JSON number")
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=no_constant)
    except UnicodeDecodeError:
        raise ApiError(400, "the body is not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise ApiError(400, f"malformed JSON in the body: {exc.msg} at line {exc.lineno} column {exc.colno}") \
            from None
    except RecursionError:
        value = None
    except ValueError as exc:   # an integer of more than 4,300 digits
        raise ApiError(400, f"malformed JSON in the body: {str(exc).split(':')[0]}") from None
    if value is None or _depth(value) > MAX_JSON_DEPTH:
        raise ApiError(400, f"the body's JSON is nested more than {MAX_JSON_DEPTH} deep")
    return value


def _depth(value) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


# ---- serving ------------------------------------------------------------------------

def listen(host: str, port: int) -> socket.socket:
    """The listening socket; a busy port or a bad address is one line, not a traceback."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise HpcabError(f"cannot serve on {host}:{port}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    # With its protocol number, asyncio sets TCP_NODELAY on every accepted connection;
    # without it a kept-alive connection's answers wait ~40 ms for Nagle's algorithm.
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise HpcabError(f"cannot serve on {host}:{port}: the port is in use (another judge? "
                             f"--port 0 picks a free one)") from None
        raise HpcabError(f"cannot serve on {host}:{port}: {exc.strerror}") from None
    sock.listen(1024)
    sock.setblocking(False)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class JudgeServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, judge: Judge):
        super().__init__(config)
        self.judge = judge

    def handle_exit(self, sig, frame) -> None:
        if not self.should_exit:
            log.info("rank=%s stopping (%s)", self.judge.config.rank, signal_name(sig))
        self.judge.stop_accepting()     # new gradings 503, queued ones back to the queue
        super().handle_exit(sig, frame)
        # uvicorn raises the signal again once it has stopped, which would kill the judge
        # before close() has put what was queued back in the database.
        self._captured_signals.clear()


def signal_name(sig) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


def serve(config: JudgeConfig, host: str = "127.0.0.1", port: int = 0, limits: HttpLimits = HttpLimits(),
          url_file: Path | None = None, announce=print) -> int:
    """Run a judge until SIGTERM or SIGINT. url_file: written (atomically) once it listens."""
    sock = listen(host, port)
    judge = Judge(config)
    recovered = judge.recover()
    app = JudgeApp(judge, limits)
    protocol = type("JudgeH11", (GuardedH11,), {"limits": limits, "guard": ConnectionGuard(limits.connections())})
    server = JudgeServer(uvicorn.Config(
        app, http=protocol, ws="none", lifespan="off", loop="asyncio", log_config=None, access_log=False,
        timeout_keep_alive=limits.keep_alive_seconds, h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        server_header=False, timeout_graceful_shutdown=600), judge)     # docs/judge_api.md, "Stopping"
    url = url_of(sock)
    auth = "open (no tokens file: one anonymous agent, no budgets)" if judge.tokens.open else \
        f"bearer tokens for {len(judge.tokens.by_digest)} agent(s)"
    announce(f"hpcab judge rank {config.rank} serving {len(judge.kernels)} kernel(s) on {url}\n"
             f"  database {config.db}; {config.workers} grading worker(s); measurement slot(s) "
             f"{[list(s) for s in judge.slots.cpu_sets]}; queue {config.queue}; auth: {auth}\n"
             f"  HTTP: bodies up to {limits.max_body} bytes, {limits.connections()} connections, headers within "
             f"{limits.header_seconds:g} s, bodies within {limits.body_seconds:g} s"
             + (f"\n  recovered from the last run: {recovered['regraded']} submission(s) being graded again, "
                f"{recovered['interrupted']} marked interrupted, {recovered['scores_forgotten']} unfinished "
                f"score(s) forgotten (not charged)" if any(recovered.values()) else ""))
    if url_file is not None:
        url_file = Path(url_file)
        tmp = url_file.with_name(url_file.name + ".tmp")
        tmp.write_text(url + "\n")
        tmp.replace(url_file)
    try:
        server.run(sockets=[sock])
    finally:
        judge.stop_accepting()
        judge.close()
        app.threads.shutdown(wait=False, cancel_futures=True)
    return 0


def configure_logging(path: Path | None = None) -> None:
    handler = logging.FileHandler(path) if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    for name in ("hpcab.judge", "uvicorn.error"):
        root = logging.getLogger(name)
        root.handlers[:] = [handler]
        root.setLevel(logging.INFO if name == "hpcab.judge" else logging.WARNING)
        root.propagate = False
