"""Exact charging, with real judges (`hpcab serve`), a real SQLite database and real kill -9:
an attempt is counted when a grading worker takes a submission, never while it waits for
one; a score is charged while and once it is graded, one cut by a crash is forgotten by
the restarted judge; retries with the same submission_id or score_id are charged once.

Nothing here asserts on timing. A kill happens with the judge frozen (SIGSTOP) at a state
of the database the test has checked: only the judge's own process writes submissions
and scores, so what the restarted judge finds is exactly what the test saw."""

import json
import os
import signal
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

from hpcab.client import JudgeClient, JudgeError
from hpcab.judge.tokens import issue_tokens

from .conftest import CANDIDATES, EXAMPLES, descendants, rows, wait_for

ONE_WORKER = ("--kernels", "gemm", "--target-seconds", "0.05", "--sessions", "2", "--workers", "1")
GEMM_C = (EXAMPLES / "gemm.c").read_text()
SLOW_C = (CANDIDATES / "gemm_slow.c").read_text()      # 150 ms a call
DEADLINE = 120.0           # for any one state to be reached; generous, for a loaded machine
PENDING = ("queued", "grading")
# A correct candidate's grade; implausible too: on a loaded machine the memoization check
# can flag a tiny case of examples/gemm.c. Charging is what is tested here, not that check.
GRADED = ("ok", "implausible")


def free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def submissions(db: Path) -> dict[str, tuple[str, int]]:
    return {sid: (state, attempts) for sid, state, attempts in rows(db, "SELECT id, state, attempts FROM submissions")}


