"""Record: the SQLite judge database (WAL, versioned schema, forward migrations).

Each grade is stored with its per-case results, every raw per-call sample (as a
little-endian int64 BLOB per case and target) and the environment fingerprint it ran in.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import attrs
import numpy as np

# Each entry moves the schema from version i to i+1. Never edit a released entry: append.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE environments (
        id TEXT PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        first_seen TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE TABLE grades (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        kernel TEXT NOT NULL,
        language TEXT NOT NULL,
        compiler TEXT NOT NULL,
        compiler_version TEXT NOT NULL,
        flagset TEXT NOT NULL,
        label TEXT NOT NULL,
        source_sha256 TEXT NOT NULL,
        source TEXT NOT NULL,
        build_key TEXT NOT NULL,
        build_diagnostics TEXT NOT NULL,
        status TEXT NOT NULL,
        correct INTEGER NOT NULL,
        message TEXT NOT NULL,
        speedup_numpy REAL,
        speedup_numpy_low REAL,
        speedup_numpy_high REAL,
        policy TEXT NOT NULL,
        environment_id TEXT NOT NULL REFERENCES environments(id)
    );
    CREATE INDEX grades_by_kernel ON grades(kernel, created_at);
    CREATE TABLE grade_cases (
        grade_id TEXT NOT NULL REFERENCES grades(id),
        idx INTEGER NOT NULL,
        label TEXT NOT NULL,
        sizes TEXT NOT NULL,
        seed INTEGER NOT NULL,
        visibility TEXT NOT NULL,
        status TEXT NOT NULL,
        correct INTEGER NOT NULL,
        message TEXT NOT NULL,
        max_abs_err REAL,
        max_rel_err REAL,
        normwise_err REAL,
        median_ns REAL,
        ci_low_ns REAL,
        ci_high_ns REAL,
        outliers INTEGER,
        numpy_median_ns REAL,
        speedup_numpy REAL,
        speedup_numpy_low REAL,
        speedup_numpy_high REAL,
        PRIMARY KEY (grade_id, idx)
    );
    CREATE TABLE samples (
        grade_id TEXT NOT NULL REFERENCES grades(id),
        case_idx INTEGER NOT NULL,
        target TEXT NOT NULL,
        count INTEGER NOT NULL,
        ns BLOB NOT NULL,
        PRIMARY KEY (grade_id, case_idx, target)
    );
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class DatabaseError(Exception):
    pass


def connect(path: Path | str) -> sqlite3.Connection:
    """Open (creating or migrating) a judge database."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=30000")
    migrate(conn, str(path))
    return conn


def migrate(conn: sqlite3.Connection, name: str = "database") -> int:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise DatabaseError(f"{name}: schema version {version} is newer than this hpcab knows "
                            f"({SCHEMA_VERSION}); upgrade hpcab")
    for target in range(version, SCHEMA_VERSION):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            if conn.execute("PRAGMA user_version").fetchone()[0] != target:
                conn.execute("ROLLBACK")
                continue
            for statement in MIGRATIONS[target].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {target + 1}")
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise
    return conn.execute("PRAGMA user_version").fetchone()[0]


def _samples_blob(samples: np.ndarray) -> bytes:
    return np.asarray(samples, dtype="<i8").tobytes()


def samples_from_blob(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<i8").astype(np.int64)


def save_grade(conn: sqlite3.Connection, grade) -> None:
    """Store a Grade (hpcab.grade.Grade) with its cases, raw samples and environment, atomically."""
    env = grade.environment
    sp = grade.speedup_numpy
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT OR IGNORE INTO environments(id, fingerprint) VALUES (?, ?)",
                     (env["id"], json.dumps(env, sort_keys=True)))
        conn.execute(
            "INSERT INTO grades VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (grade.id, grade.created_at, grade.kernel_id, grade.candidate.language, grade.build.compiler,
             grade.build.compiler_version, grade.build.flagset, grade.candidate.label, grade.candidate.sha256,
             grade.candidate.source, grade.build.key, grade.build.diagnostics, grade.status, int(grade.correct),
             grade.message, sp.value if sp else None, sp.ci_low if sp else None, sp.ci_high if sp else None,
             json.dumps(attrs.asdict(grade.policy)), env["id"]))
        for i, c in enumerate(grade.cases):
            t, r, s, ch = c.timing, c.numpy_timing, c.speedup_numpy, c.check
            conn.execute(
                "INSERT INTO grade_cases VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (grade.id, i, c.case.label, json.dumps(c.case.sizes), c.case.seed, c.case.visibility, c.status,
                 int(c.correct), c.message,
                 ch.max_abs_err if ch else None, ch.max_rel_err if ch else None, ch.normwise_err if ch else None,
                 t.median_ns if t else None, t.ci_low_ns if t else None, t.ci_high_ns if t else None,
                 t.outliers if t else None, r.median_ns if r else None,
                 s.value if s else None, s.ci_low if s else None, s.ci_high if s else None))
            for target, samples in c.samples_ns.items():
                conn.execute("INSERT INTO samples VALUES (?,?,?,?,?)",
                             (grade.id, i, target, len(samples), _samples_blob(samples)))
        conn.execute("COMMIT")
    except Exception:
        conn.execute("ROLLBACK")
        raise


def load_grade(conn: sqlite3.Connection, grade_id: str) -> dict | None:
    """A stored grade as plain data: the row, its cases, samples and environment."""
    row = conn.execute("SELECT * FROM grades WHERE id = ?", (grade_id,)).fetchone()
    if row is None:
        return None
    grade = dict(row)
    grade["policy"] = json.loads(grade["policy"])
    grade["environment"] = json.loads(conn.execute("SELECT fingerprint FROM environments WHERE id = ?",
                                                   (row["environment_id"],)).fetchone()[0])
    grade["cases"] = [dict(c, sizes=json.loads(c["sizes"])) for c in
                      conn.execute("SELECT * FROM grade_cases WHERE grade_id = ? ORDER BY idx", (grade_id,))]
    for case in grade["cases"]:
        case["samples_ns"] = {s["target"]: samples_from_blob(s["ns"]) for s in conn.execute(
            "SELECT target, ns FROM samples WHERE grade_id = ? AND case_idx = ?", (grade_id, case["idx"]))}
    return grade
