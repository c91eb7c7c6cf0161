"""Record: the SQLite judge database (WAL, versioned schema, forward migrations).

Each grade is stored with its per-case results, every raw per-call sample (as a
little-endian int64 BLOB per case and target) and the environment fingerprint it ran in.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
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
    # 2: the track's baseline (numba, c-autopar or numpy), timed next to the candidate.
    """
    ALTER TABLE grades ADD COLUMN baseline TEXT;
    ALTER TABLE grades ADD COLUMN baseline_origin TEXT;
    ALTER TABLE grades ADD COLUMN baseline_error TEXT;
    ALTER TABLE grades ADD COLUMN speedup_baseline REAL;
    ALTER TABLE grades ADD COLUMN speedup_baseline_low REAL;
    ALTER TABLE grades ADD COLUMN speedup_baseline_high REAL;
    ALTER TABLE grade_cases ADD COLUMN baseline_median_ns REAL;
    ALTER TABLE grade_cases ADD COLUMN speedup_baseline REAL;
    ALTER TABLE grade_cases ADD COLUMN speedup_baseline_low REAL;
    ALTER TABLE grade_cases ADD COLUMN speedup_baseline_high REAL;
    """,
    # 3: the judge: submissions (written before they are graded), the score log, the
    # cached public-case baseline times, and who asked for each grade.
    """
    ALTER TABLE grades ADD COLUMN agent TEXT;
    ALTER TABLE grades ADD COLUMN kind TEXT NOT NULL DEFAULT 'local';
    ALTER TABLE grade_cases ADD COLUMN cpus TEXT;
    CREATE TABLE submissions (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        judge_rank INTEGER NOT NULL,
        kernel TEXT NOT NULL,
        language TEXT NOT NULL,
        compiler TEXT,
        flagset TEXT,
        label TEXT NOT NULL,
        source TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        message TEXT NOT NULL DEFAULT '',
        grade_id TEXT REFERENCES grades(id),
        document TEXT,
        finished_at TEXT
    );
    CREATE INDEX submissions_by_agent ON submissions(agent);
    CREATE INDEX submissions_by_state ON submissions(state);
    CREATE TABLE scores (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        kernel TEXT NOT NULL,
        status TEXT
    );
    CREATE INDEX scores_by_agent ON scores(agent);
    CREATE TABLE baselines (
        key TEXT PRIMARY KEY,
        kernel TEXT NOT NULL,
        measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        document TEXT NOT NULL
    );
    """,
    # 4: a person's verdict on an implausible grade (not scored until reviewed).
    """
    CREATE TABLE reviews (
        grade_id TEXT PRIMARY KEY REFERENCES grades(id),
        verdict TEXT NOT NULL,
        note TEXT NOT NULL,
        reviewer TEXT NOT NULL,
        at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    """,
    # 5: token accounting: the model calls an agent made before each submission
    # (docs/token_accounting.md), per call and in total.
    """
    ALTER TABLE submissions ADD COLUMN model_calls INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE submissions ADD COLUMN prompt_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE submissions ADD COLUMN completion_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE submissions ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE submissions ADD COLUMN agent_wall_seconds REAL;
    CREATE TABLE model_calls (
        submission_id TEXT NOT NULL REFERENCES submissions(id),
        seq INTEGER NOT NULL,
        model TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        cached_tokens INTEGER NOT NULL,
        seconds REAL NOT NULL,
        PRIMARY KEY (submission_id, seq)
    );
    """,
    # 6: reproduction (hpcab reproduce): the image each grade ran in ('native' outside one;
    # older grades take it from their fingerprint), and whether a case counts in the speedup.
    """
    ALTER TABLE grades ADD COLUMN image_digest TEXT NOT NULL DEFAULT 'native';
    UPDATE grades SET image_digest = COALESCE((SELECT json_extract(e.fingerprint, '$.image_digest')
        FROM environments e WHERE e.id = grades.environment_id), 'native');
    ALTER TABLE grade_cases ADD COLUMN scored INTEGER NOT NULL DEFAULT 1;
    UPDATE grade_cases SET scored = 0 WHERE label LIKE 'hidden-%-edge';
    """,
    # 7: where the candidate's source overrides its flag set (hpcab.overrides), a JSON list
    # of strings; '[]' for older grades, which were not looked at.
    """
    ALTER TABLE grades ADD COLUMN flagset_overridden TEXT NOT NULL DEFAULT '[]';
    """,
    # 8: how each case was measured from outside the candidate (hpcab/timing/trusted/driver.py): the timer's
    # round trip, the freezer, the candidate's CPU time beyond its calls, and the flag of an
    # implausible case (memoized | roofline | cpu). NULL for older grades.
    """
    ALTER TABLE grade_cases ADD COLUMN timer_overhead_ns REAL;
    ALTER TABLE grade_cases ADD COLUMN freezer TEXT;
    ALTER TABLE grade_cases ADD COLUMN cpu_excess_ns INTEGER;
    ALTER TABLE grade_cases ADD COLUMN flag TEXT;
    """,
    # 9: exact charging of scores: the rank of the judge grading each score (a restarted
    # judge forgets its own unfinished ones) and the document it answered, so that a retry
    # with the same score_id gets it again instead of being graded and charged twice.
    """
    ALTER TABLE scores ADD COLUMN judge_rank INTEGER;
    ALTER TABLE scores ADD COLUMN document TEXT;
    """,
    # 10: the round trip subtracted from C targets' samples (a trusted C runner's loop).
    """
    ALTER TABLE grade_cases ADD COLUMN timer_overhead_c_ns REAL;
    """,
    # 11: independent measuring sessions per case (hpcab.grade): how many a case had, and
    # how many of a target's samples (stored one session after another) each took, as a
    # JSON list. Older grades were measured in one session: 1 and NULL.
    """
    ALTER TABLE grade_cases ADD COLUMN sessions INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE samples ADD COLUMN sessions TEXT;
    """,
    # 12: distributed grades (docs/mpi.md): the ranks, launcher and declared distribution as
    # JSON (NULL: one process), and per case every rank's time of every timed call (int64
    # little-endian, call after call, `ranks` per call).
    """
    ALTER TABLE grades ADD COLUMN mpi TEXT;
    ALTER TABLE grade_cases ADD COLUMN ranks INTEGER;
    ALTER TABLE grade_cases ADD COLUMN rank_ns BLOB;
    """,
    # 13: profiles (POST /profile, hpcab/profile.py): not grades, but who asked, when, for
    # which kernel and with what outcome, against the agent's profile budget.
    """
    CREATE TABLE profiles (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        kernel TEXT NOT NULL,
        language TEXT NOT NULL,
        status TEXT,
        seconds REAL
    );
    CREATE INDEX profiles_by_agent ON profiles(agent);
    """,
    # 14: what the agent was given (a submission's `given`): the prompt text once per content,
    # by its SHA-256; with each submission that hash and the rest (variant, skills, tools,
    # hints) as JSON. NULL for submissions that did not say.
    """
    CREATE TABLE prompts (
        sha256 TEXT PRIMARY KEY,
        text TEXT NOT NULL
    );
    ALTER TABLE submissions ADD COLUMN prompt_sha256 TEXT REFERENCES prompts(sha256);
    ALTER TABLE submissions ADD COLUMN given TEXT;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
# A case's row keeps these of its hpcab.timing.records.Diagnostics (migrations 8 and 10).
DIAGNOSTIC_COLUMNS = ("timer_overhead_ns", "timer_overhead_c_ns", "freezer", "cpu_excess_ns")


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


def _insert(conn: sqlite3.Connection, table: str, row: dict) -> None:
    """INSERT with explicit column names, so adding a column never shifts a value."""
    cols = ", ".join(row)
    conn.execute(f"INSERT INTO {table} ({cols}) VALUES ({', '.join('?' * len(row))})", tuple(row.values()))


def _speedup_cols(prefix: str, sp) -> dict:
    return {prefix: sp.value if sp else None, f"{prefix}_low": sp.ci_low if sp else None,
            f"{prefix}_high": sp.ci_high if sp else None}


def save_grade(conn: sqlite3.Connection, grade, kind: str = "local", agent: str | None = None) -> None:
    """Store a Grade (hpcab.grade.Grade) with its cases, raw samples and environment, atomically."""
    with transaction(conn):
        _save_grade_rows(conn, grade, kind, agent)


class transaction:
    """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on an exception."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind, value, tb) -> None:
        self.conn.execute("ROLLBACK" if kind else "COMMIT")


def _save_grade_rows(conn: sqlite3.Connection, grade, kind: str, agent: str | None) -> None:
    env = grade.environment
    conn.execute("INSERT OR IGNORE INTO environments(id, fingerprint) VALUES (?, ?)",
                 (env["id"], json.dumps(env, sort_keys=True)))
    _insert(conn, "grades", {
        "id": grade.id, "created_at": grade.created_at, "kernel": grade.kernel_id,
        "language": grade.candidate.language, "compiler": grade.build.compiler,
        "compiler_version": grade.build.compiler_version, "flagset": grade.build.flagset,
        "flagset_overridden": json.dumps(list(grade.build.overrides)),
        "label": grade.candidate.label, "source_sha256": grade.candidate.sha256,
        "source": grade.candidate.source, "build_key": grade.build.key,
        "build_diagnostics": grade.build.diagnostics, "status": grade.status, "correct": int(grade.correct),
        "message": grade.message, **_speedup_cols("speedup_numpy", grade.speedup_numpy),
        "policy": json.dumps(attrs.asdict(grade.policy)), "environment_id": env["id"],
        "baseline": grade.baseline, "baseline_origin": grade.baseline_origin or None,
        "baseline_error": grade.baseline_error, **_speedup_cols("speedup_baseline", grade.speedup_baseline),
        "agent": agent, "kind": kind, "image_digest": env["image_digest"],
        "mpi": json.dumps(grade.mpi) if grade.mpi else None,
    })
    for i, c in enumerate(grade.cases):
        t, ch = c.timing, c.check
        _insert(conn, "grade_cases", {
            "grade_id": grade.id, "idx": i, "label": c.case.label, "sizes": json.dumps(c.case.sizes),
            "seed": c.case.seed, "visibility": c.case.visibility, "status": c.status,
            "correct": int(c.correct), "message": c.message,
            "max_abs_err": ch.max_abs_err if ch else None, "max_rel_err": ch.max_rel_err if ch else None,
            "normwise_err": ch.normwise_err if ch else None,
            "median_ns": t.median_ns if t else None, "ci_low_ns": t.ci_low_ns if t else None,
            "ci_high_ns": t.ci_high_ns if t else None, "outliers": t.outliers if t else None,
            "numpy_median_ns": c.numpy_timing.median_ns if c.numpy_timing else None,
            **_speedup_cols("speedup_numpy", c.speedup_numpy),
            "baseline_median_ns": c.baseline_timing.median_ns if c.baseline_timing else None,
            **_speedup_cols("speedup_baseline", c.speedup_baseline),
            "cpus": json.dumps(list(c.cpus)) if c.cpus else None, "scored": int(c.case.scored),
            **{k: getattr(c.diagnostics, k) for k in DIAGNOSTIC_COLUMNS},
            "flag": c.flag, "sessions": c.sessions,
            "ranks": c.rank_samples_ns.shape[1] if c.rank_samples_ns is not None else None,
            "rank_ns": _samples_blob(c.rank_samples_ns.reshape(-1)) if c.rank_samples_ns is not None else None,
        })
        for target, samples in c.samples_ns.items():
            counts = c.session_counts.get(target)
            conn.execute("INSERT INTO samples (grade_id, case_idx, target, count, ns, sessions) VALUES (?,?,?,?,?,?)",
                         (grade.id, i, target, len(samples), _samples_blob(samples),
                          json.dumps(list(counts)) if counts else None))


def load_grade(conn: sqlite3.Connection, grade_id: str) -> dict | None:
    """A stored grade as plain data: the row, its cases, samples and environment."""
    row = conn.execute("SELECT * FROM grades WHERE id = ?", (grade_id,)).fetchone()
    if row is None:
        return None
    grade = dict(row)
    grade["policy"] = json.loads(grade["policy"])
    grade["flagset_overridden"] = json.loads(grade["flagset_overridden"])
    grade["environment"] = json.loads(conn.execute("SELECT fingerprint FROM environments WHERE id = ?",
                                                   (row["environment_id"],)).fetchone()[0])
    grade["mpi"] = json.loads(grade["mpi"]) if grade.get("mpi") else None
    grade["cases"] = [dict(c, sizes=json.loads(c["sizes"])) for c in
                      conn.execute("SELECT * FROM grade_cases WHERE grade_id = ? ORDER BY idx", (grade_id,))]
    for case in grade["cases"]:
        if case.get("rank_ns") is not None:      # (calls, ranks)
            case["rank_ns"] = samples_from_blob(case["rank_ns"]).reshape(-1, case["ranks"])
    for case in grade["cases"]:
        rows = conn.execute("SELECT target, ns, sessions FROM samples WHERE grade_id = ? AND case_idx = ?",
                            (grade_id, case["idx"])).fetchall()
        case["samples_ns"] = {s["target"]: samples_from_blob(s["ns"]) for s in rows}
        # Per target, how many samples each session took (None: one session, an older grade).
        case["session_counts"] = {s["target"]: json.loads(s["sessions"]) if s["sessions"] else None for s in rows}
    return grade


# ---- the judge's submissions, score log and baseline cache ----------------------------

PENDING = ("queued", "grading")


def add_submission(conn: sqlite3.Connection, row: dict, budget: int | None) -> bool:
    """Write an accepted submission (state 'queued') before it is graded. False, and nothing
    written, when the agent's submission budget is spent; the check and the insert are one
    transaction, so concurrent submissions cannot overdraw it."""
    with transaction(conn):
        if budget is not None:
            used = count_submissions(conn, row["agent"])
            if used >= budget:
                return False
        usage = row.get("usage") or {}
        calls = usage.get("calls", [])
        given = dict(row.get("given") or {})
        if "hints" in given:
            given["hints"] = int(given["hints"])         # JSON's 2.0 is the schema's integer 2
        text = given.pop("prompt_text", None)
        if text is not None:
            given["prompt_sha256"] = prompt_hash(text)
            conn.execute("INSERT OR IGNORE INTO prompts (sha256, text) VALUES (?, ?)", (given["prompt_sha256"], text))
        _insert(conn, "submissions", {
            **{k: v for k, v in row.items() if k not in ("usage", "given")}, "state": "queued",
            "prompt_sha256": given.get("prompt_sha256"), "given": json.dumps(given, sort_keys=True) if given else None,
            # Totals are summed here from the calls, not taken from the client's own totals.
            "model_calls": len(calls), "agent_wall_seconds": usage.get("wall_seconds"),
            **{f: sum(c[f] for c in calls) for f in ("prompt_tokens", "completion_tokens", "cached_tokens")}})
        for seq, c in enumerate(calls):
            _insert(conn, "model_calls", {"submission_id": row["id"], "seq": seq, "model": c["model"],
                                          "prompt_tokens": c["prompt_tokens"],
                                          "completion_tokens": c["completion_tokens"],
                                          "cached_tokens": c["cached_tokens"], "seconds": c["seconds"]})
    return True


def submission(conn: sqlite3.Connection, submission_id: str) -> dict | None:
    row = conn.execute("SELECT * FROM submissions WHERE id = ?", (submission_id,)).fetchone()
    return dict(row) if row else None


def start_submission(conn: sqlite3.Connection, submission_id: str) -> None:
    """A grading worker takes the submission: one attempt more (hpcab.judge.service.Judge._run)."""
    conn.execute("UPDATE submissions SET state = 'grading', attempts = attempts + 1 WHERE id = ?", (submission_id,))


def finish_submission(conn: sqlite3.Connection, submission_id: str, grade, agent: str, document: dict) -> None:
    """The grade and the submission's new state, in one transaction: after a crash either
    both are there or the submission is still pending (and is graded again)."""
    with transaction(conn):
        _save_grade_rows(conn, grade, "submit", agent)
        conn.execute("UPDATE submissions SET state = 'graded', grade_id = ?, document = ?, "
                     "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?",
                     (grade.id, json.dumps(document), submission_id))


def close_submission(conn: sqlite3.Connection, submission_id: str, state: str, message: str,
                     document: dict | None = None) -> None:
    """End a submission without a grade: 'interrupted' (the judge died grading it, too
    often) or 'error' (the judge failed on it)."""
    conn.execute("UPDATE submissions SET state = ?, message = ?, document = ?, "
                 "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?",
                 (state, message, json.dumps(document) if document else None, submission_id))


def requeue_submissions(conn: sqlite3.Connection, taken: Iterable[str], waiting: Iterable[str] = ()) -> None:
    """Put submissions whose grading was stopped on purpose back in the queue: those a
    worker had taken with that attempt not counted, those still waiting for a worker with
    their attempts as they were (a regrade after a crash keeps the attempts of the dead run)."""
    with transaction(conn):
        for sid in taken:
            conn.execute("UPDATE submissions SET state = 'queued', attempts = MAX(attempts - 1, 0) "
                         "WHERE id = ? AND state = 'grading'", (sid,))
        for sid in waiting:
            conn.execute("UPDATE submissions SET state = 'queued' WHERE id = ? AND state = 'grading'", (sid,))


def pending_submissions(conn: sqlite3.Connection) -> list[dict]:
    """Accepted but not finished: what a judge that died left behind."""
    marks = ", ".join("?" * len(PENDING))
    return [dict(r) for r in conn.execute(
        f"SELECT * FROM submissions WHERE state IN ({marks}) ORDER BY received_at", PENDING)]


def count_submissions(conn: sqlite3.Connection, agent: str) -> int:
    """What an agent's submission budget has paid for: every submission but those the
    judge failed on (state 'error'), which are not the agent's doing."""
    return conn.execute("SELECT COUNT(*) FROM submissions WHERE agent = ? AND state != 'error'",
                        (agent,)).fetchone()[0]


def log_score(conn: sqlite3.Connection, score_id: str, agent: str, kernel: str, budget: int | None,
              judge_rank: int | None = None) -> bool:
    """Count a POST /score against the agent's score budget; False when it is spent. The
    row, without status or document until graded, is the score in flight. An id already
    in the table raises sqlite3.IntegrityError."""
    with transaction(conn):
        if budget is not None and count_scores(conn, agent) >= budget:
            return False
        conn.execute("INSERT INTO scores (id, agent, kernel, judge_rank) VALUES (?, ?, ?, ?)",
                     (score_id, agent, kernel, judge_rank))
    return True


def score_row(conn: sqlite3.Connection, score_id: str) -> dict | None:
    row = conn.execute("SELECT * FROM scores WHERE id = ?", (score_id,)).fetchone()
    return dict(row) if row else None


def forget_score(conn: sqlite3.Connection, score_id: str) -> None:
    """A score the judge could not grade (stopping, a worker died) is not charged."""
    conn.execute("DELETE FROM scores WHERE id = ?", (score_id,))


def set_score_status(conn: sqlite3.Connection, score_id: str, status: str) -> None:
    conn.execute("UPDATE scores SET status = ? WHERE id = ?", (status, score_id))


def finish_score(conn: sqlite3.Connection, score_id: str, status: str, document: dict) -> None:
    """A graded score: its status and the document its agent was answered, kept for a retry."""
    conn.execute("UPDATE scores SET status = ?, document = ? WHERE id = ?",
                 (status, json.dumps(document), score_id))


def forget_unfinished_scores(conn: sqlite3.Connection, judge_rank: int, keep: Iterable[str] = ()) -> int:
    """Delete the scores a judge of this rank was grading when it died (no status, no
    document), but those in keep (being graded now): never graded, so never charged. Only
    the judge of that rank (it holds the rank's lock) may call this: another rank's may
    still be grading its own."""
    keep = tuple(keep)
    with transaction(conn):
        cur = conn.execute("DELETE FROM scores WHERE judge_rank = ? AND status IS NULL AND document IS NULL "
                           f"AND id NOT IN ({', '.join('?' * len(keep))})", (judge_rank, *keep))
    return cur.rowcount


def count_scores(conn: sqlite3.Connection, agent: str) -> int:
    """What an agent's score budget has paid for: every row, i.e. scores graded or failed
    and those being graded now. Scores the judge could not grade are deleted (forget_score,
    forget_unfinished_scores), so they are not counted."""
    return conn.execute("SELECT COUNT(*) FROM scores WHERE agent = ?", (agent,)).fetchone()[0]


def cached_baseline(conn: sqlite3.Connection, key: str) -> dict | None:
    row = conn.execute("SELECT document, measured_at FROM baselines WHERE key = ?", (key,)).fetchone()
    return dict(json.loads(row["document"]), measured_at=row["measured_at"]) if row else None


def save_baseline(conn: sqlite3.Connection, key: str, kernel: str, document: dict) -> None:
    conn.execute("INSERT OR REPLACE INTO baselines (key, kernel, measured_at, document) VALUES (?, ?, ?, ?)",
                 (key, kernel, document["measured_at"], json.dumps(document)))


# ---- reviews of implausible grades ---------------------------------------------------

def implausible_grades(conn: sqlite3.Connection, pending_only: bool = True) -> list[dict]:
    """Implausible grades (with their review, if any), oldest first."""
    rows = conn.execute(
        "SELECT g.id, g.created_at, g.kernel, g.agent, g.label, g.message, r.verdict, r.note, r.reviewer "
        "FROM grades g LEFT JOIN reviews r ON r.grade_id = g.id WHERE g.status = 'implausible' "
        + ("AND r.verdict IS NULL " if pending_only else "") + "ORDER BY g.created_at")
    return [dict(r) for r in rows]


def review_grade(conn: sqlite3.Connection, grade_id: str, verdict: str, note: str, reviewer: str) -> None:
    """Record a person's verdict on an implausible grade: 'accepted' (the speed is real) or
    'rejected' (a cheat). A later verdict replaces an earlier one."""
    if verdict not in ("accepted", "rejected"):
        raise ValueError(f"verdict {verdict!r}: expected accepted or rejected")
    row = conn.execute("SELECT status FROM grades WHERE id = ?", (grade_id,)).fetchone()
    if row is None:
        raise DatabaseError(f"no grade {grade_id}")
    if row["status"] != "implausible":
        raise DatabaseError(f"grade {grade_id} is {row['status']}, not implausible: nothing to review")
    conn.execute("INSERT OR REPLACE INTO reviews (grade_id, verdict, note, reviewer) VALUES (?, ?, ?, ?)",
                 (grade_id, verdict, note, reviewer))


def log_profile(conn: sqlite3.Connection, profile_id: str, agent: str, kernel: str, language: str,
                budget: int | None) -> bool:
    """Count a POST /profile against the agent's profile budget; False when it is spent."""
    with transaction(conn):
        if budget is not None and count_profiles(conn, agent) >= budget:
            return False
        conn.execute("INSERT INTO profiles (id, agent, kernel, language) VALUES (?, ?, ?, ?)",
                     (profile_id, agent, kernel, language))
    return True


def finish_profile(conn: sqlite3.Connection, profile_id: str, status: str, seconds: float) -> None:
    conn.execute("UPDATE profiles SET status = ?, seconds = ? WHERE id = ?", (status, seconds, profile_id))


def forget_profile(conn: sqlite3.Connection, profile_id: str) -> None:
    """A profile the judge could not make (stopping, a worker died, perf failed) is not charged."""
    conn.execute("DELETE FROM profiles WHERE id = ?", (profile_id,))


def count_profiles(conn: sqlite3.Connection, agent: str) -> int:
    return conn.execute("SELECT COUNT(*) FROM profiles WHERE agent = ?", (agent,)).fetchone()[0]


def prompt_hash(text: str) -> str:
    """A prompt's address in the prompts table: the SHA-256 of its UTF-8 text, hex."""
    return hashlib.sha256(text.encode()).hexdigest()
