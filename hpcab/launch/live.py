"""What a running campaign shows while the launcher waits: one row per role instance.

view_rows() reads the run's own files: the launcher's statuses, each agent worker's
agent.jsonl and results.json (tasks done of its share), and the judges' databases, opened
read-only, for the last grade. On a terminal LiveView is a rich Live table refreshed every
second; otherwise it prints one progress line every `every` seconds and at each change of
a role's state, so a piped or Slurm-logged launch is never silent.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import attrs
from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.table import Table

from hpcab.launch.roles import Instance
from hpcab.launch.status import RoleStatus


@attrs.frozen
class ViewRow:
    role: str                   # judge-0, agent-1, inference-0 (leg k: ... with legs)
    state: str
    tasks: str = ""             # agents: done/total; judges: grades recorded
    last_grade: str = ""        # kernel, status, speedup over the baseline


def view_rows(instances: list[Instance], statuses: dict[str, RoleStatus], submissions: int = 1) -> list[ViewRow]:
    """The rows of the live view, from the run's files as they are now. submissions: the
    task's submission budget (a task that has used it is done)."""
    legs = {i.leg for i in instances}
    rows = []
    for inst in instances:
        status = statuses.get(inst.key)
        state = status.state if status else "SUBMITTED"
        name = f"leg {inst.leg}: {inst.name}" if len(legs) > 1 else inst.name
        if inst.role == "agent":
            share = _flag(inst.argv, "--kernels")
            total = len([k for k in (share or "").split(",") if k])
            out = _flag(inst.argv, "--out")
            done = tasks_done(Path(out), submissions) if out else 0
            grade = last_grade(_judge_dbs(inst), f"worker-{inst.index}")
            rows.append(ViewRow(name, state, f"{min(done, total)}/{total}", grade))
        elif inst.role == "judge":
            db = _flag(inst.argv, "--db")
            graded, grade = judge_summary(Path(db)) if db else (0, "")
            rows.append(ViewRow(name, state, f"{graded} graded", grade))
        else:
            rows.append(ViewRow(name, state))
    return rows


def _flag(argv, flag: str) -> str | None:
    argv = list(argv)
    return argv[argv.index(flag) + 1] if flag in argv[:-1] else None


def _judge_dbs(inst: Instance) -> list[Path]:
    """The databases an agent worker's grades can be in: every judge database of the run."""
    run = Path(inst.run_dir)
    run = run.parent if run.name.startswith("leg-") else run
    return sorted(run.glob("judge-*.db"))


def tasks_done(out_dir: Path, submissions: int = 1) -> int:
    """Tasks an agent worker has finished: all of them once results.json is written; before,
    the kernels of its log (agent.jsonl) but the last, which counts once it has used its
    submission budget."""
    results = out_dir / "results.json"
    if results.is_file():
        try:
            return len(json.loads(results.read_text())["tasks"])
        except (OSError, ValueError, KeyError, TypeError):
            pass                    # being written: read the log instead
    seen: dict[str, int] = {}       # kernel -> submissions, in the order first seen
    try:
        for line in (out_dir / "agent.jsonl").read_text().splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue            # the line being written
            kernel = event.get("kernel")
            if kernel:
                seen[kernel] = seen.get(kernel, 0) + (event.get("event") == "submit")
    except OSError:
        return 0
    if not seen:
        return 0
    last = list(seen.values())[-1]
    return len(seen) - 1 + (last >= submissions)


def _read(db: Path, sql: str, params: tuple = ()) -> list[tuple]:
    from hpcab.experiments.extract import _open_read_only, _Unreadable
    try:
        conn = _open_read_only(str(db))
    except _Unreadable:
        return []
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.Error:
        return []               # not made yet, or busy: shown at the next refresh
    finally:
        conn.close()


_LAST = ("SELECT s.kernel, g.status, g.speedup_baseline, s.finished_at FROM submissions s "
         "JOIN grades g ON g.id = s.grade_id WHERE s.state = 'graded' {where} "
         "ORDER BY s.finished_at DESC, s.received_at DESC LIMIT 1")


def last_grade(dbs: list[Path], agent: str | None = None) -> str:
    """The newest grade in these databases (of this agent's submissions), in words."""
    found = []
    for db in dbs:
        if db.is_file():
            found += _read(db, _LAST.format(where="AND s.agent = ?" if agent else ""), (agent,) if agent else ())
    if not found:
        return ""
    kernel, status, speedup, _ = max(found, key=lambda r: r[3] or "")
    return grade_words(kernel, status, speedup)


def judge_summary(db: Path) -> tuple[int, str]:
    """(grades recorded for submissions, the newest in words) of one judge database."""
    if not db.is_file():
        return 0, ""
    count = _read(db, "SELECT COUNT(*) FROM submissions WHERE state = 'graded'")
    return (count[0][0] if count else 0), last_grade([db])


def grade_words(kernel: str, status: str, speedup: float | None) -> str:
    name = kernel.rsplit("/", 1)[-1]
    return f"{name} {status}" + (f" {speedup:.2f}×" if isinstance(speedup, (int, float)) else "")


def progress_line(rows: list[ViewRow], elapsed: float) -> str:
    """One line for a log: every role, its state, and the agents' tasks and last grades."""
    parts = []
    for r in rows:
        part = f"{r.role} {r.state}"
        if r.tasks:
            part += f" {r.tasks}" + (" tasks" if "/" in r.tasks else "")
        if r.last_grade:
            part += f", last {r.last_grade}"
        parts.append(part)
    return f"[{elapsed:6.0f} s] " + "; ".join(parts)


def view_table(rows: list[ViewRow], title: str) -> Table:
    table = Table(title=title)
    for col in ("role", "state", "tasks", "last grade (kernel, status, speedup)"):
        table.add_column(col, overflow="fold")
    for r in rows:
        state = f"[red]{r.state}[/red]" if r.state in ("FAILED", "CANCELLED") else r.state
        table.add_row(escape(r.role), state, escape(r.tasks), escape(r.last_grade))
    return table


class LiveView:
    """The live table (a terminal) or the progress lines (anything else), updated by the
    launcher's poll loop through update()."""

    def __init__(self, console: Console, title: str, every: float = 30.0, live: bool | None = None):
        self.console = console
        self.title = title
        self.every = every
        self.live = console.is_terminal if live is None else live
        self.started = time.monotonic()
        self._printed_at: float | None = None
        self._states: dict[str, str] = {}
        self._live: Live | None = None

    def __enter__(self) -> LiveView:
        if self.live:
            self._live = Live(view_table([], self.title), console=self.console, refresh_per_second=1,
                              transient=True)
            self._live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)
            self._live = None

    def update(self, instances: list[Instance], statuses: dict[str, RoleStatus], submissions: int = 1) -> None:
        now = time.monotonic()
        states = {i.key: statuses[i.key].state for i in instances if i.key in statuses}
        changed = states != self._states
        if self._live is not None:
            self._live.update(view_table(view_rows(instances, statuses, submissions), self.title))
        elif changed or self._printed_at is None or now - self._printed_at >= self.every:
            rows = view_rows(instances, statuses, submissions)
            self.console.print(progress_line(rows, now - self.started), markup=False, highlight=False,
                               soft_wrap=True)
            self._printed_at = now
        self._states = states
