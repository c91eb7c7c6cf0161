"""The judge under hostile clients: what a half-sent request, a drip, a flood of held
connections or a pile of large bodies does to a live `hpcab serve` (docs/judge_api.md,
"HTTP limits"). Every answer is JSON; the judge keeps answering /health throughout.

The figures (how fast, how much memory) are in benchmarks/judge_hostile.py; these tests
assert what must hold however loaded the machine is, with generous deadlines.
"""

import json
import resource
import socket
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import rows

CANDIDATES = Path(__file__).resolve().parent / "candidates"


def _addr(url: str) -> tuple[str, int]:
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    return host, int(port)


def _read_answer(sock: socket.socket, timeout: float) -> bytes:
    """Everything the judge sends until it closes the connection, or the timeout."""
    sock.settimeout(timeout)
    out = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            out += chunk
            if b"\r\n\r\n" in out and _complete(out):
                break
    except (socket.timeout, ConnectionResetError):
        pass
    return out


def _complete(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def _status_and_json(answer: bytes) -> tuple[int, dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 "), answer[:200]
    assert b"application/json" in head.lower(), head
    return int(head.split()[1]), json.loads(body)


def _health(url: str, timeout: float = 20) -> dict:
    with urllib.request.urlopen(url + "/health", timeout=timeout) as resp:
        return json.loads(resp.read())


def _post_head(path: str, length: int) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: judge\r\nX-Hpcab-Rank: 0\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def test_headers_dripped_a_byte_at_a_time_are_cut_at_the_header_deadline(start_judge):
    judge = start_judge("--kernels", "gemm", "--workers", "1", "--header-timeout", "2")
    request = b"GET /health HTTP/1.1\r\nHost: judge\r\nX-Padding: " + b"a" * 200 + b"\r\n\r\n"
    sock = socket.create_connection(_addr(judge.url))
    started, answer = time.monotonic(), b""
    sock.settimeout(0.01)
    for byte in request:        # one byte per 0.1 s: 23 s to send it all
        try:
            sock.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            break
        try:
            answer += sock.recv(65536)
            if answer:
                break
        except socket.timeout:
            pass
        time.sleep(0.1)
    answer += _read_answer(sock, 5)
    sock.close()
    status, body = _status_and_json(answer)
    assert status == 408 and "2 s" in body["error"]["message"]
    assert time.monotonic() - started < 20      # cut well before the drip would have ended
    assert _health(judge.url)["status"] == "ok"


def test_a_body_shorter_than_its_content_length_is_cut_at_the_body_deadline(start_judge):
    judge = start_judge("--kernels", "gemm", "--workers", "1", "--body-timeout", "2")
    sock = socket.create_connection(_addr(judge.url))
    sock.sendall(_post_head("/submit", 1000) + b'{"kernel": "gemm"')
    status, body = _status_and_json(_read_answer(sock, 30))
    sock.close()
    assert status == 408 and "body" in body["error"]["message"]
    assert rows(judge.db, "SELECT COUNT(*) FROM submissions") == [(0,)]


def test_a_thousand_held_half_requests_do_not_starve_health(start_judge):
    """The judge under `ulimit -n 1024`: its connection cap stays below the limit, and a new
    connection replaces the one that has waited longest, so /health still answers."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"this test holds 1,000 sockets; the open-files hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    judge = start_judge("--kernels", "gemm", "--workers", "1", "--header-timeout", "300", nofile=1024)
    held: list[socket.socket] = []
    try:
        for _ in range(1000):
            sock = socket.create_connection(_addr(judge.url), timeout=30)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: judge\r\n")     # never finished
            held.append(sock)
        for _ in range(3):
            assert _health(judge.url)["status"] == "ok"
        # The oldest held connections were closed, each with a JSON 503 saying why.
        status, body = _status_and_json(_read_answer(held[0], 10))
        assert status == 503 and "waited longest" in body["error"]["message"]
    finally:
        for sock in held:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert _health(judge.url)["status"] == "ok"
    assert "Traceback" not in judge.log.read_text()


def test_the_connection_cap_keeps_busy_connections_and_drops_the_longest_waiting(start_judge):
    judge = start_judge("--kernels", "gemm", "--workers", "1", "--max-connections", "8", "--header-timeout", "300")
    held = []
    try:
        for _ in range(8):
            sock = socket.create_connection(_addr(judge.url), timeout=30)
            sock.sendall(b"GET /health HTTP/1.1\r\n")
            held.append(sock)
            time.sleep(0.05)        # so "longest waiting" is well defined
        assert _health(judge.url)["status"] == "ok"
        status, _ = _status_and_json(_read_answer(held[0], 10))
        assert status == 503
        # The next-oldest is still open: only as many were dropped as were needed.
        held[1].sendall(b"Host: judge\r\n\r\n")
        status, body = _status_and_json(_read_answer(held[1], 10))
        assert status == 200 and body["status"] == "ok"
    finally:
        for sock in held:
            sock.close()


@pytest.mark.parametrize("method", ["TRACE", "CONNECT", "BREW", "DELETE"])
def test_every_method_gets_a_json_answer(start_judge, method):
    judge = start_judge("--kernels", "gemm", "--workers", "1")
    sock = socket.create_connection(_addr(judge.url))
    sock.sendall(f"{method} /health HTTP/1.1\r\nHost: judge\r\n\r\n".encode())
    status, body = _status_and_json(_read_answer(sock, 10))
    sock.close()
    assert status == 405 and body["error"]["status"] == 405 and method in body["error"]["message"]


def test_malformed_http_is_a_json_400_and_chunked_a_json_411(start_judge):
    judge = start_judge("--kernels", "gemm", "--workers", "1")
    # Headers over 64 KiB are 431 when they arrive whole, 400 when h11 sees them still arriving.
    for request, expected in ((b"NOT HTTP AT ALL\r\n\r\n", {400}),
                              (b"GET /health HTTP/1.1\r\nHost: judge\r\nX-Big: " + b"a" * (70 << 10) + b"\r\n\r\n",
                               {400, 431}),
                              (b"POST /score HTTP/1.1\r\nHost: judge\r\nX-Hpcab-Rank: 0\r\n"
                               b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", {411})):
        sock = socket.create_connection(_addr(judge.url))
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass
        status, body = _status_and_json(_read_answer(sock, 10))
        sock.close()
        assert status in expected and body["error"]["status"] == status


def test_a_full_queue_is_refused_before_the_body_is_read(start_judge):
    """With the queue full, a POST is answered 429 at once: the judge does not wait for,
    or hold, a body it would refuse."""
    judge = start_judge("--kernels", "gemm", "--workers", "1", "--queue", "1", "--timeout", "20",
                        "--body-timeout", "60")
    source = (CANDIDATES / "gemm_endless.c").read_text()
    client = judge.client(timeout=120)
    busy = threading.Thread(target=lambda: client.score("gemm", source, "c"), daemon=True)
    busy.start()
    deadline = time.monotonic() + 60
    while _health(judge.url)["queue"]["depth"] < 1:
        assert time.monotonic() < deadline, "the endless candidate never reached the queue"
        time.sleep(0.1)
    sock = socket.create_connection(_addr(judge.url))
    sock.sendall(_post_head("/score", 5000))       # the body never comes
    status, body = _status_and_json(_read_answer(sock, 30))
    sock.close()
    assert status == 429 and "queue is full" in body["error"]["message"]
    busy.join(timeout=120)


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_eight_concurrent_8_mib_bodies_hold_a_bounded_amount_of_memory(start_judge):
    judge = start_judge("--kernels", "gemm", "--workers", "1")
    _health(judge.url)
    before = _peak_rss_mib(judge.proc.pid)
    body = json.dumps({"kernel": "gemm", "language": "c", "source": "x" * ((8 << 20) - 100)}).encode()
    assert len(body) <= 8 << 20
    answers: list[bytes] = []

    def post() -> None:
        sock = socket.create_connection(_addr(judge.url))
        sock.sendall(_post_head("/score", len(body)) + body)
        answers.append(_read_answer(sock, 120))
        sock.close()

    threads = [threading.Thread(target=post) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    statuses = sorted(_status_and_json(a)[0] for a in answers)
    assert statuses == [400] * 8        # the source is longer than the schema allows
    grown = _peak_rss_mib(judge.proc.pid) - before
    # Two bodies at a time (2 × --max-body), each with its text and parsed copy: tens of MiB,
    # where reading all eight at once took the judge from 90 MB to 1.2 GB.
    assert grown < 150, f"the judge's peak memory grew by {grown:.0f} MiB"


def test_an_integer_of_5000_digits_is_a_json_400(start_judge):
    """Python refuses to parse integers past 4,300 digits with a ValueError that is not a
    JSONDecodeError; it must still be a 400, not a 500."""
    judge = start_judge("--kernels", "gemm", "--workers", "1")
    body = b'{"kernel": "gemm", "language": "c", "source": "x", "usage": {"wall_seconds": ' + b"9" * 5000 + b"}}"
    sock = socket.create_connection(_addr(judge.url))
    sock.sendall(_post_head("/submit", len(body)) + body)
    status, err = _status_and_json(_read_answer(sock, 30))
    sock.close()
    assert status == 400 and "4300 digits" in err["error"]["message"]


def test_a_lone_surrogate_anywhere_in_a_body_is_a_400_naming_its_field(start_judge):
    """JSON's \\ud800 escapes make strings SQLite cannot store; in usage.calls[].model this
    was a 500 from deep in the database layer."""
    judge = start_judge("--kernels", "gemm", "--workers", "1")
    body = (b'{"kernel": "gemm", "language": "c", "source": "int x;", "usage": {"calls": [{"model": "a\\ud800b", '
            b'"prompt_tokens": 1, "completion_tokens": 1, "cached_tokens": 0, "seconds": 0.5}]}}')
    sock = socket.create_connection(_addr(judge.url))
    sock.sendall(_post_head("/submit", len(body)) + body)
    status, err = _status_and_json(_read_answer(sock, 30))
    sock.close()
    assert status == 400 and err["error"]["field"] == "usage.calls[0].model"
    assert rows(judge.db, "SELECT COUNT(*) FROM submissions") == [(0,)]


def test_serving_on_a_busy_port_is_one_line(start_judge, tmp_path):
    import subprocess
    import sys
    judge = start_judge("--kernels", "gemm", "--workers", "1")
    port = _addr(judge.url)[1]
    run = subprocess.run([sys.executable, "-m", "hpcab", "serve", "--db", str(tmp_path / "other.db"),
                          "--port", str(port), "--kernels", "gemm", "--workers", "1"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "in use" in lines[0] and str(port) in lines[0], lines
    assert "Traceback" not in run.stderr
