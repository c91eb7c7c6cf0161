"""The runner behind `hpcab agent`: one agent, a list of kernels, one judge handle.

Each kernel is one task with its own Session and budget. A task ends when the agent's
solve() returns, when its budget ends, or when it raises: an agent's exception is that
task's error (recorded, and the run's exit status), never the end of the other tasks. A
judge that cannot be reached ends the run at once, loudly.

Writes under the output folder: work/<kernel>/ (each task's scratch folder), agent.jsonl
(every score, submission and model call) and results.json (the final table).
"""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path

import attrs
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hpcab.agents.base import Agent, Budget, BudgetExhausted, JudgeHandle, Session, Task, speedup_of
from hpcab.client import JudgeError
from hpcab.errors import HpcabError, InputError


@attrs.frozen
class TaskResult:
    kernel: str
    name: str
    track: str
    status: str                 # the chosen submission's status, "not submitted" or "error"
    correct: bool
    speedup: dict | None        # over the track's baseline: {"value", "ci95"}
    baseline: str | None
    grade_id: str | None
    submissions: int
    scores: int
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    wall_seconds: float
    ended_by: str = ""          # why the task ended early: a budget, or the agent's error
    error: str = ""
    variant: str = ""           # what the chosen submission was: its label, language and flag set

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def chosen_submission(docs: list[dict]) -> dict | None:
    """The task's answer among its submissions: a correct one before a wrong one, then the
    fastest (a task usually has one)."""
    if not docs:
        return None
    return max(docs, key=lambda d: (bool(d.get("correct")), speedup_of(d) or 0.0))


def variant_name(doc: dict) -> str:
    """A submission as the table names it: its label, with the language and flag set when
    the label does not say them (e.g. `c@unroll`, or `gemm.c (c, opt)`)."""
    label, language, flagset = doc.get("label") or "", doc.get("language") or "?", doc.get("flagset") or "?"
    if label and flagset in label:
        return label
    return f"{label} ({language}, {flagset})" if label else f"{language}, {flagset}"


def progress_line(done: int, total: int, r: TaskResult, elapsed: float) -> str:
    """One line per finished task for a log or a pipe, where no live bar is drawn:
    `[2/3] gemm: correct 1.07× c@unroll (1 submission, 4 scores)  (65 s elapsed)`."""
    if r.submissions:
        sp = (r.speedup or {}).get("value")
        verdict = ("correct" if r.correct else f"not correct ({r.status})") + (f" {sp:.2f}×" if sp else "")
        what = f"{verdict} {r.variant}"
    else:
        what = "nothing submitted"
    why = _brief(r.error or r.ended_by, 100)
    counts = f"{r.submissions} submission{'s' * (r.submissions != 1)}, {r.scores} score{'s' * (r.scores != 1)}"
    return f"[{done}/{total}] {r.name}: {what} ({counts}){'; ' + why if why else ''}  ({elapsed:.0f} s elapsed)"


