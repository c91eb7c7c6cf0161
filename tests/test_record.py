"""The SQLite judge database: WAL, versioned migrations, grades with raw samples and environment."""

import sqlite3

import pytest

from hpcab.build import candidate_from_file
from hpcab.case import preset_case
from hpcab.grade import grade
from hpcab.record import SCHEMA_VERSION, DatabaseError, connect, load_grade, migrate, save_grade
from tests.conftest import CANDIDATES, EXAMPLES


def test_new_database_is_wal_and_current(tmp_path):
    db = connect(tmp_path / "judge.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert migrate(db) == SCHEMA_VERSION   # idempotent


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "future.db"
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    with pytest.raises(DatabaseError, match="newer than this hpcab knows"):
        connect(path)


def test_grade_round_trip_with_samples_and_environment(tmp_path, corpus, toolchains, fast_policy):
    k = corpus.get("gemm")
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains, policy=fast_policy)
    bad = grade(k, candidate_from_file(CANDIDATES / "gemm_segfault.c"), [preset_case(k, "S")], toolchains,
                policy=fast_policy)
    db = connect(tmp_path / "judge.db")
    save_grade(db, g)
    save_grade(db, bad)
    stored = load_grade(db, g.id)
    assert stored["status"] == "ok" and stored["kernel"] == k.id and stored["correct"] == 1
    assert stored["source"] == g.candidate.source
    case = stored["cases"][0]
    assert case["sizes"] == k.presets["S"]
    assert list(case["samples_ns"]["candidate"]) == list(g.cases[0].samples_ns["candidate"])
    assert case["median_ns"] == g.cases[0].timing.median_ns
    env = stored["environment"]
    for key in ("cpu_model", "cpu_flags", "compilers", "hpcab_version", "corpus_hash", "threads"):
        assert key in env
    assert env["compilers"]["gcc"] == toolchains.compilers["gcc"].installed_version()
    assert stored["policy"]["threads"] == fast_policy.threads
    crashed = load_grade(db, bad.id)
    assert crashed["status"] == "crashed" and crashed["cases"][0]["samples_ns"] == {}
    # Both grades share one environment row.
    assert db.execute("SELECT COUNT(*) FROM environments").fetchone()[0] == 1
    assert load_grade(db, "no-such-id") is None
