"""The agent API and the automatic optimizers, against real judges (hpcab serve on loopback,
or the in-process judge of `hpcab agent --native`)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hpcab.agents import Agent, Budget, BudgetExhausted, Session, Task, agent_class
from hpcab.agents.autotune import thread_counts, with_threads
from hpcab.agents.runner import parse_options
from hpcab.agents.search import Scored, Variant, best
from hpcab.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
FAST = ("--target-seconds", "0.05", "--sessions", "2", "--workers", "1")


def agent_cli(*args: str, tmp_path: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, HPCAB_SLOT_DIR=str(tmp_path / "slots"), COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "hpcab", "agent", *args, "--no-progress"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def results(out: Path) -> dict[str, dict]:
    return {t["name"]: t for t in json.loads((out / "results.json").read_text())["tasks"]}


def log_events(out: Path, event: str) -> list[dict]:
    lines = (out / "agent.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["event"] == event]


def submissions(db: Path) -> list[dict]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute("SELECT * FROM submissions ORDER BY received_at")]
    finally:
        conn.close()


# ---- the choice rule and the search space ------------------------------------------------

def _scored(label: str, value: float, low: float, high: float, correct: bool = True) -> Scored:
    doc = {"correct": correct, "speedup_vs_baseline": {"value": value, "ci95": [low, high]}}
    return Scored(Variant(label, "", "c"), doc)


def test_best_keeps_the_simpler_variant_unless_the_faster_one_is_beyond_the_noise():
    simple, noisy_faster, clearly_faster = (_scored("simple", 1.00, 0.95, 1.05), _scored("noisy", 1.08, 1.01, 1.20),
                                            _scored("clear", 1.50, 1.40, 1.60))
    assert best([simple, noisy_faster]).variant.label == "simple"
    assert best([simple, noisy_faster, clearly_faster]).variant.label == "clear"
    assert best([_scored("wrong", 9.0, 8.0, 10.0, correct=False), simple]).variant.label == "simple"
    assert best([_scored("wrong", 9.0, 8.0, 10.0, correct=False)]) is None


def test_thread_counts_and_the_num_threads_clause():
    assert thread_counts(1) == [1] and thread_counts(2) == [1, 2] and thread_counts(6) == [1, 2, 4, 6]
    src = "#pragma omp parallel for schedule(static)\nfor (;;) {}\n#pragma omp parallel for\n"
    assert with_threads(src, 3).count("num_threads(3)") == 2


def test_options_and_agent_names_are_checked():
    assert parse_options(["max_scores=5", "dir=runs/x", "flag=true"]) == {"max_scores": 5, "dir": "runs/x",
                                                                        "flag": True}
    with pytest.raises(InputError, match="key=value"):
        parse_options(["oops"])
    with pytest.raises(InputError, match="unknown agent 'nosuch'"):
        agent_class("nosuch")
    with pytest.raises(InputError, match="not a subclass"):
        agent_class("hpcab.agents.search:Variant")
    with pytest.raises(InputError, match=r"no such class in it; it defines Scored, Variant \(did you mean Variant\?\)"):
        agent_class("hpcab.agents.search:Varient")
    with pytest.raises(InputError, match="names a file but no class"):
        agent_class(f"{ROOT}/examples/flag_search_agent.py")
    assert agent_class(f"{ROOT}/examples/flag_search_agent.py:FlagSearchAgent").name == "flag-search"
    assert agent_class("autotune").name == "autotune"


# ---- budgets, against a real judge -------------------------------------------------------

def test_a_session_stops_at_its_score_and_submission_budgets(start_judge, tmp_path):
    judge = start_judge("--kernels", "gemm", *FAST)
    client = judge.client()
    doc = client.task("gemm")
    task = Task(doc["kernel"], doc["name"], doc["track"], doc, tmp_path)
    session = Session(client, task, Budget(submissions=1, scores=1), log_path=tmp_path / "log.jsonl")
    source = (ROOT / "examples/gemm.c").read_text()
    assert session.score(source, "c")["correct"]
    with pytest.raises(BudgetExhausted, match="score budget of 1"):
        session.score(source, "c")
    assert session.submit(source, "c")["correct"]
    with pytest.raises(BudgetExhausted, match="submission budget of 1"):
        session.submit(source, "c")
    conn = sqlite3.connect(judge.db)
    assert conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 1     # the refused one never reached it
    assert conn.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] == 1
    timed_out = Session(client, task, Budget(wall_seconds=0.0))
    with pytest.raises(BudgetExhausted, match="wall-time budget"):
        timed_out.score(source, "c")


# ---- the optimizers, end to end through `hpcab agent` -------------------------------------

def test_translator_scores_every_language_and_flag_set_and_submits_the_chosen_one(start_judge, tmp_path):
    judge = start_judge("--kernels", "gemm", *FAST)
    out = tmp_path / "run"
    proc = agent_cli("translator", "--kernels", "gemm", "--judge", judge.url, "--out", str(out), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1/1 correct" in proc.stdout and "gemm" in proc.stdout
    flagsets = [f for f in judge.client().task("gemm")["flagsets"] if f != "debug"]
    scored = {e["label"] for e in log_events(out, "score")}
    assert scored == {f"{lang}@{f}" for lang in ("c", "fortran") for f in flagsets}
    row = results(out)["gemm"]
    assert row["correct"] and row["submissions"] == 1 and row["scores"] == len(scored)
    [sub] = submissions(judge.db)
    assert sub["label"] in scored and sub["state"] == "graded" and sub["grade_id"] == row["grade_id"]


def test_a_built_in_optimizer_out_of_the_judges_scores_submits_the_best_so_far(start_judge, tmp_path):
    from hpcab.judge.tokens import issue_tokens
    tokens = tmp_path / "tokens.json"
    issue_tokens(["tight"], 1, tokens, scores=2)            # the translator has 6 variants for gemm
    judge = start_judge("--kernels", "gemm", "--tokens", str(tokens), *FAST)
    out = tmp_path / "run"
    proc = agent_cli("translator", "--kernels", "gemm", "--judge", judge.url, "--token-file", str(tokens),
                     "--agent", "tight", "--out", str(out), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    scored = [e["label"] for e in log_events(out, "score")]
    [refused] = log_events(out, "score_refused")           # the judge's 403, once: no score after it
    assert len(scored) == 2 and "'tight' has spent its score budget (2)" in refused["message"]
    [sub] = submissions(judge.db)
    row = results(out)["gemm"]
    assert sub["label"] in scored and sub["state"] == "graded" and row["correct"] and row["variant"] == sub["label"]
    assert "the judge refused further scores" in row["ended_by"]


def test_autotune_screens_refines_confirms_within_its_score_limit(start_judge, tmp_path):
    judge = start_judge("--kernels", "jacobi_2d", *FAST)
    out = tmp_path / "run"
    proc = agent_cli("autotune", "--kernels", "jacobi_2d", "--judge", judge.url, "--out", str(out),
                     "--option", "max_scores=7", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    labels = [e["label"] for e in log_events(out, "score")]
    assert labels[:4] == ["c@opt", "cpp@opt", "fortran@opt", "c-omp@autopar/t1"]      # the screen
    assert 5 <= len(labels) <= 7 and len(set(labels)) < len(labels)                   # refined, then confirmed
    [submitted] = log_events(out, "submit")
    assert submitted["label"] in labels and results(out)["jacobi_2d"]["correct"]


def test_replay_submits_a_folder_an_index_and_a_judge_database(start_judge, tmp_path):
    judge = start_judge("--kernels", "gemm,atax", *FAST)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "gemm.c").write_text((ROOT / "examples/gemm.c").read_text())
    (folder / "gemm.v2.f90").write_text((ROOT / "examples/gemm.f90").read_text())
    (folder / "gemm.notes.txt").write_text("not code")
    out = tmp_path / "run"
    proc = agent_cli("replay", "--kernels", "gemm,atax", "--judge", judge.url, "--out", str(out),
                     "--option", f"dir={folder}", "--submissions", "2", tmp_path=tmp_path)
    assert proc.returncode == 1, proc.stdout            # atax has no file: the run says so and fails
    rows = results(out)
    assert rows["gemm"]["submissions"] == 2 and rows["gemm"]["correct"]
    assert rows["atax"]["submissions"] == 0 and "nothing to replay for atax" in rows["atax"]["error"]
    assert [s["label"] for s in submissions(judge.db)] == ["gemm.c", "gemm.v2.f90"]

    index = tmp_path / "indexed"
    index.mkdir()
    (index / "a.cpp").write_text((ROOT / "examples/atax.cpp").read_text())
    (index / "index.json").write_text(json.dumps({"submissions": [
        {"kernel": "atax", "file": "a.cpp", "flagset": "unroll", "label": "hand-tuned"}]}))
    proc = agent_cli("replay", "--kernels", "atax", "--judge", judge.url, "--out", str(tmp_path / "run2"),
                     "--option", f"dir={index}", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    atax = [s for s in submissions(judge.db) if s["kernel"].endswith("atax")]
    assert [(s["label"], s["flagset"], s["language"]) for s in atax] == [("hand-tuned", "unroll", "cpp")]

    # The campaign's graded code, again, on a fresh in-process judge.
    out3 = tmp_path / "run3"
    proc = agent_cli("replay", "--kernels", "gemm", "--native", "--out", str(out3), "--option", f"db={judge.db}",
                     "--submissions", "5", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    again = submissions(out3 / "judge.db")
    assert [s["label"] for s in again] == ["replay of " + s["id"] + ": " + s["label"]
                                           for s in submissions(judge.db) if s["kernel"].endswith("gemm")]
    assert all(s["state"] == "graded" for s in again)


class Raising(Agent):
    """For the test below: raises on gemm, submits the example on atax."""
    name = "raising"

    def solve(self, task: Task, session: Session) -> None:
        if task.name == "gemm":
            raise RuntimeError("boom in the agent")
        session.submit((ROOT / "examples/atax.cpp").read_text(), "cpp")


def test_an_agent_that_raises_fails_its_task_and_the_run_but_not_the_other_tasks(start_judge, tmp_path):
    judge = start_judge("--kernels", "gemm,atax", *FAST)
    out = tmp_path / "run"
    proc = agent_cli("tests.test_agents:Raising", "--kernels", "gemm,atax", "--judge", judge.url, "--out", str(out),
                     tmp_path=tmp_path)
    assert proc.returncode == 1
    assert "RuntimeError: boom in the agent" in proc.stdout
    rows = results(out)
    assert rows["gemm"]["status"] == "error" and rows["atax"]["correct"]
    assert "boom in the agent" in (out / "errors.log").read_text()


def test_unknown_agents_kernels_and_judges_are_clear_errors(start_judge, tmp_path):
    proc = agent_cli("nosuch", "--kernels", "gemm", "--native", tmp_path=tmp_path, timeout=60)
    assert proc.returncode == 2 and "unknown agent 'nosuch'" in proc.stderr
    proc = agent_cli("translator", "--kernels", "gemm", "--judge", "http://127.0.0.1:9", "--out",
                     str(tmp_path / "x"), tmp_path=tmp_path, timeout=60)
    assert proc.returncode == 2 and "cannot reach the judge at http://127.0.0.1:9" in proc.stderr
    judge = start_judge("--kernels", "gemm", *FAST)
    proc = agent_cli("translator", "--kernels", "atax", "--judge", judge.url, "--out", str(tmp_path / "y"),
                     tmp_path=tmp_path, timeout=60)
    assert proc.returncode == 2 and "does not serve scientific_computing/dense_linear_algebra/atax" in proc.stderr


def test_numba_and_pythran_compile_the_reference_and_submit_the_better_variant(start_judge, tmp_path):
    judge = start_judge("--kernels", "s271_conditional", *FAST)
    for name, labels in (("numba", {"numba.njit", "numba.njit(parallel=True)"}),
                         ("pythran", {"pythran@opt", "pythran@autopar"})):
        out = tmp_path / name
        proc = agent_cli(name, "--kernels", "s271_conditional", "--judge", judge.url, "--out", str(out),
                         tmp_path=tmp_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        scores = log_events(out, "score")
        assert {e["label"] for e in scores} == labels and all(e["status"] == "ok" for e in scores)
        assert results(out)["s271_conditional"]["correct"]
    by_language = {s["language"]: s for s in submissions(judge.db)}
    assert set(by_language) == {"python", "pythran"} and all(s["state"] == "graded" for s in by_language.values())
    assert "#pythran export s271_conditional(" in by_language["pythran"]["source"]
    assert "def initialize" not in by_language["pythran"]["source"]