def run_tasks(agent: Agent, kernels: list[str], judge: JudgeHandle, budget: Budget, out_dir: Path,
              console: Console | None = None, progress: bool = True) -> list[TaskResult]:
    """progress: a live bar on a terminal; elsewhere (a pipe, a log file) one line per task."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    log_path = out_dir / "agent.jsonl"
    results: list[TaskResult] = []
    console = console or Console(stderr=True)
    lines = progress and not console.is_terminal       # rich draws no live bar there: say something
    started = time.monotonic()
    columns = (TextColumn("[bold]{task.fields[agent]}[/bold]"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[kernel]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, disable=not progress or lines, transient=False) as bar:
        job = bar.add_task("tasks", total=len(kernels), agent=agent.name, kernel="")
        for kernel in kernels:
            bar.update(job, kernel=kernel)
            results.append(run_task(agent, kernel, judge, budget, out_dir, log_path))
            bar.advance(job)
            if lines:
                console.print(progress_line(len(results), len(kernels), results[-1], time.monotonic() - started),
                              markup=False, highlight=False, soft_wrap=True)
                console.file.flush()
        bar.update(job, kernel="done")
    write_results(out_dir / "results.json", agent, results)
    return results


def run_task(agent: Agent, kernel: str, judge: JudgeHandle, budget: Budget, out_dir: Path,
             log_path: Path) -> TaskResult:
    try:
        doc = judge.task(kernel, "c")
    except JudgeError as exc:
        if exc.status is None:          # no judge: every other task would fail the same way
            raise HpcabError(str(exc)) from None
        return _failed(kernel, f"the judge refused the task: {exc}")
    workdir = out_dir / "work" / doc["name"]
    workdir.mkdir(parents=True, exist_ok=True)
    task = Task(kernel=doc["kernel"], name=doc["name"], track=doc["track"], doc=doc, workdir=workdir)
    session = Session(judge, task, budget, log_path=log_path)
    ended_by, error = "", ""
    try:
        agent.solve(task, session)
    except BudgetExhausted as exc:
        ended_by = str(exc)
    except JudgeError as exc:
        if exc.status is None:
            raise HpcabError(str(exc)) from None
        ended_by, error = "error", f"the judge refused a request: {exc}"
    except Exception as exc:
        ended_by, error = "error", f"{type(exc).__name__}: {exc}"
        (out_dir / "errors.log").open("a").write(f"--- {kernel}\n{traceback.format_exc()}\n")
    if error:
        session.log({"event": "error", "message": error})
    chosen = chosen_submission(session.submissions)
    calls = session.calls
    status = chosen["status"] if chosen else ("error" if error else "not submitted")
    return TaskResult(
        kernel=task.kernel, name=task.name, track=task.track, status=status,
        correct=bool(chosen and chosen.get("correct")),
        speedup=chosen.get("speedup_vs_baseline") if chosen else None,
        baseline=doc.get("baseline"), grade_id=chosen.get("id") if chosen else None,
        submissions=len(session.submissions), scores=session.scores, model_calls=len(calls),
        prompt_tokens=sum(c.prompt_tokens for c in calls), completion_tokens=sum(c.completion_tokens for c in calls),
        cached_tokens=sum(c.cached_tokens for c in calls), wall_seconds=round(session.elapsed, 3),
        ended_by=ended_by or _judge_refusal(session), error=error,
        variant=variant_name(chosen) if chosen else "")


def _judge_refusal(session: Session) -> str:
    """Why a task's scoring stopped short when the judge's own budget ended it."""
    return f"the judge refused further scores: {session.judge_refused_scores}" if session.judge_refused_scores else ""


def _failed(kernel: str, error: str) -> TaskResult:
    return TaskResult(kernel, kernel.rsplit("/", 1)[-1], "", "error", False, None, None, None, 0, 0, 0, 0, 0, 0,
                      0.0, "error", error)


def write_results(path: Path, agent: Agent, results: list[TaskResult]) -> None:
    doc = {"agent": agent.name, "options": {k: str(v) for k, v in agent.options.items()},
           "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "tasks": [attrs.asdict(r) for r in results]}
    path.write_text(json.dumps(doc, indent=2) + "\n")


def run_failed(results: list[TaskResult]) -> bool:
    """A run fails (exit status 1) when a task raised or ended with nothing submitted."""
    return any(r.error or r.submissions == 0 for r in results)


def print_results(results: list[TaskResult], agent_name: str, out: Console) -> None:
    from hpcab.gradedoc import fmt_speedup
    table = Table(title=f"agent {agent_name}: {len(results)} task(s)")
    for col, justify in (("kernel", "left"), ("track", "left"), ("correct", "center"), ("speedup", "right"),
                         ("baseline", "left"), ("variant", "left"), ("submissions", "right"), ("scores", "right"),
                         ("tokens", "right"), ("wall", "right"), ("note", "left")):
        table.add_column(col, justify=justify, overflow="fold", max_width=24 if col == "variant" else None)
    for r in results:
        sp = r.speedup
        speed = fmt_speedup(sp, "\n")    # with the gate's verdict: faster, slower, no measurable difference
        correct = "[green]yes[/green]" if r.correct else ("[red]no[/red]" if r.submissions else "-")
        note = r.error or r.ended_by or ("" if r.status in ("ok", "not submitted") else r.status)
        if r.submissions == 0 and not r.error:
            note = note or "nothing submitted"
        table.add_row(r.name, r.track, correct, speed, r.baseline or "-", _brief(r.variant or "-", 60),
                      str(r.submissions), str(r.scores),
                      f"{r.tokens:,}" if r.model_calls else "-", f"{r.wall_seconds:.1f} s",
                      _brief(note), end_section=False)
    out.print(table)
    # An error folds in a narrow cell (a piped table is 160 columns): each one again, whole, on a line.
    for r in results:
        if r.error:
            out.print(f"{r.name}: {_brief(r.error, 400)}", highlight=False, soft_wrap=True)
    ok = sum(r.correct for r in results)
    out.print(f"{ok}/{len(results)} correct; " + ("every task submitted" if not run_failed(results)
                                                  else "[red]some tasks failed or submitted nothing[/red]"))


def _brief(text: str, limit: int = 160) -> str:
    from rich.markup import escape
    text = " ".join(text.split())
    return escape(text if len(text) <= limit else text[:limit - 1] + "…")


# ---- `hpcab agent` -------------------------------------------------------------------

def parse_options(pairs: list[str]) -> dict[str, object]:
    """--option key=value (repeatable); a value that reads as JSON (a number, true, a list)
    is taken as such, anything else as text."""
    options: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError("--option", pair, "expected key=value")
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:
            options[key.strip()] = value
    return options


def selected_kernels(selector: str, judge: JudgeHandle) -> list[str]:
    """The selector (names, tracks, dwarfs, levels) over this machine's corpus, each kernel
    checked against what the judge serves."""
    from hpcab.corpus import load_corpus
    served = {k["id"] for k in judge.kernels()}
    chosen = [k.id for k in load_corpus().select(selector)]
    missing = [k for k in chosen if k not in served]
    if missing:
        raise InputError("--kernels", selector, f"the judge does not serve {', '.join(missing)}")
    return chosen


def agent_from_args(args) -> Agent:
    """The agent `hpcab agent` runs, its options checked by its own class: an unknown name
    or a bad option raises InputError. The launcher's --check calls this too."""
    from hpcab.agents import agent_class
    options = parse_options(args.option or [])
    if args.model:
        options.setdefault("model_url", args.model)
    if args.model_name:
        options.setdefault("model_name", args.model_name)
    if args.api:
        options.setdefault("api", args.api)
    return agent_class(args.name)(**options)


