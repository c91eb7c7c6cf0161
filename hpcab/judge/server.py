"""The judge's HTTP layer: `hpcab serve` (docs/judge_api.md).

A standard-library threading HTTP server, JSON in and out. Per request, in this order:
the rank the client addressed (X-Hpcab-Rank; a mismatch is 421 and nothing is done), the
bearer token, the body (size limit, JSON, schema), then the judge (hpcab.judge.service).
Logs name the agent, never its token.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from hpcab.judge.service import ApiError, Judge, JudgeConfig

log = logging.getLogger("hpcab.judge")

RANK_HEADER = "X-Hpcab-Rank"
DEFAULT_MAX_BODY = 8 << 20          # a 4 MiB source, JSON-escaped, fits
DISCARD_LIMIT = 64 << 20            # an oversized body up to this is read and dropped before the 413
GET_ROUTES = ("health", "kernels", "task", "baseline", "grades")
POST_ROUTES = ("score", "submit")


class JudgeHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, address, judge: Judge, max_body: int = DEFAULT_MAX_BODY):
        self.judge, self.max_body = judge, max_body
        super().__init__(address, JudgeHandler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


class JudgeHandler(BaseHTTPRequestHandler):
    server: JudgeHTTPServer
    server_version = "hpcab-judge"
    sys_version = ""

    # ---- one request ------------------------------------------------------------------

    def _handle(self, method: str) -> None:
        started = time.monotonic()
        self._agent_name = "-"
        try:
            status, body, headers = 200, self._route(method), {}
        except ApiError as exc:
            status, headers = exc.status, exc.headers
            body = exc.body if exc.body is not None else {
                "error": {"status": exc.status, "message": exc.message, **({"field": exc.field} if exc.field else {})}}
        except Exception as exc:    # a judge bug: answer 500, keep serving
            log.exception("internal error on %s %s", method, self.path)
            status, headers = 500, {}
            body = {"error": {"status": 500, "message": f"internal judge error: {type(exc).__name__}: {exc}"}}
        self._reply(status, body, headers)
        extra = f" {body.get('status')}" if status == 200 and isinstance(body.get("status"), str) else ""
        log.info("rank=%s agent=%s %s %s %d%s %.3fs", self.server.judge.config.rank, self._agent_name, method,
                 urllib.parse.urlsplit(self.path).path, status, extra, time.monotonic() - started)

    def _route(self, method: str) -> dict:
        judge = self.server.judge
        url = urllib.parse.urlsplit(self.path)
        parts = [urllib.parse.unquote(p) for p in url.path.strip("/").split("/")]
        route, rest = parts[0], "/".join(parts[1:])
        if route not in GET_ROUTES + POST_ROUTES:
            raise ApiError(404, f"no such endpoint {url.path!r}; see docs/judge_api.md")
        expected = "POST" if route in POST_ROUTES else "GET"
        if method != expected:
            raise ApiError(405, f"{url.path} takes {expected}, not {method}", {"Allow": expected})
        self._check_rank(required=route != "health")
        if route == "health":
            return judge.health()
        agent = judge.tokens.agent(self.headers.get("Authorization"))
        if agent is None:
            raise ApiError(401, "a valid bearer token is required (Authorization: Bearer <token>)",
                           {"WWW-Authenticate": 'Bearer realm="hpcab-judge"'})
        self._agent_name = agent.name
        if route == "kernels":
            return judge.list_kernels()
        if route in ("task", "baseline", "grades") and not rest:
            raise ApiError(404, f"{url.path}: name the {'grade id' if route == 'grades' else 'kernel'} in the path")
        if route == "task":
            query = urllib.parse.parse_qs(url.query)
            return judge.task(rest, (query.get("language") or ["c"])[0], agent)
        if route == "baseline":
            return judge.baseline(rest)
        if route == "grades":
            return judge.grade(rest, agent)
        body = self._read_json()
        return judge.score(body, agent) if route == "score" else judge.submit(body, agent)

    def _check_rank(self, required: bool) -> None:
        sent = self.headers.get(RANK_HEADER)
        if sent is None:
            if required:
                raise ApiError(400, f"every request must carry the {RANK_HEADER} header: the rank of the judge "
                                    f"the client meant to address (worker w addresses judge w % J)")
            return
        try:
            rank = int(sent)
        except ValueError:
            raise ApiError(400, f"{RANK_HEADER}: expected an integer, got {sent!r}") from None
        mine = self.server.judge.config.rank
        if rank != mine:
            raise ApiError(421, f"this is judge rank {mine}, but the request was meant for rank {rank}; "
                                f"nothing was done")

    def _read_json(self):
        length = self.headers.get("Content-Length")
        if length is None:
            self.close_connection = True
            raise ApiError(411, "a POST needs a Content-Length header")
        try:
            n = int(length)
        except ValueError:
            self.close_connection = True
            raise ApiError(400, f"Content-Length: expected an integer, got {length!r}") from None
        if n < 0:
            self.close_connection = True
            raise ApiError(400, f"Content-Length: expected a byte count, got {n}")
        if n > self.server.max_body:
            self.close_connection = True
            self._discard(n)
            raise ApiError(413, f"the body is {n} bytes; at most {self.server.max_body} are accepted")
        raw = self.rfile.read(n)
        try:
            return json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise ApiError(400, "the body is not UTF-8") from None
        except json.JSONDecodeError as exc:
            raise ApiError(400, f"malformed JSON in the body: {exc.msg} at line {exc.lineno} column {exc.colno}") \
                from None

    def _discard(self, n: int) -> None:
        """Read and drop an oversized body (up to a bound), so the client, still sending,
        gets the 413 instead of a broken pipe."""
        left = min(n, DISCARD_LIMIT)
        while left > 0:
            chunk = self.rfile.read(min(left, 1 << 16))
            if not chunk:
                break
            left -= len(chunk)

    def _reply(self, status: int, body: dict, headers: dict[str, str]) -> None:
        data = (json.dumps(body) + "\n").encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass    # the client left; a submission's grade is in the database all the same

    def log_message(self, format: str, *args) -> None:
        pass        # one line per request is written by _handle, without headers

    def log_error(self, format: str, *args) -> None:
        log.warning("rank=%s %s", self.server.judge.config.rank, format % args)


# Every method goes through one handler, so any method a route does not take gets a JSON 405.
for _method in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"):
    setattr(JudgeHandler, f"do_{_method}", lambda self, _m=_method: self._handle(_m))


def serve(config: JudgeConfig, host: str = "127.0.0.1", port: int = 0, max_body: int = DEFAULT_MAX_BODY,
          url_file: Path | None = None, announce=print) -> int:
    """Run a judge until SIGTERM or SIGINT. url_file: written (atomically) once it is ready."""
    judge = Judge(config)
    server = JudgeHTTPServer((host, port), judge, max_body)
    recovered = judge.recover()
    stop = threading.Event()

    def shutdown(signum, _frame) -> None:
        if not stop.is_set():
            stop.set()
            log.info("rank=%s stopping (%s)", config.rank, signal.Signals(signum).name)
            threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    auth = "open (no tokens file: one anonymous agent, no budgets)" if judge.tokens.open else \
        f"bearer tokens for {len(judge.tokens.by_digest)} agent(s)"
    announce(f"hpcab judge rank {config.rank} serving {len(judge.kernels)} kernel(s) on {server.url}\n"
             f"  database {config.db}; {config.workers} grading worker(s); measurement slot(s) "
             f"{[list(s) for s in judge.slots.cpu_sets]}; queue {config.queue}; auth: {auth}"
             + (f"\n  recovered from the last run: {recovered['regraded']} submission(s) being graded again, "
                f"{recovered['interrupted']} marked interrupted" if any(recovered.values()) else ""))
    if url_file is not None:
        url_file = Path(url_file)
        tmp = url_file.with_name(url_file.name + ".tmp")
        tmp.write_text(server.url + "\n")
        tmp.replace(url_file)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        judge.close()
    return 0


def configure_logging(path: Path | None = None) -> None:
    handler = logging.FileHandler(path) if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    root = logging.getLogger("hpcab.judge")
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    root.propagate = False

