"""Nothing of a hidden case reaches an agent but its status (issue 15, item 4).

A hidden case's sizes, inputs and times are the judge's: every number the judge reports
about one is a channel the candidate, which runs on it, can write into. These tests write
into each channel a candidate can reach (an error magnitude, a sleep, a failure of the
judge's grading) and check that the answer (HTTP, MCP, `hpcab submit`) carries none of it,
while the judge's database keeps everything for review.
"""

import concurrent.futures as cf
import io
import json
import logging
import math
import os
import re
import sqlite3
import subprocess
import sys
import uuid
from concurrent.futures.process import BrokenProcessPool      # what the judge's pool raises
from pathlib import Path

import attrs
import numpy as np
import pytest

from hpcab.gradedoc import HIDDEN_BASELINE_ERROR, HIDDEN_MESSAGES, grade_document, print_grade
from hpcab.record import samples_from_blob
from hpcab.schema import validate
from tests.conftest import EXAMPLES, ROOT, RunningJudge, rows, serve

GEMM_C = (EXAMPLES / "gemm.c").read_text()
PUBLIC = "NI == 400 && NJ == 440 && NK == 480"      # gemm's preset S, the judge's public case
assert GEMM_C.count("{\n    (void)workspace; (void)workspace_size;\n") == 1
# On any case but the public one, C[0] is off by the case's sizes: a wrong answer whose
# max_abs_err would read NI*1e6 + NJ*1e3 + NK back to the agent.
SIZES_IN_ERROR = GEMM_C.replace(
    "{\n    (void)workspace; (void)workspace_size;\n",
    "{\n    (void)workspace; (void)workspace_size;\n"
    "    const int hidden = !(" + PUBLIC + ");\n", 1).replace(
    "        }\n    }\n}\n",
    "        }\n    }\n"
    "    if (hidden) C[0] += (double)NI * 1e6 + (double)NJ * 1e3 + (double)NK;\n}\n", 1)
assert "if (hidden)" in SIZES_IN_ERROR
SLEEP_US_PER_NI = 20
# Correct everywhere, but on any case but the public one each call sleeps NI × 20 µs: a
# median_ns that would read NI back.
SIZES_IN_TIME = "#define _POSIX_C_SOURCE 200809L\n#include <time.h>\n" + GEMM_C.replace(
    "{\n    (void)workspace; (void)workspace_size;\n",
    "{\n    (void)workspace; (void)workspace_size;\n"
    "    if (!(" + PUBLIC + ")) {\n"
    f"        long ns = (long)NI * {SLEEP_US_PER_NI}L * 1000L;\n"
    "        struct timespec t = {ns / 1000000000L, ns % 1000000000L};\n"
    "        nanosleep(&t, 0);\n"
    "    }\n", 1)
assert "nanosleep(&t, 0)" in SIZES_IN_TIME
JUDGE_ARGS = ("--kernels", "gemm", "--target-seconds", "0.2", "--timeout", "10", "--workers", "1", "--sessions", "2")
# What an agent may be shown of a hidden case; every other field is null.
STATUS_FIELDS = {"label", "visibility", "status", "message"}
AGENT_DURATIONS = {"build", "prepare", "finish", "slot_wait", "timed", "candidate_timed", "judge_total", "public_cases"}


def agent_durations(doc: dict) -> bool:
    """The durations an agent may see (driver_<part>: summed over the public cases)."""
    return all(k in AGENT_DURATIONS or k.startswith("driver_") for k in doc["durations"]) and \
        "cases" not in doc["durations"]


# ---- the judge -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def judge(tmp_path_factory, private_build_cache):
    """An open `hpcab serve` (gemm only, short timings) for this module."""
    folder = tmp_path_factory.mktemp("judge-leaks")
    running = serve(folder, *JUDGE_ARGS, slot_dir=tmp_path_factory.mktemp("slots"))
    try:
        yield running
    finally:
        running.stop()


def stored_case(db: Path, grade_id: str, label: str) -> dict:
    conn = sqlite3.connect(db, timeout=30)
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute("SELECT * FROM grade_cases WHERE grade_id = ? AND label = ?", (grade_id, label)).fetchone()
        assert row is not None, f"the database has no case {label} of grade {grade_id}"
        return dict(row, sizes=json.loads(row["sizes"]))
    finally:
        conn.close()


