"""The judge under hostile traffic: figures, not a pass/fail test (tests/test_judge_hostile.py
asserts what must hold; this prints how it went). Every part starts its own `hpcab serve`
on loopback in a temporary folder (its database, tokens file, log, build cache and
measurement-slot folder) and stops it at the end, Ctrl-C included.

    fuzz    ~2,500 hostile requests (seeded, so a run repeats) over raw sockets against a
            judge with a tokens file: malformed request lines and headers, unknown methods,
            bad, huge and negative Content-Length, chunked and truncated bodies, JSON nested
            1,000 deep, NaN and Infinity, huge integers in `usage`, lone surrogates, wrong
            types for every field, very long strings, bad tokens, wrong X-Hpcab-Rank, path
            traversal and query junk. Counts the answers by status class, the 5xx answers,
            the answers that are not JSON, the requests that got no answer at all, and the
            judge's log lines with "Traceback" or "internal error"; then asks /health and
            the queue depth it reports. Nothing it sends is a gradable submission but a few
            junk sources and #error bodies, which reach the compiler (200 build_error).
            (goals: no 5xx, every answer JSON, every request answered, a clean log, an
            empty queue after)
    held    a judge under `ulimit -n 1024` (prlimit) with --header-timeout 300: 1,000
            connections each holding a half-sent request, then 50 GET /health, one after
            another on new connections: the first one's latency, the median, the max and
            the failures (goal: all answer, the first within 1 s)
    memory  8 concurrent POST /score with 8 MiB bodies (valid JSON whose source is longer
            than the schema allows), then 8 bodies just over --max-body: the judge's peak
            memory (VmHWM) before and after (goal: under 300 MB) and the statuses
    soak    --minutes M (10) with --clients N (32) threads looping GET /task, POST /score
            and POST /submit (gemm at preset S, examples/gemm.c) through JudgeClient against
            a judge with --workers 2, while a monitor asks /health every 0.5 s; the judge is
            killed with SIGKILL at 1/3 and 2/3 of the time and restarted at once on the same
            database, port and tokens file. At the end the database (read with sqlite3)
            must show every answered submission graded, none lost, none charged twice
            (submissions and scores per agent), no client errors, and /health latency
            (p95, max) outside the seconds around the kills (from 1 s before a kill to 2 s
            after the restarted judge first answers /health), and over the whole run.
    all     fuzz, held, memory and a soak of --minutes 2

Run:  .venv/bin/python benchmarks/judge_hostile.py fuzz [--requests 2500] [--seed 1]
      .venv/bin/python benchmarks/judge_hostile.py held [--connections 1000]
      .venv/bin/python benchmarks/judge_hostile.py memory
      .venv/bin/python benchmarks/judge_hostile.py soak [--minutes 10] [--clients 32]
      .venv/bin/python benchmarks/judge_hostile.py all [--clients 32]

--keep keeps the temporary folder (databases, logs, tokens) and prints where it is.
Every figure line names its goal; a missed goal is marked MISSED. The exit status is 0
either way (timing on a loaded machine is noisy); a request the judge answered with a 5xx,
or not with JSON, or not at all, is printed with the answer, for the server's engineer.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hpcab.client import JudgeClient, JudgeError  # noqa: E402
from hpcab.judge.tokens import issue_tokens  # noqa: E402

PY = sys.executable
GEMM_C = ROOT / "examples" / "gemm.c"       # correct and fast (tests/test_judge_api.py grades it too)


# ---- figures ---------------------------------------------------------------------------

def missed(ok: bool) -> str:
    return "" if ok else "   MISSED"


def n(x: int) -> str:
    return f"{x:,}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.1f} ms"


def shown(data: bytes, limit: int = 300) -> str:
    """A request or an answer, quoted for a report: its first bytes and its length."""
    text = repr(data[:limit])
    return text + (f" … ({n(len(data))} bytes)" if len(data) > limit else "")


# ---- judges ----------------------------------------------------------------------------

class Judge:
    """An `hpcab serve` child in folder, in a session of its own (so Ctrl-C reaches only
    this script, which then stops it). Restartable with the same arguments."""

    running: list["Judge"] = []

    def __init__(self, folder: Path, name: str, *args: str, port: int = 0, nofile: int | None = None):
        self.folder, self.name = folder, name
        self.db, self.url_file = folder / f"{name}.db", folder / f"{name}.url"
        self.log, self.out = folder / f"{name}.log", folder / f"{name}.out"
        argv = [PY, "-m", "hpcab", "serve", "--db", str(self.db), "--port", str(port),
                "--url-file", str(self.url_file), "--log", str(self.log), *args]
        if nofile is not None:
            argv = ["prlimit", f"--nofile={nofile}:{nofile}", "--", *argv]
        self.argv = argv
        self.env = dict(os.environ, HPCAB_SLOT_DIR=str(folder / "slots"), HPCAB_CACHE=str(folder / "cache"))
        self.env.pop("HPCAB_TOKEN", None)     # an agent's token in this shell is not the judge's
        self.proc: subprocess.Popen | None = None
        self.url = ""

    @property
    def pid(self) -> int:
        return self.proc.pid

    def start(self, timeout: float = 120, retry_for: float = 0) -> "Judge":
        """Start it and wait for its URL file. retry_for: keep trying that long when it exits
        at once (its port or its rank's lock still held by the process just killed)."""
        deadline, retry_until = time.monotonic() + timeout, time.monotonic() + retry_for
        while True:
            self.url_file.unlink(missing_ok=True)
            with open(self.out, "ab") as out:
                self.proc = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT, env=self.env,
                                             cwd=ROOT, start_new_session=True)
            Judge.running.append(self)
            while not self.url_file.exists():
                if self.proc.poll() is not None:
                    break
                if time.monotonic() > deadline:
                    self.stop()
                    raise SystemExit(f"the judge did not start within {timeout:g} s: see {self.out}")
                time.sleep(0.05)
            if self.url_file.exists():
                self.url = self.url_file.read_text().strip()
                return self
            Judge.running.remove(self)
            if time.monotonic() > retry_until:
                raise SystemExit(f"the judge did not start:\n{self.out.read_text()[-2000:]}")
            time.sleep(0.25)

    def kill9(self) -> None:
        """SIGKILL the judge's process only: its workers notice and exit on their own."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        if self in Judge.running:
            Judge.running.remove(self)

    def stop(self, grace: float = 30) -> None:
        """SIGTERM, then SIGKILL after grace seconds (the judge and what is left in its session)."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        try:
            os.killpg(proc.pid, signal.SIGKILL)     # its session: workers, drivers, compilers
        except (ProcessLookupError, PermissionError):
            pass
        if self in Judge.running:
            Judge.running.remove(self)

    def peak_mb(self) -> float:
        return _status_kib(self.pid, "VmHWM") * 1024 / 1e6

    def rss_mb(self) -> float:
        return _status_kib(self.pid, "VmRSS") * 1024 / 1e6

    def log_problems(self) -> list[str]:
        """The judge's log and output lines with a traceback or an internal error."""
        out = []
        for path in (self.log, self.out):
            if path.exists():
                out += [line for line in path.read_text(errors="replace").splitlines()
                        if "Traceback" in line or "internal error" in line]
        return out

    def log_exceptions(self) -> collections.Counter:
        """Each logged traceback, as its first log line (without the time) and its last line
        (the exception), counted."""
        found: collections.Counter = collections.Counter()
        for path in (self.log, self.out):
            if not path.exists():
                continue
            lines = path.read_text(errors="replace").splitlines()
            for i, line in enumerate(lines):
                if not line.startswith("Traceback"):
                    continue
                j = i + 1
                while j < len(lines) and not re.match(r"\d{4}-\d\d-\d\d ", lines[j]):
                    j += 1
                head = re.sub(r"^\S+ \S+ ", "", lines[i - 1]) if i else ""
                found[f"{head} -> {lines[j - 1].strip()[:240]}"] += 1
        return found

    def addr(self) -> tuple[str, int]:
        host, port = self.url.split("//", 1)[1].rsplit(":", 1)
        return host.strip("[]"), int(port)


def stop_all(grace: float = 30) -> None:
    for judge in list(Judge.running):
        judge.stop(grace)


