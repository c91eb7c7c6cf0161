"""The launcher: an arm's roles as submitit jobs, watched until the run ends, loudly.

    python -m hpcab.launch --arm launch/arms/local-smoke.yaml

1. The arm is loaded and checked (hpcab.launch.arm) before anything is submitted.
2. A run folder <output>/<experiment>-<time>/ gets the arm, a token per agent worker and
   the rendezvous folder.
3. Judges, then inference servers, then agent workers are submitted with the executor the
   arm names (submitit LocalExecutor or SlurmExecutor: never auto-detected). Worker w uses
   judge[w % J] (its requests carry that rank, which the judge checks) and inference[w % I].
4. The jobs are polled; status.json is rewritten at every change. When every agent worker
   has finished, RUN/stop tells the servers to stop. A job that fails, or a server that
   ends before the workers do, fails the run: the others are cancelled, and the launch
   exits 1 with a table naming each role, its job id, state and log.
5. Ctrl-C cancels every job of the run (exit 130).

With legs (arm `legs:`), steps 3 and 4 are per leg, in order; on Slurm every leg is
submitted at once, each depending on the previous (afterany). docs/launch.md.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import re
import shutil
import signal
import time
from pathlib import Path

import attrs
from rich.console import Console
from submitit.local.local import LocalJob

from hpcab.launch.arm import Arm
from hpcab.launch.plan import instances, leg_folder
from hpcab.launch.preflight import check_roles
from hpcab.launch.roles import STOP, Instance, run_instance
from hpcab.launch.status import RoleStatus, log_tail, print_status, write_status

POLL_S = 1.0
SERVER_ROLES = ("judge", "inference")


def run_folder(arm: Arm) -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    run = (arm.output / f"{arm.experiment}-{stamp}").resolve()
    n = 1
    while run.exists():
        n += 1
        run = run.with_name(f"{arm.experiment}-{stamp}-{n}")
    (run / "logs").mkdir(parents=True)
    shutil.copy(arm.path, run / "arm.yaml")
    return run


def worker_tokens(arm: Arm, run: Path) -> Path:
    """A tokens file for the judges (one agent per worker, budgets for the whole kernel
    selection) and each worker's own token file (mode 600)."""
    from hpcab.corpus import load_corpus
    from hpcab.judge.tokens import issue_tokens
    corpus = load_corpus()
    tasks = sum(len(corpus.select(leg)) for leg in arm.legs)
    per_task = arm.budgets.get("submissions", 1)
    scores, profiles = arm.budgets.get("scores"), arm.budgets.get("profiles")
    names = [f"worker-{w}" for w in range(arm.role("agent").count)]
    tokens = issue_tokens(names, per_task * tasks, run / "secrets" / "tokens.json",
                          None if scores is None else scores * tasks, None if profiles is None else profiles * tasks)
    for name, token in tokens.items():
        fd = os.open(run / "secrets" / f"{name}.token", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(token + "\n")
    return run / "secrets" / "tokens.json"


class _NoSacctNoise(logging.Filter):
    """Without Slurm accounting submitit warns on every poll that sacct failed; it then reads
    the job's state another way, and this launcher reports every failure itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Bypassing sacct error" not in record.getMessage()


def executor_for(arm: Arm, run: Path):
    """The submitit executor the arm names, explicitly (AutoExecutor would pick Slurm
    whenever srun is on the PATH)."""
    import submitit
    for handler in logging.getLogger("submitit").handlers:
        handler.addFilter(_NoSacctNoise())
    ex = arm.executor
    folder = run / "jobs" / "%j"
    if ex.kind == "local":
        executor = submitit.LocalExecutor(folder=folder)
        executor.update_parameters(timeout_min=ex.time_minutes, visible_gpus=())
        return executor
    executor = submitit.SlurmExecutor(folder=folder)
    params = {"partition": ex.partition, "time": ex.time_minutes, "nodes": 1, "ntasks_per_node": 1,
              "cpus_per_task": ex.cpus_per_task, "job_name": f"hpcab-{arm.experiment}"}
    if ex.mem_gb:
        params["mem"] = f"{int(ex.mem_gb * 1024)}M"
    if ex.sbatch:
        params["additional_parameters"] = dict(ex.sbatch)
    executor.update_parameters(**params)
    return executor


def launch(arm: Arm, console: Console | None = None, progress_every: float = 30.0) -> int:
    from hpcab.launch.live import LiveView
    console = console or Console()
    # Everything the roles check at their start (what --check runs), and the images against
    # their lock: a bad arm is refused here, before the run folder or any job exists.
    images = check_roles(arm)
    run = run_folder(arm)
    tokens = worker_tokens(arm, run)
    executor = executor_for(arm, run)
    started = time.monotonic()
    legs: list[list[tuple[Instance, object]]] = []
    statuses: dict[str, RoleStatus] = {}
    console.print(f"launch: arm {arm.path} ({arm.executor.kind}, {len(arm.legs)} leg(s)); run folder {run}",
                  highlight=False)
    slurm = arm.executor.kind == "slurm"
    try:
        # On Slurm every leg is submitted now, each leg's jobs after the previous leg's
        # (afterany), so the campaign goes on if this launcher dies; locally, leg by leg.
        for leg in range(len(arm.legs) if slurm else 1):
            legs.append(_submit(arm, run, tokens, executor, leg, legs[-1] if legs else None, statuses, images))
        write_status(run, arm, statuses, "running", started)
        outcome = "succeeded"
        for leg in range(len(arm.legs)):
            if leg == len(legs):
                legs.append(_submit(arm, run, tokens, executor, leg, None, statuses, images))
                write_status(run, arm, statuses, "running", started)
            title = f"{arm.experiment} ({arm.executor.kind})" + (f", leg {leg}" if len(arm.legs) > 1 else "")
            with LiveView(console, title, progress_every) as view:
                outcome = _watch(leg_folder(arm, run, leg), arm, legs[leg], statuses, started, run, view)
            if outcome == "succeeded" and leg + 1 < len(arm.legs):
                write_status(run, arm, statuses, "running", started)
            if outcome != "succeeded":
                later = [pair for jobs in legs[leg + 1:] for pair in jobs]
                _cancel(later, statuses)
                _settle(later, statuses)
                write_status(run, arm, statuses, outcome, started)
                break
    except KeyboardInterrupt:
        jobs = [pair for jobs in legs for pair in jobs]
        _cancel(jobs, statuses)
        _settle(jobs, statuses)
        write_status(run, arm, statuses, "cancelled", started)
        print_status(run, console)
        return 130
    except BaseException:
        # The launcher's own failure must not leave the run's jobs behind.
        for leg in range(len(legs)):
            (leg_folder(arm, run, leg) / STOP).touch()
        _cancel([pair for jobs in legs for pair in jobs], statuses)
        raise
    print_status(run, console)
    print_results(run, console)
    return 0 if outcome == "succeeded" else 1


def _submit(arm: Arm, run: Path, tokens: Path, executor, leg: int, after: list | None,
            statuses: dict[str, RoleStatus], images: dict) -> list[tuple[Instance, object]]:
    jobs = []
    extra = dict(arm.executor.sbatch)
    if after:
        extra["dependency"] = "afterany:" + ":".join(str(j.job_id) for _, j in after)
    for inst in instances(arm, run, tokens, leg, images):
        if arm.executor.kind == "slurm":
            params = {"additional_parameters": extra} if extra else {}
            gpus = arm.role(inst.role).gpus
            if gpus:
                params["gpus_per_node"] = gpus
            # A judge grading on R ranks gets a CPU per rank (the parameters stay set: reset for the others).
            mpi = arm.role(inst.role).mpi
            params["cpus_per_task"] = max(arm.executor.cpus_per_task, mpi["ranks"] if mpi else 0)
            executor.update_parameters(**params)
        job = executor.submit(run_instance, inst)
        jobs.append((inst, job))
        statuses[inst.key] = RoleStatus(inst.role, inst.index, str(job.job_id), "SUBMITTED", str(job.paths.stdout),
                                        "", leg)
    return jobs


def print_results(run: Path, console: Console) -> None:
    """The agent workers' final tables, as one."""
    from hpcab.agents.runner import TaskResult, print_results as print_tasks
    rows = []
    for path in sorted((run / "agents").rglob("results.json")):
        rows += [TaskResult(**t) for t in json.loads(path.read_text())["tasks"]]
    if rows:
        agent = json.loads(next((run / "agents").rglob("results.json")).read_text())["agent"]
        print_tasks(rows, agent, console)


def _watch(here: Path, arm: Arm, jobs: list, statuses: dict[str, RoleStatus], started: float, run: Path,
           view=None) -> str:
    """One leg's jobs until its agent workers are done (here: the leg's folder); view: the
    live table or progress lines (hpcab.launch.live), updated at every poll."""
    agents = [(i, j) for i, j in jobs if i.role == "agent"]
    servers = [(i, j) for i, j in jobs if i.role in SERVER_ROLES]
    submissions = arm.budgets.get("submissions", 1)
    while True:
        changed = _refresh(jobs, statuses)
        if view is not None:
            view.update([i for i, _ in jobs], statuses, submissions)
        failed = [statuses[i.key] for i, _ in jobs if statuses[i.key].state == "FAILED"]
        ended_early = [i for i, _ in servers if statuses[i.key].state == "COMPLETED" and not (here / STOP).exists()]
        for i in ended_early:
            statuses[i.key] = attrs.evolve(statuses[i.key], state="FAILED",
                                            error="the server ended before the agent workers did")
        if failed or ended_early:
            (here / STOP).touch()
            _cancel(jobs, statuses)
            _settle(jobs, statuses)
            write_status(run, arm, statuses, "failed", started)
            return "failed"
        if all(statuses[i.key].state == "COMPLETED" for i, _ in agents):
            (here / STOP).touch()
            deadline = time.monotonic() + 120
            while any(not j.done() for _, j in servers) and time.monotonic() < deadline:
                time.sleep(POLL_S)
            _refresh(jobs, statuses)
            state = "succeeded" if all(statuses[i.key].state == "COMPLETED" for i, _ in jobs) else "failed"
            write_status(run, arm, statuses, state, started)
            return state
        if changed:
            write_status(run, arm, statuses, "running", started)
        time.sleep(POLL_S)


def _refresh(jobs: list, statuses: dict[str, RoleStatus]) -> bool:
    """Each job's state now: RUNNING, COMPLETED, FAILED (with its error), CANCELLED, or what
    the executor says while it waits."""
    changed = False
    for inst, job in jobs:
        old = statuses[inst.key]
        if old.state in ("COMPLETED", "FAILED", "CANCELLED"):
            continue
        error = ""
        if job.done():
            exc = job.exception()
            if exc is None:
                state = "COMPLETED"
            else:
                state = "CANCELLED" if old.state == "CANCELLING" else "FAILED"
                error = _brief(exc)
        elif old.state == "CANCELLING":
            continue
        else:
            state = "RUNNING" if str(job.state).upper() in ("RUNNING", "COMPLETING") else str(job.state).upper()
        if state != old.state or error != old.error:
            # A failed role's own last words: what its log says is usually the why.
            tail = log_tail(Path(inst.run_dir) / "logs" / f"{inst.name}.out") if state == "FAILED" else ()
            statuses[inst.key] = attrs.evolve(old, state=state, error=error, tail=tail)
            changed = True
    return changed


def _cancel(jobs: list, statuses: dict[str, RoleStatus] | None = None) -> None:
    for inst, job in jobs:
        if not job.done():
            if statuses is not None:
                statuses[inst.key] = attrs.evolve(statuses[inst.key], state="CANCELLING")
            try:
                if isinstance(job, LocalJob):
                    # SIGTERM to submitit's local controller, which hands it to the role (a
                    # clean stop: hpcab.launch.roles); its own cancel() sends SIGINT, and the
                    # controller then prints a KeyboardInterrupt traceback on our terminal.
                    os.kill(int(job.job_id), signal.SIGTERM)
                else:
                    job.cancel(check=False)       # scancel: Slurm sends the job SIGTERM
            except Exception:
                pass


def _settle(jobs: list, statuses: dict[str, RoleStatus], wait_s: float = 30.0) -> None:
    """After a cancel: wait for the jobs to end; one that has not is recorded as cancelled."""
    deadline = time.monotonic() + wait_s
    while any(not j.done() for _, j in jobs) and time.monotonic() < deadline:
        time.sleep(POLL_S / 2)
    _refresh(jobs, statuses)
    for inst, _ in jobs:
        if statuses[inst.key].state == "CANCELLING":
            statuses[inst.key] = attrs.evolve(statuses[inst.key], state="CANCELLED")


def _brief(exc: BaseException, limit: int = 400) -> str:
    """What failed, in one line: submitit's error holds the job's traceback between two
    dashed lines; its last line says what was raised."""
    text = str(exc)
    parts = re.split(r"\n-{10,}\n", text)
    trace = parts[1] if len(parts) >= 3 else text
    lines = [line for line in trace.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else type(exc).__name__
    last = re.sub(r"^hpcab\.launch\.roles\.RoleFailed: ", "", last)
    return last if len(last) <= limit else last[:limit] + "…"
