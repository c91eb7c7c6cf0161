"""What each role's job runs (inside a submitit job: a local process or a Slurm task).

Roles meet through the run folder: a judge or an inference server, once it answers,
publishes RUN/rendezvous/<role>-<index>.json with its URL; agent worker w waits for
judge[w % J] and inference[w % I], checks their health (judge GET /health, inference
GET /v1/models) and then runs `hpcab agent`. The servers run until the launcher writes
RUN/stop. A role that cannot do its part raises RoleFailed with what went wrong, so its
job fails and the launch fails with it: a server that exits early, one that never becomes
healthy, an agent whose run failed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import attrs

STOP = "stop"
POLL_S = 0.5


class RoleFailed(Exception):
    pass


@attrs.frozen
class Instance:
    """One role instance, as the launcher hands it to its job."""
    run_dir: str
    role: str                       # judge | inference | agent
    index: int                      # rank, server index or worker
    argv: tuple[str, ...]           # its command, placeholders filled except {port}
    counts: tuple[int, int]         # (judges, inference servers), for the pinning of workers
    timeout_s: float                # rendezvous and health
    bind: str = "127.0.0.1"         # where servers listen (slurm: every interface)
    leg: int = 0                    # run_dir is the leg's folder

    @property
    def name(self) -> str:
        return f"{self.role}-{self.index}"

    @property
    def key(self) -> str:
        """Unique in the run: the leg and the name."""
        return f"leg{self.leg}/{self.name}"


def run_instance(inst: Instance) -> int:
    """The job's entry point. SIGTERM (a cancelled job: scancel, or the launcher) becomes an
    exception, so the role stops the server it started before it goes."""
    signal.signal(signal.SIGTERM, _terminated)
    if inst.role == "agent":
        return _agent(inst)
    return _server(inst)


def _terminated(signum, frame):
    raise RoleFailed("cancelled (SIGTERM)")


# ---- rendezvous ----------------------------------------------------------------------------

def rendezvous_dir(run_dir: str | Path) -> Path:
    return Path(run_dir) / "rendezvous"


def publish(inst: Instance, url: str) -> None:
    path = rendezvous_dir(inst.run_dir) / f"{inst.name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"url": url, "host": socket.gethostname(), "pid": os.getpid(),
                               "job": os.environ.get("SLURM_JOB_ID") or os.environ.get("SUBMITIT_LOCAL_JOB_ID")}))
    tmp.replace(path)


def wait_for(run_dir: str, name: str, timeout_s: float) -> dict:
    path = rendezvous_dir(run_dir) / f"{name}.json"
    deadline = time.monotonic() + timeout_s
    while not path.is_file():
        if time.monotonic() > deadline:
            raise RoleFailed(f"{name} did not publish its URL in {timeout_s:g} s ({path} never appeared)")
        if (Path(run_dir) / STOP).exists():
            raise RoleFailed(f"the run stopped while waiting for {name}")
        time.sleep(POLL_S)
    return json.loads(path.read_text())


def healthy(url: str, timeout_s: float) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=min(timeout_s, 10)) as resp:
            return resp.status == 200
    except Exception:
        return False


def wait_healthy(what: str, url: str, timeout_s: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout_s
    while not healthy(url, timeout_s):
        if proc is not None and proc.poll() is not None:
            raise RoleFailed(f"{what} exited with status {proc.returncode} before it answered {url}")
        if time.monotonic() > deadline:
            raise RoleFailed(f"{what} never answered {url} within {timeout_s:g} s")
        time.sleep(POLL_S)


# ---- servers: judges and inference -----------------------------------------------------------

def _free_port(bind: str) -> int:
    with socket.socket() as s:
        s.bind((bind, 0))
        return s.getsockname()[1]


def _address(bind: str) -> str:
    """The address others reach this host's servers at."""
    return "127.0.0.1" if bind.startswith("127.") else socket.gethostbyname(socket.gethostname())


def _server(inst: Instance) -> int:
    port = _free_port(inst.bind)
    argv = [a.replace("{port}", str(port)) for a in inst.argv]
    log = Path(inst.run_dir) / "logs" / f"{inst.name}.out"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        base = f"http://{_address(inst.bind)}:{port}"
        url = base if inst.role == "judge" else base + "/v1"
        wait_healthy(f"{inst.name} ({' '.join(argv[:3])} …, log {log})",
                     base + ("/health" if inst.role == "judge" else "/v1/models"), inst.timeout_s, proc)
        publish(inst, url)
        while True:
            if proc.poll() is not None:
                raise RoleFailed(f"{inst.name} exited with status {proc.returncode} before the run ended (log {log})")
            if (Path(inst.run_dir) / STOP).exists():
                return 0
            time.sleep(POLL_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


# ---- agent workers ---------------------------------------------------------------------------

def _agent(inst: Instance) -> int:
    judges, inference = inst.counts
    judge = wait_for(inst.run_dir, f"judge-{inst.index % judges}", inst.timeout_s)
    wait_healthy(f"judge-{inst.index % judges}", judge["url"] + "/health", inst.timeout_s)
    values = {"{judge_url}": judge["url"], "{judge_rank}": str(inst.index % judges)}
    if inference:
        server = wait_for(inst.run_dir, f"inference-{inst.index % inference}", inst.timeout_s)
        wait_healthy(f"inference-{inst.index % inference}", server["url"] + "/models", inst.timeout_s)
        values["{model_url}"] = server["url"]
    argv = [fill(a, values) for a in inst.argv]
    log = Path(inst.run_dir) / "logs" / f"{inst.name}.out"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        rc = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        raise RoleFailed(f"{inst.name}: `{' '.join(argv[:4])} …` exited with status {rc} (log {log})")
    return 0


def fill(arg: str, values: dict[str, str]) -> str:
    """arg with its {placeholders} replaced."""
    for key, value in values.items():
        arg = arg.replace(key, value)
    return arg