def _status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def health(url: str, timeout: float = 10) -> tuple[bool, float, str]:
    """GET /health on a fresh connection: (answered ok, seconds, why not)."""
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url + "/health", timeout=timeout) as resp:
            ok = json.loads(resp.read()).get("status") == "ok"
            return ok, time.monotonic() - started, "" if ok else "status not ok"
    except Exception as exc:        # refused, reset, timeout, an error status
        return False, time.monotonic() - started, f"{type(exc).__name__}: {exc}"


def raise_nofile(needed: int) -> tuple[int, int] | None:
    """Raise this process's open-files soft limit to at least needed; the old limits, or
    None when the hard limit is lower."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        return None
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    return soft, hard


# ---- raw HTTP --------------------------------------------------------------------------

def http(method: str | bytes, target: str | bytes, headers=(), body: bytes = b"",
         version: bytes = b"HTTP/1.1", length: bool | str | bytes = True, host: bool = True) -> bytes:
    """One request as bytes. length: True for the body's Content-Length (on a POST or when
    there is a body), False for none, or the header's text."""
    b = lambda s: s if isinstance(s, bytes) else s.encode("latin-1")   
    lines = [b(method) + b" " + b(target) + b" " + version]
    if host:
        lines.append(b"Host: judge")
    lines += [b(k) + b": " + b(v) for k, v in headers]
    if length is True and (body or b(method) == b"POST"):
        lines.append(b"Content-Length: %d" % len(body))
    elif not isinstance(length, bool):
        lines.append(b"Content-Length: " + b(length))
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def read_answer(sock: socket.socket, timeout: float) -> tuple[bytes, str]:
    """What the judge sends until a whole final answer (past any 1xx) is in, it closes, or
    the timeout: (bytes, how it ended: complete | closed | reset | timeout)."""
    sock.settimeout(timeout)
    deadline, out = time.monotonic() + timeout, b""
    try:
        while True:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            if not chunk:
                return out, "closed"
            out += chunk
            if answer_complete(out):
                return out, "complete"
            if time.monotonic() > deadline:
                return out, "timeout"
    except socket.timeout:
        return out, "timeout"
    except (ConnectionResetError, BrokenPipeError):
        return out, "reset"


def final_answer(answer: bytes) -> bytes:
    """The answer without interim 1xx responses (100 Continue)."""
    while re.match(rb"HTTP/1\.[01] 1\d\d ", answer) and b"\r\n\r\n" in answer:
        answer = answer.split(b"\r\n\r\n", 1)[1]
    return answer


def answer_complete(answer: bytes) -> bool:
    answer = final_answer(answer)
    if re.match(rb"HTTP/1\.[01] 1\d\d ", answer) or b"\r\n\r\n" not in answer:
        return False
    head, _, body = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                return len(body) >= int(value)
            except ValueError:
                return False
    return False


def parse_answer(answer: bytes, head_request: bool = False) -> tuple[int | None, bool]:
    """(status, is JSON) of the final answer; status None when it is not an HTTP answer."""
    answer = final_answer(answer)
    m = re.match(rb"HTTP/1\.[01] (\d{3})[ \r]", answer)
    if not m:
        return None, False
    head, _, body = answer.partition(b"\r\n\r\n")
    if head_request:
        return int(m.group(1)), True        # an answer to HEAD has no body, by HTTP
    length = None
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    if b"application/json" not in head.lower() or length is None or len(body) < length:
        return int(m.group(1)), False
    try:
        json.loads(body[:length])
        return int(m.group(1)), True
    except ValueError:
        return int(m.group(1)), False


def exchange(addr, data: bytes, timeout: float) -> tuple[bytes, str]:
    """Send one request on a new connection (never half-closing it, so a short body is an
    unfinished body, not a gone client) and read the answer."""
    try:
        sock = socket.create_connection(addr, timeout=10)
    except OSError as exc:
        return b"", f"connect failed: {exc}"
    try:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass        # the judge answered and closed before it all went: read that answer
        except socket.timeout:
            pass
        return read_answer(sock, timeout)
    finally:
        sock.close()


def in_threads(fn, items, threads: int) -> list:
    """fn over items, threads at once, in order; on Ctrl-C the ones not started are dropped."""
    pool = cf.ThreadPoolExecutor(threads)
    try:
        return list(pool.map(fn, items))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


# ---- fuzz ------------------------------------------------------------------------------

class Hostile:
    __slots__ = ("kind", "what", "data", "wait", "head")

    def __init__(self, kind: str, what: str, data: bytes, wait: float = 0, head: bool = False):
        self.kind, self.what, self.data, self.wait, self.head = kind, what, data, wait, head


def jdump(obj) -> bytes:
    return json.dumps(obj).encode()


