"""hpcab.experiments: judge databases and run folders into one observations table, its
statistics and the CLI (docs/plotting.md). Small real judge databases are built with the
record schema (hpcab.record) and plain INSERTs."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from hpcab.experiments.__main__ import main as cli_main
from hpcab.experiments.extract import COLUMNS, SCHEMA, extract, read_observations, verdict_expr, write_observations
from hpcab.experiments.stats import fast_p, geomean_ci, summarize
from hpcab.measure import FASTER, NO_DIFFERENCE, SLOWER, verdict
from hpcab.record import MIGRATIONS, connect

GEMM = "scientific_computing/dense_linear_algebra/gemm"
ATAX = "scientific_computing/dense_linear_algebra/atax"
CHOLESKY = "scientific_computing/dense_linear_algebra/cholesky"
SPMV = "scientific_computing/sparse_linear_algebra/spmv"
FFT = "scientific_computing/spectral_methods/fft"
JACOBI = "scientific_computing/structured_grids/jacobi_2d"
SOFTMAX = "machine_learning/softmax"

ENV = {"id": "env-a", "cpu_model": "Test CPU 9000", "hpcab_version": "9.9.9", "image_digest": "native"}


# ---- building judge databases and run folders --------------------------------------------

def insert(conn: sqlite3.Connection, table: str, row: dict) -> None:
    conn.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                 tuple(row.values()))


def add_grade(conn, gid: str, kernel: str, status: str, speedup: float | None = None, *, kind: str = "submit",
              agent: str | None = "worker-0", env: dict = ENV, created_at: str = "2026-01-01T00:00:00.000+00:00",
              cols: set[str] | None = None) -> None:
    conn.execute("INSERT OR IGNORE INTO environments (id, fingerprint) VALUES (?, ?)", (env["id"], json.dumps(env)))
    row = {"id": gid, "created_at": created_at, "kernel": kernel, "language": "c", "compiler": "gcc",
           "compiler_version": "12", "flagset": "opt", "label": "c@opt", "source_sha256": "0" * 64,
           "source": "void f(void) {}", "build_key": "k", "build_diagnostics": "", "status": status,
           "correct": int(status == "ok"), "message": "", "policy": "{}", "environment_id": env["id"],
           "speedup_numpy": None if speedup is None else speedup * 10,
           "speedup_numpy_low": None if speedup is None else speedup * 9,
           "speedup_numpy_high": None if speedup is None else speedup * 11,
           "baseline": "numba", "speedup_baseline": speedup,
           "speedup_baseline_low": None if speedup is None else speedup * 0.9,
           "speedup_baseline_high": None if speedup is None else speedup * 1.1,
           "agent": agent, "kind": kind, "image_digest": env["image_digest"]}
    if cols is not None:
        row = {k: v for k, v in row.items() if k in cols}
    insert(conn, "grades", row)


def add_submission(conn, sid: str, agent: str, kernel: str, received_at: str, state: str = "graded",
                   grade: tuple | None = None, tokens: tuple[int, int, int, int] = (0, 0, 0, 0),
                   wall: float | None = None, rank: int = 0, cols: set[str] | None = None) -> None:
    """grade: (status, speedup) of the grade this submission got (state graded)."""
    if grade is not None:
        add_grade(conn, sid, kernel, grade[0], grade[1], agent=agent, cols=_grade_cols(conn))
    calls, prompt, completion, cached = tokens
    row = {"id": sid, "agent": agent, "received_at": received_at, "judge_rank": rank, "kernel": kernel,
           "language": "c", "compiler": None, "flagset": "opt", "label": "c@opt", "source": "void f(void) {}",
           "state": state, "grade_id": sid if grade is not None else None, "model_calls": calls,
           "prompt_tokens": prompt, "completion_tokens": completion, "cached_tokens": cached,
           "agent_wall_seconds": wall}
    if cols is not None:
        row = {k: v for k, v in row.items() if k in cols}
    insert(conn, "submissions", row)


def _grade_cols(conn) -> set[str]:
    return {r[1] for r in conn.execute("PRAGMA table_info(grades)")}


def judge_db(path: Path) -> sqlite3.Connection:
    conn = connect(path)
    conn.execute("BEGIN")
    return conn


def close(conn: sqlite3.Connection) -> None:
    conn.execute("COMMIT")
    conn.close()


def run_folder(root: Path, name: str, arm: dict, status: str | None = "succeeded") -> Path:
    run = root / name
    run.mkdir(parents=True)
    (run / "arm.yaml").write_text(json.dumps(arm))       # JSON is YAML
    if status:
        (run / "status.json").write_text(json.dumps({"state": status}))
    return run


def results_json(run: Path, worker: str, tasks: list[dict], leg: int | None = None,
                 finished_at: str = "2026-01-01T01:00:00Z") -> None:
    folder = run / "agents" / (f"leg-{leg}" if leg is not None else "") / worker
    folder.mkdir(parents=True)
    full = [{"kernel": t["kernel"], "name": t["kernel"].rsplit("/", 1)[-1], "track": "x", "status": "ok",
             "correct": False, "speedup": None, "baseline": None, "grade_id": None, "submissions": 0, "scores": 0,
             "model_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0,
             "wall_seconds": 1.0, "ended_by": "", "error": "", **t} for t in tasks]
    (folder / "results.json").write_text(json.dumps({"agent": "x", "options": {}, "finished_at": finished_at,
                                                     "tasks": full}))


PRICE = {"prompt": 2.0, "completion": 10.0, "cached": 0.5}
LLM_ARM = {"experiment": "exp1", "arm": "llm-a", "optimizer": "llm",
           "model": {"name": "m1", "api": "openai", "price": PRICE},
           "roles": {"judge": {"count": 1}, "agent": {"count": 2}}, "kernels": "all"}


@pytest.fixture
def campaign(tmp_path) -> Path:
    """runs/: exp1 with two arms (llm-a: one run with every kind of row; numba: one run),
    exp2 (one run, a judge database of schema version 3), and a bare database of local grades."""
    runs = tmp_path / "runs"
    # exp1 / llm-a
    a = run_folder(runs, "exp1-20260101-000000", LLM_ARM)
    conn = judge_db(a / "judge-0.db")
    add_submission(conn, "s1", "worker-0", GEMM, "2026-01-01T00:00:01.000Z", grade=("ok", 2.0),
                   tokens=(2, 1000, 200, 400), wall=30.0)
    add_submission(conn, "s2", "worker-0", GEMM, "2026-01-01T00:00:02.000Z", grade=("incorrect", None),
                   tokens=(1, 100, 20, 0), wall=40.0)
    add_submission(conn, "s3", "worker-0", ATAX, "2026-01-01T00:00:03.000Z", grade=("implausible", None))
    add_submission(conn, "s4", "worker-1", SPMV, "2026-01-01T00:00:04.000Z", grade=("implausible", None))
    add_submission(conn, "s5", "worker-1", SPMV, "2026-01-01T00:00:05.000Z", state="error")
    add_submission(conn, "s6", "worker-1", FFT, "2026-01-01T00:00:06.000Z", state="interrupted")
    insert(conn, "reviews", {"grade_id": "s3", "verdict": "accepted", "note": "", "reviewer": "t"})
    insert(conn, "reviews", {"grade_id": "s4", "verdict": "rejected", "note": "", "reviewer": "t"})
    add_grade(conn, "local-1", GEMM, "ok", 5.0, kind="local", agent=None)      # not a submission: ignored
    close(conn)
    results_json(a, "worker-0", [{"kernel": GEMM}, {"kernel": ATAX},
                                 {"kernel": JACOBI, "status": "not submitted", "model_calls": 1,
                                  "prompt_tokens": 500, "completion_tokens": 50, "cached_tokens": 100,
                                  "wall_seconds": 12.5}])
    results_json(a, "worker-1", [{"kernel": SPMV}, {"kernel": FFT}])
    # exp1 / numba (the arm's name from its optimizer), still running
    b = run_folder(runs, "exp1-20260101-010000", {"experiment": "exp1", "optimizer": "numba",
                                                   "roles": {"judge": {"count": 1}, "agent": {"count": 1}}},
                   status="running")
    conn = judge_db(b / "judge-0.db")
    add_submission(conn, "n1", "worker-0", GEMM, "2026-01-01T01:00:01.000Z", grade=("ok", 8.0))
    add_submission(conn, "n2", "worker-0", CHOLESKY, "2026-01-01T01:00:02.000Z", grade=("ok", 2.0))
    close(conn)
    # exp2: schema version 3 (no tokens, no reviews, no image_digest), image in the fingerprint
    c = run_folder(runs, "exp2-20260102-000000", {"experiment": "exp2", "arm": "autotune",
                                                   "optimizer": "autotune"})
    old = sqlite3.connect(c / "judge-0.db", isolation_level=None)
    old.execute("PRAGMA journal_mode=WAL")
    for migration in MIGRATIONS[:3]:
        old.executescript(migration)
    old.execute("PRAGMA user_version = 3")
    old.execute("BEGIN")
    env = {**ENV, "id": "env-old", "image_digest": "sha256:" + "ab" * 32}
    old.execute("INSERT INTO environments (id, fingerprint) VALUES (?, ?)", (env["id"], json.dumps(env)))
    gcols = _grade_cols(old)
    add_grade(old, "o1", SOFTMAX, "ok", 3.0, env=env, cols=gcols)
    add_submission(old, "o1x", "worker-0", SOFTMAX, "2026-01-02T00:00:01.000Z",
                   cols={r[1] for r in old.execute("PRAGMA table_info(submissions)")})
    old.execute("UPDATE submissions SET grade_id = 'o1', state = 'graded' WHERE id = 'o1x'")
    old.execute("COMMIT")
    old.close()
    # A bare database of local grades (hpcab grade --db)
    conn = judge_db(tmp_path / "loose" / "judge.db")
    add_grade(conn, "g1", GEMM, "ok", 4.0, kind="local", agent=None, created_at="2026-01-03T00:00:00.000+00:00")
    add_grade(conn, "g2", GEMM, "ok", 1.0, kind="local", agent=None, created_at="2026-01-03T00:00:09.000+00:00")
    close(conn)
    return tmp_path


def rows_by(table: pl.DataFrame, key: str = "submission_id") -> dict:
    return {r[key]: r for r in table.iter_rows(named=True)}


# ---- the table -------------------------------------------------------------------------------

def test_run_folder_rows_and_values(campaign):
    result = extract([campaign / "runs" / "exp1-20260101-000000"])
    t = result.table
    assert result.problems == [] and result.unmatched == []
    assert t.columns == list(COLUMNS) and dict(t.schema) == SCHEMA
    # Six submissions and one task without any; the local grade is not an observation.
    assert t.height == 7
    assert sorted(x for x in t["submission_id"].to_list() if x) == ["s1", "s2", "s3", "s4", "s5", "s6"]
    assert t["submission_id"].null_count() == 1
    r = rows_by(t)
    for row in t.iter_rows(named=True):
        assert (row["experiment"], row["run"], row["arm"], row["optimizer"], row["model"], row["leg"]) == \
            ("exp1", "exp1-20260101-000000", "llm-a", "llm", "m1", 0)
        assert row["db"] == str(campaign / "runs" / "exp1-20260101-000000" / "judge-0.db")
    s1 = r["s1"]
    assert (s1["kernel"], s1["kernel_name"], s1["track"], s1["dwarf"], s1["level"]) == \
        (GEMM, "gemm", "scientific_computing", "dense_linear_algebra", 1)
    assert (s1["state"], s1["grade_id"], s1["status"], s1["correct"], s1["review"], s1["baseline"]) == \
        ("graded", "s1", "ok", True, None, "numba")
    assert (s1["language"], s1["compiler"], s1["flagset"], s1["label"]) == ("c", "gcc", "opt", "c@opt")
    assert s1["speedup"] == 2.0 and s1["speedup_low"] == pytest.approx(1.8) and s1["speedup_high"] == pytest.approx(2.2)
    assert s1["speedup_numpy"] == 20.0 and s1["speedup_numpy_low"] == 18.0 and s1["speedup_numpy_high"] == 22.0
    assert (s1["verdict"], s1["verdict_numpy"]) == (FASTER, FASTER)
    assert COLUMNS.index("verdict") == COLUMNS.index("speedup_high") + 1
    assert COLUMNS.index("verdict_numpy") == COLUMNS.index("speedup_numpy_high") + 1
    assert (s1["model_calls"], s1["prompt_tokens"], s1["completion_tokens"], s1["cached_tokens"], s1["tokens"]) == \
        (2, 1000, 200, 400, 1200)
    # 400 cached at 0.5, the other 600 prompt tokens at 2.0, 200 completion at 10.0 (USD per million)
    assert s1["spend_usd"] == pytest.approx((400 * 0.5 + 600 * 2.0 + 200 * 10.0) / 1e6)
    assert s1["agent_wall_seconds"] == 30.0
    assert (s1["image_digest"], s1["environment_id"], s1["cpu_model"], s1["hpcab_version"]) == \
        ("native", "env-a", "Test CPU 9000", "9.9.9")
    assert s1["received_at"] == "2026-01-01T00:00:01.000Z"
    # final: the task's LAST graded submission, here a wrong one.
    assert (s1["final"], r["s2"]["final"], r["s2"]["correct"]) == (False, True, False)
    # implausible: correct only when a review accepted it
    assert (r["s3"]["status"], r["s3"]["review"], r["s3"]["correct"], r["s3"]["final"]) == \
        ("implausible", "accepted", True, True)
    assert (r["s4"]["review"], r["s4"]["correct"], r["s4"]["final"]) == ("rejected", False, True)
    # s5 (error, no grade) came after s4: still s4 is the task's answer
    s5 = r["s5"]
    assert (s5["state"], s5["grade_id"], s5["status"], s5["correct"], s5["final"]) == \
        ("error", None, None, False, False)
    assert (s5["image_digest"], s5["environment_id"], s5["cpu_model"]) == (None, None, None)
    # a task with nothing graded: its last row is final, not correct
    assert (r["s6"]["state"], r["s6"]["final"], r["s6"]["correct"]) == ("interrupted", True, False)
    # the task without a submission, from results.json, with the runner's token totals
    none = t.filter(pl.col("submission_id").is_null()).row(0, named=True)
    assert (none["agent"], none["kernel"], none["kernel_name"], none["state"], none["correct"], none["final"]) == \
        ("worker-0", JACOBI, "jacobi_2d", "none", False, True)
    assert (none["grade_id"], none["status"], none["speedup"], none["received_at"]) == (None, None, None, None)
    assert (none["verdict"], none["verdict_numpy"]) == (None, None)
    assert (none["model_calls"], none["tokens"], none["agent_wall_seconds"], none["judge_rank"]) == (1, 550, 12.5, 0)
    assert none["spend_usd"] == pytest.approx((100 * 0.5 + 400 * 2.0 + 50 * 10.0) / 1e6)
    assert none["db"] == s1["db"]
    # one final row per task: gemm, atax, jacobi (worker-0), spmv, fft (worker-1)
    assert t["final"].sum() == 5


def test_arm_without_price_and_name_from_optimizer(campaign):
    t = extract([campaign / "runs" / "exp1-20260101-010000"]).table
    assert t["arm"].unique().to_list() == ["numba"] and t["model"].null_count() == t.height
    assert t["spend_usd"].null_count() == t.height and t["tokens"].to_list() == [0, 0]
    assert t["final"].to_list() == [True, True]


def test_old_schema_and_bare_local_database(campaign):
    db = campaign / "runs" / "exp2-20260102-000000" / "judge-0.db"
    loose = campaign / "loose" / "judge.db"
    result = extract([db, loose])
    assert result.problems == []
    t = result.table
    old = t.filter(pl.col("experiment") == "exp2").row(0, named=True)
    # A database inside a run folder is read as that run (its arm.yaml), that database only.
    assert (old["run"], old["arm"], old["submission_id"], old["grade_id"], old["speedup"], old["correct"]) == \
        ("exp2-20260102-000000", "autotune", "o1x", "o1", 3.0, True)
    assert (old["review"], old["tokens"], old["agent_wall_seconds"]) == (None, 0, None)
    assert old["image_digest"] == "sha256:" + "ab" * 32            # from the environment's fingerprint
    assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == 3       # never migrated
    local = t.filter(pl.col("experiment") == "loose")
    assert local["run"].unique().to_list() == ["judge"] and local["arm"].unique().to_list() == ["-"]
    assert local["agent"].unique().to_list() == ["local"] and local["submission_id"].to_list() == ["g1", "g2"]
    assert local["received_at"].to_list() == ["2026-01-03T00:00:00.000Z", "2026-01-03T00:00:09.000Z"]
    assert local["final"].to_list() == [False, True] and local["db"].unique().to_list() == [str(loose)]


def test_legs(tmp_path):
    run = run_folder(tmp_path, "legs-20260101-000000", {"experiment": "legs", "optimizer": "numba",
                                                        "legs": ["gemm", "atax"]})
    conn = judge_db(run / "judge-0.db")
    add_submission(conn, "l0", "worker-0", GEMM, "2026-01-01T00:00:01.000Z", grade=("ok", 2.0))
    add_submission(conn, "l1", "worker-0", ATAX, "2026-01-01T02:00:01.000Z", grade=("ok", 3.0))
    close(conn)
    results_json(run, "worker-0", [{"kernel": GEMM}], leg=0, finished_at="2026-01-01T01:00:00Z")
    results_json(run, "worker-0", [{"kernel": ATAX}, {"kernel": SPMV}], leg=1, finished_at="2026-01-01T03:00:00Z")
    t = extract([run]).table
    assert dict(zip(t["kernel"].to_list(), t["leg"].to_list())) == {GEMM: 0, ATAX: 1, SPMV: 1}
    assert t.filter(pl.col("kernel") == SPMV)["state"].to_list() == ["none"]


def test_verdict_columns_are_the_gate_on_the_intervals(tmp_path):
    conn = judge_db(tmp_path / "judge.db")
    # grade: speedup over the baseline with its bounds, then the NumPy bounds
    bounds = {"v1": (1.3, 1.1, 1.6, 0.5, 0.8), "v2": (1.3, 0.9, 1.8, 2.0, 3.0), "v3": (0.7, 0.5, 0.9, 0.9, 1.1),
              "v4": (1.0, 1.0, 1.0, None, 2.0), "v5": (1.2, None, None, 1.1, 1.2), "v6": (2.0, 1.8, None, None, None)}
    for i, (gid, (sp, lo, hi, nlo, nhi)) in enumerate(bounds.items()):
        add_grade(conn, gid, GEMM, "ok", sp, kind="local", created_at=f"2026-01-01T00:00:0{i}.000+00:00")
        conn.execute("UPDATE grades SET speedup_baseline_low = ?, speedup_baseline_high = ?, "
                     "speedup_numpy_low = ?, speedup_numpy_high = ? WHERE id = ?", (lo, hi, nlo, nhi, gid))
    close(conn)
    t = extract([tmp_path / "judge.db"]).table
    got = dict(zip(t["submission_id"].to_list(), t["verdict"].to_list()))
    assert got == {"v1": FASTER, "v2": NO_DIFFERENCE, "v3": SLOWER, "v4": NO_DIFFERENCE, "v5": None, "v6": None}
    numpy = dict(zip(t["submission_id"].to_list(), t["verdict_numpy"].to_list()))
    assert numpy == {"v1": SLOWER, "v2": FASTER, "v3": NO_DIFFERENCE, "v4": None, "v5": FASTER, "v6": None}
    assert got == {g: verdict(b[1], b[2]) for g, b in bounds.items()}
    assert numpy == {g: verdict(b[3], b[4]) for g, b in bounds.items()}


def test_verdict_expr_is_hpcab_measure_verdict():
    values = [None, float("nan"), 0.0, 0.5, 1.0, 1.0000001, 2.0, float("inf")]
    pairs = [(lo, hi) for lo in values for hi in values]
    frame = pl.DataFrame({"lo": [p[0] for p in pairs], "hi": [p[1] for p in pairs]},
                         schema={"lo": pl.Float64, "hi": pl.Float64})
    got = frame.select(verdict_expr("lo", "hi").alias("v"))["v"].to_list()
    assert got == [verdict(lo, hi) for lo, hi in pairs]


def test_unreadable_database_is_named_and_its_tasks_not_called_unsubmitted(tmp_path):
    run = run_folder(tmp_path, "bad-20260101-000000", LLM_ARM)
    (run / "judge-0.db").write_bytes(os.urandom(4096))
    results_json(run, "worker-0", [{"kernel": GEMM}])
    not_judge = tmp_path / "other.db"
    sqlite3.connect(not_judge).execute("CREATE TABLE t (x)")
    result = extract([run, not_judge])
    assert result.table.height == 0 and result.table.columns == list(COLUMNS)
    assert len(result.problems) == 2
    assert str(run / "judge-0.db") in result.problems[0] and "not a database" in result.problems[0]
    assert str(not_judge) in result.problems[1] and "no grades table" in result.problems[1]


# ---- read-only -----------------------------------------------------------------------------

def _state(folder: Path) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir() if p.is_file()}


def test_databases_are_only_read(campaign):
    folders = [campaign / "runs" / n for n in ("exp1-20260101-000000", "exp2-20260102-000000")] + [campaign / "loose"]
    before = {f: _state(f) for f in folders}
    assert not any(name.endswith(("-wal", "-shm")) for s in before.values() for name in s)
    assert extract([*folders, campaign / "loose" / "judge.db"]).table.height > 0
    assert {f: _state(f) for f in folders} == before          # same files, bytes and mtimes: no -wal, no -shm


def test_a_database_being_written_is_read(tmp_path):
    run = run_folder(tmp_path, "live-20260101-000000", LLM_ARM, status="running")
    writer = connect(run / "judge-0.db")                      # a judge still has it open (WAL)
    add_submission(writer, "w1", "worker-0", GEMM, "2026-01-01T00:00:01.000Z", grade=("ok", 2.0))
    assert (run / "judge-0.db-wal").exists()
    t = extract([run]).table
    assert t["submission_id"].to_list() == ["w1"] and t["correct"].to_list() == [True]
    add_submission(writer, "w2", "worker-0", ATAX, "2026-01-01T00:00:02.000Z", grade=("ok", 3.0))
    assert extract([run]).table.height == 2
    writer.close()


# ---- files and the CLI ---------------------------------------------------------------------

def test_csv_and_parquet_read_back_equal(campaign, tmp_path):
    t = extract([campaign / "runs" / "*", campaign / "loose" / "judge.db"]).table
    assert t.height == 7 + 2 + 1 + 2
    for name in ("obs.csv", "obs.parquet"):
        back = read_observations(write_observations(t, tmp_path / "out" / name))
        assert back.equals(t), name
    empty = read_observations(write_observations(extract([]).table, tmp_path / "empty.parquet"))
    assert empty.height == 0 and dict(empty.schema) == SCHEMA


def test_cli_summary_filter_and_errors(campaign, tmp_path, capsys):
    runs = campaign / "runs"
    (campaign / "broken").mkdir()
    (campaign / "broken" / "junk.db").write_bytes(os.urandom(8192))
    out_csv, out_parquet = tmp_path / "o" / "obs.csv", tmp_path / "o" / "obs.parquet"
    status = cli_main(["--runs", str(runs / "exp*"), "--runs", str(campaign / "broken" / "*.db"),
                       "--runs", str(campaign / "nowhere-*"), "--experiment", "exp1", "--experiment", "broken",
                       "--experiment", "exp9", "--out", str(out_csv), "--out", str(out_parquet)])
    cap = capsys.readouterr()
    assert status == 1
    lines = cap.out.splitlines()
    # The unreadable database's "run" is there with nothing in it, so it is seen at once.
    assert lines[0] == "broken / -: 1 run, 0 tasks, 0 submissions, 0 correct, geomean speedup -"
    assert lines[1] == "exp1 / llm-a: 1 run, 5 tasks, 6 submissions, 1 correct, geomean speedup -"
    assert lines[2] == ("exp1 / numba: 1 run (1 running), 2 tasks, 2 submissions, 2 correct, "
                        "geomean speedup 4x [95% CI 2, 8] faster")
    assert not any(line.startswith("exp2") for line in lines)                # filtered out
    assert f"nothing matched: --runs '{campaign / 'nowhere-*'}' matched no run folder, agent folder or .db file" in lines
    assert any(line.startswith("nothing matched: --experiment 'exp9' matched no run") for line in lines)
    assert f"wrote 9 rows to {out_csv}" in lines and f"wrote 9 rows to {out_parquet}" in lines
    assert str(campaign / "broken" / "junk.db") in cap.err and "not a database" in cap.err
    a, b = read_observations(out_csv), read_observations(out_parquet)
    assert a.equals(b) and a.height == 9 and set(a["arm"]) == {"llm-a", "numba"}


def test_cli_usage_errors(campaign, tmp_path, capsys):
    assert cli_main(["--runs", str(tmp_path / "nothing-*"), "--out", str(tmp_path / "x.csv")]) == 2
    assert "matched no run folder" in capsys.readouterr().err and not (tmp_path / "x.csv").exists()
    assert cli_main(["--runs", str(campaign / "runs" / "*"), "--out", str(tmp_path / "x.json")]) == 2
    assert ".csv or .parquet" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli_main([])
    assert exc.value.code == 2


def test_cli_as_a_module(campaign, tmp_path):
    out = tmp_path / "obs.parquet"
    proc = subprocess.run([sys.executable, "-m", "hpcab.experiments", "--runs", str(campaign / "runs" / "exp2-*"),
                           "--out", str(out)], check=False, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [("exp2 / autotune: 1 run, 1 tasks, 1 submissions, 1 correct, "
                                         "geomean speedup 3x (one correct task: no CI)"), f"wrote 1 rows to {out}"]


def test_summary_frame(campaign):
    s = extract([campaign / "runs" / "*"]).summary()
    assert s.columns == ["experiment", "arm", "runs", "runs_not_succeeded", "tasks", "submissions", "correct",
                         "geomean", "geomean_low", "geomean_high"]
    rows = {(r["experiment"], r["arm"]): r for r in s.iter_rows(named=True)}
    assert rows[("exp1", "llm-a")]["correct"] == 1 and math.isnan(rows[("exp1", "llm-a")]["geomean"])
    assert rows[("exp1", "numba")]["geomean"] == pytest.approx(4.0)
    assert rows[("exp1", "numba")]["runs_not_succeeded"] == 1 and rows[("exp2", "autotune")]["tasks"] == 1


# ---- statistics ------------------------------------------------------------------------------

def test_geomean_ci():
    g, lo, hi = geomean_ci([2.0, 8.0])
    assert g == pytest.approx(4.0) and lo == pytest.approx(2.0) and hi == pytest.approx(8.0)
    x = np.random.default_rng(7).lognormal(0.3, 0.8, 200)
    a, b = geomean_ci(x, seed=3), geomean_ci(x, seed=3)
    assert a == b and a[1] < a[0] < a[2]
    assert a[0] == pytest.approx(math.exp(np.log(x).mean()))
    assert geomean_ci(x, seed=4) != a                                   # the seed is used
    narrow = geomean_ci(x, level=0.5, seed=3)
    assert a[1] < narrow[1] < narrow[0] < narrow[2] < a[2]
    point, low, high = geomean_ci([3.0])        # one task: a value, but no interval
    assert point == 3.0 and math.isnan(low) and math.isnan(high)
    assert all(math.isnan(v) for v in geomean_ci([]))
    assert geomean_ci([2.0, None, float("nan"), 8.0])[0] == pytest.approx(4.0)
    with pytest.raises(ValueError):
        geomean_ci([1.0, 0.0])


def test_fast_p():
    correct = [True, True, False, True, None]
    speedup = [2.5, 1.0, 9.0, None, 3.0]
    low = [2.2, 1.01, 8.0, None, 2.5]
    assert fast_p(correct, speedup, 0) == pytest.approx(3 / 5)          # the correct rate
    assert fast_p(correct, speedup, 1.0, low) == pytest.approx(2 / 5)   # a wrong answer never counts
    assert fast_p(correct, speedup, 2.0, low) == pytest.approx(1 / 5)
    assert fast_p(correct, speedup, 3.0, low) == 0.0
    assert math.isnan(fast_p([], [], 1.0, []))
    with pytest.raises(ValueError, match="speedup_low"):
        fast_p(correct, speedup, 1.0)                  # p >= 1 needs the lower bounds
    with pytest.raises(ValueError, match="5 correct flags but 4 lower bounds"):
        fast_p(correct, speedup, 1.0, low[:4])


def test_fast_p_counts_only_measurably_faster_speedups_for_p_at_least_1():
    correct = [True, True, True, True]
    speedup = [1.3, 1.3, 0.6, 1.3]
    low = [0.9, 1.1, 0.4, None]             # [0.9, 1.8] includes 1; [1.1, 1.6] does not; no interval
    assert fast_p(correct, speedup, 1.0, low) == pytest.approx(1 / 4)      # only the [1.1, 1.6] one
    assert fast_p(correct, speedup, 1.3, low) == pytest.approx(1 / 4)
    assert fast_p(correct, speedup, 0.5, low) == pytest.approx(4 / 4)      # p < 1: no gate, 0.6 counts
    assert fast_p(correct, speedup, 0.5) == pytest.approx(4 / 4)           # nor are the bounds needed
    assert fast_p(correct, speedup, 0.99, low) == pytest.approx(3 / 4)     # 0.6 < 0.99
    assert fast_p([False, True], [0.6, 0.6], 0.5) == pytest.approx(1 / 2)  # but it must be correct


def test_summarize_gates_fast_p_on_the_interval():
    t = pl.DataFrame({
        "final": [True] * 5,
        "correct": [True, True, True, False, True],
        "speedup": [1.3, 1.3, 0.6, 5.0, float("nan")],
        "speedup_low": [0.9, 1.1, 0.5, 4.0, float("nan")],
        "speedup_high": [1.8, 1.6, 0.7, 6.0, float("nan")],
    })
    r = summarize(t, [], ps=(0.5, 1.0, 1.2)).row(0, named=True)
    assert r["measurable"] == 1                             # correct with the interval above 1
    assert r["fast_1.0"] == pytest.approx(1 / 5) and r["fast_1.2"] == pytest.approx(1 / 5)
    assert r["fast_0.5"] == pytest.approx(3 / 5)            # 1.3, 1.3 and 0.6: no gate below 1; NaN is no speedup
    with pytest.raises(ValueError, match="speedup_low"):
        summarize(t.drop("speedup_low"), [])


def test_summarize_by_track():
    t = pl.DataFrame({
        "track": ["a", "a", "a", "a", "b", "b"],
        "final": [True, True, True, False, True, True],
        "correct": [True, True, False, True, True, False],
        "speedup": [2.0, 8.0, 100.0, 1000.0, 0.5, None],
        "speedup_low": [1.9, 7.0, 90.0, 900.0, 0.4, None],
    })
    s = summarize(t, ["track"])
    assert s.columns == ["track", "tasks", "correct", "measurable", "correct_rate", "geomean", "geomean_low",
                         "geomean_high", "fast_1.0", "fast_1.5", "fast_2.0"]
    a, b = s.row(0, named=True), s.row(1, named=True)
    assert (a["track"], a["tasks"], a["correct"]) == ("a", 3, 2)       # the non-final row is not a task
    assert a["correct_rate"] == pytest.approx(2 / 3)
    assert a["geomean"] == pytest.approx(4.0)                           # the wrong 100x is not in it
    assert (a["geomean_low"], a["geomean_high"]) == (pytest.approx(2.0), pytest.approx(8.0))
    assert (a["fast_1.0"], a["fast_2.0"]) == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert (a["measurable"], b["measurable"]) == (2, 0)
    assert (b["tasks"], b["correct"], b["geomean"], b["fast_1.0"]) == (2, 1, 0.5, 0.0)
    overall = summarize(t, [], ps=(0.0,))
    assert overall.row(0, named=True)["tasks"] == 5 and overall["fast_0.0"][0] == pytest.approx(3 / 5)


# ---- run folders that never started, agent folders, the agent's wall time ------------------

NUMBA_ARM = {"experiment": "exp3", "optimizer": "numba", "roles": {"judge": {"count": 1}, "agent": {"count": 1}},
             "kernels": "gemm,atax"}


def test_an_agent_that_calls_no_model_has_its_wall_time_and_is_drawn_against_it(tmp_path):
    """Only model calls carry a wall time to the judge: a numba worker's submissions have
    none, so it comes from its results.json, and the speed-vs-spend figure is not empty."""
    from hpcab.analysis.figures import draw
    run = run_folder(tmp_path, "exp3-20260101-000000", NUMBA_ARM)
    conn = judge_db(run / "judge-0.db")
    add_submission(conn, "b1", "worker-0", GEMM, "2026-01-01T00:00:01.000Z", grade=("ok", 2.0))
    add_submission(conn, "b2", "worker-0", ATAX, "2026-01-01T00:00:02.000Z", grade=("ok", 1.5))
    close(conn)
    results_json(run, "worker-0", [{"kernel": GEMM, "wall_seconds": 7.5}, {"kernel": ATAX, "wall_seconds": 3.25}])
    t = extract([run]).table
    assert dict(zip(t["kernel_name"], t["agent_wall_seconds"])) == {"gemm": 7.5, "atax": 3.25}
    assert t["tokens"].to_list() == [0, 0]            # no tokens, no price: the wall time is the cost
    fig, data = draw("speedup_vs_spend", t)
    assert data.height == 2 and set(data["cost_measure"]) == {"agent_wall_seconds"}
    assert sorted(data["cost"]) == [3.25, 7.5]
    # A wall time the submission did carry (an llm agent's, so far) is kept as it was.
    conn = judge_db(run / "judge-0.db")
    add_submission(conn, "b3", "worker-0", GEMM, "2026-01-01T00:00:03.000Z", grade=("ok", 2.5), wall=5.0)
    close(conn)
    assert rows_by(extract([run]).table)["b3"]["agent_wall_seconds"] == 5.0


def test_a_run_folder_that_never_started_is_skipped_with_a_warning(tmp_path, capsys):
    good = run_folder(tmp_path / "runs", "exp3-20260101-000000", NUMBA_ARM)
    conn = judge_db(good / "judge-0.db")
    add_submission(conn, "b1", "worker-0", GEMM, "2026-01-01T00:00:01.000Z", grade=("ok", 2.0))
    close(conn)
    never = run_folder(tmp_path / "runs", "exp3-20260101-010000", NUMBA_ARM, status="failed")
    result = extract([str(tmp_path / "runs" / "exp3-*")])
    assert [r.run for r in result.runs] == [good.name] and result.problems == []
    assert len(result.warnings) == 1 and str(never) in result.warnings[0] and "never started" in result.warnings[0]
    assert cli_main(["--runs", str(tmp_path / "runs" / "exp3-*")]) == 0
    cap = capsys.readouterr()
    assert cap.out.splitlines()[0].startswith("exp3 / numba: 1 run, 1 tasks")       # not 2 runs
    assert f"warning: {never}: skipped" in cap.err


def test_an_agent_out_folder_is_read_with_its_judge_database_and_results(tmp_path):
    """What `hpcab agent --native --out OUT` writes: OUT/judge.db, results.json, agent.jsonl."""
    out = tmp_path / "agent-numba"
    out.mkdir()
    conn = judge_db(out / "judge.db")
    add_submission(conn, "a1", "numba", GEMM, "2026-01-01T00:00:01.000Z", grade=("ok", 2.0))
    close(conn)
    results_json(out.parent, out.name, [{"kernel": GEMM, "wall_seconds": 4.0}, {"kernel": ATAX}])
    (tmp_path / "agents" / out.name / "results.json").rename(out / "results.json")
    (out / "agent.jsonl").write_text("")
    result = extract([out], flag="--db")
    t = result.table
    assert result.problems == [] and result.unmatched == []
    assert t.height == 2 and set(t["experiment"]) == {"agent-numba"}
    a1 = rows_by(t)["a1"]
    assert (a1["agent"], a1["kernel_name"], a1["correct"], a1["agent_wall_seconds"]) == ("numba", "gemm", True, 4.0)
    none = t.filter(pl.col("state") == "none").row(0, named=True)      # atax: listed, never submitted
    assert (none["agent"], none["kernel_name"], none["final"]) == ("numba", "atax", True)
    # Without --native there is no database there: said so, naming the flag the sources came from.
    (out / "judge.db").unlink()
    assert any(u.startswith(f"--db '{out}'") and "without a judge database" in u
               for u in extract([out], flag="--db").unmatched)


def test_cli_summary_by_dwarf(campaign, capsys):
    """--by adds a line per group under each experiment x arm, with the group's own CI."""
    assert cli_main(["--runs", str(campaign / "runs" / "exp1-*"), "--by", "dwarf"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "exp1 / llm-a: 1 run, 5 tasks, 6 submissions, 1 correct, geomean speedup -",
        "  dwarf dense_linear_algebra: 2 tasks, 1 correct, geomean speedup -",
        "  dwarf sparse_linear_algebra: 1 tasks, 0 correct, geomean speedup -",
        "  dwarf spectral_methods: 1 tasks, 0 correct, geomean speedup -",
        "  dwarf structured_grids: 1 tasks, 0 correct, geomean speedup -",
        "exp1 / numba: 1 run (1 running), 2 tasks, 2 submissions, 2 correct, geomean speedup 4x [95% CI 2, 8] faster",
        "  dwarf dense_linear_algebra: 2 tasks, 2 correct, geomean speedup 4x [95% CI 2, 8] faster"]
    with pytest.raises(SystemExit):
        cli_main(["--runs", str(campaign / "runs" / "exp1-*"), "--by", "colour"])
    assert "invalid choice: 'colour'" in capsys.readouterr().err


def test_two_arms_that_differ_in_skills_alone_differ_in_the_skills_column_alone(tmp_path):
    """The experiment our users most want to repeat: the same llm agent with and without
    skills. Each run's rows carry its skills; what describes the setup is otherwise equal."""
    rows = {}
    for name, options in (("bare", {}), ("skilled", {"skills": "all"}), ("two", {"skills": "openmp,c"})):
        arm = dict(LLM_ARM, arm=None, options=options)
        arm.pop("arm")
        run = run_folder(tmp_path, f"exp1-2026010{len(rows)}-000000", arm)
        conn = judge_db(run / "judge-0.db")
        add_submission(conn, f"{name}-1", "worker-0", GEMM, "2026-01-01T00:00:01.000Z", grade=("ok", 2.0))
        close(conn)
        rows[name] = extract([run]).table.row(0, named=True)
    assert (rows["bare"]["skills"], rows["skilled"]["skills"], rows["two"]["skills"]) == ("none", "all", "c,openmp")
    setup = ("experiment", "arm", "optimizer", "model", "kernel", "language", "flagset", "status", "speedup")
    assert all(rows["bare"][c] == rows["skilled"][c] == rows["two"][c] for c in setup)
    # An optimizer that takes no skills has none to name.
    numba = run_folder(tmp_path, "exp1-20260109-000000", {"experiment": "exp1", "optimizer": "numba"})
    conn = judge_db(numba / "judge-0.db")
    add_submission(conn, "n-1", "worker-0", GEMM, "2026-01-01T00:00:01.000Z", grade=("ok", 2.0))
    close(conn)
    assert extract([numba]).table["skills"].to_list() == [None]
