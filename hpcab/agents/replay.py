"""The replay optimizer: submits files as they are. It is the human path (write gemm.c by
hand, replay the folder) and the way to grade a past campaign's code again.

Where the files come from (one of the options):
    dir=FOLDER   every file for the kernel, in name order: FOLDER/<kernel>.<ext>,
                 FOLDER/<kernel>.<anything>.<ext> and FOLDER/<kernel>/<anything>.<ext>; the
                 language from the suffix (a .py file with a `#pythran export` line is
                 pythran); or, when FOLDER/index.json exists, exactly the files it lists:
                 {"submissions": [{"kernel", "file", "language"?, "flagset"?, "label"?}]}
    db=FILE      the graded submissions of a judge database, in the order they were
                 received, with their language, compiler and flag set (agent=NAME keeps
                 one agent's)
    flagset=NAME the flag set for files that do not name one (default: the judge's)

Each file is one submission, so the task's submission budget (`--submissions`) says how
many are graded; the files beyond it are reported, not silently dropped.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import attrs

from hpcab.agents.base import Agent, BudgetExhausted, Session, Task
from hpcab.build import candidate_from_file, language_of
from hpcab.errors import InputError


@attrs.frozen
class Entry:
    source: str
    language: str
    flagset: str | None
    compiler: str | None
    label: str


def folder_entries(folder: Path, kernel: str, flagset: str | None) -> list[Entry]:
    index = folder / "index.json"
    if index.is_file():
        return _index_entries(index, kernel, flagset)
    found = sorted(p for p in folder.glob(f"{kernel}.*") if p.is_file()) + \
        sorted(p for p in (folder / kernel).glob("*") if p.is_file())
    entries = []
    for p in found:
        try:
            language_of(p)
        except InputError:
            continue                    # a note or a log beside the code
        c = candidate_from_file(p)
        entries.append(Entry(c.source, c.language, flagset, None, str(p.relative_to(folder))))
    return entries


def _index_entries(index: Path, kernel: str, flagset: str | None) -> list[Entry]:
    try:
        doc = json.loads(index.read_text())
        items = doc["submissions"]
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(str(index), "submissions", f"expected {{\"submissions\": [...]}}: {exc}") from None
    entries = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or "kernel" not in item or "file" not in item:
            raise InputError(str(index), f"submissions[{i}]", "expected an object with kernel and file")
        if item["kernel"] != kernel and not kernel.endswith("/" + item["kernel"]):
            continue
        path = index.parent / item["file"]
        c = candidate_from_file(path, item.get("language"))
        entries.append(Entry(c.source, c.language, item.get("flagset", flagset), item.get("compiler"),
                             item.get("label", item["file"])))
    return entries


def database_entries(db: Path, kernel: str, agent: str | None) -> list[Entry]:
    if not db.is_file():
        raise InputError(str(db), "", "no such judge database")
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        query = "SELECT * FROM submissions WHERE kernel = ? AND state = 'graded'"
        params: list = [kernel]
        if agent:
            query += " AND agent = ?"
            params.append(agent)
        conn.row_factory = sqlite3.Row
        rows = conn.execute(query + " ORDER BY received_at, id", params).fetchall()
    except sqlite3.DatabaseError as exc:
        raise InputError(str(db), "submissions", f"not a judge database: {exc}") from None
    finally:
        conn.close()
    return [Entry(r["source"], r["language"], r["flagset"], r["compiler"], f"replay of {r['id']}: {r['label']}")
            for r in rows]


class ReplayAgent(Agent):
    name = "replay"
    languages = ("c", "cpp", "fortran", "cuda", "hip", "python", "pythran")

    def entries(self, task: Task) -> list[Entry]:
        flagset = self.options.get("flagset")
        if "db" in self.options:
            return database_entries(Path(str(self.options["db"])), task.kernel, self.options.get("agent"))
        if "dir" not in self.options:
            raise InputError("replay", "dir", "give the folder of files (--option dir=FOLDER) or a judge "
                                              "database (--option db=FILE)")
        folder = Path(str(self.options["dir"]))
        if not folder.is_dir():
            raise InputError(str(folder), "dir", "no such folder")
        return folder_entries(folder, task.name, flagset)

    def solve(self, task: Task, session: Session) -> None:
        entries = self.entries(task)
        if not entries:
            where = self.options.get("db") or self.options.get("dir")
            raise InputError(str(where), task.name, f"nothing to replay for {task.name} (expected "
                                                    f"{task.name}.<c|cpp|f90|cu|py> or {task.name}/<file>)")
        for i, e in enumerate(entries):
            if not session.can_submit:
                raise BudgetExhausted(f"submission budget spent; {len(entries) - i} file(s) not replayed "
                                      f"(raise --submissions)")
            session.submit(e.source, e.language, e.flagset, label=e.label, compiler=e.compiler)
