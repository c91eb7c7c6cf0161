"""A judge killed with SIGKILL mid-grade and restarted loses nothing: finished grades stay,
the accepted submission is graded again (or, after max attempts, marked interrupted), the
client's retry with the same submission_id gets the answer, and no worker or measuring
child of the dead judge keeps running."""

import signal
import socket
import sqlite3
import threading
from pathlib import Path

from hpcab.client import JudgeClient

from .conftest import CANDIDATES, EXAMPLES, descendants, wait_for

FAST = ("--kernels", "gemm", "--target-seconds", "0.05", "--sessions", "2", "--workers", "1")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rows(db: Path, sql: str, *args):
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, args)]
    finally:
        conn.close()


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def submit_in_background(client: JudgeClient, sid: str) -> tuple[threading.Thread, dict]:
    result: dict = {}
    source = (CANDIDATES / "gemm_slow.c").read_text()

    def go():
        try:
            result["doc"] = client.submit("gemm", source, "c", label="slow", submission_id=sid)
        except Exception as exc:   # reported by the test
            result["error"] = exc
    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t, result


def kill_mid_grade(judge, sid: str) -> set[int]:
    """Wait until the slow submission is being timed, SIGKILL the judge (only its own
    process), and return the processes it had below it."""
    wait_for(lambda: rows(judge.db, "SELECT state FROM submissions WHERE id = ?", sid) and
             rows(judge.db, "SELECT state FROM submissions WHERE id = ?", sid)[0]["state"] == "grading",
             "the submission to be graded", 60)

    def measuring_child():
        for pid in descendants(judge.proc.pid):
            try:
                if b"hpcab.timing.untrusted.runner" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return pid
            except OSError:
                pass
        return None
    wait_for(measuring_child, "the measuring child to start", 60)
    below = descendants(judge.proc.pid)
    judge.proc.send_signal(signal.SIGKILL)
    judge.proc.wait()
    return below


def test_kill_9_mid_grade_then_restart_loses_nothing(start_judge, tmp_path):
    port = str(free_port())
    judge = start_judge(*FAST, "--port", port)
    client = judge.client(reconnect_seconds=120)
    finished = client.submit_file("gemm", EXAMPLES / "gemm.c")
    assert finished["correct"]

    sid = "ab" * 16
    thread, result = submit_in_background(judge.client(reconnect_seconds=120), sid)
    orphans = kill_mid_grade(judge, sid)
    assert orphans, "the judge had worker processes"
    # The dead judge's workers and measuring children go with it.
    wait_for(lambda: not any(alive(p) for p in orphans), "the dead judge's processes to exit", 15)

    # Accepted before the kill: both submissions are in the database.
    states = {r["id"]: r for r in rows(judge.db, "SELECT id, state, attempts FROM submissions")}
    assert states[finished["id"]]["state"] == "graded"
    assert states[sid]["state"] == "grading" and states[sid]["attempts"] == 1

    again = start_judge(*FAST, "--port", port, db=judge.db)
    thread.join(timeout=180)
    assert "error" not in result, result.get("error")
    doc = result["doc"]
    assert doc["id"] == sid and doc["correct"] and doc["label"] == "slow"
    assert [c["visibility"] for c in doc["cases"]] == ["public", "hidden", "hidden"]

    sub = rows(again.db, "SELECT state, attempts, grade_id FROM submissions WHERE id = ?", sid)[0]
    assert sub == {"state": "graded", "attempts": 2, "grade_id": sid}
    grades = {r["id"] for r in rows(again.db, "SELECT id FROM grades")}
    assert grades == {finished["id"], sid}           # the finished grade survived; nothing twice
    assert len(rows(again.db, "SELECT idx FROM grade_cases WHERE grade_id = ?", sid)) == 3
    assert again.client().grade(finished["id"])["status"] == "ok"
    assert "grading it again" in again.log.read_text()
    assert "1 submission(s) being graded again" in Path(str(again.log).replace(".log", ".out")).read_text()


def test_a_submission_that_kills_the_judge_twice_is_marked_interrupted(start_judge):
    port = str(free_port())
    judge = start_judge(*FAST, "--port", port)
    sid = "cd" * 16
    thread, result = submit_in_background(judge.client(reconnect_seconds=180), sid)
    kill_mid_grade(judge, sid)
    second = start_judge(*FAST, "--port", port, db=judge.db)
    kill_mid_grade(second, sid)                      # the re-grade dies too
    third = start_judge(*FAST, "--port", port, db=judge.db)
    thread.join(timeout=120)
    assert "error" not in result, result.get("error")
    doc = result["doc"]
    assert doc["status"] == "interrupted" and not doc["correct"]
    assert "stopped while grading it 2 time(s)" in doc["message"]
    sub = rows(third.db, "SELECT state, attempts, grade_id FROM submissions WHERE id = ?", sid)[0]
    assert sub == {"state": "interrupted", "attempts": 2, "grade_id": None}
    assert third.client().grade(sid)["status"] == "interrupted"
    # The judge keeps grading other work after marking it.
    assert third.client().submit_file("gemm", EXAMPLES / "gemm.c")["correct"]


def test_a_stop_asked_for_finishes_started_grades_and_requeues_the_rest(start_judge):
    port = str(free_port())
    judge = start_judge(*FAST, "--port", port)
    ids = ["ef" * 16, "12" * 16, "34" * 16]      # one worker: one grading, the others wait
    clients = [submit_in_background(judge.client(reconnect_seconds=120), sid) for sid in ids[:1]]
    wait_for(lambda: (rows(judge.db, "SELECT state FROM submissions WHERE id = ?", ids[0]) or [{}])[0].get("state")
             == "grading", "the first submission to be graded", 60)
    clients += [submit_in_background(judge.client(reconnect_seconds=120), sid) for sid in ids[1:]]
    wait_for(lambda: len(rows(judge.db, "SELECT id FROM submissions")) == 3, "all three to be accepted", 60)
    judge.proc.send_signal(signal.SIGTERM)
    assert judge.proc.wait(timeout=120) == 0
    states = {r["id"]: (r["state"], r["attempts"]) for r in rows(judge.db, "SELECT id, state, attempts FROM submissions")}
    # Graded, or back in the queue with the stopped attempt not counted; nothing half-done.
    assert states == {ids[0]: ("graded", 1), ids[1]: ("queued", 0), ids[2]: ("queued", 0)}
    again = start_judge(*FAST, "--port", port, db=judge.db)
    for (t, r), sid in zip(clients, ids):
        t.join(timeout=180)
        assert "error" not in r, r.get("error")
        assert r["doc"]["correct"] and r["doc"]["id"] == sid
    assert {r["id"]: (r["state"], r["attempts"]) for r in rows(again.db, "SELECT id, state, attempts FROM submissions")} \
        == {sid: ("graded", 1) for sid in ids}


def test_a_second_judge_of_the_same_rank_on_one_database_is_refused(start_judge):
    import pytest
    first = start_judge(*FAST)
    with pytest.raises(RuntimeError, match="another judge of rank 0 is already serving"):
        start_judge(*FAST, db=first.db)
    other_rank = start_judge(*FAST, "--rank", "1", db=first.db)     # another rank may share the database
    assert other_rank.client(rank=1).health()["rank"] == 1
    assert first.client().health()["status"] == "ok"
