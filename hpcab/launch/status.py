"""A run's status.json (rewritten by the launcher at every change) and its printed table;
`hpcab status RUN_DIR` prints it at any time."""

from __future__ import annotations

import json
import time
from pathlib import Path

import attrs
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab.errors import InputError


@attrs.frozen
class RoleStatus:
    role: str
    index: int
    job_id: str
    state: str              # SUBMITTED | PENDING | RUNNING | COMPLETED | FAILED | CANCELLED | ...
    log: str                # the job's stdout (its stderr beside it)
    error: str = ""
    leg: int = 0
    tail: tuple[str, ...] = ()      # a failed role: the last lines of its log (RUN/logs/<role>-<i>.out)


TAIL_LINES = 5


def log_tail(path: Path, lines: int = TAIL_LINES, limit: int = 300) -> tuple[str, ...]:
    """The last non-empty lines of a role's log, each cut to limit characters."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(f.tell() - 64 * 1024, 0))
            text = f.read().decode(errors="replace")
    except OSError:
        return ()
    kept = [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]
    return tuple(line if len(line) <= limit else line[:limit - 1] + "…" for line in kept)


def write_status(run: Path, arm, statuses: dict[str, RoleStatus], state: str, started: float) -> None:
    doc = {"run_dir": str(run), "arm": str(arm.path), "experiment": arm.experiment,
           "executor": arm.executor.kind, "state": state, "legs": len(arm.legs),
           "updated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "wall_seconds": round(time.monotonic() - started, 1),
           "roles": [attrs.asdict(s) for s in statuses.values()]}
    tmp = run / "status.json.tmp"
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    tmp.replace(run / "status.json")


def read_status(run: Path) -> dict:
    path = Path(run) / "status.json"
    if not path.is_file():
        raise InputError(str(run), "status.json", "not a run folder of python -m hpcab.launch (no status.json)")
    return json.loads(path.read_text())


def print_status(run: Path, out: Console) -> None:
    doc = read_status(run)
    colour = {"succeeded": "green", "running": "yellow"}.get(doc["state"], "red")
    table = Table(title=f"{doc['experiment']} ({doc['executor']}): [{colour}]{doc['state']}[/{colour}] "
                        f"after {doc['wall_seconds']:.0f} s")
    for col in ("role", "job id", "state", "log", "error"):
        table.add_column(col, overflow="fold")
    for r in doc["roles"]:
        state = r["state"]
        shown = f"[red]{state}[/red]" if state in ("FAILED", "CANCELLED") else state
        name = f"{r['role']}-{r['index']}"
        error = escape(r["error"])
        if r.get("tail"):
            error += "\n[dim]" + "\n".join(f"│ {escape(line)}" for line in r["tail"]) + "[/dim]"
        table.add_row(f"leg {r['leg']}: {name}" if doc.get("legs", 1) > 1 else name, r["job_id"], shown,
                      escape(r["log"]), error)
    out.print(table)
    out.print(f"status: {Path(doc['run_dir']) / 'status.json'} (updated {doc['updated_at']})", highlight=False)
