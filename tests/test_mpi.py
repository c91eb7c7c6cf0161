"""The distributed track (docs/mpi.md): real Open MPI ranks under mpirun (and srun, on the
tests' Slurm cluster), each kernel's hand-written example graded on 2 and 4 ranks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import attrs
import numpy as np
import pytest

from hpcab.build import Candidate, candidate_from_file
from hpcab.case import preset_case
from hpcab.errors import InputError
from hpcab.grade import grade
from hpcab.judge.cases import hidden_cases
from hpcab.mpi.abi import show_mpi_abi
from hpcab.mpi.distribution import DISTRIBUTIONS, Layout, declared
from hpcab.record import connect, load_grade, save_grade
from tests.conftest import EXAMPLES, ROOT, edit_manifest, load_error

JACOBI = EXAMPLES / "jacobi_2d_mpi.c"


def _mpi_kernels(corpus) -> list:
    return [k for k in corpus.kernels if k.mpi is not None]


def _policy(fast_policy):
    return attrs.evolve(fast_policy, sessions=1, timeout_seconds=60)


# ---- who owns what ---------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["block", "cyclic", "block-cyclic:3", "replicated"])
@pytest.mark.parametrize("n", [0, 1, 3, 10, 17])
@pytest.mark.parametrize("ranks", [1, 2, 4, 7])
def test_every_index_is_owned_once_and_first_is_the_first_owned(kind, n, ranks):
    name, _, block = kind.partition(":")
    layout = Layout(name, int(block or 1))
    owned = [layout.owned(n, ranks, r) for r in range(ranks)]
    for r, idx in enumerate(owned):
        assert list(idx) == sorted(idx)
        if len(idx):
            assert idx[0] == layout.first(n, ranks, r)
    if name == "replicated":
        assert all(list(idx) == list(range(n)) for idx in owned)
    else:
        assert sorted(np.concatenate(owned).tolist()) == list(range(n))
    if name == "block":                  # contiguous, the first n % R ranks one more
        assert [len(i) for i in owned] == [n // ranks + (r < n % ranks) for r in range(ranks)]


def test_the_declared_distribution_is_read_from_the_source_and_checked(corpus):
    spec = corpus.get("jacobi_2d").mpi
    assert {a: str(v) for a, v in declared(spec, "/* nothing declared */").items()} == {"A": "block", "B": "block"}
    got = declared(spec, "// hpcab-distribution: A=cyclic, B=block\nint x;")
    assert (str(got["A"]), str(got["B"])) == ("cyclic", "block")
    for text, words in [("// hpcab-distribution: C=block", "'C' is not split"),
                        ("// hpcab-distribution: A=block-cyclic:4", "the manifest allows block, cyclic for A"),
                        ("// hpcab-distribution: A=diagonal", "expected one of"),
                        ("// hpcab-distribution: A", "expected ARRAY=DISTRIBUTION"),
                        ("// hpcab-distribution: A=block\n// hpcab-distribution: B=block", "more than once")]:
        with pytest.raises(InputError) as err:
            declared(spec, text, "x.c")
        assert words in str(err.value) and err.value.source == "x.c"
    assert set(DISTRIBUTIONS) == {"block", "cyclic", "block-cyclic", "replicated"}


def test_a_bad_mpi_block_names_the_field(kernel_copy):
    kdir = kernel_copy("jacobi_2d")
    manifest = kdir / "jacobi_2d.yaml"
    edit_manifest(manifest, lambda d: d["mpi"]["split"].update(C={"axis": 0}))
    err = load_error(kdir)
    assert err.field == "mpi.split.C" and "names no array" in str(err)
    edit_manifest(manifest, lambda d: (d["mpi"]["split"].pop("C"), d["mpi"]["split"].update(A={"axis": 2})))
    err = load_error(kdir)
    assert err.field == "mpi.split.A.axis" and "has 2 axis" in str(err)
    edit_manifest(manifest, lambda d: d["mpi"].update(scaling="sideways"))
    err = load_error(kdir)
    assert "mpi" in err.field and "scaling" in err.field


# ---- the prototype -----------------------------------------------------------------------

def test_the_printed_prototype_is_what_the_example_defines(corpus, tmp_path):
    """The header `hpcab show jacobi_2d --mpi` prints, then the example: one compile with
    mpicc, so a mismatch of any argument's type is an error."""
    out = subprocess.run([sys.executable, "-m", "hpcab", "show", "jacobi_2d", "--mpi"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "MPI_Fint comm" in out.stdout and "int64_t A_first" in out.stdout and "hpcab-distribution:" in out.stdout
    src = tmp_path / "both.c"
    src.write_text(out.stdout + JACOBI.read_text())
    cc = subprocess.run(["mpicc", "-std=gnu17", "-Werror", "-c", str(src), "-o", str(tmp_path / "both.o")],
                        capture_output=True, text=True, timeout=120)
    assert cc.returncode == 0, cc.stderr
    fortran = show_mpi_abi(corpus.get("jacobi_2d"), "fortran")
    assert "integer(c_int), value, intent(in) :: comm" in fortran and "A(N, A_count)" in fortran
    with pytest.raises(InputError):
        show_mpi_abi(corpus.get("softmax"), "c")


# ---- grading -------------------------------------------------------------------------------

def _cli_grade(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hpcab", "grade", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, COLUMNS="200"))


@pytest.mark.parametrize("ranks", [2, 4])
def test_jacobi_2d_grades_correct_and_prints_every_ranks_time(ranks):
    out = _cli_grade("jacobi_2d", "--source", str(JACOBI), "--ranks", str(ranks), "--sessions", "2",
                     "--target-seconds", "0.2")
    assert out.returncode == 0, out.stdout + out.stderr
    text = " ".join(out.stdout.split())
    assert "CORRECT" in text and "over the c-autopar baseline" in text
    assert f"{ranks} MPI ranks under mpirun; distribution A=block B=block" in text
    assert all(f"rank {r} " in text for r in range(ranks)) and f"rank {ranks} " not in text


def test_a_wrong_halo_exchange_is_graded_incorrect(corpus, toolchains, fast_policy):
    source = JACOBI.read_text().replace("        halo(B, up, down, A_count, N, c);\n", "")
    assert source != JACOBI.read_text()
    k = corpus.get("jacobi_2d")
    g = grade(k, Candidate(source, "c", label="no_second_halo.c"), [preset_case(k, "S")], toolchains,
              policy=_policy(fast_policy), ranks=2)
    assert g.status == "incorrect" and "max abs error" in g.message
    # One rank alone needs no halo: the same code is right there.
    g1 = grade(k, Candidate(source, "c", label="no_second_halo.c"), [preset_case(k, "S")], toolchains,
               policy=_policy(fast_policy), ranks=1, roofline=False)
    assert g1.status == "ok", g1.message


def _leftovers() -> list[str]:
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    procs = [ln for ln in ps.splitlines() if "hpcab.mpi.rank" in ln or " mpirun " in f" {ln} "]
    shm = [str(p) for p in Path("/dev/shm").glob("hpcab-mpi-*")] if Path("/dev/shm").is_dir() else []
    return procs + shm


def test_a_rank_that_hangs_is_a_timeout_that_leaves_nothing_behind(corpus, toolchains, fast_policy):
    before = _leftovers()
    source = JACOBI.read_text().replace(
        "    MPI_Comm c = MPI_Comm_f2c(comm);\n",
        "    MPI_Comm c = MPI_Comm_f2c(comm);\n    { int r; MPI_Comm_rank(c, &r); if (r == 1) for (;;) { } }\n")
    k = corpus.get("jacobi_2d")
    g = grade(k, Candidate(source, "c", label="hang.c"), [preset_case(k, "S")], toolchains,
              policy=attrs.evolve(_policy(fast_policy), timeout_seconds=5), ranks=2)
    assert g.status == "timeout" and "5 s wall-clock limit" in g.message
    assert _leftovers() == before


def test_a_rank_that_crashes_is_graded_crashed(corpus, toolchains, fast_policy):
    source = JACOBI.read_text().replace(
        "    MPI_Comm c = MPI_Comm_f2c(comm);\n",
        "    MPI_Comm c = MPI_Comm_f2c(comm);\n    { int r; MPI_Comm_rank(c, &r); if (r == 1) *(volatile int *)0 = 1; }\n")
    k = corpus.get("jacobi_2d")
    g = grade(k, Candidate(source, "c", label="crash.c"), [preset_case(k, "S")], toolchains,
              policy=_policy(fast_policy), ranks=2)
    assert g.status == "crashed" and "a rank ended: killed by SIGSEGV" in g.message


def test_a_grade_records_its_ranks_distribution_and_per_rank_times(corpus, toolchains, fast_policy, tmp_path):
    k = corpus.get("jacobi_2d")
    source = JACOBI.read_text().replace("hpcab-distribution: A=block B=block",
                                        "hpcab-distribution: A=block B=block")
    g = grade(k, Candidate(source, "c", label="jacobi_2d_mpi.c"), [preset_case(k, "S")], toolchains,
              policy=_policy(fast_policy), ranks=3)
    assert g.correct, g.message
    assert g.mpi == {"ranks": 3, "launcher": "mpirun", "distribution": {"A": "block", "B": "block"}}
    c = g.cases[0]
    assert c.rank_samples_ns.shape == (c.timing.n, 3)
    # The call's time is the slowest rank's: no rank's median above the call's.
    assert np.median(c.rank_samples_ns, axis=0).max() <= c.samples_ns["candidate"].max()
    assert (c.rank_samples_ns.max(axis=1) == c.samples_ns["candidate"]).all()
    db = connect(tmp_path / "judge.db")
    save_grade(db, g)
    stored = load_grade(db, g.id)
    assert stored["mpi"] == g.mpi and stored["cases"][0]["ranks"] == 3
    assert (stored["cases"][0]["rank_ns"] == c.rank_samples_ns).all()


def test_a_distributed_grade_needs_a_kernel_in_the_track(corpus, toolchains):
    k = corpus.get("gemver")
    with pytest.raises(InputError) as err:
        grade(k, Candidate("void gemver(void) {}", "c"), [preset_case(k, "S")], toolchains, ranks=2)
    assert err.value.source == "--ranks" and "no mpi: block" in str(err.value)
    out = _cli_grade("jacobi_2d", "--source", str(JACOBI), "--ranks", "0", timeout=120)
    assert out.returncode == 2 and "expected 1 to 64" in " ".join(out.stderr.split())


# ---- the corpus's examples ----------------------------------------------------------------

def test_at_least_eight_kernels_are_in_the_track_each_with_an_example(corpus):
    kernels = _mpi_kernels(corpus)
    assert len(kernels) >= 8, [k.name for k in kernels]
    for k in kernels:
        assert (EXAMPLES / f"{k.name}_mpi.c").is_file(), k.name


def _example_params():
    from hpcab.corpus import load_corpus
    return [pytest.param(k.name, r, id=f"{k.name}-{r}") for k in _mpi_kernels(load_corpus()) for r in (2, 4)]


@pytest.mark.parametrize("name,ranks", _example_params())
def test_each_example_is_correct_on_2_and_4_ranks(name, ranks, corpus, toolchains, fast_policy):
    """Preset S and the judge's hidden cases of S (a fuzzed size and an edge shape, where
    some ranks may own nothing)."""
    k = corpus.get(name)
    cases = [preset_case(k, "S")] + hidden_cases(k, ("S",), b"mpi-examples")
    g = grade(k, candidate_from_file(EXAMPLES / f"{name}_mpi.c"), cases, toolchains,
              policy=attrs.evolve(_policy(fast_policy), min_repetitions=2, target_seconds=0.02), ranks=ranks,
              roofline=False)
    assert g.correct, f"{g.status}: {g.message}"
    assert g.mpi["ranks"] == ranks


# ---- under Slurm ---------------------------------------------------------------------------

def test_the_mpi_grade_runs_under_srun_in_a_slurm_allocation(slurm_cluster_2nodes, tmp_path):
    """`--launcher srun` inside a 2-task allocation of the tests' cluster: srun starts the two
    ranks (Slurm's PMIx), the grade is the same pipeline's."""
    out = tmp_path / "grade.json"
    job = slurm_cluster_2nodes.sbatch(
        "-N1", "--ntasks=2", "-o", str(out), "--wrap",
        f"{sys.executable} -m hpcab grade jacobi_2d --source {JACOBI} --ranks 2 --launcher srun --sessions 1 "
        f"--target-seconds 0.1 --json", cwd=str(ROOT))
    state = slurm_cluster_2nodes.wait_job(job, timeout=300)
    text = out.read_text()
    assert state in ("COMPLETED",), text[-3000:]
    doc = json.loads(text[text.index("{"):])
    assert doc["correct"] and doc["mpi"]["launcher"] == "srun" and doc["mpi"]["ranks"] == 2
    assert len(doc["cases"][0]["rank_median_ns"]) == 2


# ---- exploits (tests/exploits/mpi/README.md) ----------------------------------------------

MPI_EXPLOITS = Path(__file__).resolve().parent / "exploits" / "mpi"


@pytest.mark.parametrize("name,kernel,answers", [
    # Frozen mid-work: wrong tiles; or, on a loaded machine whose freeze lands late, the work
    # done after the last "done" is CPU time beyond the calls' wall time × ranks; or the
    # driver, itself slowed, read the answers late: ok, timed as the honest example is.
    ("early_done", "jacobi_2d", {"incorrect": "max abs error", "implausible": "CPU time beyond", "ok": ""}),
    ("mutate_replicated", "gemm", {"incorrect": "modified read-only input(s) B"}),
])
def test_mpi_exploit(name, kernel, answers, corpus, toolchains, fast_policy):
    k = corpus.get(kernel)
    policy = _policy(fast_policy)
    g = grade(k, candidate_from_file(MPI_EXPLOITS / f"{name}.c"), [preset_case(k, "S")], toolchains,
              policy=policy, ranks=2, roofline=False)
    assert g.policy.sandbox == "bubblewrap"
    assert g.status in answers and answers[g.status] in g.message, (g.status, g.message)
    if g.status == "ok":       # no speedup beyond its honest twin's (the attack stops the clock at once)
        honest = grade(k, candidate_from_file(EXAMPLES / f"{kernel}_mpi.c"), [preset_case(k, "S")], toolchains,
                       policy=policy, ranks=2, roofline=False)
        assert honest.correct and g.speedup_numpy.value < 3 * honest.speedup_numpy.value, \
            (g.speedup_numpy.value, honest.speedup_numpy.value)


def test_every_mpi_exploit_is_in_its_readme():
    text = (MPI_EXPLOITS / "README.md").read_text()
    files = sorted(p.name for p in MPI_EXPLOITS.glob("*.c"))
    assert files and all(f"`{f}`" in text for f in files)


def test_list_mpi_shows_the_track(corpus):
    out = subprocess.run([sys.executable, "-m", "hpcab", "list", "--mpi"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, env=dict(os.environ, COLUMNS="200"))
    assert out.returncode == 0
    names = {k.name for k in _mpi_kernels(corpus)}
    assert f"{len(names)} kernel(s) in the distributed track" in out.stdout
    assert all(f" {n} " in out.stdout for n in names) and " softmax " not in out.stdout


# ---- the judge -----------------------------------------------------------------------------

def test_a_judge_grades_a_submission_built_with_mpicc_on_its_ranks(start_judge, tmp_path):
    """hpcab serve --mpi-ranks 2: GET /task shows the distributed prototype; a submission
    built with mpicc is graded on 2 ranks (public and hidden cases), and one a judge cannot
    grade so is a 400 naming the field."""
    from hpcab.client import JudgeError
    judge = start_judge("--kernels", "jacobi_2d,gemm,softmax", "--mpi-ranks", "2", "--slot", "0,1",
                        "--target-seconds", "0.1", "--sessions", "1")
    client = judge.client()
    task = client.task("jacobi_2d")
    assert task["mpi"]["ranks"] == 2 and task["mpi"]["compiler"] == "mpicc"
    assert "MPI_Fint comm" in task["mpi"]["prototype"] and task["mpi"]["split"]["A"]["axis"] == 0
    assert client.task("softmax")["mpi"] is None
    source = JACOBI.read_text()
    doc = client.submit("jacobi_2d", source, "c", compiler="mpicc", label="jacobi_2d_mpi.c")
    assert doc["correct"], doc["message"]
    assert doc["mpi"] == {"ranks": 2, "launcher": "mpirun", "distribution": {"A": "block", "B": "block"}}
    public = [c for c in doc["cases"] if c["visibility"] == "public"]
    hidden = [c for c in doc["cases"] if c["visibility"] == "hidden"]
    assert len(public[0]["rank_median_ns"]) == 2 and hidden and all(c["rank_median_ns"] is None for c in hidden)
    with pytest.raises(JudgeError) as err:
        client.score("softmax", "void softmax(void) {}", "c", compiler="mpicc")
    assert err.value.status == 400 and "not in the distributed track" in err.value.message
    plain = start_judge("--kernels", "jacobi_2d", "--sessions", "1", db=tmp_path / "plain.db")
    with pytest.raises(JudgeError) as err:
        plain.client().score("jacobi_2d", source, "c", compiler="mpicc")
    assert err.value.status == 400 and "--mpi-ranks" in err.value.message


def test_an_arm_asks_for_distributed_grading_and_its_judge_uses_srun_on_slurm(slurm_cluster_2nodes, tmp_path):
    """An arm whose judge role has mpi: {ranks: 2, launcher: srun}, on the tests' Slurm
    cluster: the judge's job gets 2 CPUs, its grades start 2 ranks with srun inside it, and
    the replay agent's submission (built with mpicc) is graded on them."""
    import yaml
    from tests.test_launch import roles, the_run
    from tests.test_launch_slurm import launch
    cluster = slurm_cluster_2nodes
    folder = tmp_path / "sources"
    folder.mkdir()
    (folder / "jacobi_2d_mpi.c").write_text(JACOBI.read_text())
    (folder / "index.json").write_text(json.dumps({"submissions": [
        {"kernel": "jacobi_2d", "file": "jacobi_2d_mpi.c", "compiler": "mpicc"}]}))
    arm = {"experiment": "mpi-slurm", "output": str(tmp_path / "runs"),
           "executor": {"kind": "slurm", "partition": cluster.partition, "nodes": 1, "tasks_per_node": 2,
                        "time_minutes": 10, "cpus_per_task": 1, "mem_gb": 0.5},
           "roles": {"judge": {"count": 1, "mpi": {"ranks": 2, "launcher": "srun"},
                               "args": ["--workers", "1", "--target-seconds", "0.05", "--sessions", "1"]},
                     "agent": {"count": 1}},
           "optimizer": "replay", "options": {"dir": str(folder)}, "kernels": "jacobi_2d",
           "rendezvous_timeout_s": 120}
    path = tmp_path / "arm.yaml"
    path.write_text(yaml.safe_dump(arm))
    proc = launch(path, cluster, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr + cluster.log_tail()
    run = the_run(tmp_path)
    assert roles(run)["_state"] == "succeeded"
    db = connect(run / "judge-0.db")
    (gid,) = db.execute("SELECT grade_id FROM submissions WHERE state = 'graded'").fetchone()
    g = load_grade(db, gid)
    assert g["correct"] and g["mpi"]["launcher"] == "srun" and g["mpi"]["ranks"] == 2, g["message"]
    assert g["cases"][0]["rank_ns"].shape[1] == 2


def test_an_arm_refuses_an_mpi_block_it_cannot_honour(tmp_path):
    import yaml
    from hpcab.launch.arm import load_arm
    base = {"experiment": "x", "executor": {"kind": "local"}, "optimizer": "replay", "kernels": "jacobi_2d",
            "roles": {"judge": {"count": 1, "mpi": {"ranks": 2}}, "agent": {"count": 1}}}
    for change, field, words in [
            (lambda a: a["roles"]["judge"]["mpi"].update(nodes=2), "roles.judge.mpi.nodes", "node-local"),
            (lambda a: a["roles"]["judge"]["mpi"].update(launcher="srun"), "roles.judge.mpi.launcher", "Slurm"),
            (lambda a: a["roles"]["agent"].update(mpi={"ranks": 2}), "roles.agent.mpi", "only the judge")]:
        arm = json.loads(json.dumps(base))
        change(arm)
        path = tmp_path / "arm.yaml"
        path.write_text(yaml.safe_dump(arm))
        with pytest.raises(InputError) as err:
            load_arm(path)
        assert err.value.field == field and words in str(err.value)


def test_a_fortran_candidate_built_with_mpifort_grades_on_cyclic_rows(corpus, toolchains, fast_policy):
    from tests.conftest import CANDIDATES
    k = corpus.get("gemm")
    g = grade(k, candidate_from_file(CANDIDATES / "gemm_mpi.f90"), [preset_case(k, "S")], toolchains,
              policy=_policy(fast_policy), ranks=3, roofline=False)
    assert g.correct, g.message
    assert g.build.compiler == "mpifort" and g.mpi["distribution"] == {"A": "cyclic", "C": "cyclic"}


def test_ranks_folders_of_dead_drivers_are_removed_and_live_ones_kept(tmp_path):
    from hpcab.mpi.ranks import RANK_FOLDER, reap_rank_folders
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    gone = tmp_path / f"{RANK_FOLDER}{dead.pid}-abc"
    kept = tmp_path / f"{RANK_FOLDER}{os.getpid()}-def"
    other = tmp_path / "not-ours-1"
    for d in (gone, kept, other):
        d.mkdir()
        (d / "0.buf").write_bytes(b"x" * 4096)
    assert reap_rank_folders(tmp_path) == 1
    assert not gone.exists() and kept.exists() and other.exists()