def stopped(pid: int) -> bool:
    """Every thread of pid is stopped (or the process is gone)."""
    try:
        states = [(t / "stat").read_text().rsplit(")", 1)[1].split()[0] for t in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        return True
    return all(s in "TtZX" for s in states)


def kill_at(judge, state, what: str, give_up=lambda: False):
    """Wait until state() (a look at the database: None, or what the test needs) holds
    while the judge is frozen, then kill -9 it there and return that state; None, the
    judge left running, once give_up() is true."""
    pid = judge.proc.pid
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if give_up():
            return None
        if not state():
            time.sleep(0.05)
            continue
        os.kill(pid, signal.SIGSTOP)       # nothing the judge does can land between the look and the kill
        seen = None
        try:
            wait_for(lambda: stopped(pid), "the judge to stop")
            seen = state()
            if seen:
                os.kill(pid, signal.SIGKILL)
                judge.proc.wait()
                return seen
        finally:
            if not seen:
                os.kill(pid, signal.SIGCONT)
    raise AssertionError(f"timed out after {DEADLINE:.0f} s waiting for {what}")


def in_background(call, *args, **kw) -> tuple[threading.Thread, dict]:
    result: dict = {}

    def go():
        try:
            result["doc"] = call(*args, **kw)
        except Exception as exc:     # reported by the test
            result["error"] = exc
    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t, result


def post_score(client: JudgeClient, source: str, score_id: str) -> dict:
    body = {"kernel": "gemm", "language": "c", "source": source, "label": "charging", "score_id": score_id}
    return client._request("POST", "/score", body)


def summary(doc: dict) -> dict:
    """What to show of a grade that is not what the test expected."""
    return {"status": doc["status"], "message": doc["message"], "build_diagnostics": doc.get("build_diagnostics"),
            "cases": [(c["label"], c["status"], c.get("message")) for c in doc["cases"]]}


def budget(client: JudgeClient) -> dict:
    return client.task("gemm")["budget"]


def measuring(pid: int) -> bool:
    """A measuring child (hpcab.timing.untrusted.runner) runs below pid: the grading reached a worker."""
    for child in descendants(pid):
        try:
            if b"hpcab.timing.untrusted.runner" in Path(f"/proc/{child}/cmdline").read_bytes():
                return True
        except OSError:
            pass
    return False


# ---- submissions ---------------------------------------------------------------------

def test_submissions_waiting_for_the_worker_through_two_kill_9_are_graded_and_charged_once(start_judge, tmp_path):
    tokens = issue_tokens(["alice"], 6, tmp_path / "tokens.json")     # a budget of exactly six
    args = (*ONE_WORKER, "--tokens", str(tmp_path / "tokens.json"), "--port", free_port())
    judge = start_judge(*args)

    def alice():
        return judge.client(tokens["alice"], reconnect_seconds=600, max_wait=600)
    ids = [uuid.uuid4().hex for _ in range(6)]
    clients = [in_background(alice().submit, "gemm", SLOW_C, "c", label="slow", submission_id=ids[0])]
    wait_for(lambda: submissions(judge.db).get(ids[0], ("",))[0] == "grading", "the slow submission to be graded")
    clients += [in_background(alice().submit, "gemm", GEMM_C, "c", label=f"queued-{i}", submission_id=sid)
                for i, sid in enumerate(ids[1:])]

    def one_grading_others_queued():
        subs = submissions(judge.db)
        states = [state for state, _ in subs.values()]
        # Two or more still queued, so that the second run can take one and leave one waiting.
        return subs if len(subs) == 6 and states.count("grading") == 1 and states.count("queued") >= 2 else None
    first = kill_at(judge, one_grading_others_queued, "one submission grading and the others queued")
    # Waiting for the worker counted no attempt; the one it had taken, one.
    for sid, (state, attempts) in first.items():
        assert attempts == (0 if state == "queued" else 1), (sid, state, attempts)

    second = start_judge(*args, db=judge.db)

    def taken_again_others_queued():
        # The second run took a submission its first run never gave a worker (so each is
        # cut at most twice: none is marked interrupted), and others still wait.
        subs = submissions(second.db)
        fresh = [sid for sid, (state, attempts) in subs.items() if state == "grading" and attempts > first[sid][1]]
        retaken = [sid for sid, (state, attempts) in subs.items() if state in PENDING and attempts >= 2]
        queued = [sid for sid, (state, _) in subs.items() if state == "queued"]
        return subs if len(fresh) == 1 and first[fresh[0]][1] == 0 and not retaken and queued else None
    cut = kill_at(second, taken_again_others_queued, "a second submission grading and others queued")
    for sid, (state, attempts) in cut.items():
        if state == "queued":       # waited through both runs: never tried
            assert attempts == first[sid][1] == 0, (sid, state, attempts)
        assert attempts <= first[sid][1] + 1, (sid, state, attempts)

    third = start_judge(*args, db=judge.db)
    docs = {}
    for (thread, result), sid in zip(clients, ids):
        thread.join(timeout=600)
        assert not thread.is_alive(), f"submission {sid} was never answered"
        assert "error" not in result, result.get("error")
        assert result["doc"]["id"] == sid and result["doc"]["status"] in GRADED, summary(result["doc"])
        docs[sid] = result["doc"]
    final = submissions(third.db)
    # Each attempt is a grading a worker took: the cut ones once more, the rest not again.
    assert final == {sid: ("graded", attempts + (state in PENDING)) for sid, (state, attempts) in cut.items()}
    assert max(attempts for _, attempts in final.values()) <= 2
    client = third.client(tokens["alice"])
    assert budget(client)["submissions_used"] == 6                       # the six, nothing more
    assert client.submit("gemm", GEMM_C, "c", submission_id=ids[1]) == docs[ids[1]]   # a retry: free
    assert budget(client)["submissions_used"] == 6
    with pytest.raises(JudgeError) as refused:                          # a seventh: over the budget
        client.submit("gemm", GEMM_C, "c")
    assert refused.value.status == 403


# ---- scores ----------------------------------------------------------------------------

def test_a_score_cut_by_kill_9_is_not_charged_and_its_retry_is_charged_once(start_judge, tmp_path):
    tokens = issue_tokens(["alice"], 1, tmp_path / "tokens.json", scores=10)
    args = (*ONE_WORKER, "--tokens", str(tmp_path / "tokens.json"), "--port", free_port())
    judge = start_judge(*args)
    alice = judge.client(tokens["alice"])
    post_score(alice, GEMM_C, uuid.uuid4().hex)
    assert budget(alice)["scores_used"] == 1

    # Kill it while the slow score is measured; should that grading end first (it cannot
    # be made to last), it is charged, and another one is cut instead.
    for _ in range(5):
        sid = uuid.uuid4().hex
        thread, result = in_background(post_score, judge.client(tokens["alice"], reconnect_seconds=0), SLOW_C, sid)
        wait_for(lambda: rows(judge.db, "SELECT id FROM scores WHERE id = ?", sid) and measuring(judge.proc.pid),
                 "the score to be measured")

        def ungraded():
            row = rows(judge.db, "SELECT status, document, judge_rank FROM scores WHERE id = ?", sid)
            if row == [(None, None, 0)]:        # accepted (charged while graded), not graded yet
                return rows(judge.db, "SELECT COUNT(*) FROM scores WHERE agent = 'alice' AND status IS NOT NULL")
            return None
        seen = kill_at(judge, ungraded, "the score to be cut",
                       give_up=lambda: rows(judge.db, "SELECT id FROM scores WHERE id = ? AND status IS NOT NULL", sid))
        if seen:
            (charged,), = seen
            break
        thread.join(timeout=DEADLINE)
    else:
        raise AssertionError("no slow score could be cut")
    thread.join(timeout=DEADLINE)
    assert isinstance(result.get("error"), JudgeError) and result["error"].status is None   # the judge went away

    again = start_judge(*args, db=judge.db)
    alice = again.client(tokens["alice"])
    assert rows(again.db, "SELECT id FROM scores WHERE id = ?", sid) == []       # forgotten: never graded
    assert budget(alice)["scores_used"] == charged
    assert "1 score(s) the last run did not finish grading are forgotten" in again.log.read_text()

    doc = post_score(alice, SLOW_C, sid)                                         # the client's retry
    assert doc["id"] == sid and doc["kind"] == "score" and doc["status"] in GRADED, summary(doc)
    assert budget(alice)["scores_used"] == charged + 1
    (status, document), = rows(again.db, "SELECT status, document FROM scores WHERE id = ?", sid)
    assert status == doc["status"] and json.loads(document) == doc
    assert post_score(alice, SLOW_C, sid) == doc                                 # and once more: free
    assert budget(alice)["scores_used"] == charged + 1


def test_the_same_score_id_is_graded_and_charged_once(start_judge, tmp_path):
    tokens = issue_tokens(["alice", "bob"], 1, tmp_path / "tokens.json", scores=3)
    judge = start_judge(*ONE_WORKER, "--tokens", str(tmp_path / "tokens.json"))
    alice, bob = judge.client(tokens["alice"]), judge.client(tokens["bob"])

    one = uuid.uuid4().hex
    first = post_score(alice, GEMM_C, one)
    assert first["id"] == one and first["status"] in GRADED, summary(first)
    assert post_score(alice, GEMM_C, one) == first             # the same answer, judge_total and all
    assert budget(alice)["scores_used"] == 1

    # Twice at once: one grading; the other request waits for it (or finds its answer).
    two = uuid.uuid4().hex
    barrier = threading.Barrier(2)

    def post():
        barrier.wait(timeout=DEADLINE)
        return post_score(judge.client(tokens["alice"]), SLOW_C, two)
    both = [in_background(post) for _ in range(2)]
    for thread, _ in both:
        thread.join(timeout=600)
    answers = [r.get("doc") or r.get("error") for _, r in both]
    assert answers[0] == answers[1] and answers[0]["id"] == two and answers[0]["status"] in GRADED, answers
    assert budget(alice)["scores_used"] == 2
    assert rows(judge.db, "SELECT COUNT(*) FROM scores WHERE id = ?", two) == [(1,)]

    # Another agent's score_id: 409, graded or being graded, and nothing charged to it.
    three = uuid.uuid4().hex
    thread, result = in_background(post_score, judge.client(tokens["alice"]), SLOW_C, three)
    wait_for(lambda: rows(judge.db, "SELECT id FROM scores WHERE id = ?", three), "alice's score to be accepted")
    for taken in (one, three):
        with pytest.raises(JudgeError) as refused:
            post_score(bob, GEMM_C, taken)
        assert refused.value.status == 409 and "score_id" in refused.value.message, refused.value
        assert refused.value.body["error"]["field"] == "score_id"
    thread.join(timeout=600)
    assert result["doc"]["id"] == three and result["doc"]["agent"] == "alice"
    assert budget(bob)["scores_used"] == 0

    # The budget (3) is spent: a retry still gets its answer, a new score is refused.
    assert budget(alice)["scores_used"] == 3
    assert post_score(alice, GEMM_C, one) == first
    with pytest.raises(JudgeError) as refused:
        post_score(alice, GEMM_C, uuid.uuid4().hex)
    assert refused.value.status == 403