def command(args, out: Console) -> int:
    """`hpcab agent NAME --kernels SELECTOR (--judge URL | --native) ...`"""
    agent = agent_from_args(args)
    budget = Budget(submissions=args.submissions, scores=args.scores, wall_seconds=args.wall_seconds,
                    tokens=args.tokens, profiles=args.profiles)
    out_dir = Path(args.out or f"runs/agent-{agent.name}-{time.strftime('%Y%m%d-%H%M%S')}")
    out_dir.mkdir(parents=True, exist_ok=True)
    native = None
    if args.native:
        from hpcab.agents.native import NativeJudge
        from hpcab.judge.service import JudgeConfig
        db = Path(args.db) if args.db else out_dir / "judge.db"
        native = judge = NativeJudge(JudgeConfig(db=db, kernels=args.kernels, threads=args.threads,
                                                 workers=args.workers,
                                                 sandbox="none" if args.unsandboxed else "bubblewrap"),
                                     agent=args.agent_name or agent.name)
        where = f"the in-process judge (database {db})"
    else:
        from hpcab.client import JudgeClient
        from hpcab.judge.tokens import client_token
        token = client_token(args.token_file, args.agent)
        judge = JudgeClient(args.judge, token, args.rank)
        where = f"the judge at {args.judge}"
        try:     # a judge that is not there fails the run now, not after each task's retries
            JudgeClient(args.judge, token, args.rank, reconnect_seconds=3).health()
        except JudgeError as exc:
            raise HpcabError(f"{where}: {exc}") from None
    try:
        try:
            kernels = selected_kernels(args.kernels, judge)
        except JudgeError as exc:
            raise HpcabError(f"{where}: {exc}") from None
        out.print(f"agent [bold]{agent.name}[/bold] on {len(kernels)} kernel(s) against {where}; "
                  f"output in {out_dir}", highlight=False)
        results = run_tasks(agent, kernels, judge, budget, out_dir, progress=not args.no_progress)
    finally:
        if native is not None:
            native.close()
    if args.json:
        print((out_dir / "results.json").read_text())
    else:
        print_results(results, agent.name, out)
        out.print(f"results: {out_dir / 'results.json'}; log: {out_dir / 'agent.jsonl'}", highlight=False)
    return 1 if run_failed(results) else 0


def add_arguments(s) -> None:
    s.add_argument("name", help="numba, pythran, translator, autotune, replay, llm, or module:Class")
    s.add_argument("--kernels", required=True, help="selector: names, tracks, dwarfs, levels (e.g. gemm,L1)")
    where = s.add_mutually_exclusive_group(required=True)
    where.add_argument("--judge", help="the judge's URL (hpcab serve)")
    where.add_argument("--native", action="store_true", help="grade with an in-process judge (same pipeline)")
    s.add_argument("--rank", type=int, default=0, help="the rank of the judge addressed (default 0)")
    s.add_argument("--token-file", help="file holding the bearer token (default: $HPCAB_TOKEN)")
    s.add_argument("--model", help="the model server's base URL (llm agent), e.g. http://127.0.0.1:8000/v1")
    s.add_argument("--model-name", help="the model's name at that server (llm agent)")
    s.add_argument("--api", choices=("openai", "anthropic"), help="the model API (llm agent; default openai)")
    s.add_argument("--option", action="append", metavar="KEY=VALUE", help="an agent option (repeatable)")
    s.add_argument("--submissions", type=int, default=1, help="submission budget per task (default 1)")
    s.add_argument("--scores", type=int, default=None, help="score budget per task (default: no limit)")
    s.add_argument("--profiles", type=int, default=None, help="profile budget per task (default: no limit)")
    s.add_argument("--wall-seconds", type=float, default=None, help="wall-time budget per task")
    s.add_argument("--tokens", type=int, default=None, help="token budget per task (prompt + completion)")
    s.add_argument("--out", help="output folder (default runs/agent-NAME-TIME)")
    s.add_argument("--json", action="store_true", help="print results.json instead of the table")
    s.add_argument("--no-progress", action="store_true",
                   help="no progress bar (on a terminal) or progress lines (piped or to a file)")
    native = s.add_argument_group("--native judge")
    native.add_argument("--db", help="its database (default OUT/judge.db)")
    native.add_argument("--threads", type=int, default=1, help="threads of each timed run (default 1)")
    native.add_argument("--workers", type=int, default=2, help="grading worker processes (default 2)")
    native.add_argument("--agent-name", help="the agent's name in the database (default: the agent's)")
    native.add_argument("--unsandboxed", action="store_true", help="grade without the bubblewrap sandbox")
