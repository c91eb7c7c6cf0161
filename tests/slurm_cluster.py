"""A real Slurm cluster on this machine, for tests: munged, slurmctld and one or more slurmd,
started by hand (no systemd) from a private folder, and stopped again after the tests.

    # fixtures (tests/conftest.py makes them every test file's): slurm_cluster, one node,
    # n1; slurm_cluster_2nodes, two slurmd, n1 and n2

    def test_x(slurm_cluster, monkeypatch):
        job = slurm_cluster.sbatch("--wrap", "hostname")    # job id (str)
        assert slurm_cluster.wait_job(job) == "COMPLETED"
        slurm_cluster.run("squeue")                         # CompletedProcess, with .env
        for k, v in slurm_cluster.env.items():              # SLURM_CONF and PATH: what an
            monkeypatch.setenv(k, v)                        # in-process submitit needs

Everything the cluster writes lives under its folder: slurm.conf, the munge key and socket,
state, spool, pid and log files. Ports are chosen free at start and the ClusterName is unique,
so two test sessions on one machine don't collide. The daemons run as root (SlurmUser=root):
the tests run as root on the CI machines (scripts/bootstrap.sh).

What it simulates and what it cannot (no cgroups, one host): docs/testing_slurm.md.
If the daemons are not installed the fixtures FAIL (never skip): run scripts/bootstrap.sh.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "sinfo", "scancel", "scontrol", "srun")
SBIN = ("/usr/local/sbin", "/usr/sbin", "/sbin")
TERMINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
                   "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}


class SlurmClusterError(RuntimeError):
    """The cluster could not be started (the message quotes the daemons' log tails)."""


def _search_path() -> str:
    """PATH plus the sbin folders (the daemons live there; a non-login root shell may lack them)."""
    parts = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    return os.pathsep.join(parts + [d for d in SBIN if d not in parts])


def missing_programs() -> list[str]:
    path = _search_path()
    return [p for p in DAEMONS + CLIENTS if shutil.which(p, path=path) is None]


def slurm_version(path: str | None = None) -> tuple[int, int]:
    """(major, minor) of the installed Slurm, from `slurmctld -V` ("slurm-wlm 22.05.8")."""
    exe = shutil.which("slurmctld", path=path or _search_path())
    out = subprocess.run([exe, "-V"], capture_output=True, text=True, timeout=30).stdout
    m = re.search(r"(\d+)\.(\d+)", out)
    if not m:
        raise SlurmClusterError(f"cannot read the Slurm version from `slurmctld -V`: {out!r}")
    return int(m.group(1)), int(m.group(2))


def _plugin_dirs() -> list[Path]:
    """Where this machine's Slurm plugins are (Debian: /usr/lib/<triplet>/slurm-wlm)."""
    import glob
    pats = ("/usr/lib/*/slurm-wlm", "/usr/lib*/slurm-wlm", "/usr/lib*/slurm", "/usr/lib/*/slurm",
            "/usr/local/lib*/slurm")
    return sorted({Path(d) for pat in pats for d in glob.glob(pat) if glob.glob(f"{d}/*.so")})


def _none_plugin_line(key: str, value: str) -> list[str]:
    """`key=value` for a "<type>/none" plugin, or nothing where this Slurm has no such plugin
    file: newer Slurm builds the "none" behaviour in (an unset option means none) and ships no
    <type>_none.so for some types, while 22.05 loads the file. Unknown plugin folder: keep it."""
    dirs = _plugin_dirs()
    so = value.replace("/", "_") + ".so"
    if not dirs or any((d / so).exists() for d in dirs):
        return [f"{key}={value}"]
    return [f"# {key}={value}: no {so} here; unset means the same"]


def _free_ports(n: int) -> list[int]:
    """n distinct free TCP ports (all held open together while choosing, so they differ)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _die_with_parent() -> None:
    """In the forked daemon: SIGKILL it if the test process dies without stopping the cluster
    (a killed CI run), so no daemon outlives its tests."""
    import ctypes
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _mem_total_mb() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    return 2048


def _tail(path: Path, lines: int) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(missing)"
    return "\n".join(text.splitlines()[-lines:]) or "(empty)"


class SlurmCluster:
    """One slurmctld and len(nodes) slurmd on 127.0.0.1, with their own munged."""

    partition = "debug"

    def __init__(self, root: Path, nodes: tuple[str, ...] = ("n1",), cpus: int = 2,
                 start_timeout: float = 60, extra_conf: tuple[str, ...] = ()):
        """extra_conf: more slurm.conf lines (e.g. GresTypes=gpu), written before the node lines."""
        self.root = Path(root)
        self.extra_conf = list(extra_conf)
        self.nodes = list(nodes)
        self.cpus = cpus
        self.start_timeout = start_timeout
        self.cluster_name = "hpcab" + secrets.token_hex(4)      # letters/digits, unique
        self.hostname = socket.gethostname().split(".")[0]
        self.path = _search_path()
        self.conf_path = self.root / "etc" / "slurm.conf"
        self.log_dir = self.root / "log"
        self.env = {"SLURM_CONF": str(self.conf_path), "PATH": self.path}
        self.procs: dict[str, subprocess.Popen] = {}    # name -> daemon (all run in foreground)
        self._own_socket_dir: Path | None = None
        self.version: tuple[int, int] | None = None
        self.real_memory_mb = max(256, min(4096, _mem_total_mb() // 2))

    # ------------------------------------------------------------------ start
    def start(self) -> "SlurmCluster":
        missing = missing_programs()
        if missing:
            raise SlurmClusterError(
                f"Slurm/munge programs not installed: {', '.join(missing)}. "
                "Run scripts/bootstrap.sh (it installs slurm-wlm and munge).")
        try:
            self.version = slurm_version(self.path)
            self._write_files()
            self._start_munged()
            self._start_daemon("slurmctld", ["slurmctld", "-D"])
            self._wait_port(self.ctld_port, "slurmctld")
            for node in self.nodes:
                self._start_daemon(f"slurmd-{node}", ["slurmd", "-D", "-N", node])
            self._wait_idle()
        except BaseException:
            self.stop()
            raise
        return self

    def _write_files(self) -> None:
        for d in ("etc", "state", "spool", "run", "log"):
            (self.root / d).mkdir(parents=True, exist_ok=True)
        for node in self.nodes:
            (self.root / "spool" / node).mkdir(exist_ok=True)
        # munge: a 1024-byte random key (mode 600); the socket's folder mode 755. A unix socket
        # path must fit in 108 bytes: if the test folder is too deep, the socket goes to /tmp.
        munge = self.root / "munge"
        munge.mkdir(exist_ok=True)
        self.munge_key = munge / "munge.key"
        fd = os.open(self.munge_key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(1024))
        os.chmod(self.munge_key, 0o600)
        sock_dir = munge / "socket"
        if len(str(sock_dir / "munge.socket.2")) > 100:
            sock_dir = self._own_socket_dir = Path(tempfile.mkdtemp(prefix="hpcab-munge-", dir="/tmp"))
        sock_dir.mkdir(exist_ok=True)
        os.chmod(sock_dir, 0o755)
        self.munge_socket = sock_dir / "munge.socket.2"

        ports = _free_ports(1 + len(self.nodes))
        self.ctld_port, self.node_ports = ports[0], dict(zip(self.nodes, ports[1:]))
        r = self.root
        lines = [
            "# Written by tests/slurm_cluster.py: a throwaway cluster on 127.0.0.1 (see docs/testing_slurm.md).",
            f"ClusterName={self.cluster_name}",
            # SlurmctldHost (not the old ControlMachine, which newer Slurm rejects).
            f"SlurmctldHost={self.hostname}(127.0.0.1)",
            f"SlurmctldPort={self.ctld_port}",
            # munge, through a private munged: what real clusters run, on 22.05 and newer.
            # (AuthType=auth/none with CredType=cred/none also worked on 22.05; not used.)
            "AuthType=auth/munge",
            f"AuthInfo=socket={self.munge_socket}",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"StateSaveLocation={r}/state",
            f"SlurmdSpoolDir={r}/spool/%n",
            f"SlurmctldPidFile={r}/run/slurmctld.pid",
            f"SlurmdPidFile={r}/run/slurmd-%n.pid",
            f"SlurmctldLogFile={self.log_dir}/slurmctld.log",
            f"SlurmdLogFile={self.log_dir}/slurmd-%n.log",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            # No cgroups (containers, CI): processes tracked through /proc, no task binding.
            "ProctrackType=proctrack/linuxproc",
            *_none_plugin_line("TaskPlugin", "task/none"),
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            "DefMemPerCPU=256",
            *_none_plugin_line("AccountingStorageType", "accounting_storage/none"),
            *_none_plugin_line("JobAcctGatherType", "jobacct_gather/none"),
            "MpiDefault=none",
            "ReturnToService=2",
            # Use the node lines as written even where the hardware differs (two slurmd share
            # this host's CPUs and memory; a 1-CPU runner still gets CPUs=2 nodes).
            "SlurmdParameters=config_overrides",
            # Schedule a batch job as soon as it is submitted (the default may wait 3 s).
            "SchedulerParameters=batch_sched_delay=0",
            "KillWait=5",
            "InactiveLimit=0",
            *self.extra_conf,
        ]
        for node in self.nodes:
            lines.append(f"NodeName={node} NodeHostname={self.hostname} NodeAddr=127.0.0.1 "
                         f"Port={self.node_ports[node]} CPUs={self.cpus} "
                         f"RealMemory={self.real_memory_mb} State=UNKNOWN")
        lines.append(f"PartitionName={self.partition} Nodes={','.join(self.nodes)} "
                     "Default=YES MaxTime=INFINITE State=UP")
        self.conf_path.write_text("\n".join(lines) + "\n")
        if self.version >= (24, 5):
            # Slurm >= 24.05 can be told to leave cgroups alone entirely ("disabled" does not
            # exist before 24.05, so older versions get no cgroup.conf at all).
            (self.conf_path.parent / "cgroup.conf").write_text("CgroupPlugin=disabled\n")

    def _popen(self, name: str, argv: list[str]) -> subprocess.Popen:
        out = open(self.log_dir / f"{name}.out", "wb")
        try:
            env = dict(os.environ, **self.env)
            exe = shutil.which(argv[0], path=self.path)
            proc = subprocess.Popen([exe, *argv[1:]], stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, env=env, cwd=self.root,
                                    start_new_session=True, preexec_fn=_die_with_parent)
        finally:
            out.close()
        self.procs[name] = proc
        return proc

    def _start_munged(self) -> None:
        m = self.root / "munge"
        self._popen("munged", ["munged", "--foreground", "--force",
                               f"--key-file={self.munge_key}", f"--socket={self.munge_socket}",
                               f"--pid-file={m / 'munged.pid'}", f"--seed-file={m / 'munged.seed'}",
                               f"--log-file={self.log_dir / 'munged.log'}"])
        self._wait(lambda: self.munge_socket.exists(), "munged to open its socket")

    def _start_daemon(self, name: str, argv: list[str]) -> None:
        self._popen(name, argv)

    def _check_alive(self) -> None:
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise SlurmClusterError(f"{name} exited with status {proc.returncode} while "
                                        f"the cluster was starting\n{self.log_tail()}")

    def _wait(self, ready, what: str, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout or self.start_timeout)
        while True:
            self._check_alive()
            if ready():
                return
            if time.monotonic() > deadline:
                raise SlurmClusterError(f"timed out waiting for {what}\n{self.log_tail()}")
            time.sleep(0.1)

    def _wait_port(self, port: int, what: str) -> None:
        def listening() -> bool:
            with socket.socket() as s:
                s.settimeout(0.5)
                return s.connect_ex(("127.0.0.1", port)) == 0
        self._wait(listening, f"{what} to listen on port {port}")

    def node_states(self) -> dict[str, str]:
        out = self.run("sinfo", "-h", "-N", "-o", "%N %T", timeout=15)
        if out.returncode != 0:
            return {}
        states = {}
        for line in out.stdout.splitlines():
            parts = line.split()
            if len(parts) == 2:
                states[parts[0]] = parts[1].lower()
        return states

    def _wait_idle(self) -> None:
        last: dict[str, str] = {}

        def idle() -> bool:
            nonlocal last
            last = self.node_states()
            return all(last.get(n) == "idle" for n in self.nodes)
        try:
            self._wait(idle, f"nodes {', '.join(self.nodes)} to be idle in sinfo")
        except SlurmClusterError as e:
            raise SlurmClusterError(f"{e}\nlast sinfo states: {last}") from None

    # ------------------------------------------------------------------ use
    def run(self, *argv: str, timeout: float = 60, check: bool = False,
            **kw) -> subprocess.CompletedProcess:
        """A Slurm client command (sbatch, squeue, ...) against this cluster. It runs in the
        cluster's folder unless cwd= says otherwise, so a job without -o leaves its
        slurm-<id>.out there, not in the checkout."""
        env = dict(os.environ, **self.env)
        env.update(kw.pop("env", {}))
        kw.setdefault("cwd", self.root)
        return subprocess.run(list(argv), capture_output=True, text=True, env=env,
                              timeout=timeout, check=check, **kw)

    def sbatch(self, *args: str, **kw) -> str:
        """Submit with `sbatch --parsable ARGS`; the job id."""
        out = self.run("sbatch", "--parsable", *args, **kw)
        if out.returncode != 0:
            raise SlurmClusterError(f"sbatch {' '.join(args)} failed: {out.stderr}\n{self.log_tail()}")
        return out.stdout.strip().split(";")[0]

    def job_state(self, job_id: str) -> str:
        out = self.run("scontrol", "-o", "show", "job", str(job_id), timeout=15)
        m = re.search(r"\bJobState=(\S+)", out.stdout)
        return m.group(1) if m else "UNKNOWN"

    def wait_job(self, job_id: str, timeout: float = 60) -> str:
        """Wait until the job reaches a terminal state; that state (e.g. COMPLETED)."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.job_state(job_id)
            if state in TERMINAL_STATES:
                return state
            if time.monotonic() > deadline:
                raise SlurmClusterError(f"job {job_id} still {state} after {timeout} s\n"
                                        f"{self.run('squeue').stdout}\n{self.log_tail()}")
            time.sleep(0.2)

    def log_tail(self, lines: int = 25) -> str:
        parts = []
        for f in sorted(self.log_dir.glob("*")) if self.log_dir.exists() else []:
            parts.append(f"--- {f.name} (last {lines} lines)\n{_tail(f, lines)}")
        return "\n".join(parts) or f"(no logs under {self.log_dir})"

    # ------------------------------------------------------------------ stop
    def stop(self) -> None:
        """Cancel the jobs, stop the daemons this cluster started (by pid), then kill anything
        still carrying this cluster's SLURM_CONF (slurmstepd, job processes). Safe to call twice."""
        if self.procs.get("slurmctld") and self.procs["slurmctld"].poll() is None:
            try:
                self.run("scancel", f"--partition={self.partition}", timeout=15)
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    out = self.run("squeue", "-h", "-t", "RUNNING,COMPLETING,SUSPENDED", "-o", "%i",
                                   timeout=15)
                    if out.returncode != 0 or not out.stdout.strip():
                        break
                    time.sleep(0.2)
            except (OSError, subprocess.SubprocessError):
                pass
        # slurmd first (so no new steps start), then the controller, munged last.
        order = [n for n in self.procs if n.startswith("slurmd")] + \
                [n for n in ("slurmctld", "munged") if n in self.procs]
        for name in order:
            self._terminate(self.procs[name])
        self._kill_leftovers()
        self.procs.clear()
        if self._own_socket_dir is not None:
            shutil.rmtree(self._own_socket_dir, ignore_errors=True)
            self._own_socket_dir = None

    @staticmethod
    def _terminate(proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=15)
            except ProcessLookupError:
                pass

    def processes(self) -> list[int]:
        """Live processes whose environment holds this cluster's SLURM_CONF: its daemons,
        slurmstepd (started by slurmd, with its environment) and job processes (submitted
        with it). Zombies have no environment and are not listed."""
        marker = b"\0SLURM_CONF=" + str(self.conf_path).encode() + b"\0"
        me, found = os.getpid(), []
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or int(entry.name) == me:
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as f:
                    env = b"\0" + f.read() + b"\0"
            except OSError:
                continue
            if marker in env:
                found.append(int(entry.name))
        return found

    def _kill_leftovers(self) -> None:
        for _ in range(5):
            found = self.processes()
            if not found:
                return
            for pid in found:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.2)


def _start_or_fail(root: Path, nodes: tuple[str, ...]) -> SlurmCluster:
    missing = missing_programs()
    if missing:
        pytest.fail(f"Slurm/munge programs not installed ({', '.join(missing)}): run "
                    "scripts/bootstrap.sh, which installs slurm-wlm and munge.", pytrace=False)
    cluster = SlurmCluster(root, nodes)
    try:
        return cluster.start()
    except SlurmClusterError as e:
        pytest.fail(f"the test Slurm cluster did not start: {e}", pytrace=False)


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory):
    """A one-node Slurm cluster (node n1, partition debug), started once per test module."""
    cluster = _start_or_fail(tmp_path_factory.mktemp("slurm1"), ("n1",))
    yield cluster
    cluster.stop()


@pytest.fixture(scope="module")
def slurm_cluster_2nodes(tmp_path_factory):
    """Two slurmd on this host (nodes n1 and n2, partition debug), started once per module."""
    cluster = _start_or_fail(tmp_path_factory.mktemp("slurm2"), ("n1", "n2"))
    yield cluster
    cluster.stop()
