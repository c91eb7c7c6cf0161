"""Concurrency: measurement slots are exclusive across processes, eight clients at once are
all graded with no two timed runs on one core at the same time, and a full queue answers
429 with Retry-After."""

import http.client
import json
import multiprocessing
import os
import signal
import sqlite3
import threading
import time
import urllib.parse

from hpcab.judge.slots import Slots, parse_slots

from .conftest import CANDIDATES, EXAMPLES


def _hold(slots: Slots, seconds: float, out, held=None) -> None:
    with slots.acquire() as cpus:
        start = time.monotonic()
        if held is not None:
            held.set()
        time.sleep(seconds)
        out.put((cpus, start, time.monotonic()))


def overlapping(windows: list[tuple[tuple[int, ...], float, float]]) -> list:
    """Pairs of windows that share a CPU and overlap in time."""
    bad = []
    for i, (ca, sa, ea) in enumerate(windows):
        for cb, sb, eb in windows[i + 1:]:
            if set(ca) & set(cb) and sa < eb and sb < ea:
                bad.append(((ca, sa, ea), (cb, sb, eb)))
    return bad


def test_slots_are_exclusive_across_processes(tmp_path):
    slots = Slots(((0,), (0, 1)), tmp_path / "locks")      # overlapping slots share CPU 0
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_hold, args=(slots, 0.2, out)) for _ in range(4)]
    for p in procs:
        p.start()
    windows = [out.get(timeout=30) for _ in procs]
    for p in procs:
        p.join()
    assert not overlapping(windows)
    assert {w[0] for w in windows} <= {(0,), (0, 1)}


def test_a_killed_holder_frees_its_slot(tmp_path):
    slots = Slots(((3,),), tmp_path / "locks")
    ctx = multiprocessing.get_context("spawn")
    out, held = ctx.Queue(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(slots, 600, out, held))
    holder.start()
    assert held.wait(timeout=30), "the holder never took the slot"
    os.kill(holder.pid, signal.SIGKILL)
    holder.join()
    started = time.monotonic()
    with slots.acquire() as cpus:
        assert cpus == (3,)
    assert time.monotonic() - started < 5


def test_parse_slots_names_the_bad_value():
    allowed = sorted(os.sched_getaffinity(0))
    assert parse_slots([str(allowed[-1])], 1) == ((allowed[-1],),)
    for spec, words in (("x", "CPU numbers"), ("9999", "not available"), (",", "names no CPU")):
        try:
            parse_slots([spec], 1)
        except ValueError as exc:
            assert spec in str(exc) and words in str(exc)
        else:
            raise AssertionError(f"--slot {spec} was accepted")


def test_eight_concurrent_clients_are_all_graded_and_never_share_a_core(start_judge, tmp_path, monkeypatch):
    trace = tmp_path / "slots.trace"
    monkeypatch.setenv("HPCAB_SLOT_TRACE", str(trace))
    cpus = sorted(os.sched_getaffinity(0))
    slot_args = [a for c in cpus for a in ("--slot", str(c))]      # one slot per CPU
    judge = start_judge("--kernels", "gemm,softmax", "--target-seconds", "0.05", "--sessions", "2", "--workers", "2",
                        "--queue", "3", *slot_args)
    sources = {"gemm": (EXAMPLES / "gemm.c").read_text(), "off": (CANDIDATES / "gemm_off_by_one.c").read_text()}
    results: dict[int, dict] = {}
    errors: dict[int, Exception] = {}

    def client(i: int) -> None:
        try:
            c = judge.client(max_wait=300)
            source = sources["off"] if i == 7 else sources["gemm"]
            results[i] = c.submit("gemm", source, "c", label=f"client-{i}") if i % 2 else \
                c.score("gemm", source, "c", label=f"client-{i}")
        except Exception as exc:
            errors[i] = exc
    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not errors, errors
    assert sorted(results) == list(range(8))
    assert all(results[i]["correct"] for i in range(7)) and results[7]["status"] == "incorrect"
    assert {results[i]["kind"] for i in range(8)} == {"score", "submit"}
    conn = sqlite3.connect(judge.db)
    submitted = {r[0] for r in conn.execute("SELECT id FROM grades WHERE kind = 'submit'")}
    conn.close()
    assert submitted == {results[i]["id"] for i in (1, 3, 5, 7)}
    # Every timed run held a slot, and no two held the same CPU at once.
    windows = []
    for line in trace.read_text().splitlines():
        c, start, end, _pid = line.split()
        windows.append((tuple(int(x) for x in c.split(",")), float(start), float(end)))
    cases = sum(len(results[i]["cases"]) for i in range(8))
    assert len(windows) >= cases          # every timed case (and the roofline probe's look-ups) held one
    assert not overlapping(windows)
    assert {w[0] for w in windows} <= {(c,) for c in cpus}


def test_a_full_queue_answers_429_with_retry_after(start_judge):
    judge = start_judge("--kernels", "gemm", "--target-seconds", "0.05", "--sessions", "2", "--workers", "1", "--queue", "1")
    host, port = urllib.parse.urlsplit(judge.url).netloc.split(":")
    body = json.dumps({"kernel": "gemm", "language": "c", "source": (CANDIDATES / "gemm_slow.c").read_text()})
    answers: list[tuple[int, str | None, dict]] = []

    def post() -> None:
        conn = http.client.HTTPConnection(host, int(port), timeout=300)
        conn.request("POST", "/score", body, {"X-Hpcab-Rank": "0", "Content-Type": "application/json"})
        resp = conn.getresponse()
        answers.append((resp.status, resp.getheader("Retry-After"), json.loads(resp.read())))
        conn.close()
    first = threading.Thread(target=post)
    first.start()
    deadline = time.monotonic() + 60
    while judge.client().health()["queue"]["depth"] < 1:
        assert time.monotonic() < deadline, "the first request was never accepted"
        time.sleep(0.05)
    post()                                   # the queue is full now
    first.join(timeout=300)
    by_status = {a[0]: a for a in answers}
    assert set(by_status) == {200, 429}
    _, retry_after, refused = by_status[429]
    assert int(retry_after) >= 1
    assert "queue is full" in refused["error"]["message"]
    assert by_status[200][2]["correct"]
    assert judge.client().health()["queue"]["depth"] == 0