def stored_samples(db: Path, grade_id: str, visibility: str, target: str | None = None) -> float:
    """Seconds: the sum of the stored timed calls of a grade's cases of one visibility."""
    total = 0
    for target_, blob in rows(db, "SELECT s.target, s.ns FROM samples s JOIN grade_cases c ON "
                                  "c.grade_id = s.grade_id AND c.idx = s.case_idx "
                                  "WHERE s.grade_id = ? AND c.visibility = ?", grade_id, visibility):
        if target is None or target == target_:
            total += int(samples_from_blob(blob).sum())
    return total / 1e9


def submit(judge: RunningJudge, source: str, label: str) -> dict:
    doc = judge.client(timeout=300, reconnect_seconds=5).submit("gemm", source, "c", label=label,
                                                              submission_id=uuid.uuid4().hex)
    validate(doc, "grade", "the judge's answer")
    return doc


# ---- what a document may say of a hidden case -------------------------------------------

def leaves(obj, path: tuple = ()):
    """Every (path, scalar) of a JSON document."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from leaves(v, path + (i,))
    else:
        yield path, obj


def assert_status_only(case: dict) -> None:
    """A hidden case as an agent may see it: its label, visibility and status, a fixed
    message; no number at all but samples = 0."""
    assert case["visibility"] == "hidden"
    assert case["message"] in ("", *HIDDEN_MESSAGES.values()), case["message"]
    for key, value in case.items():
        if key in STATUS_FIELDS:
            continue
        if key == "samples":
            assert value == 0
        elif key == "baseline_error":
            assert value in (None, HIDDEN_BASELINE_ERROR), value
        else:
            assert value is None, f"hidden case {case['label']}: {key} = {value!r}"


def assert_nowhere(doc, number: float, texts: tuple[str, ...]) -> None:
    """No number of the document equals `number`, and no text of it contains any of
    `texts` or the number as it would be printed (each not part of a longer number: the
    public case's NK=480 does not hold an edge shape's NK=4)."""
    spelled = {str(int(number)), f"{number:.2e}", f"{number:.3g}", f"{number:.3e}", f"{number:g}", *texts}
    patterns = [re.compile(r"(?<![\d.])" + re.escape(t) + r"(?![\d])") for t in spelled]
    for path, value in leaves(doc):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            assert not math.isclose(value, number, rel_tol=1e-6), f"{path} = {value!r} is the hidden sizes"
        elif isinstance(value, str):
            found = [p.pattern for p in patterns if p.search(value)]
            assert not found, f"{path} contains {found}: {value!r}"


def encoded(sizes: dict) -> float:
    return sizes["NI"] * 1e6 + sizes["NJ"] * 1e3 + sizes["NK"]


def spelled_sizes(sizes: dict) -> tuple[str, ...]:
    return tuple(f"{k}={v}" for k, v in sizes.items()) + (" ".join(f"{k}={v}" for k, v in sizes.items()),)


# ---- (a) an error magnitude that encodes the sizes ------------------------------------------

def test_a_wrong_answer_that_encodes_the_hidden_sizes_shows_only_its_status(judge):
    doc = submit(judge, SIZES_IN_ERROR, "sizes in the error")
    by_label = {c["label"]: c for c in doc["cases"]}
    assert by_label["S"]["status"] == "ok" and by_label["S"]["max_abs_err"] is not None   # public: in full
    assert by_label["S"]["median_ns"] > 0 and by_label["S"]["sizes"] == {"NI": 400, "NJ": 440, "NK": 480}
    # Both hidden cases are at sizes not the public preset's (the scored one fuzzed, the edge
    # shape), so the candidate is wrong on both, and encodes each one's sizes.
    for label in ("hidden-S1", "hidden-S-edge"):
        assert by_label[label]["status"] == "incorrect" and by_label[label]["message"] == HIDDEN_MESSAGES["incorrect"]
    edge = by_label["hidden-S-edge"]
    assert doc["status"] == "incorrect" and doc["correct"] is False
    for case in doc["cases"]:
        if case["visibility"] == "hidden":
            assert_status_only(case)
    assert doc["message"] == f"hidden-S1: {HIDDEN_MESSAGES['incorrect']}; hidden-S-edge: {HIDDEN_MESSAGES['incorrect']}"
    assert agent_durations(doc), doc["durations"]

    # (c) The judge's database keeps what the agent was not told: the edge shape's sizes and
    # the error that encodes them, the message in full, every sample.
    stored = stored_case(judge.db, doc["id"], "hidden-S-edge")
    sizes = stored["sizes"]
    assert stored["status"] == "incorrect" and stored["visibility"] == "hidden"
    assert stored["max_abs_err"] == pytest.approx(encoded(sizes), rel=1e-6)
    assert stored["message"] and stored["message"] != edge["message"]
    assert rows(judge.db, "SELECT COUNT(*) FROM samples WHERE grade_id = ?", doc["id"])[0][0] > 0
    (document,), = rows(judge.db, "SELECT document FROM submissions WHERE id = ?", doc["id"])
    assert json.loads(document) == doc                      # what the agent was shown, as it was shown

    fuzzed = stored_case(judge.db, doc["id"], "hidden-S1")
    assert fuzzed["max_abs_err"] == pytest.approx(encoded(fuzzed["sizes"]), rel=1e-6)

    # Nowhere in the answer: not the encoded error, not the sizes as a message would name them.
    for shape in (sizes, fuzzed["sizes"]):
        assert_nowhere(doc, encoded(shape), spelled_sizes(shape))
        assert_nowhere(judge.client(timeout=60).grade(doc["id"]), encoded(shape), spelled_sizes(shape))

    # The same through `hpcab submit` (printed: the hidden rows show their status and dashes) ...
    env = dict(os.environ, COLUMNS="250")         # one table row per line
    env.pop("HPCAB_TOKEN", None)
    source = Path(judge.db).with_name("sizes_in_error.c")
    source.write_text(SIZES_IN_ERROR)
    out = subprocess.run([sys.executable, "-m", "hpcab", "submit", "gemm", str(source), "--judge", judge.url],
                         capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"hidden-S-edge: {HIDDEN_MESSAGES['incorrect']}" in out.stdout
    assert_nowhere(out.stdout, encoded(sizes), spelled_sizes(sizes))
    # Its table row: status and dashes. The console is 160 columns when piped, whatever COLUMNS
    # says, so the case column may wrap its label ("hidden-S-" / "edge") or "[hidden]".
    edge_row = next(line for line in out.stdout.splitlines() if "hidden-S-" in line and "│" in line)
    assert "incorrect" in edge_row and not any(ch.isdigit() for ch in edge_row), edge_row

    # ... and through the MCP server's submit tool (its summary line and its document).
    import anyio
    from mcp import Client

    from hpcab.mcp import make_server
    server = make_server(judge.client(timeout=300, reconnect_seconds=5))

    async def submit_over_mcp():
        async with Client(server) as c:        # the SDK's own client, in process
            return await c.call_tool("submit", {"kernel": "gemm", "source": SIZES_IN_ERROR, "language": "c"})
    answer = anyio.run(submit_over_mcp)
    result = answer.model_dump(by_alias=True, mode="json")
    assert result["isError"] is False
    text = result["content"][0]["text"]
    mcp_doc = json.loads(text.split("\n", 1)[1])
    assert [c["status"] for c in mcp_doc["cases"]] == ["ok", "incorrect", "incorrect"]
    for case in mcp_doc["cases"][1:]:
        assert_status_only(case)
    assert_nowhere(text, encoded(sizes), spelled_sizes(sizes))
    assert_nowhere(result.get("structuredContent", mcp_doc), encoded(sizes), spelled_sizes(sizes))


# ---- (b) a time that encodes the sizes -------------------------------------------------

def test_a_candidate_that_sleeps_by_the_hidden_sizes_gets_no_hidden_time(judge):
    doc = submit(judge, SIZES_IN_TIME, "sizes in the time")
    assert doc["status"] == "ok" and doc["correct"] is True, doc["message"]
    public, = [c for c in doc["cases"] if c["visibility"] == "public"]
    assert public["median_ns"] > 0 and public["samples"] > 0 and public["speedup_vs_numpy"] is not None
    for case in doc["cases"]:
        if case["visibility"] == "hidden":
            assert case["status"] == "ok"
            assert_status_only(case)
            for key in ("median_ns", "ci95_ns", "numpy_median_ns", "baseline_median_ns", "speedup_vs_numpy",
                        "speedup_vs_baseline"):
                assert case[key] is None
    # The grade's one aggregate (over the scored cases: S and hidden-S1, not the edge shape) stays.
    assert doc["speedup_vs_numpy"] is not None and doc["speedup_vs_baseline"] is not None

    # durations: no per-case time of a hidden case; the timed totals are the public case's alone.
    assert agent_durations(doc), doc["durations"]
    assert doc["durations"]["timed"] == pytest.approx(stored_samples(judge.db, doc["id"], "public"), abs=2e-6)
    assert doc["durations"]["candidate_timed"] == pytest.approx(
        stored_samples(judge.db, doc["id"], "public", "candidate"), abs=2e-6)

    # (c) The database has the edge shape's times: each call slept NI × 20 µs there.
    stored = stored_case(judge.db, doc["id"], "hidden-S-edge")
    assert stored["status"] == "ok" and stored["median_ns"] >= 0.95 * stored["sizes"]["NI"] * SLEEP_US_PER_NI * 1e3
    assert stored["numpy_median_ns"] > 0
    hidden_time = stored_samples(judge.db, doc["id"], "hidden", "candidate")
    assert hidden_time > 0 and doc["durations"]["candidate_timed"] < stored_samples(
        judge.db, doc["id"], "public", "candidate") + hidden_time
    assert_nowhere(doc, stored["median_ns"], ())


# ---- (d) grade_document itself ------------------------------------------------------------

def _synthetic_grade():
    from hpcab.build import Build, Candidate
    from hpcab.case import Case
    from hpcab.check import Check, OutputCheck
    from hpcab.grade import CaseResult, Grade
    from hpcab.measure import Speedup, Timing
    from hpcab.timing.policy import Policy
    from hpcab.timing.records import Diagnostics

    def result(case, status, message="", err=1e-14, ns=1e6, baseline_error=None):
        check = Check(status == "ok", (OutputCheck("C", status == "ok", err, err, err),), message)
        timing = Timing(ns, 0.9 * ns, 1.1 * ns, 7, 0, 0.8 * ns)
        samples = {"candidate": np.full(7, int(ns)), "numpy": np.full(7, int(2 * ns))}
        sp = Speedup(2.0, 1.9, 2.1) if status == "ok" else None
        return attrs.evolve(CaseResult(case, status, message, check, timing,
                                       Timing(2 * ns, 1.8 * ns, 2.2 * ns, 7, 0, 1.6 * ns), sp, samples, None, None,
                                       baseline_error, (1,), 0.25), diagnostics=Diagnostics(durations={"check": ns / 1e9}))

    k = "scientific_computing/dense_linear_algebra/gemm"
    public = result(Case(k, {"NI": 400, "NJ": 440, "NK": 480}, 0, "public", "S"), "ok",
                    baseline_error="crashed: the baseline's own message")
    hidden = result(Case(k, {"NI": 400, "NJ": 440, "NK": 480}, 987654321, "hidden", "hidden-S1"), "ok",
                    ns=3.7e7, baseline_error="its answer is wrong: C[3] expected 0.123456 got 9")
    edge = result(Case(k, {"NI": 142, "NJ": 149, "NK": 1}, 123456789, "hidden", "hidden-S-edge", scored=False),
                  "incorrect", "the warm-up call: C: max abs error 1.42e+08 at (0, 0): NI=142", err=142149001.0,
                  ns=142e3)
    build = Build(True, "key", None, "", "gcc", "12.2.0", "opt", (), False, 0.1)
    baseline_error = ("the baseline's preparation: slow; S: crashed: the baseline's own message; "
                      "hidden-S1: its answer is wrong: C[3] expected 0.123456 got 9")
    durations = {"build": 0.1, "prepare": 0.2, "cases": 3.0, "finish": 0.01, "slot_wait": 0.75,
                 "driver_check": 0.04, "timed": 1.0, "candidate_timed": 0.5}
    return Grade("0" * 32, "2026-01-01T00:00:00.000+00:00", k, Candidate("src", "c", None, "x"), build, "incorrect",
                 (public, hidden, edge), None, Policy(), {"id": "env", "image_digest": "native"}, "c-autopar",
                 None, baseline_error, "generated", durations)


def test_grade_document_redacts_hidden_cases_only_when_asked():
    g = _synthetic_grade()
    full = grade_document(g, "submit", "alice", durations={"judge_total": 4.0})
    shown = grade_document(g, "submit", "alice", redact_hidden=True, durations={"judge_total": 4.0})
    for doc in (full, shown):
        validate(doc, "grade", "a synthetic grade")

    # The full document (hpcab grade --json; the judge's rows) has everything.
    edge = full["cases"][2]
    assert edge["sizes"] == {"NI": 142, "NJ": 149, "NK": 1} and edge["max_abs_err"] == 142149001.0
    assert edge["median_ns"] == 142e3 and edge["samples"] == 7 and "NI=142" in edge["message"]
    assert full["durations"] == {**g.durations, "judge_total": 4.0}
    assert full["baseline_error"] == g.baseline_error and "NI=142" in full["message"]

    # What an agent is shown: the public case as it is, the hidden ones by their status.
    assert shown["cases"][0] == full["cases"][0]
    for case in shown["cases"][1:]:
        assert_status_only(case)
    assert [c["status"] for c in shown["cases"]] == ["ok", "ok", "incorrect"]
    assert shown["cases"][1]["baseline_error"] == HIDDEN_BASELINE_ERROR
    assert shown["cases"][2]["baseline_error"] is None
    assert shown["message"] == f"hidden-S-edge: {HIDDEN_MESSAGES['incorrect']}"
    assert shown["baseline_error"] == ("the baseline's preparation: slow; S: crashed: the baseline's own message; "
                                       f"hidden-S1: {HIDDEN_BASELINE_ERROR}")
    # durations: no "cases"; the timed totals and the slot wait of the public case alone.
    assert shown["durations"] == pytest.approx({"build": 0.1, "prepare": 0.2, "finish": 0.01, "slot_wait": 0.25,
                                                "driver_check": 0.001, "timed": 0.021, "candidate_timed": 0.007,
                                                "judge_total": 4.0})
    assert_nowhere(shown, 142149001.0, ("NI=142", "0.123456", "987654321", "123456789"))
    assert_nowhere(shown, 3.7e7, ())

    # A grade without hidden cases (a score) is not changed by the redaction.
    public_only = attrs.evolve(g, cases=g.cases[:1], baseline_error=None)
    assert grade_document(public_only, "score", redact_hidden=True) == grade_document(public_only, "score")

    # Printed (hpcab submit): a hidden row is its label, [hidden], its status and dashes.
    from rich.console import Console
    out = Console(record=True, width=250, file=io.StringIO())
    print_grade(shown, out)
    text = out.export_text()
    assert "hidden-S-edge [hidden]" in text and HIDDEN_MESSAGES["incorrect"] in text
    assert_nowhere(text, 142149001.0, ("NI=142", "0.123456", "987654321"))


# ---- (e) a failure of the judge while grading ---------------------------------------------

SECRET = "NI=37 NJ=41 A[3]=0.123456789"       # what a judge-side exception could quote


@pytest.fixture
def inproc_judge(tmp_path, monkeypatch):
    """A Judge without HTTP whose 'worker pool' is a thread pool, so that the grading
    function can be replaced by one that raises."""
    from hpcab.judge import service
    monkeypatch.setattr(service.Judge, "_new_pool", lambda self: cf.ThreadPoolExecutor(1))
    judge = service.Judge(service.JudgeConfig(db=tmp_path / "judge.db", kernels="gemm", workers=1, sandbox="none",
                                              slot_dir=tmp_path / "slots"))
    yield judge
    judge.close(drain_seconds=5)


def _raising(exc_factory, also=None):
    def run_grade(job):
        if also is not None:
            also()
        raise exc_factory()
    return run_grade


def _body(sid: str | None = None) -> dict:
    return {"kernel": "gemm", "language": "c", "source": GEMM_C, **({"submission_id": sid} if sid else {})}


def test_a_judge_failure_while_grading_is_a_generic_500_logged_and_charged(inproc_judge, monkeypatch, caplog):
    from hpcab.judge import worker
    from hpcab.judge.service import ApiError, failure_message
    from hpcab.judge.tokens import Agent
    from hpcab.record import count_scores, count_submissions, submission
    judge = inproc_judge
    alice = Agent("alice", submissions=1, scores=1)
    monkeypatch.setattr(worker, "run_grade", _raising(lambda: ValueError(f"cannot check the output: {SECRET}")))
    caplog.set_level(logging.ERROR, logger="hpcab.judge")

    with pytest.raises(ApiError) as err:
        judge.score(_body(), alice)
    assert err.value.status == 500 and SECRET not in err.value.message
    (score_id,), = rows(judge.config.db, "SELECT id FROM scores WHERE agent = 'alice'")
    assert err.value.message == failure_message("score", score_id)
    assert score_id in err.value.message and "logged for the operator" in err.value.message
    assert count_scores(judge.db(), "alice") == 1                 # charged: the budget of 1 is spent
    assert rows(judge.config.db, "SELECT status FROM scores WHERE id = ?", score_id) == [("failed",)]
    with pytest.raises(ApiError) as err:
        judge.score(_body(), alice)
    assert err.value.status == 403

    sid = uuid.uuid4().hex
    with pytest.raises(ApiError) as err:
        judge.submit(_body(sid), alice)
    assert err.value.status == 500 and err.value.message == failure_message("submission", sid)
    assert SECRET not in err.value.message
    row = submission(judge.db(), sid)
    assert row["state"] == "failed" and SECRET in row["message"]   # the operator's, in the database
    assert count_submissions(judge.db(), "alice") == 1             # charged
    for again in (lambda: judge.submit(_body(sid), alice), lambda: judge.grade(sid, alice)):
        with pytest.raises(ApiError) as err:                      # a repeat: the same generic answer
            again()
        assert err.value.status == 500 and err.value.message == failure_message("submission", sid)
    with pytest.raises(ApiError) as err:                          # a fresh id: the budget is spent
        judge.submit(_body(uuid.uuid4().hex), alice)
    assert err.value.status == 403

    # The operator's log has the tracebacks, with the exception's text.
    logged = [r for r in caplog.records if r.exc_info]
    assert any(score_id in r.getMessage() for r in logged) and any(sid in r.getMessage() for r in logged)
    assert all(SECRET in str(r.exc_info[1]) for r in logged)


def test_a_worker_that_died_or_a_stop_is_not_charged(inproc_judge, monkeypatch):
    from hpcab.judge import worker
    from hpcab.judge.service import ApiError
    from hpcab.judge.tokens import Agent
    from hpcab.record import count_scores, count_submissions, submission
    judge = inproc_judge
    bob = Agent("bob", submissions=1, scores=1)

    monkeypatch.setattr(worker, "run_grade", _raising(BrokenProcessPool))
    with pytest.raises(ApiError) as err:
        judge.score(_body(), bob)
    assert err.value.status == 500 and "worker died" in err.value.message
    assert count_scores(judge.db(), "bob") == 0
    sid = uuid.uuid4().hex
    with pytest.raises(ApiError) as err:
        judge.submit(_body(sid), bob)
    assert err.value.status == 500 and "worker died" in err.value.message
    assert submission(judge.db(), sid)["state"] == "error" and count_submissions(judge.db(), "bob") == 0

    # A stop that begins while a grading runs: 503, the score forgotten, the submission
    # left for the next start (not charged as a failure).
    def stop():
        judge._closed = True
    monkeypatch.setattr(worker, "run_grade", _raising(lambda: RuntimeError(SECRET), also=stop))
    with pytest.raises(ApiError) as err:
        judge.score(_body(), bob)
    assert err.value.status == 503 and SECRET not in err.value.message
    assert count_scores(judge.db(), "bob") == 0
    judge._closed = False
    sid = uuid.uuid4().hex
    with pytest.raises(ApiError) as err:
        judge.submit(_body(sid), bob)
    assert err.value.status == 503 and SECRET not in err.value.message
    assert submission(judge.db(), sid)["state"] == "grading" and sid in judge._stopped