def nested(depth: int, kind: str = "list") -> bytes:
    if kind == "list":
        return b"[" * depth + b"]" * depth
    if kind == "dict":
        return b'{"a":' * depth + b"1" + b"}" * depth
    return b'[{"a":' * (depth // 2) + b"1" + b"}]" * (depth // 2)


class FuzzPlan:
    """The hostile requests, from a seeded random.Random: the same seed, the same requests."""

    ROUTES = ["/health", "/kernels", "/task/gemm", "/task/gemm?language=c", "/baseline/nope", "/grades/abc",
              "/score", "/submit", "/", "/nope", "*"]
    # Nothing here is accepted for grading: at worst it reaches the compiler with #error.
    BASE = {"kernel": "gemm", "language": "c", "source": "#error hostile fuzz\n"}
    USAGE_CALL = {"model": "m", "prompt_tokens": 1, "completion_tokens": 1, "cached_tokens": 0, "seconds": 0.5}

    def __init__(self, seed: int, token: str, other_token: str):
        self.rng = random.Random(seed)
        self.token, self.other = token, other_token
        self.out: list[Hostile] = []

    def auth(self, rank: str = "0", token: str | None = None, ctype: bool = True) -> list[tuple[str, str]]:
        h = [("X-Hpcab-Rank", rank), ("Authorization", f"Bearer {token or self.token}")]
        return h + ([("Content-Type", "application/json")] if ctype else [])

    def add(self, kind: str, what: str, data: bytes, **kw) -> None:
        self.out.append(Hostile(kind, what, data, **kw))

    def post(self, kind: str, what: str, body: bytes, path: str = "/score", headers=None, **kw) -> None:
        self.add(kind, what, http("POST", path, headers if headers is not None else self.auth(), body), **kw)

    # -- the deterministic part

    def malformed_lines(self) -> None:
        fixed = [b"", b"\r\n\r\n", b"\r\n" * 200, b"GET\r\n\r\n", b"GET /health\r\n\r\n", b"GET /health HTTP/9.9\r\n\r\n",
                 b"GET /health HTTP/1.1\r\n\r\n",                  # HTTP/1.1 without Host
                 b"GET /health HTTP/1.0\r\n\r\n", b"GET /health HTTP/0.9\r\n\r\n", b"GET /health HTTP/2\r\n\r\n",
                 b"GET  /health  HTTP/1.1\r\nHost: x\r\n\r\n", b"GET\t/health\tHTTP/1.1\r\nHost: x\r\n\r\n",
                 b"GET /health HTTP/1.1\nHost: x\n\n", b"GET /health HTTP/1.1\rHost: x\r\r",
                 b"get /health http/1.1\r\nHost: x\r\n\r\n", b" GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
                 b"GET /hea lth HTTP/1.1\r\nHost: x\r\n\r\n", b"GET /health\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
                 b"GET /health HTTP/1.1\r\nHost x\r\n\r\n", b"GET /health HTTP/1.1\r\nHost : x\r\n\r\n",
                 b"GET /health HTTP/1.1\r\n: x\r\nHost: x\r\n\r\n", b"GET /health HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
                 b"GET /health HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n", b"GET /health HTTP/1.1\r\nHost: x\r\nX: \xff\xfe\r\n\r\n",
                 b"GET /health HTTP/1.1\r\nHost: x\r\nX\xff: 1\r\n\r\n", b"GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
                 b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(32),      # a TLS ClientHello
                 b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",                                 # the HTTP/2 preface
                 b"GET /health HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n",
                 b"GET /health HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                 b"GET /health HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n",
                 b"GET /" + b"a" * (70 << 10) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
                 b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * (70 << 10) + b"\r\n\r\n",
                 b"GET /health HTTP/1.1\r\nHost: x\r\n" + b"X-Many: 1\r\n" * 5000 + b"\r\n",
                 b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\nGARBAGE AFTER\r\n\r\n",
                 b"GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n",
                 b"GET http://evil.example/health HTTP/1.1\r\nHost: x\r\n\r\n",
                 b"GET health HTTP/1.1\r\nHost: x\r\n\r\n", b"GET ../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"]
        for i, data in enumerate(fixed):
            self.add("malformed", f"fixed #{i}", data)
        valid = http("GET", "/health", [("X-Hpcab-Rank", "0")])
        for i in range(120):
            data = bytearray(valid)
            for _ in range(self.rng.randint(1, 4)):
                op, at = self.rng.randrange(3), self.rng.randrange(len(data))
                junk = bytes([self.rng.choice(b"\r\n\x00 \t:%\xff/?#" + bytes(range(32, 127)))])
                if op == 0:
                    data[at:at + 1] = junk
                elif op == 1:
                    data[at:at] = junk
                else:
                    del data[at]
            self.add("malformed", f"mutated GET /health #{i}", bytes(data))
        for i in range(40):
            self.add("malformed", f"random bytes #{i}", self.rng.randbytes(self.rng.randint(1, 300)) + b"\r\n\r\n")

    def methods(self) -> None:
        methods = ["TRACE", "CONNECT", "BREW", "PROPFIND", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD", "MKCOL",
                   "LOCK", "M-SEARCH", "get", "GeT", "X" * 200, "POST\x01", "G\xe9T"]
        for m in methods:
            for path in ["/health", "/score", "/submit", "/task/gemm", "/kernels", "/grades/x", "/nope", "*"]:
                body = b"{}" if m in ("PUT", "PATCH", "BREW") else b""
                self.add("method", f"{m[:20]} {path}", http(m, path, self.auth(), body), head=m == "HEAD")
        self.add("method", "CONNECT authority-form", b"CONNECT judge:443 HTTP/1.1\r\nHost: judge:443\r\n\r\n")
        self.add("method", "PROPFIND with XML", http("PROPFIND", "/", [("Depth", "infinity")], b"<?xml version='1.0'?>"))

    def content_lengths(self) -> None:
        bad = ["abc", "", " ", "-1", "-0", "+5", "1.5", "1e3", "0x10", " 2 ", "2,2", "2, 3", "9" * 30, str(2 ** 63),
               str(2 ** 64), "-" + "9" * 30, "9" * 5000, "\u0662".encode().decode("latin-1"), "2\x00"]
        for path in ("/score", "/submit", "/health"):
            for v in bad:
                method = "GET" if path == "/health" else "POST"
                self.add("content-length", f"{method} {path} Content-Length {v[:30]!r}",
                         http(method, path, self.auth(), b"{}", length=v))
        for v in ("2", "0", "100000000000", str(8 << 20), str((8 << 20) + 1), str(1 << 40)):
            self.add("content-length", f"Content-Length {v} with a 2-byte body",
                     http("POST", "/score", self.auth(), b"{}", length=v))
        self.add("content-length", "two Content-Length, different",
                 http("POST", "/score", self.auth() + [("Content-Length", "2"), ("Content-Length", "5")], b"{}", length=False))
        self.add("content-length", "two Content-Length, equal",
                 http("POST", "/score", self.auth() + [("Content-Length", "2"), ("Content-Length", "2")], b"{}", length=False))
        self.add("content-length", "no Content-Length on a POST", http("POST", "/score", self.auth(), b"{}", length=False))
        self.add("content-length", "Content-Length shorter than the body (the rest is a second request)",
                 http("POST", "/score", self.auth(), jdump(self.BASE), length="5"))
        self.add("content-length", "Content-Length: 0 on /submit", http("POST", "/submit", self.auth(), b"", length="0"))
        self.add("content-length", "Expect: 100-continue on /score",
                 http("POST", "/score", self.auth() + [("Expect", "100-continue")], b"{}"))
        self.add("content-length", "a 9 MiB body (over --max-body), all sent",
                 http("POST", "/score", self.auth(), b" " * (9 << 20)))

    def chunked(self) -> None:
        bodies = [b"2\r\n{}\r\n0\r\n\r\n", b"zz\r\n{}\r\n0\r\n\r\n", b"-1\r\n{}\r\n0\r\n\r\n",
                  b"ffffffffffffffffffff\r\n{}\r\n0\r\n\r\n", b"2\r\n{}\r\n", b"2;ext=1\r\n{}\r\n0\r\n\r\n",
                  b"0\r\nTrailer: x\r\n\r\n", b"2\r\n{}0\r\n\r\n", b"", b"1000\r\n{}"]
        te = ["chunked", "CHUNKED", "gzip, chunked", "identity", "chunked, identity", " chunked", "chunked\t", "x"]
        for path in ("/score", "/submit", "/health"):
            method = "GET" if path == "/health" else "POST"
            for i, body in enumerate(bodies):
                for t in te[:3] if i else te:
                    self.add("chunked", f"{method} {path} Transfer-Encoding {t!r} body #{i}",
                             http(method, path, self.auth() + [("Transfer-Encoding", t)], body, length=False))
            self.add("chunked", f"{method} {path} chunked and Content-Length",
                     http(method, path, self.auth() + [("Transfer-Encoding", "chunked")], bodies[0], length="2"))

    def truncated(self) -> None:
        for _ in range(25):
            full = jdump(dict(self.BASE, label="t" * self.rng.randint(0, 150)))
            cut = self.rng.randint(0, len(full) - 1)
            path = self.rng.choice(["/score", "/submit"])
            self.add("truncated", f"{path} body cut at {cut} of {len(full)}",
                     http("POST", path, self.auth(), full[:cut], length=str(len(full))))
        for _ in range(15):
            full = http("POST", "/score", self.auth(), b"{}")
            cut = self.rng.randint(1, full.index(b"\r\n\r\n") + 1)
            self.add("truncated", f"headers cut at byte {cut}", full[:cut])
        self.add("truncated", "a request line and nothing more", b"GET /health HTTP/1.1\r\n")
        self.add("truncated", "a request line without its CRLF", b"GET /health HTTP/1.1")

    def deep_json(self) -> None:
        for depth in (63, 64, 65, 200, 1000, 10000, 100000):
            for kind in ("list", "dict", "mixed"):
                self.post("deep", f"a body nested {depth} deep ({kind})", nested(depth, kind))
        for field in ("source", "label", "kernel", "usage", "submission_id"):
            body = jdump(dict(self.BASE, **{field: "@"})).replace(b'"@"', nested(1000))
            self.post("deep", f"{field} nested 1,000 deep", body, "/submit")
        calls = jdump(dict(self.BASE, usage={"calls": "@"})).replace(b'"@"', nested(1000, "dict"))
        self.post("deep", "usage.calls nested 1,000 deep", calls, "/submit")
        self.post("deep", "1,000 open brackets, never closed", b"[" * 1000)
        self.post("deep", "1,000 closing brackets", b"]" * 1000)

    def nan(self) -> None:
        for literal in (b"NaN", b"Infinity", b"-Infinity", b"nan", b"inf", b"1e400", b"-1e400"):
            self.post("nan", f"{literal.decode()} as the body", literal)
            for field in ("source", "kernel", "label"):
                self.post("nan", f"{field}: {literal.decode()}", jdump(dict(self.BASE, **{field: "@"})).replace(b'"@"', literal))
            for key in ("seconds", "prompt_tokens"):
                body = jdump(dict(self.BASE, usage={"calls": [dict(self.USAGE_CALL, **{key: "@"})]}))
                self.post("nan", f"usage.calls[0].{key}: {literal.decode()}", body.replace(b'"@"', literal), "/submit")
            body = jdump(dict(self.BASE, usage={"calls": [], "wall_seconds": "@"})).replace(b'"@"', literal)
            self.post("nan", f"usage.wall_seconds: {literal.decode()}", body, "/submit")

    def huge_integers(self) -> None:
        values = [b"1e30", str(10 ** 30).encode(), str(2 ** 63 - 1).encode(), str(2 ** 63).encode(), str(2 ** 64).encode(),
                  b"-1", str(-2 ** 63).encode(), b"1000000001", b"-0", b"1.0e9", b"1" + b"0" * 4299,
                  b"1" + b"0" * 4400, b"1" * 20000]       # past 4,300 digits Python's int() refuses
        for v in values:
            what = v[:24].decode() + ("…" if len(v) > 24 else "")
            for key in ("prompt_tokens", "completion_tokens", "cached_tokens", "seconds"):
                body = jdump(dict(self.BASE, usage={"calls": [dict(self.USAGE_CALL, **{key: "@"})]}))
                self.post("huge-int", f"usage.calls[0].{key} = {what}", body.replace(b'"@"', v), "/submit")
            for key in ("prompt_tokens", "wall_seconds"):
                body = jdump(dict(self.BASE, usage={"calls": [], key: "@"})).replace(b'"@"', v)
                self.post("huge-int", f"usage.{key} = {what}", body, "/submit")
        big = dict(self.USAGE_CALL, prompt_tokens=2 ** 63 - 1, completion_tokens=2 ** 63 - 1, cached_tokens=2 ** 63 - 1)
        self.post("huge-int", "two calls of 2**63-1 tokens each", jdump(dict(self.BASE, usage={"calls": [big, big]})), "/submit")
        self.post("huge-int", "usage totals 2**63-1 twice",
                  jdump(dict(self.BASE, usage={"calls": [], "prompt_tokens": 2 ** 63 - 1, "completion_tokens": 2 ** 63 - 1})),
                  "/submit")
        self.post("huge-int", "10,001 usage calls", jdump(dict(self.BASE, usage={"calls": [self.USAGE_CALL] * 10001})),
                  "/submit")
        self.post("huge-int", "a 5,000-digit integer as the body", b"9" * 5000)
        self.post("huge-int", "source: a 5,000-digit integer", jdump(self.BASE).replace(b'"#error hostile fuzz\\n"', b"7" * 5000))

    def surrogates(self) -> None:
        lone = ["\ud800", "\udfff", "a\ud800b", "\ud83d", "\ude00\ud83d", "\ud800\ud800", "x" * 100 + "\udbff"]
        for s in lone:
            for field in ("source", "label", "kernel", "language", "compiler", "flagset", "submission_id", "score_id"):
                path = "/submit" if field == "submission_id" else "/score"
                self.post("surrogate", f"{field}: {s[-12:]!r}", jdump(dict(self.BASE, **{field: s})), path)
            self.post("surrogate", f"a key {s[-6:]!r}", jdump(dict(self.BASE, **{s: 1})))
            self.post("surrogate", f"usage model {s[-6:]!r}",
                      jdump(dict(self.BASE, usage={"calls": [dict(self.USAGE_CALL, model=s)]})), "/submit")
        raw = [b"\xed\xa0\x80", b"\xff\xfe", b"\xc0\xae", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"]
        for r in raw:
            self.post("surrogate", f"raw bytes {r!r} in source", jdump(self.BASE).replace(b"hostile", r))
        self.post("surrogate", "a UTF-16 body with BOM", "\ufeff{}".encode("utf-16"))
        self.post("surrogate", "a UTF-8 BOM before the body", b"\xef\xbb\xbf" + jdump(self.BASE))
        self.post("surrogate", "a NUL byte in source", jdump(dict(self.BASE, source="#error a\x00b")))

    def wrong_types(self) -> None:
        wrong = [None, True, False, 0, -1, 1.5, [], {}, ["gemm"], {"a": "b"}]
        for field in ("kernel", "language", "source", "flagset", "compiler", "label", "submission_id", "score_id", "usage"):
            for v in wrong:
                path = "/submit" if field in ("submission_id", "usage") else "/score"
                self.post("types", f"{field}: {json.dumps(v)}", jdump(dict(self.BASE, **{field: v})), path)
        for key in ("model", "prompt_tokens", "completion_tokens", "cached_tokens", "seconds"):
            for v in wrong + ["1"]:
                if key == "model" and isinstance(v, str):
                    continue
                body = dict(self.BASE, usage={"calls": [dict(self.USAGE_CALL, **{key: v})]})
                self.post("types", f"usage.calls[0].{key}: {json.dumps(v)}", jdump(body), "/submit")
        for key in ("calls", "prompt_tokens", "wall_seconds", "extra"):
            for v in [None, "x", {}, [1]]:
                self.post("types", f"usage.{key}: {json.dumps(v)}", jdump(dict(self.BASE, usage={"calls": [], key: v})), "/submit")
        for body in (b"[]", b'"a string"', b"1", b"null", b"true", b"{}", b'{"kernel": "gemm"}', b"", b" ", b"{,}",
                     b"{'kernel': 'gemm'}", b'{"kernel": "gemm",}', jdump(dict(self.BASE, extra=1)),
                     jdump([self.BASE]), b'{"kernel": "gemm", "kernel": 5}'):
            for path in ("/score", "/submit"):
                self.post("types", f"{path} body {body[:40]!r}", body, path)

    def long_strings(self) -> None:
        cases = [("kernel", "k" * 201), ("kernel", "k" * 200), ("kernel", "g" * 100_000), ("label", "l" * 201),
                 ("label", "l" * 200_000), ("language", "c" * 10_000), ("flagset", "f" * 65), ("compiler", "g" * 65),
                 ("submission_id", "a" * 33), ("submission_id", "a" * 31), ("submission_id", "A" * 32),
                 ("submission_id", "g" * 32), ("score_id", "0" * 33), ("score_id", "Z" * 32), ("flagset", "../../x"),
                 ("compiler", "../../bin/sh"), ("kernel", "../../etc/passwd"), ("kernel", "/etc/passwd"),
                 ("kernel", "scientific_computing/../../../etc/passwd"), ("source", "")]
        for field, value in cases:
            path = "/submit" if field == "submission_id" else "/score"
            self.post("long", f"{field}: {value[:20]!r} ({n(len(value))} chars)", jdump(dict(self.BASE, **{field: value})), path)
        for size in ((4 << 20) + 1, (4 << 20) + 1000):
            self.post("long", f"source of {n(size)} characters (over the schema's 4 MiB)",
                      jdump(dict(self.BASE, source="s" * size)))
        self.post("long", "usage model of 10,000 chars",
                  jdump(dict(self.BASE, usage={"calls": [dict(self.USAGE_CALL, model="m" * 10_000)]})), "/submit")
        self.add("long", "a 60 KB header value", http("GET", "/kernels", self.auth() + [("X-Pad", "p" * 60_000)]))
        self.add("long", "a 60 KB path", http("GET", "/task/" + "a" * 60_000, self.auth()))
        self.add("long", "a 60 KB query", http("GET", "/task/gemm?" + "q" * 60_000, self.auth()))
        self.add("long", "1,000 headers", http("GET", "/kernels", self.auth() + [(f"X-H{i}", "v") for i in range(1000)]))

    def tokens(self) -> None:
        t = self.token
        bad = ["", "Bearer", "Bearer ", "Bearer  ", "Basic dXNlcjpwYXNz", "Bearer " + self.rng.randbytes(32).hex(),
               "Bearer " + t[:-1], "Bearer " + t + "x", "Bearer " + t.upper(), "Bearer " + t + " extra",
               "bearer " + t, "BEARER " + t, "Bearer\t" + t, "Bearer  " + t, "Bearer " + "A" * 10_000, t,
               "Token " + t, "Bearer " + t + "\xff", "Bearer \xff\xfe\xfd", "Bearer " + t[:10], "Bearer %s" % ("=" * 40),
               "Bearer " + self.other, "Bearer " + t + "," + t, "Bearer null", "Bearer ../../etc/passwd"]
        for value in bad:
            for method, path, body in (("GET", "/kernels", b""), ("GET", "/task/gemm", b""), ("POST", "/score", b"{}"),
                                       ("POST", "/submit", b"{}"), ("GET", "/grades/" + "0" * 32, b"")):
                headers = [("X-Hpcab-Rank", "0"), ("Content-Type", "application/json")]
                if value:
                    headers.append(("Authorization", value))
                self.add("token", f"{method} {path} Authorization {value[:30]!r}", http(method, path, headers, body))
        for pair in (("Bearer " + t, "Bearer nope"), ("Bearer nope", "Bearer " + t)):
            self.add("token", "two Authorization headers",
                     http("GET", "/kernels", [("X-Hpcab-Rank", "0"), ("Authorization", pair[0]), ("Authorization", pair[1])]))
        self.add("token", "a NUL in the token", http("GET", "/kernels", [("X-Hpcab-Rank", "0"), ("Authorization", "Bearer a\x00b")]))
        self.add("token", "a CR in the token", http("GET", "/kernels", [("X-Hpcab-Rank", "0"), ("Authorization", "Bearer a\rb")]))

    def ranks(self) -> None:
        ranks = [None, "1", "-1", "abc", "", " ", "0.0", "1e0", "0x0", "+0", "0_0", "00", " 0 ", "9" * 5000, str(2 ** 70),
                 "\u0660".encode().decode("latin-1"), "\u0663".encode().decode("latin-1"), "0\x00", "-0", "1" * 64]
        for r in ranks:
            for method, path, body in (("GET", "/health", b""), ("GET", "/kernels", b""), ("POST", "/score", b"{}"),
                                       ("POST", "/submit", jdump(self.BASE))):
                headers = [("Authorization", f"Bearer {self.token}"), ("Content-Type", "application/json")]
                if r is not None:
                    headers.append(("X-Hpcab-Rank", r))
                if path == "/submit" and r in ("+0", "0_0", "00", " 0 ", "-0", None):
                    body = b"{}"     # a rank int() might accept: keep the body refused anyway
                self.add("rank", f"{method} {path} X-Hpcab-Rank {('(none)' if r is None else r)[:20]!r}",
                         http(method, path, headers, body))
        self.add("rank", "two X-Hpcab-Rank headers (0 and 1)",
                 http("GET", "/kernels", [("X-Hpcab-Rank", "0"), ("X-Hpcab-Rank", "1"), ("Authorization", f"Bearer {self.token}")]))
        self.add("rank", "two X-Hpcab-Rank headers (1 and 0)",
                 http("GET", "/kernels", [("X-Hpcab-Rank", "1"), ("X-Hpcab-Rank", "0"), ("Authorization", f"Bearer {self.token}")]))

    TRAVERSALS = ["/task/../../etc/passwd", "/task/..%2F..%2Fetc%2Fpasswd", "/task/%2e%2e/%2e%2e/etc/passwd",
                  "/task/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "/task/..%252F..%252Fetc%252Fpasswd", "/task/....//....//etc/passwd",
                  "/task/..\\..\\etc\\passwd", "/task/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd", "/task/%00", "/task/gemm%00.c",
                  "/task/%ff%fe", "/grades/../../etc/passwd", "/grades/..%2f..%2fetc%2fpasswd", "/baseline/../../../etc/passwd",
                  "/baseline/%2e%2e%2f%2e%2e%2fetc%2fshadow", "//etc/passwd", "/../../../../etc/passwd", "/./health",
                  "/health/../kernels", "/%2e%2e/%2e%2e/etc/passwd", "/task/scientific_computing/../../../etc/passwd",
                  "/task/scientific_computing%2F..%2F..%2Fetc", "/task/" + "../" * 1000 + "etc/passwd", "/task//", "/task/%",
                  "/task/%zz", "/task/%u002e%u002e", "/task/~root", "/task/$(id)", "/task/;ls", "/task/gemm;/../../x",
                  "/file:///etc/passwd", "/grades/" + "%2e%2e%2f" * 50, "/task/%2e", "/task/.", "/task/..",
                  "/baseline/..", "/grades/.", "/score/../submit", "/submit/../../etc/passwd", "/kernels/../../etc/passwd",
                  "/health%2f..%2f..%2fetc%2fpasswd", "/task/gemm/../../../../proc/self/environ", "/grades/%00%00"]

    def traversal(self) -> None:
        for path in self.TRAVERSALS:
            self.add("traversal", f"GET {path[:60]}", http("GET", path, self.auth()))
            self.add("traversal", f"POST {path[:60]}", http("POST", path, self.auth(), b"{}"))

    def queries(self) -> None:
        junk = ["?language=hip", "?language=" + "c" * 10_000, "?language=%00", "?language=c&language=cpp", "?%%%",
                "?a=b=c", "?=&&&", "?language=%ud800", "?language=%ff%fe", "?language=c%00", "?language[]=c",
                "?language=C", "?language=python", "?language=../../etc/passwd", "?" + "&" * 10_000,
                "?" + "a=1&" * 5_000, "?language=c#frag", "?language=c?x", "?\x7f", "?language=%", "?language=%zz",
                "?language=%c0%ae", "??", "?;", "?language=pythran", "?language=cuda", "?language=" + "%e2%82" * 10,
                "?language=c;rm -rf /", "?language=${jndi:ldap://x}", "?language=<script>"]
        for q in junk:
            self.add("query", f"GET /task/gemm{q[:40]}", http("GET", "/task/gemm" + q, self.auth()))
        for q in junk[:12]:
            for path in ("/health", "/kernels", "/grades/x", "/baseline/nope"):
                self.add("query", f"GET {path}{q[:40]}", http("GET", path + q, self.auth()))
            self.add("query", f"POST /score{q[:40]}", http("POST", "/score" + q, self.auth(), b"{}"))

    def garbage_sources(self) -> None:
        """Valid bodies whose source is junk: the only requests that reach a compiler (a
        200 build_error grade each, one score of the budget)."""
        for i, src in enumerate(["\x00\x01\x02", "#include </etc/passwd>\n", "#error boom\n", "int main(void){return 0;}\n",
                                 "void gemm(void) { __asm__(\"ud2\"); }\n", "{{{{{{{{", "#pragma GCC poison gemm\n"]):
            self.post("garbage-source", f"a junk source #{i}", jdump(dict(self.BASE, source=src, label=f"junk {i}")),
                      wait=300)

    # -- the random part: mixed-up pieces of the above

    def random_fill(self, total: int) -> None:
        bodies = [h.data.partition(b"\r\n\r\n")[2] for h in self.out
                  if h.data.startswith(b"POST ") and h.kind != "garbage-source" and len(h.data) < 20_000]
        bodies = [b for b in bodies if b]
        methods = ["GET"] * 6 + ["POST"] * 6 + ["PUT", "DELETE", "TRACE", "BREW", "PROPFIND", "OPTIONS", "CONNECT"]
        paths = self.ROUTES + self.TRAVERSALS[:20]
        tokens = [self.token, self.token, self.other, "nope", "", self.token + "x"]
        ranks = ["0", "0", "0", "1", "x", None, "-1"]
        while len(self.out) < total:
            r = self.rng
            method, path = r.choice(methods), r.choice(paths)
            headers = []
            rank, tok = r.choice(ranks), r.choice(tokens)
            if rank is not None:
                headers.append(("X-Hpcab-Rank", rank))
            if tok:
                headers.append(("Authorization", f"Bearer {tok}"))
            if r.random() < 0.5:
                headers.append(("Content-Type", r.choice(["application/json", "text/plain", "", "application/json; charset=latin-1"])))
            if r.random() < 0.2:
                headers.append((r.choice(["X-Junk", "Cookie", "Accept", "Range", "Expect", "Connection"]),
                                r.choice(["x" * r.randint(0, 4000), "100-continue", "close", "bytes=0-1,-5", "\x01"])))
            body = r.choice(bodies) if method != "GET" or r.random() < 0.1 else b""
            length: bool | str = True
            if body and r.random() < 0.15:
                length = r.choice([str(len(body) + r.randint(1, 50)), str(max(0, len(body) - r.randint(1, 50))), "-5", "x"])
            data = http(method, path, headers, body, length=length)
            if r.random() < 0.1:        # a byte-level mutation in the head
                data = bytearray(data)
                at = r.randrange(data.index(b"\r\n\r\n"))
                data[at] = r.randrange(256)
                data = bytes(data)
            self.add("random", f"random #{len(self.out)}: {method} {path[:40]}", data, head=method == "HEAD")

    def build(self, total: int) -> list[Hostile]:
        for part in (self.malformed_lines, self.methods, self.content_lengths, self.chunked, self.truncated,
                     self.deep_json, self.nan, self.huge_integers, self.surrogates, self.wrong_types,
                     self.long_strings, self.tokens, self.ranks, self.traversal, self.queries, self.garbage_sources):
            part()
        self.random_fill(total)
        return self.out


def fuzz(args, tmp: Path) -> None:
    folder = tmp / "fuzz"
    folder.mkdir()
    tokens = issue_tokens(["fuzz-0", "fuzz-1"], 1000, folder / "tokens.json", scores=100_000)
    header_s, body_s = 3, 3
    judge = Judge(folder, "judge", "--kernels", "gemm", "--workers", "1", "--tokens", str(folder / "tokens.json"),
                  "--header-timeout", str(header_s), "--body-timeout", str(body_s)).start()
    plan = FuzzPlan(args.seed, tokens["fuzz-0"], tokens["fuzz-1"]).build(args.requests)
    wait = header_s + body_s + 12
    addr = judge.addr()
    print(f"\nfuzz: {n(len(plan))} hostile requests (seed {args.seed}, {args.threads} at once) against a judge with a "
          f"tokens file (--header-timeout {header_s} --body-timeout {body_s})", flush=True)

    started = time.monotonic()
    results = in_threads(lambda h: exchange(addr, h.data, h.wait or wait), plan, args.threads)
    elapsed = time.monotonic() - started

    classes, statuses, kinds = collections.Counter(), collections.Counter(), collections.defaultdict(collections.Counter)
    server_errors, not_json, unanswered = [], [], []
    for h, (answer, how) in zip(plan, results):
        if not answer:
            classes["none"] += 1
            kinds[h.kind]["none"] += 1
            unanswered.append((h, how))
            continue
        status, is_json = parse_answer(answer, h.head)
        cls = f"{status // 100}xx" if status else "not HTTP"
        classes[cls] += 1
        statuses[status or "not HTTP"] += 1
        kinds[h.kind][cls] += 1
        if status is not None and status >= 500:
            server_errors.append((h, answer, status))
        if not is_json:
            not_json.append((h, answer, how))
    ok_after, latency, why = health(judge.url)
    problems = judge.log_problems()
    total = len(plan)
    answered = total - classes["none"]

    order = ["1xx", "2xx", "3xx", "4xx", "5xx", "not HTTP", "none"]
    print(f"  sent in {elapsed:.1f} s; answers by status class: "
          + ", ".join(f"{c} {n(classes[c])}" for c in order if classes[c]))
    print("  by status: " + ", ".join(f"{s} {n(c)}" for s, c in sorted(statuses.items(), key=lambda x: str(x[0]))))
    print("  by kind of request: " + "; ".join(
        f"{k} {n(sum(c.values()))} (" + ", ".join(f"{cls} {v}" for cls, v in sorted(c.items())) + ")"
        for k, c in kinds.items()))
    real_5xx = [e for e in server_errors if e[2] != 503]
    print(f"  5xx answers: {n(len(server_errors))} of {n(total)} (goal 0){missed(not server_errors)}"
          + (f"  [{len(server_errors) - len(real_5xx)} of them 503]" if len(server_errors) != len(real_5xx) else ""))
    print(f"  answers that are not JSON: {n(len(not_json))} of {n(answered)} answered (goal 0){missed(not not_json)}")
    print(f"  no answer at all (connection closed without a response): {n(len(unanswered))} of {n(total)} "
          f"(goal 0){missed(not unanswered)}")
    print(f"  judge log lines with \"Traceback\" or \"internal error\": {n(len(problems))} (goal 0){missed(not problems)}")
    for what, count in judge.log_exceptions().most_common():
        print(f"      {count} × {what}")
    print(f"  /health after the fuzz: {'ok' if ok_after else 'FAILED: ' + why} in {ms(latency)} "
          f"(goal: answers){missed(ok_after)}")
    depth = _queue_depth(judge.url)
    print(f"  gradings the judge still counts in its queue after the fuzz: {depth} (goal 0){missed(depth == 0)}")
    for title, items in (("5xx answers", server_errors), ("answers that are not JSON", not_json)):
        if not items:
            continue
        groups: dict[bytes, list] = collections.defaultdict(list)
        for h, answer, _ in items:
            groups[final_answer(answer).partition(b"\r\n\r\n")[2][:200]].append((h, answer))
        print(f"  {title}, by answer: each request's kind and what it was, then one request and its answer in full")
        for body, group in groups.items():
            print(f"    {len(group)} × {body!r}")
            for h, _ in group:
                print(f"      [{h.kind}] {h.what}")
            h, answer = group[0]
            print(f"      e.g. request: {shown(h.data, 600)}\n           answer:  {shown(answer, 400)}")
    if unanswered:
        print("  requests without an answer (request, then how the connection ended):")
        for h, how in unanswered[:15]:
            print(f"    [{h.kind}] {h.what}: {how}\n      request: {shown(h.data)}")
        if len(unanswered) > 15:
            print(f"    … and {len(unanswered) - 15} more")
    judge.stop()


# ---- held connections ------------------------------------------------------------------

def _one_health(addr, timeout: float = 10) -> tuple[int | None, float]:
    started = time.monotonic()
    answer, _ = exchange(addr, http("GET", "/health", [("X-Hpcab-Rank", "0")]), timeout)
    status, _ = parse_answer(answer) if answer else (None, False)
    return status, time.monotonic() - started


def held(args, tmp: Path) -> None:
    folder = tmp / "held"
    folder.mkdir()
    print(f"\nheld: {n(args.connections)} connections holding a half-sent request against a judge under "
          f"`ulimit -n {args.nofile}` (--header-timeout 300), then {args.probes} GET /health one after another", flush=True)
    limits = raise_nofile(args.connections + 256)
    if limits is None:
        print(f"  skipped: this needs {args.connections + 256} open files and the hard limit is "
              f"{resource.getrlimit(resource.RLIMIT_NOFILE)[1]}   MISSED")
        return
    judge = Judge(folder, "judge", "--kernels", "gemm", "--workers", "1", "--header-timeout", "300",
                  nofile=args.nofile).start()
    cap = re.search(r"(\d+) connections", judge.out.read_text())
    addr, socks, refused = judge.addr(), [], 0
    try:
        started = time.monotonic()
        for _ in range(args.connections):
            try:
                s = socket.create_connection(addr, timeout=30)
                s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")       # never finished
                socks.append(s)
            except OSError:
                refused += 1
        opened = time.monotonic() - started
        time.sleep(0.5)
        probes = [_one_health(addr) for _ in range(args.probes)]
        lat = [t for _, t in probes]
        failed = sum(1 for st, _ in probes if st != 200)
        dropped = dropped_503 = 0
        for s in socks:
            s.setblocking(False)
            try:
                data = s.recv(4096)
                dropped += 1
                dropped_503 += data.startswith(b"HTTP/1.1 503") and b"waited longest" in data
            except BlockingIOError:
                pass
            except OSError:
                dropped += 1
    finally:
        for s in socks:
            s.close()
        if limits:
            resource.setrlimit(resource.RLIMIT_NOFILE, limits)
    time.sleep(0.5)
    ok_after, t_after, why = health(judge.url)
    problems = judge.log_problems()
    print(f"  opened {n(len(socks))} held connections in {ms(opened)} ({refused} refused); the judge's connection "
          f"cap: {cap.group(1) if cap else '?'}")
    print(f"  first /health: {'answered' if probes[0][0] == 200 else f'FAILED ({probes[0][0]})'} in "
          f"{ms(probes[0][1])} (goal < 1 s){missed(probes[0][0] == 200 and probes[0][1] < 1)}")
    print(f"  /health latency over {args.probes}: median {ms(statistics.median(lat))}, max {ms(max(lat))}")
    print(f"  /health failed: {failed} of {args.probes} (goal 0){missed(failed == 0)}")
    print(f"  held connections the judge closed to make room: {n(dropped)} ({n(dropped_503)} with a JSON 503 "
          f"'waited longest')")
    print(f"  /health after the held connections closed: {'ok' if ok_after else 'FAILED: ' + why} in {ms(t_after)} "
          f"(goal: answers){missed(ok_after)}")
    print(f"  judge log lines with \"Traceback\" or \"internal error\": {len(problems)} (goal 0){missed(not problems)}")
    for line in problems[:5]:
        print(f"      {line[:300]}")
    judge.stop()


# ---- memory ----------------------------------------------------------------------------

def memory(args, tmp: Path) -> None:
    folder = tmp / "memory"
    folder.mkdir()
    tokens = issue_tokens(["mem-0"], 10, folder / "tokens.json", scores=1000)
    judge = Judge(folder, "judge", "--kernels", "gemm", "--workers", "1", "--tokens", str(folder / "tokens.json")).start()
    addr = judge.addr()
    max_body = 8 << 20
    health(judge.url)
    before = judge.peak_mb()
    print(f"\nmemory: {args.bodies} concurrent POST /score with 8 MiB bodies (--max-body {n(max_body)})", flush=True)
    print(f"  judge peak memory (VmHWM) before: {before:.0f} MB")
    headers = [("X-Hpcab-Rank", "0"), ("Authorization", f"Bearer {tokens['mem-0']}"), ("Content-Type", "application/json")]
    rounds = [("valid JSON, a source over the schema's 4 MiB, the body just under --max-body",
               jdump({"kernel": "gemm", "language": "c", "source": "x" * (max_body - 100)})),
              ("bodies one byte over --max-body (read and dropped, then 413)", b" " * (max_body + 1))]
    for what, body in rounds:
        request = http("POST", "/score", headers, body)
        started = time.monotonic()
        answers = in_threads(lambda _: exchange(addr, request, 180), range(args.bodies), args.bodies)
        wall = time.monotonic() - started
        statuses = collections.Counter(parse_answer(a)[0] if a else f"no answer ({how})" for a, how in answers)
        after = judge.peak_mb()
        print(f"  {args.bodies} × {n(len(body))} bytes, {what}: statuses "
              + ", ".join(f"{s} ×{c}" for s, c in statuses.items()) + f", in {wall:.1f} s")
        print(f"    judge peak memory (VmHWM) after: {after:.0f} MB (goal < 300 MB){missed(after < 300)}; "
              f"now (VmRSS) {judge.rss_mb():.0f} MB")
    ok_after, t_after, why = health(judge.url)
    print(f"  /health after: {'ok' if ok_after else 'FAILED: ' + why} in {ms(t_after)} (goal: answers){missed(ok_after)}")
    judge.stop()


# ---- soak ------------------------------------------------------------------------------

class Soak:
    """What the clients posted and got, under one lock."""

    def __init__(self, clients: int):
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.posted_subs = [set() for _ in range(clients)]
        self.answered_subs = [dict() for _ in range(clients)]      # submission_id -> grade status
        self.posted_scores = [set() for _ in range(clients)]
        self.answered_scores = [dict() for _ in range(clients)]    # score_id -> grade status
        self.tasks = 0
        self.refusals = collections.Counter()                      # expected: a full queue waited out too long
        self.errors: list[str] = []
        self.retries = collections.Counter()
        self.messages = collections.Counter()                      # grade status (not ok) -> count
        self.examples: dict[str, str] = {}                         # grade status (not ok) -> a message
        self.health: list[tuple[float, float, bool, str]] = []      # (time, seconds, ok, why)


def soak(args, tmp: Path) -> None:
    folder = tmp / "soak"
    folder.mkdir()
    names = [f"client-{i}" for i in range(args.clients)]
    tokens = issue_tokens(names, 1_000_000, folder / "tokens.json", scores=1_000_000)
    port = free_port()
    judge = Judge(folder, "judge", "--kernels", "gemm", "--workers", "2", "--tokens", str(folder / "tokens.json"),
                  "--target-seconds", str(args.target_seconds), port=port).start()
    url = judge.url
    source = GEMM_C.read_text()
    duration = 60 * args.minutes
    state = Soak(args.clients)
    print(f"\nsoak: {args.minutes:g} min, {args.clients} clients (GET /task, POST /score, POST /submit of gemm at S, "
          f"{GEMM_C.name}) against a judge with --workers 2 --target-seconds {args.target_seconds:g} on port {port}; "
          f"SIGKILL and restart at 1/3 and 2/3", flush=True)

    def on_retry(line: str) -> None:
        reason = "queue full" if "queue is full" in line else "stopping" if "stopping" in line else \
            "unreachable" if "cannot reach" in line else line[:40]
        with state.lock:
            state.retries[reason] += 1

    def failed(what: str, exc: Exception) -> None:
        with state.lock:
            if isinstance(exc, JudgeError) and exc.status in (403, 429):
                state.refusals[f"{what} {exc.status}"] += 1
            else:
                state.errors.append(f"{what}: {type(exc).__name__}: {exc}")

    def client(i: int) -> None:
        c = JudgeClient(url, tokens[names[i]], rank=0, timeout=900, max_wait=3600,
                        reconnect_seconds=args.reconnect_seconds, on_retry=on_retry)
        k = 0
        while not state.stop.is_set():
            k += 1
            try:
                c.task("gemm", "c")
                with state.lock:
                    state.tasks += 1
            except Exception as exc:
                failed("task", exc)
            score_id = uuid.uuid4().hex
            with state.lock:
                state.posted_scores[i].add(score_id)
            try:
                doc = c.score("gemm", source, "c", label=f"{names[i]} score {k}", score_id=score_id)
                with state.lock:
                    state.answered_scores[i][score_id] = doc.get("status")
            except Exception as exc:
                failed("score", exc)
            sid = uuid.uuid4().hex
            with state.lock:
                state.posted_subs[i].add(sid)
            try:
                doc = c.submit("gemm", source, "c", label=f"{names[i]} submission {k}", submission_id=sid)
                with state.lock:
                    state.answered_subs[i][sid] = doc.get("status")
                    if doc.get("status") != "ok":
                        state.messages[doc.get("status")] += 1
                        state.examples.setdefault(doc.get("status"), str(doc.get("message"))[:240])
            except Exception as exc:
                failed("submit", exc)

    monitor_stop = threading.Event()      # the monitor goes on until the clients' last answers

    def monitor() -> None:
        while not monitor_stop.is_set():
            t0 = time.monotonic()
            ok, seconds, why = health(url, timeout=5)
            with state.lock:
                state.health.append((t0, seconds, ok, why))
            time.sleep(max(0.0, 0.5 - (time.monotonic() - t0)))

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(args.clients)]
    mon = threading.Thread(target=monitor, daemon=True)
    started = time.monotonic()
    mon.start()
    for t in threads:
        t.start()
    kills = []      # (killed at, ready again at)
    for frac in (1 / 3, 2 / 3):
        time.sleep(max(0.0, started + frac * duration - time.monotonic()))
        t_kill = time.monotonic()
        depth = _queue_depth(url)
        judge.kill9()
        judge.start(retry_for=60)
        t_up = time.monotonic()
        while not health(url, timeout=2)[0] and time.monotonic() - t_up < 60:
            time.sleep(0.1)
        kills.append((t_kill, time.monotonic(), depth))
        print(f"  killed (SIGKILL) at {t_kill - started:.0f} s with {depth} grading(s) in its queue; listening again "
              f"after {t_up - t_kill:.1f} s, /health ok after {kills[-1][1] - t_kill:.1f} s", flush=True)
    time.sleep(max(0.0, started + duration - time.monotonic()))
    state.stop.set()
    print(f"  {args.minutes:g} min are up; waiting for the clients' last requests…", flush=True)
    stuck = 0
    for t in threads:
        t.join(timeout=max(1.0, started + duration + 900 - time.monotonic()))
        stuck += t.is_alive()
    monitor_stop.set()
    mon.join(timeout=10)
    wall = time.monotonic() - started
    judge.stop()
    recovered = [line.strip() for line in judge.out.read_text().splitlines() if "recovered from the last run" in line]
    recovered += [re.sub(r"^\S+ \S+ ", "", line) for line in judge.log.read_text().splitlines()
                  if "did not finish grading are forgotten" in line]
    _soak_report(args, judge, state, kills, wall, stuck, recovered)


def _queue_depth(url: str) -> int | str:
    try:
        with urllib.request.urlopen(url + "/health", timeout=5) as resp:
            return json.loads(resp.read())["queue"]["depth"]
    except Exception:
        return "?"


def _soak_report(args, judge: Judge, state: Soak, kills, wall: float, stuck: int, recovered: list[str]) -> None:
    conn = sqlite3.connect(f"file:{judge.db}?mode=ro", uri=True, timeout=30)
    try:
        score_cols = [r[1] for r in conn.execute("PRAGMA table_info(scores)")]
        subs = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT id, agent, state FROM submissions")}
        scores = {r[0]: r[1:] for r in conn.execute(
            f"SELECT id, agent, status{', document IS NOT NULL' if 'document' in score_cols else ', 1'} FROM scores")}
    finally:
        conn.close()
    names = [f"client-{i}" for i in range(args.clients)]
    posted = set().union(*state.posted_subs)
    answered = {sid: st for d in state.answered_subs for sid, st in d.items()}
    answered_scores = {sid: st for d in state.answered_scores for sid, st in d.items()}
    states = collections.Counter(s for _, s in subs.values())

    not_graded = [(sid, subs.get(sid, (None, "missing"))[1]) for sid in answered if subs.get(sid, (None, ""))[1] != "graded"]
    lost = sorted(posted - set(subs))
    strangers = sorted(set(subs) - posted)
    over_subs, over_scores = [], []
    for i, name in enumerate(names):
        rows = sum(1 for a, s in subs.values() if a == name)
        charged = sum(1 for a, s in subs.values() if a == name and s != "error")
        if charged != len(state.posted_subs[i]) or rows != len(state.posted_subs[i]):
            over_subs.append(f"{name}: {rows} row(s), {charged} charged, {len(state.posted_subs[i])} posted")
        score_rows = sum(1 for a, *_ in scores.values() if a == name)
        if score_rows != len(state.answered_scores[i]):
            over_scores.append(f"{name}: {score_rows} score row(s), {len(state.answered_scores[i])} graded answers")
    unknown_scores = sorted(set(scores) - set(answered_scores))
    unanswered_scores = sorted(set(answered_scores) - set(scores))

    kill_windows = [(t0 - 1.0, t1 + 2.0) for t0, t1, _ in kills]
    inside = lambda t: any(a <= t <= b for a, b in kill_windows)   
    calm = [h for h in state.health if not inside(h[0])]
    calm_lat = [h[1] for h in calm if h[2]]
    all_lat = [h[1] for h in state.health if h[2]]
    calm_fail = [h for h in calm if not h[2]]
    all_fail = [h for h in state.health if not h[2]]
    grade_status = collections.Counter(answered.values())
    score_status = collections.Counter(answered_scores.values())

    print(f"  ran {wall:.0f} s: {n(state.tasks)} tasks, {n(len(answered_scores))} scores and {n(len(answered))} "
          f"submissions answered ({n(len(posted))} submissions posted)")
    print("  grade statuses: submissions " + ", ".join(f"{k} {n(v)}" for k, v in grade_status.items())
          + "; scores " + ", ".join(f"{k} {n(v)}" for k, v in score_status.items()))
    for status, example in state.examples.items():
        print(f"    {status} ({state.messages[status]}), e.g.: {example}")
    print("  client retries started: " + (", ".join(f"{k} {n(v)}" for k, v in state.retries.items()) or "none")
          + "; expected refusals: " + (", ".join(f"{k} {n(v)}" for k, v in state.refusals.items()) or "none"))
    for line in recovered:
        print(f"  restart: {line}")
    print("  database: submissions by state " + ", ".join(f"{k} {n(v)}" for k, v in states.items())
          + f"; {n(len(scores))} score rows (scores columns: {', '.join(score_cols)})")
    print(f"  answered submissions not in state 'graded': {len(not_graded)} of {n(len(answered))} "
          f"(goal 0){missed(not not_graded)}")
    for sid, st in not_graded[:5]:
        print(f"      {sid}: {st}")
    print(f"  submissions posted but not in the database (lost): {len(lost)} of {n(len(posted))}; rows no client "
          f"posted: {len(strangers)}; rows {n(len(subs))} vs posted {n(len(posted))} (goal: equal){missed(not lost and not strangers)}")
    print(f"  agents charged for other than the submissions they posted: {len(over_subs)} of {args.clients} "
          f"(goal 0){missed(not over_subs)}")
    for line in over_subs[:5]:
        print(f"      {line}")
    print(f"  agents whose score rows differ from the scores they got answered: {len(over_scores)} of {args.clients} "
          f"(goal 0){missed(not over_scores)}")
    for line in over_scores[:5]:
        print(f"      {line}")
    if unknown_scores or unanswered_scores:
        print(f"      score rows without a graded answer: {len(unknown_scores)}; graded answers without a row: "
              f"{len(unanswered_scores)}")
    print(f"  client errors (other than expected refusals): {len(state.errors)} (goal 0){missed(not state.errors)}"
          + (f"; {stuck} client(s) still waiting at the end" if stuck else ""))
    for line in state.errors[:8]:
        print(f"      {line[:300]}")
    print(f"  /health polls: {n(len(state.health))}, {len(all_fail)} failed ({len(all_fail) - len(calm_fail)} within "
          f"the seconds around the kills)")
    if calm_lat:
        p95, top = percentile(calm_lat, 0.95), max(calm_lat)
        print(f"  /health outside the kills: p95 {ms(p95)} (goal < 100 ms){missed(p95 < 0.1)}, max {ms(top)} "
              f"(goal < 1 s){missed(top < 1)}, failures {len(calm_fail)} (goal 0){missed(not calm_fail)}")
    if all_lat:
        print(f"  /health over the whole run (answered polls): p95 {ms(percentile(all_lat, 0.95))}, max {ms(max(all_lat))}")
    for t, seconds, _, why in calm_fail[:5]:
        print(f"      failed at {t - (kills[0][0] if kills else 0):+.0f} s from the first kill after {ms(seconds)}: {why[:200]}")


# ---- main ------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="part", required=True)

    def fuzz_opts(p):
        p.add_argument("--requests", type=int, default=2500, help="hostile requests in all (default 2500)")
        p.add_argument("--seed", type=int, default=1, help="the random generator's seed (default 1)")
        p.add_argument("--threads", type=int, default=16, help="requests in flight at once (default 16)")

    def held_opts(p):
        p.add_argument("--connections", type=int, default=1000, help="held half-sent requests (default 1000)")
        p.add_argument("--nofile", type=int, default=1024, help="the judge's open-files limit (default 1024)")
        p.add_argument("--probes", type=int, default=50, help="GET /health after them (default 50)")

    def memory_opts(p):
        p.add_argument("--bodies", type=int, default=8, help="concurrent 8 MiB bodies (default 8)")

    def soak_opts(p, minutes):
        p.add_argument("--minutes", type=float, default=minutes, help=f"how long (default {minutes:g})")
        p.add_argument("--clients", type=int, default=32, help="client threads, one agent each (default 32)")
        p.add_argument("--target-seconds", type=float, default=0.2,
                       help="the judge's timed work per target and case (default 0.2)")
        p.add_argument("--reconnect-seconds", type=float, default=180,
                       help="how long a client rides out an unreachable judge (default 180)")

    fuzz_opts(sub.add_parser("fuzz", help="hostile requests: status classes, 5xx, non-JSON, unanswered"))
    held_opts(sub.add_parser("held", help="1,000 held half-requests under ulimit -n 1024, then /health"))
    memory_opts(sub.add_parser("memory", help="8 concurrent 8 MiB bodies: the judge's peak memory"))
    soak_opts(sub.add_parser("soak", help="clients for M minutes, two SIGKILLs, then the database checked"), 10)
    p_all = sub.add_parser("all", help="fuzz, held, memory and a 2-minute soak")
    for add in (fuzz_opts, held_opts, memory_opts):
        add(p_all)
    soak_opts(p_all, 2)
    for p in (sub.choices[name] for name in ("fuzz", "held", "memory", "soak", "all")):
        p.add_argument("--keep", action="store_true",
                       help="keep the temporary folder (databases, logs, tokens) and print where it is")
    args = ap.parse_args()

    def interrupted(signum, frame):
        raise KeyboardInterrupt
    for sig in (signal.SIGINT, signal.SIGTERM):     # even where the shell started it with SIGINT ignored
        signal.signal(sig, interrupted)
    parts = {"fuzz": [fuzz], "held": [held], "memory": [memory], "soak": [soak],
             "all": [fuzz, held, memory, soak]}[args.part]
    tmp = Path(tempfile.mkdtemp(prefix="hpcab-hostile-"))
    try:
        try:
            for part in parts:
                part(args, tmp)
        finally:
            stop_all()
            if args.keep:
                print(f"\nkept: {tmp}")
            else:
                shutil.rmtree(tmp, ignore_errors=True)
    except KeyboardInterrupt:
        stop_all(grace=5)
        print("\ninterrupted; the judges are stopped", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
