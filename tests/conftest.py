import shutil
from pathlib import Path

import pytest

from hpcab.corpus import load_corpus
from hpcab.timing.policy import Policy
from hpcab.toolchain import load_toolchains
# The Slurm cluster fixtures, for every test file that names one (re-exported: pytest finds them here).
from tests.slurm_cluster import slurm_cluster as slurm_cluster
from tests.slurm_cluster import slurm_cluster_2nodes as slurm_cluster_2nodes

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = Path(__file__).resolve().parent / "candidates"
EXAMPLES = ROOT / "examples"
# Measuring sessions per scored case in the tests' grades and judges: two, so that every
# grade goes through the sessions' merge; the default's five are for precision, which the
# tests do not measure (benchmarks/timing_quality.py does).
TEST_SESSIONS = 2


def sample_kernels(kernels, count: int, salt: str, always=()) -> list:
    """A fixed, seeded subset of the corpus for tests that grade kernels through the judge
    (CORPUS.md: a full sweep lives in a benchmark). HPCAB_SAMPLE_SEED draws another subset;
    `always` names kernels every run includes. One per track first, so none goes untested."""
    import os
    import random
    rng = random.Random(f"{salt}/{os.environ.get('HPCAB_SAMPLE_SEED', '0')}")
    chosen = [k for k in kernels if k.name in always]
    for track in sorted({k.track for k in kernels}):
        rest = [k for k in kernels if k.track == track and k not in chosen]
        if rest:
            chosen.append(rng.choice(rest))
    rest = [k for k in kernels if k not in chosen]
    chosen += rng.sample(rest, max(0, min(count - len(chosen), len(rest))))
    return sorted(chosen, key=lambda k: k.id)


@pytest.fixture(scope="session", autouse=True)
def private_build_cache(tmp_path_factory):
    """Every test session compiles into its own cache, so cache behaviour is observed fresh."""
    mp = pytest.MonkeyPatch()
    mp.setenv("HPCAB_CACHE", str(tmp_path_factory.mktemp("hpcab-cache")))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def corpus():
    return load_corpus()


@pytest.fixture(scope="session")
def toolchains():
    return load_toolchains()


@pytest.fixture
def fast_policy():
    """Few repetitions: the tests check behaviour, not timing quality."""
    return Policy(min_repetitions=3, target_seconds=0.05, max_seconds=5, timeout_seconds=30, sessions=TEST_SESSIONS)


@pytest.fixture
def kernel_copy(tmp_path, corpus):
    """Copy one kernel into a private corpus, to break its files on purpose."""
    def make(name: str) -> Path:
        k = corpus.get(name)
        dest = tmp_path / "corpus" / Path(k.id)
        shutil.copytree(k.directory, dest, ignore=shutil.ignore_patterns("__pycache__"))
        return dest
    return make


class RunningJudge:
    """A real `hpcab serve` child process on loopback (port chosen by the OS)."""

    def __init__(self, proc, url: str, db: Path, log: Path, args: list[str]):
        self.proc, self.url, self.db, self.log, self.args = proc, url, db, log, args

    def client(self, token=None, rank=0, **kw):
        from hpcab.client import JudgeClient
        return JudgeClient(self.url, token, rank, **kw)

    def stop(self, sig=None):
        import signal
        if self.proc.poll() is None:
            self.proc.send_signal(sig or signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except Exception:
                self.proc.kill()
                self.proc.wait()


def serve(folder: Path, *args: str, db: Path | None = None, name: str = "judge", slot_dir: Path | None = None,
          timeout: float = 90, nofile: int | None = None) -> RunningJudge:
    """`hpcab serve` on loopback with its database, URL file, log and output in folder (its
    own measurement-slot lock folder: slot_dir, else folder/slots); returns once it listens.
    nofile: the judge's open-files limit (prlimit), as `ulimit -n` would set it."""
    import os
    import subprocess
    import sys
    import time
    db = db or folder / f"{name}.db"
    url_file, log, out_path = folder / f"{name}.url", folder / f"{name}.log", folder / f"{name}.out"
    url_file.unlink(missing_ok=True)
    argv = [sys.executable, "-m", "hpcab", "serve", "--db", str(db), "--port", "0",
            "--url-file", str(url_file), "--log", str(log), *args]
    if "--sessions" not in args:
        argv += ["--sessions", str(TEST_SESSIONS)]
    if nofile is not None:
        argv = ["prlimit", f"--nofile={nofile}:{nofile}", "--", *argv]
    env = dict(os.environ, HPCAB_SLOT_DIR=str(slot_dir or folder / "slots"))
    env.pop("HPCAB_TOKEN", None)          # an agent's token in the test's environment is not the judge's
    with open(out_path, "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    deadline = time.monotonic() + timeout
    while not url_file.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise RuntimeError(f"the judge did not start: {out_path.read_text()}")
        time.sleep(0.1)
    return RunningJudge(proc, url_file.read_text().strip(), db, log, argv)


@pytest.fixture
def start_judge(tmp_path):
    """start_judge(*args, db=None) → RunningJudge. Each judge gets its own measurement-slot
    lock folder and secret; the judges are stopped after the test."""
    started: list[RunningJudge] = []

    def start(*args: str, db: Path | None = None, timeout: float = 60, nofile: int | None = None) -> RunningJudge:
        judge = serve(tmp_path, *args, db=db or tmp_path / "judge.db", name=f"judge{len(started)}",
                      timeout=timeout, nofile=nofile)
        started.append(judge)
        return judge

    yield start
    for j in started:
        j.stop()


def descendants(pid: int) -> set[int]:
    """Every live process below pid, from /proc."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier} - found
        found |= frontier
    return found


def wait_for(predicate, what: str = "a condition", timeout: float = 120):
    """predicate()'s first true value, polled every 50 ms; AssertionError naming what was
    awaited after timeout seconds. Deadlines are generous: the machine may be loaded."""
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def rows(db: Path, sql: str, *params) -> list[tuple]:
    """A query on a judge database, in a connection of its own."""
    import sqlite3
    conn = sqlite3.connect(db, timeout=30)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


class Listener:
    """A TCP server on 127.0.0.1 that records who connects (what a network exploit would
    reach): the first bytes each connection sent."""

    def __init__(self):
        import socket
        import threading
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def accepted(self) -> int:
        return len(self.connections)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:          # includes the accept timeout
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.connections.append(conn.recv(256))
                except OSError:
                    self.connections.append(b"")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


def edit_manifest(path: Path, change) -> None:
    """Load a copied kernel's YAML manifest, let change(doc) edit it, write it back."""
    import yaml
    doc = yaml.safe_load(path.read_text())
    change(doc)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def load_error(kdir: Path):
    """The InputError that loading a (broken) copied kernel and its reference raises."""
    from hpcab.errors import InputError
    from hpcab.kernel import load_kernel
    with pytest.raises(InputError) as err:
        load_kernel(kdir, kdir.parents[2]).reference()
    return err.value
