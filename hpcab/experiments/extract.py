"""Judge databases and run folders into ONE observations table (docs/plotting.md).

    extract(["runs/corpus-*", "old/judge.db"], experiments=["corpus"]) -> Extraction

A source is a run folder (a folder holding arm.yaml or judge-*.db, as the launcher writes
them) or a judge database given directly. Every database is opened read-only and never
migrated: one SQL query per database joins submissions, grades and reviews, and is read in
chunks into polars; the rest (kernel metadata, environments, legs, tasks without a
submission, the final flag, spend) is vectorized polars.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import re
import sqlite3
from pathlib import Path

import attrs
import polars as pl

from hpcab.errors import HpcabError
from hpcab.measure import FASTER, NO_DIFFERENCE, SLOWER

# The observations table: these columns, in this order, with these types (docs/plotting.md).
SCHEMA: dict[str, pl.DataType] = {
    "experiment": pl.String, "run": pl.String, "arm": pl.String, "optimizer": pl.String, "model": pl.String,
    "skills": pl.String, "tools": pl.String, "prompt_variant": pl.String, "hints": pl.Int64, "prompt": pl.String,
    "leg": pl.Int64, "judge_rank": pl.Int64, "db": pl.String, "agent": pl.String,
    "kernel": pl.String, "kernel_name": pl.String, "track": pl.String, "dwarf": pl.String, "level": pl.Int64,
    "submission_id": pl.String, "received_at": pl.String, "state": pl.String, "grade_id": pl.String,
    "language": pl.String, "compiler": pl.String, "flagset": pl.String, "label": pl.String, "ranks": pl.Int64,
    "status": pl.String, "correct": pl.Boolean, "review": pl.String, "baseline": pl.String,
    "speedup": pl.Float64, "speedup_low": pl.Float64, "speedup_high": pl.Float64, "verdict": pl.String,
    "speedup_numpy": pl.Float64, "speedup_numpy_low": pl.Float64, "speedup_numpy_high": pl.Float64,
    "verdict_numpy": pl.String,
    "model_calls": pl.Int64, "prompt_tokens": pl.Int64, "completion_tokens": pl.Int64, "cached_tokens": pl.Int64,
    "tokens": pl.Int64, "spend_usd": pl.Float64, "agent_wall_seconds": pl.Float64, "task_scores": pl.Int64,
    "image_digest": pl.String, "environment_id": pl.String, "cpu_model": pl.String, "hpcab_version": pl.String,
    "final": pl.Boolean,
}
COLUMNS: tuple[str, ...] = tuple(SCHEMA)
SUFFIXES = (".csv", ".parquet")

# What one database query gives (the names the SQL below selects, in this order).
_RAW: dict[str, pl.DataType] = {
    "submission_id": pl.String, "agent": pl.String, "received_at": pl.String, "judge_rank": pl.Int64,
    "kernel": pl.String, "language": pl.String, "compiler": pl.String, "flagset": pl.String, "label": pl.String,
    "state": pl.String, "grade_id": pl.String, "status": pl.String, "grade_correct": pl.Int64,
    "review": pl.String, "baseline": pl.String, "speedup": pl.Float64, "speedup_low": pl.Float64,
    "speedup_high": pl.Float64, "speedup_numpy": pl.Float64, "speedup_numpy_low": pl.Float64,
    "speedup_numpy_high": pl.Float64, "model_calls": pl.Int64, "prompt_tokens": pl.Int64,
    "completion_tokens": pl.Int64, "cached_tokens": pl.Int64, "agent_wall_seconds": pl.Float64,
    "image_digest": pl.String, "environment_id": pl.String, "ranks": pl.Int64,
    # What the agent was given, as its submission said (schema 14: submissions.given).
    "prompt": pl.String, "_given_variant": pl.String, "_given_tools": pl.String, "_given_hints": pl.Int64,
    "_given_skills": pl.String,
}
# What read_database returns: the query's columns, the environment's, and the database.
_FRAME: dict[str, pl.DataType] = {**_RAW, "cpu_model": pl.String, "hpcab_version": pl.String, "db": pl.String}
_CHUNK = 50_000                 # rows fetched from SQLite at a time (bounds the Python objects alive)
_TASK = ["_src", "leg", "agent", "kernel"]
_STAMP = re.compile(r"-\d{8}-\d{6}(?:-\d+)?$")      # the launcher's -YYYYmmdd-HHMMSS[-n]
_JUDGE_DB = re.compile(r"^judge-(\d+)\.db$")
_WORKER = re.compile(r"^worker-(\d+)$")


def empty_table() -> pl.DataFrame:
    return pl.DataFrame(schema=SCHEMA)


def verdict_expr(low: str | pl.Expr, high: str | pl.Expr) -> pl.Expr:
    """hpcab.measure.verdict on columns: null when either bound is null, else faster (low > 1),
    slower (high < 1) or no measurable difference. A NaN bound passes neither test, as in
    Python (polars alone would order NaN above 1)."""
    low = pl.col(low) if isinstance(low, str) else low
    high = pl.col(high) if isinstance(high, str) else high
    return (pl.when(low.is_null() | high.is_null()).then(pl.lit(None, pl.String))
            .when(low.is_not_nan() & (low > 1)).then(pl.lit(FASTER))
            .when(high.is_not_nan() & (high < 1)).then(pl.lit(SLOWER))
            .otherwise(pl.lit(NO_DIFFERENCE)))


@attrs.frozen
class RunInfo:
    """One source: a run folder (kind 'run'), an `hpcab agent --out` folder (kind 'agent': its
    judge.db and results.json) or a judge database given on its own (kind 'db')."""
    path: str                            # as matched
    kind: str
    experiment: str
    run: str
    arm: str
    optimizer: str | None = None
    model: str | None = None
    skills: str | None = None            # the skill pages the agent was given (skills_given)
    given: dict | None = None            # its tools, prompt variant and hints, by its options (given_by_options)
    price: dict | None = None            # arm.yaml model.price (USD per million tokens)
    state: str | None = None             # status.json's state (a run folder), e.g. running, succeeded
    dbs: tuple[tuple[str, int | None], ...] = ()     # (path as matched, judge rank from the name)
    judges: int = 1
    legs: tuple[str, ...] = ()           # the arm's kernel selectors, one per leg
    results: tuple[tuple[int, str, Path], ...] = ()  # (leg, agent worker, its results.json)
    only: bool = False                   # only some of the run folder's databases were asked for
    notes: tuple[str, ...] = ()          # problems with its files (reported when the run is kept)


@attrs.define
class Extraction:
    table: pl.DataFrame
    problems: list[str] = attrs.field(factory=list)     # each names a file and what was wrong with it
    unmatched: list[str] = attrs.field(factory=list)    # a --runs glob or an --experiment prefix, in words
    runs: list[RunInfo] = attrs.field(factory=list)     # the sources read (after the experiment filter)
    warnings: list[str] = attrs.field(factory=list)     # sources skipped, each named with why

    def summary(self, n_boot: int = 2000, seed: int = 0) -> pl.DataFrame:
        """One row per experiment x arm: runs, runs_not_succeeded (run folders whose
        status.json says running, failed, cancelled, ...), tasks, submissions, correct (final) tasks, and the geometric
        mean speedup over the correct final tasks with its bootstrap CI (hpcab.experiments.stats)."""
        from hpcab.experiments.stats import summarize
        keys = ["experiment", "arm"]
        runs = pl.DataFrame(
            {"experiment": [r.experiment for r in self.runs], "arm": [r.arm for r in self.runs],
             "unsucceeded": [r.kind == "run" and r.state not in ("succeeded", None) for r in self.runs]},
            schema={"experiment": pl.String, "arm": pl.String, "unsucceeded": pl.Boolean},
        ).group_by(keys).agg(pl.len().cast(pl.Int64).alias("runs"),
                             pl.col("unsucceeded").sum().cast(pl.Int64).alias("runs_not_succeeded"))
        subs = self.table.group_by(keys).agg(pl.col("submission_id").is_not_null().sum().cast(pl.Int64)
                                             .alias("submissions"))
        stats = summarize(self.table, keys, ps=(), n_boot=n_boot, seed=seed).select(
            *keys, "tasks", "correct", "geomean", "geomean_low", "geomean_high")
        out = runs.join(subs, on=keys, how="left").join(stats, on=keys, how="left")
        return out.with_columns(pl.col("submissions", "tasks", "correct").fill_null(0)).select(
            *keys, "runs", "runs_not_succeeded", "tasks", "submissions", "correct", "geomean", "geomean_low",
            "geomean_high").sort(keys)


# ---- sources -----------------------------------------------------------------------------

def _expand(pattern: str) -> list[str]:
    matches = glob.glob(os.path.expanduser(pattern), recursive=True)
    return sorted(m.rstrip("/") or m for m in matches)


def _is_run_folder(path: Path) -> bool:
    return (path / "arm.yaml").is_file() or any(_JUDGE_DB.match(p.name) for p in path.glob("judge-*.db"))


def _judge_dbs(folder: str) -> list[tuple[str, int | None]]:
    found = []
    for p in Path(folder).glob("judge-*.db"):
        m = _JUDGE_DB.match(p.name)
        if m and p.is_file():
            found.append((int(m.group(1)), str(Path(folder) / p.name)))
    return [(path, rank) for rank, path in sorted(found)]


def _rank_of(path: str) -> int | None:
    m = _JUDGE_DB.match(Path(path).name)
    return int(m.group(1)) if m else None


def _run_info(folder: str, only: list[str] | None) -> RunInfo:
    """A run folder's metadata: arm.yaml (experiment, arm, optimizer, model, price, legs,
    judges), status.json's state, its judge databases and its workers' results.json."""
    from hpcab.launch.arm import arm_name
    base = Path(folder)
    raw: dict = {}
    notes = []
    arm_file = base / "arm.yaml"
    if arm_file.is_file():
        try:
            import yaml
            loaded = yaml.safe_load(arm_file.read_text())
            if not isinstance(loaded, dict):
                raise TypeError("not a YAML mapping")
            raw = loaded
        except Exception as exc:          # noqa: BLE001 - any unreadable arm file is reported the same way
            notes.append(f"{arm_file}: unreadable arm file ({_brief(exc)}); experiment and arm taken "
                            f"from the folder's name")
    experiment = str(raw.get("experiment") or _STAMP.sub("", base.name))
    try:
        arm = arm_name(raw) if raw else "-"
    except (KeyError, TypeError):
        arm = "-"
    model = raw.get("model") if isinstance(raw.get("model"), dict) else {}
    price = model.get("price") if isinstance(model.get("price"), dict) else None
    state = None
    if (base / "status.json").is_file():
        try:
            state = json.loads((base / "status.json").read_text()).get("state")
        except (OSError, ValueError, AttributeError):
            state = None        # rewritten by a running launcher: not worth an error
    roles = raw.get("roles") if isinstance(raw.get("roles"), dict) else {}
    all_dbs = _judge_dbs(folder)
    judges = (roles.get("judge") or {}).get("count") if isinstance(roles.get("judge"), dict) else None
    judges = int(judges) if isinstance(judges, int) and judges > 0 else max(len(all_dbs), 1)
    dbs = all_dbs if only is None else [(p, _rank_of(p)) for p in only]
    legs = raw.get("legs") or ([raw["kernels"]] if raw.get("kernels") else [])
    if isinstance(raw.get("repeats"), int) and raw["repeats"] > 1:
        legs = list(legs) * raw["repeats"]           # each attempt a leg of its own (hpcab.launch.arm)
    results = []
    agents = base / "agents"
    for path in sorted(agents.glob("worker-*/results.json")):
        results.append((0, path.parent.name, path))
    for path in sorted(agents.glob("leg-*/worker-*/results.json")):
        m = re.match(r"^leg-(\d+)$", path.parent.parent.name)
        if m:
            results.append((int(m.group(1)), path.parent.name, path))
    return RunInfo(folder, "run", experiment, base.name, arm, raw.get("optimizer"), model.get("name"),
                   skills_given(raw.get("optimizer"), _arm_options(raw)),
                   given_by_options(raw.get("optimizer"), _arm_options(raw)), price, state, tuple(dbs), judges,
                   tuple(str(s) for s in legs), tuple(results), only is not None,
                   tuple(notes))


def _is_agent_folder(path: Path) -> bool:
    """What `hpcab agent --out` writes: results.json and agent.jsonl, and judge.db with --native."""
    return (path / "judge.db").is_file() or ((path / "results.json").is_file() and (path / "agent.jsonl").exists())


def _agent_info(folder: str) -> RunInfo:
    """An `hpcab agent --out` folder: its in-process judge's database (judge.db) and its
    results.json, the agent's name in the database being the worker's."""
    base = Path(folder)
    db = str(base / "judge.db")
    name, options = "-", {}
    try:
        doc = json.loads((base / "results.json").read_text())
        name, options = str(doc.get("agent") or "-"), doc.get("options")
    except (OSError, ValueError, AttributeError):
        pass
    agents = []
    try:
        conn = _open_read_only(db)
        try:
            agents = [a for (a,) in conn.execute("SELECT DISTINCT agent FROM submissions")]
        finally:
            conn.close()
    except (_Unreadable, sqlite3.Error):
        pass                    # named when the database itself is read
    worker = agents[0] if len(agents) == 1 else name
    results = ((0, worker, base / "results.json"),) if (base / "results.json").is_file() else ()
    return RunInfo(folder, "agent", base.name, base.name, name, optimizer=None if name == "-" else name,
                   skills=skills_given(name, options), given=given_by_options(name, options), dbs=((db, 0),),
                   results=results)


def skills_given(optimizer, options) -> str | None:
    """The skills column: the llm optimizer's skills option as given (none, all, or its names
    sorted and joined by commas), none when it was not given; null for an optimizer that
    takes no skills (docs/agent_tools.md)."""
    if optimizer != "llm":
        return None
    value = options.get("skills") if isinstance(options, dict) else None
    if value is None or str(value).strip() in ("", "none"):
        return "none"
    value = str(value).strip()
    return value if value == "all" else ",".join(sorted({n.strip() for n in value.split(",") if n.strip()}))


def _arm_options(raw: dict) -> dict:
    """An arm file's optimizer options with its fields for what the agent is given (skills,
    tools, prompt, hints), as the launcher passes them (hpcab.launch.arm.given_options)."""
    from hpcab.launch.arm import GIVEN_FIELDS
    options = dict(raw.get("options") or {}) if isinstance(raw.get("options"), dict) else {}
    for name in GIVEN_FIELDS:
        if name in raw:
            options[name] = ",".join(map(str, raw[name])) if isinstance(raw[name], list) else raw[name]
    return options


def given_by_options(optimizer, options) -> dict | None:
    """The tools, prompt variant and hints the llm optimizer's options give (what its
    submissions' `given` says too, for the tasks without one); None for another optimizer."""
    if optimizer != "llm":
        return None
    options = options if isinstance(options, dict) else {}
    from hpcab.agents.llm import given_tools
    try:
        tools = ",".join(given_tools(str(options.get("tools", "all")), str(options.get("skills", "none"))))
        hints = int(options.get("hints", 0))
    except (ValueError, TypeError, HpcabError):
        return None
    return {"tools": tools, "prompt_variant": str(options.get("prompt", "default")), "hints": hints}


def _db_info(path: str) -> RunInfo:
    p = Path(path)
    parent = p.resolve().parent.name
    return RunInfo(path, "db", parent, p.stem, "-", dbs=((path, _rank_of(path)),))


def find_sources(sources: list[str | Path], experiments: list[str] | None, problems: list[str],
                 flag: str = "--runs", warnings: list[str] | None = None) -> tuple[list[RunInfo], list[str]]:
    """The run folders, agent folders and databases the globs match, each once, filtered by
    experiment prefix; and what matched nothing, in words (naming the flag the sources came
    from). A run folder that never started (no judge database, no results.json) is skipped,
    with a line in warnings."""
    unmatched: list[str] = []
    warnings = [] if warnings is None else warnings
    agent_folders: dict[Path, str] = {}
    folders: dict[Path, tuple[str, list[str] | None]] = {}     # resolved -> (as matched, only these dbs)
    bare: dict[Path, str] = {}
    for source in sources:
        pattern = str(source)
        hits = 0
        for match in _expand(pattern):
            p = Path(match)
            if p.is_dir() and _is_run_folder(p):
                folders[p.resolve()] = (folders.get(p.resolve(), (match, None))[0], None)
                hits += 1
            elif p.is_dir() and _is_agent_folder(p):
                hits += 1
                if (p / "judge.db").is_file():
                    agent_folders.setdefault(p.resolve(), match)
                else:
                    unmatched.append(f"{flag} {match!r}: an `hpcab agent --out` folder without a judge database "
                                     f"(judge.db is written there only with --native); give the database of the "
                                     f"judge it used")
            elif p.is_file() and p.suffix == ".db":
                hits += 1
                parent = p.resolve().parent
                if (parent / "arm.yaml").is_file():
                    # A database inside a run folder: that run, that database only.
                    given, only = folders.get(parent, (str(Path(match).parent), []))
                    if only is not None and match not in only:
                        only.append(match)
                    folders[parent] = (given, only)
                else:
                    bare.setdefault(p.resolve(), match)
        if not hits:
            unmatched.append(f"{flag} {pattern!r} matched no run folder, agent folder or .db file")
    infos = []
    for given, only in folders.values():
        info = _run_info(given, only)
        if not info.dbs and not info.results:
            warnings.append(f"{given}: skipped: a run folder that never started (no judge database, no "
                            f"results.json)" + (f"; status.json says {info.state}" if info.state else ""))
            continue
        infos.append(info)
    infos += [_agent_info(path) for resolved, path in agent_folders.items() if resolved not in folders]
    infos += [_db_info(path) for path in bare.values()]
    # A database reached twice (a folder and, on its own, one of its files) is read once.
    seen: set[Path] = set()
    unique = []
    for info in infos:
        dbs = tuple((path, rank) for path, rank in info.dbs if Path(path).resolve() not in seen)
        seen.update(Path(path).resolve() for path, _ in info.dbs)
        if info.kind == "db" and not dbs:
            continue
        unique.append(attrs.evolve(info, dbs=dbs))
    infos = sorted(unique, key=lambda r: (r.experiment, r.arm, r.run, r.path))
    if experiments:
        for prefix in experiments:
            if not any(r.experiment.startswith(prefix) for r in infos):
                found = sorted({r.experiment for r in infos})
                unmatched.append(f"--experiment {prefix!r} matched no run"
                                 + (f" (experiments found: {', '.join(found)})" if found else ""))
        infos = [r for r in infos if any(r.experiment.startswith(p) for p in experiments)]
    problems += [note for info in infos for note in info.notes]
    return infos, unmatched


# ---- one database ---------------------------------------------------------------------------

class _Unreadable(Exception):
    pass


def _open_read_only(path: str) -> sqlite3.Connection:
    """Read-only, never migrated, never written. A WAL database with no -wal file beside it
    (nobody is writing it) is opened immutable: a plain read-only open would create -wal and
    -shm files and leave them behind."""
    p = Path(path)
    if not p.is_file():
        raise _Unreadable("no such file")
    uri = "file:" + _uri_path(p.resolve()) + "?mode=ro"
    try:
        with p.open("rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise _Unreadable(_brief(exc)) from None
    wal_mode = len(header) == 100 and header.startswith(b"SQLite format 3\0") and header[18:20] == b"\x02\x02"
    if wal_mode and not Path(str(p) + "-wal").exists():
        uri += "&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=10, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA query_only=ON")
        return conn
    except sqlite3.Error as exc:
        raise _Unreadable(_brief(exc)) from None


def _uri_path(path: Path) -> str:
    from urllib.parse import quote
    return quote(str(path), safe="/")


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _query(conn: sqlite3.Connection) -> tuple[str, bool]:
    """The one SELECT for this database's schema (any version: what a column older than it
    lacks is NULL), and whether it reads local grades (a database without submissions)."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "grades" not in tables:
        raise _Unreadable("no grades table: not a judge database")
    g = _columns(conn, "grades")

    def gcol(name: str, default: str = "NULL") -> str:
        return f"g.{name}" if name in g else default

    review_join = "LEFT JOIN reviews r ON r.grade_id = g.id" if "reviews" in tables else ""
    review = "r.verdict" if review_join else "NULL"
    grade_cols = (f"g.status, g.correct, {review}, {gcol('baseline')}, {gcol('speedup_baseline')}, "
                  f"{gcol('speedup_baseline_low')}, {gcol('speedup_baseline_high')}, g.speedup_numpy, "
                  f"g.speedup_numpy_low, g.speedup_numpy_high")
    # A distributed grade's ranks (schema 12, docs/mpi.md); one process otherwise.
    ranks = ("CASE WHEN g.id IS NULL THEN NULL ELSE COALESCE(json_extract(g.mpi, '$.ranks'), 1) END"
             if "mpi" in g else "CASE WHEN g.id IS NULL THEN NULL ELSE 1 END")
    has_submissions = ("submissions" in tables
                       and conn.execute("SELECT 1 FROM submissions LIMIT 1").fetchone() is not None)
    if has_submissions:
        s = _columns(conn, "submissions")

        def scol(name: str, default: str = "NULL") -> str:
            return f"s.{name}" if name in s else default

        if "given" in s:        # lists as text joined by commas (skills sorted, tools in order); empty: 'none'
            listed = lambda key, order: (
                f"CASE WHEN s.given IS NULL THEN NULL ELSE COALESCE((SELECT group_concat(value, ',') FROM (SELECT "
                f"value FROM json_each(s.given, '$.{key}') ORDER BY {order})), 'none') END")
            given = (f"s.prompt_sha256, json_extract(s.given, '$.prompt'), {listed('tools', 'key')}, "
                     f"json_extract(s.given, '$.hints'), {listed('skills', 'value')}")
        else:
            given = "NULL, NULL, NULL, NULL, NULL"
        sql = (f"SELECT s.id, s.agent, s.received_at, s.judge_rank, s.kernel, COALESCE(g.language, s.language), "
               f"COALESCE(g.compiler, s.compiler), COALESCE(g.flagset, s.flagset), COALESCE(g.label, s.label), "
               f"s.state, s.grade_id, {grade_cols}, {scol('model_calls', '0')}, {scol('prompt_tokens', '0')}, "
               f"{scol('completion_tokens', '0')}, {scol('cached_tokens', '0')}, {scol('agent_wall_seconds')}, "
               f"{gcol('image_digest')}, g.environment_id, {ranks}, {given} "
               f"FROM submissions s LEFT JOIN grades g ON g.id = s.grade_id {review_join}")
        return sql, False
    # Only local grades (hpcab grade --db): each grade is one observation of agent 'local'
    # (or the agent the grade names), its own submission.
    sql = (f"SELECT g.id, COALESCE({gcol('agent')}, 'local'), REPLACE(g.created_at, '+00:00', 'Z'), NULL, "
           f"g.kernel, g.language, g.compiler, g.flagset, g.label, 'graded', g.id, {grade_cols}, 0, 0, 0, 0, NULL, "
           f"{gcol('image_digest')}, g.environment_id, {ranks}, NULL, NULL, NULL, NULL, NULL FROM grades g {review_join}")
    return sql, True


def _environments(conn: sqlite3.Connection) -> pl.DataFrame:
    schema = {"environment_id": pl.String, "_env_digest": pl.String, "cpu_model": pl.String,
              "hpcab_version": pl.String}
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "environments" not in tables:
        return pl.DataFrame(schema=schema)
    rows = []
    for env_id, fingerprint in conn.execute("SELECT id, fingerprint FROM environments"):
        try:
            fp = json.loads(fingerprint)
            fp = fp if isinstance(fp, dict) else {}
        except (TypeError, ValueError):
            fp = {}
        rows.append((env_id, _text(fp.get("image_digest")), _text(fp.get("cpu_model")),
                     _text(fp.get("hpcab_version"))))
    return pl.DataFrame(rows, schema=schema, orient="row")


def _text(value) -> str | None:
    return None if value is None else str(value)


def _frame(rows: list[tuple]) -> pl.DataFrame:
    try:
        return pl.DataFrame(rows, schema=_RAW, orient="row")
    except (TypeError, ValueError, pl.exceptions.PolarsError):
        # SQLite keeps what it is given: a value of another type (text in a REAL column)
        # becomes null rather than failing the database.
        return pl.DataFrame(rows, schema=_RAW, orient="row", strict=False)


def read_database(path: str, rank: int | None) -> pl.DataFrame:
    """Every observation one judge database holds, raw (the _RAW columns, plus db and the
    environment's fields). Raises _Unreadable with the reason."""
    conn = _open_read_only(path)
    try:
        sql, _local = _query(conn)
        cur = conn.execute(sql)
        chunks = []
        while True:
            rows = cur.fetchmany(_CHUNK)
            if not rows:
                break
            chunks.append(_frame(rows))
            del rows            # before the next fetch: one chunk of Python rows alive at a time
        envs = _environments(conn)
    except sqlite3.Error as exc:
        raise _Unreadable(_brief(exc)) from None
    finally:
        conn.close()
    frame = pl.concat(chunks, how="vertical") if chunks else pl.DataFrame(schema=_RAW)
    frame = frame.join(envs, on="environment_id", how="left")
    graded = pl.col("grade_id").is_not_null() & pl.col("status").is_not_null()
    return frame.with_columns(
        pl.lit(path, pl.String).alias("db"),
        pl.col("judge_rank").fill_null(pl.lit(rank if rank is not None else 0, pl.Int64)),
        # A grade's image: its own column (schema 6), else its environment's, else 'native';
        # a row without a grade has none.
        pl.when(graded).then(pl.coalesce("image_digest", "_env_digest", pl.lit("native")))
        .otherwise(None).alias("image_digest"),
    ).select(list(_FRAME))


# ---- one source --------------------------------------------------------------------------

def _results(info: RunInfo, problems: list[str]) -> pl.DataFrame:
    """The tasks the run's agent workers ran (results.json), with the runner's own token
    totals (for a task that never submitted) and when the worker finished."""
    schema = {"leg": pl.Int64, "agent": pl.String, "kernel": pl.String, "finished_at": pl.String,
              "model_calls": pl.Int64, "prompt_tokens": pl.Int64, "completion_tokens": pl.Int64,
              "cached_tokens": pl.Int64, "agent_wall_seconds": pl.Float64, "task_scores": pl.Int64}
    rows = []
    for leg, agent, path in info.results:
        try:
            doc = json.loads(path.read_text())
            tasks = doc["tasks"]
            finished = _text(doc.get("finished_at"))
            for t in tasks:
                rows.append((leg, agent, str(t["kernel"]), finished, int(t.get("model_calls") or 0),
                             int(t.get("prompt_tokens") or 0), int(t.get("completion_tokens") or 0),
                             int(t.get("cached_tokens") or 0),
                             None if t.get("wall_seconds") is None else float(t["wall_seconds"]),
                             None if t.get("scores") is None else int(t["scores"])))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            problems.append(f"{path}: unreadable results.json ({_brief(exc)}); its tasks without a submission "
                            f"are not in the table")
    return pl.DataFrame(rows, schema=schema, orient="row")


def _assign_legs(frame: pl.DataFrame, info: RunInfo, results: pl.DataFrame) -> pl.DataFrame:
    """Which leg each submission belongs to. One leg: 0. With legs, the worker's results.json
    of the leg that lists the kernel; a kernel in several legs' lists goes to the first of
    them that finished after it was received; a task no results.json lists, to the first leg
    whose selector takes its kernel (this machine's corpus); else 0."""
    legs_seen = {leg for leg, _, _ in info.results}
    if len(info.legs) <= 1 and legs_seen <= {0}:
        return frame.with_columns(pl.lit(0, pl.Int64).alias("leg"))
    indexed = frame.with_row_index("_r")
    cand = results.select("agent", "kernel", "leg", "finished_at").unique()
    picked = (indexed.select("_r", "agent", "kernel", "received_at")
              .join(cand, on=["agent", "kernel"], how="inner")
              .group_by("_r").agg(
                  pl.col("leg").filter(pl.col("finished_at").is_null()
                                       | (pl.col("finished_at") >= pl.col("received_at"))).min().alias("_a"),
                  pl.col("leg").max().alias("_b"))
              .select("_r", pl.coalesce("_a", "_b").alias("_leg_results")))
    by_selector = _selector_legs(info.legs)
    out = indexed.join(picked, on="_r", how="left")
    if by_selector.height:
        out = out.join(by_selector, on="kernel", how="left")
    else:
        out = out.with_columns(pl.lit(None, pl.Int64).alias("_leg_selector"))
    return out.with_columns(pl.coalesce("_leg_results", "_leg_selector", pl.lit(0, pl.Int64)).alias("leg")) \
        .sort("_r").drop("_r", "_leg_results", "_leg_selector")


def _selector_legs(legs: tuple[str, ...]) -> pl.DataFrame:
    schema = {"kernel": pl.String, "_leg_selector": pl.Int64}
    first: dict[str, int] = {}
    try:
        from hpcab.corpus import load_corpus
        corpus = load_corpus()
        for i, selector in enumerate(legs):
            for k in corpus.select(selector):
                first.setdefault(k.id, i)
    except Exception:       # noqa: BLE001 - a selector this corpus cannot resolve: results.json decides
        pass
    return pl.DataFrame({"kernel": list(first), "_leg_selector": list(first.values())}, schema=schema)


def _task_wall_seconds(frame: pl.DataFrame, results: pl.DataFrame) -> pl.DataFrame:
    """A submission that carried no agent wall time (only model calls carry one: an agent
    that calls no model never reports it) gets its task's wall time from the worker's
    results.json, so every optimizer can be drawn against its wall time; and every row its
    task's scores used (task_scores, from the same file: the judge keeps no score with a
    submission)."""
    if results.height == 0:
        return frame.with_columns(pl.lit(None, pl.Int64).alias("task_scores"))
    wall = results.unique(["leg", "agent", "kernel"], keep="last", maintain_order=True) \
        .select("leg", "agent", "kernel", pl.col("agent_wall_seconds").alias("_task_wall"), "task_scores")
    return frame.join(wall, on=["leg", "agent", "kernel"], how="left", maintain_order="left").with_columns(
        pl.coalesce("agent_wall_seconds", "_task_wall").alias("agent_wall_seconds")).drop("_task_wall")


def _tasks_without_submission(info: RunInfo, results: pl.DataFrame, frame: pl.DataFrame,
                              read: dict[int, str]) -> pl.DataFrame:
    """A row (state 'none') for each task a results.json lists that has no submission, on
    the judge its worker used (worker w -> judge w % J). Only for the databases read: a
    task whose judge's database is missing or unreadable is unknown, not unsubmitted."""
    if results.height == 0:
        return frame.clear()
    have = frame.select("leg", "agent", "kernel").unique()
    missing = results.unique(["leg", "agent", "kernel"], keep="last", maintain_order=True) \
        .join(have, on=["leg", "agent", "kernel"], how="anti")
    if missing.height == 0:
        return frame.clear()
    rank = (pl.col("agent").str.extract(_WORKER.pattern, 1).cast(pl.Int64, strict=False).fill_null(0)
            % info.judges)
    db_of = pl.DataFrame({"judge_rank": list(read), "db": list(read.values())},
                         schema={"judge_rank": pl.Int64, "db": pl.String})
    rows = missing.with_columns(rank.alias("judge_rank")).join(db_of, on="judge_rank", how="inner")
    rows = rows.with_columns(pl.lit("none").alias("state")).drop("finished_at")
    return pl.concat([frame.clear(), rows], how="diagonal_relaxed").select(frame.columns)


def _source_table(info: RunInfo, problems: list[str]) -> pl.DataFrame | None:
    frames, read = [], {}
    for path, rank in info.dbs:
        try:
            frames.append(read_database(path, rank))
            read[rank if rank is not None else 0] = path
        except _Unreadable as why:
            problems.append(f"{path}: unreadable judge database ({why}); left out of the table")
    if info.kind == "run" and info.results and not info.only:
        for r in range(info.judges):
            if not any(rank == r for _, rank in info.dbs):
                problems.append(f"{Path(info.path) / f'judge-{r}.db'}: missing (the arm has {info.judges} "
                                f"judge(s)); its workers' tasks are left out of the table")
    if not frames and not info.results:
        return None
    frame = pl.concat(frames, how="vertical") if frames else pl.DataFrame(schema=_FRAME)
    results = _results(info, problems)
    frame = _assign_legs(frame, info, results)
    frame = _task_wall_seconds(frame, results)
    frame = pl.concat([frame, _tasks_without_submission(info, results, frame, read)], how="vertical")
    price = info.price or {}
    prompt = price.get("prompt")
    return frame.with_columns(
        pl.lit(info.experiment, pl.String).alias("experiment"), pl.lit(info.run, pl.String).alias("run"),
        pl.lit(info.arm, pl.String).alias("arm"), pl.lit(info.optimizer, pl.String).alias("optimizer"),
        pl.lit(info.model, pl.String).alias("model"),
        # What the agent was given: as its submissions said, else as its options say.
        pl.coalesce(pl.lit(info.skills, pl.String), "_given_skills").alias("skills"),
        pl.coalesce("_given_tools", pl.lit((info.given or {}).get("tools"), pl.String)).alias("tools"),
        pl.coalesce("_given_variant", pl.lit((info.given or {}).get("prompt_variant"), pl.String))
        .alias("prompt_variant"),
        pl.coalesce("_given_hints", pl.lit((info.given or {}).get("hints"), pl.Int64)).alias("hints"),
        pl.lit(_num(prompt), pl.Float64).alias("_p_prompt"),
        pl.lit(_num(price.get("completion")), pl.Float64).alias("_p_completion"),
        pl.lit(_num(price.get("cached", prompt)), pl.Float64).alias("_p_cached"),
    )


def _num(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@functools.lru_cache(maxsize=1)
def kernel_metadata() -> pl.DataFrame:
    """id, name, track, dwarf, level of this machine's corpus (empty when it cannot load)."""
    schema = {"kernel": pl.String, "_name": pl.String, "track": pl.String, "dwarf": pl.String, "level": pl.Int64}
    try:
        from hpcab.corpus import load_corpus
        kernels = load_corpus().kernels
    except Exception:       # noqa: BLE001 - the table is still made, its metadata columns null
        kernels = ()
    return pl.DataFrame([(k.id, k.name, k.track, k.dwarf, k.level) for k in kernels], schema=schema, orient="row")


def _finish(frame: pl.DataFrame) -> pl.DataFrame:
    """Kernel metadata, correct, tokens, spend and the final flag; the columns in order."""
    accepted = pl.col("review") == "accepted"
    implausible = pl.col("status") == "implausible"
    correct = (pl.when(implausible).then(accepted.fill_null(False))
               .otherwise((pl.col("grade_correct") == 1) & (pl.col("state") == "graded")).fill_null(False))
    tokens = ["model_calls", "prompt_tokens", "completion_tokens", "cached_tokens"]
    # One sort gives the table's order and each task's rows in time order.
    frame = frame.sort(["experiment", "arm", "run", *_TASK, "received_at", "submission_id"], nulls_last=False)
    # final: the task's last graded row; a task with none graded: its last row. Tasks are
    # runs of equal keys in the sorted frame: numbered, then one window over that number.
    new_task = pl.any_horizontal([pl.col(c).ne_missing(pl.col(c).shift(1)) for c in _TASK])
    task = new_task.cast(pl.Int64).cum_sum().alias("_task")
    frame = frame.with_columns(task).with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("_i"))
    last_graded = pl.col("_i").filter(pl.col("state") == "graded").max().over("_task")
    last = pl.col("_i").max().over("_task")
    meta = kernel_metadata()
    return frame.with_columns(
        pl.col("kernel").replace_strict(meta["kernel"], meta["_name"], default=pl.col("kernel")
                                        .str.replace(r"^.*/", ""), return_dtype=pl.String).alias("kernel_name"),
        *[pl.col("kernel").replace_strict(meta["kernel"], meta[c], default=None, return_dtype=meta.schema[c])
          .alias(c) for c in ("track", "dwarf", "level")],
        correct.alias("correct"),
        *[pl.col(c).fill_null(0) for c in tokens],
        (pl.col("_i") == pl.coalesce(last_graded, last)).alias("final"),
        verdict_expr("speedup_low", "speedup_high").alias("verdict"),
        verdict_expr("speedup_numpy_low", "speedup_numpy_high").alias("verdict_numpy"),
    ).with_columns(
        (pl.col("prompt_tokens") + pl.col("completion_tokens")).alias("tokens"),
        ((pl.col("cached_tokens") * pl.col("_p_cached")
          + (pl.col("prompt_tokens") - pl.col("cached_tokens")) * pl.col("_p_prompt")
          + pl.col("completion_tokens") * pl.col("_p_completion")) / 1e6).alias("spend_usd"),
    ).select([pl.col(c).cast(t) for c, t in SCHEMA.items()])


def extract(sources: list[str | Path], experiments: list[str] | None = None, flag: str = "--runs") -> Extraction:
    """The observations of every run folder, agent folder and judge database the sources
    (globs or paths) match, in one table; experiments: keep only runs whose experiment starts
    with one of these prefixes (None: all); flag: what the sources were given as, for the
    lines that say what matched nothing."""
    problems: list[str] = []
    warnings: list[str] = []
    infos, unmatched = find_sources(list(sources), list(experiments) if experiments else None, problems, flag,
                                    warnings)
    frames = []
    for i, info in enumerate(infos):
        frame = _source_table(info, problems)
        if frame is not None and frame.height:
            frames.append(frame.with_columns(pl.lit(i, pl.Int64).alias("_src")))
    if not frames:
        return Extraction(empty_table(), problems, unmatched, infos, warnings)
    whole = pl.concat(frames, how="vertical_relaxed", rechunk=False)
    frames.clear()              # the sources' frames are not kept alive next to the whole
    table = _finish(whole)
    return Extraction(table, problems, unmatched, infos, warnings)


# ---- files -------------------------------------------------------------------------------

def write_observations(table: pl.DataFrame, path: str | Path) -> Path:
    """The table as CSV or parquet (by the suffix), written to a temporary name then renamed."""
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise ValueError(f"{path}: the output must end in .csv or .parquet")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        if path.suffix == ".csv":
            table.write_csv(tmp)
        else:
            table.write_parquet(tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def read_observations(path: str | Path) -> pl.DataFrame:
    """A table write_observations wrote, with its types (a CSV is read with SCHEMA)."""
    path = Path(path)
    if path.suffix == ".csv":
        return pl.read_csv(path, schema=SCHEMA)
    if path.suffix == ".parquet":
        return pl.read_parquet(path).select([pl.col(c).cast(t) for c, t in SCHEMA.items()])
    raise ValueError(f"{path}: expected a .csv or .parquet file")


def _brief(exc: BaseException | str) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"
