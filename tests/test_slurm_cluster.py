"""A real Slurm cluster on this machine (tests/slurm_cluster.py): plain sbatch jobs, a dependency
chain, submitit jobs, and a two-node cluster with srun and a multi-task submitit job."""

import os
import time

import pytest

import tests.slurm_cluster as sc
from tests.slurm_cluster import SlurmCluster, SlurmClusterError


def _submitit_env(cluster, monkeypatch):
    """In-process submitit calls sbatch/squeue/sacct itself: give it the cluster's environment."""
    for key, value in cluster.env.items():
        monkeypatch.setenv(key, value)


def _executor(folder, **params):
    import submitit
    ex = submitit.SlurmExecutor(folder=folder)
    ex.update_parameters(partition="debug", time=5, cpus_per_task=1, mem="256M", **params)
    return ex


def test_cluster_env_and_paths(slurm_cluster):
    assert slurm_cluster.env["SLURM_CONF"] == str(slurm_cluster.conf_path)
    assert slurm_cluster.conf_path.is_file() and slurm_cluster.partition == "debug"
    assert slurm_cluster.nodes == ["n1"]
    assert os.stat(slurm_cluster.munge_key).st_mode & 0o777 == 0o600
    assert "slurmctld.log" in slurm_cluster.log_tail()
    info = slurm_cluster.run("sinfo", "-h", "-o", "%P %a %D %t")
    assert info.stdout.split() == ["debug*", "up", "1", "idle"]


def test_sbatch_job_writes_its_file(slurm_cluster, tmp_path):
    out = tmp_path / "hello.txt"
    job = slurm_cluster.sbatch("-o", str(tmp_path / "slurm-%j.out"),
                               "--wrap", f"echo hello from $SLURMD_NODENAME > {out}")
    assert slurm_cluster.wait_job(job, timeout=30) == "COMPLETED", slurm_cluster.log_tail()
    assert out.read_text() == "hello from n1\n"
    squeue = slurm_cluster.run("squeue", "-h", "-j", job, "-t", "all", "-o", "%i %T")
    assert squeue.returncode == 0 and squeue.stdout.split() == [job, "COMPLETED"]


def test_dependency_chain_runs_in_order(slurm_cluster, tmp_path):
    log = tmp_path / "order.txt"
    ids = []
    for name in "ABC":
        dep = [f"--dependency=afterok:{ids[-1]}"] if ids else []
        ids.append(slurm_cluster.sbatch(*dep, "-o", "/dev/null", "--wrap",
                                        f"sleep 0.2; echo {name} >> {log}"))
    assert slurm_cluster.wait_job(ids[-1], timeout=40) == "COMPLETED", slurm_cluster.log_tail()
    assert [slurm_cluster.job_state(j) for j in ids] == ["COMPLETED"] * 3
    assert log.read_text().split() == ["A", "B", "C"]


def test_dependency_on_a_failed_job_never_runs(slurm_cluster, tmp_path):
    marker = tmp_path / "ran"
    bad = slurm_cluster.sbatch("-o", "/dev/null", "--wrap", "exit 3")
    after = slurm_cluster.sbatch(f"--dependency=afterok:{bad}", "-o", "/dev/null",
                                 "--wrap", f"touch {marker}")
    assert slurm_cluster.wait_job(bad, timeout=30) == "FAILED"
    deadline = time.monotonic() + 10      # the dependent job is left pending (DependencyNeverSatisfied)
    while "DependencyNeverSatisfied" not in slurm_cluster.run(
            "squeue", "-h", "-j", after, "-o", "%r").stdout:
        assert time.monotonic() < deadline, slurm_cluster.run("squeue", "-j", after).stdout
        time.sleep(0.2)
    assert slurm_cluster.job_state(after) == "PENDING" and not marker.exists()
    slurm_cluster.run("scancel", after, check=True)


def test_submitit_job_returns_its_result(slurm_cluster, tmp_path, monkeypatch):
    _submitit_env(slurm_cluster, monkeypatch)

    def work(n):
        import os
        return sum(i * i for i in range(n)), os.environ["SLURM_JOB_PARTITION"]

    job = _executor(tmp_path / "submitit").submit(work, 100)
    assert job.result() == (328350, "debug")
    assert slurm_cluster.wait_job(job.job_id, timeout=30) == "COMPLETED"


def test_srun_spans_both_nodes(slurm_cluster_2nodes, tmp_path):
    out = tmp_path / "srun.out"
    job = slurm_cluster_2nodes.sbatch("-N2", "--ntasks-per-node=1", "-o", str(out), "--wrap",
                                      "srun bash -c 'echo $SLURMD_NODENAME $SLURM_NODEID'")
    assert slurm_cluster_2nodes.wait_job(job, timeout=30) == "COMPLETED", out.read_text()
    assert sorted(out.read_text().splitlines()) == ["n1 0", "n2 1"]


def test_submitit_multi_node_job_runs_one_task_per_node(slurm_cluster_2nodes, tmp_path, monkeypatch):
    _submitit_env(slurm_cluster_2nodes, monkeypatch)

    def where():
        import os

        import submitit
        env = submitit.JobEnvironment()
        return env.global_rank, os.environ["SLURMD_NODENAME"], os.environ["SLURM_NODEID"]

    job = _executor(tmp_path / "submitit", nodes=2, ntasks_per_node=1).submit(where)
    results = job.results()
    assert sorted(results) == [(0, "n1", "0"), (1, "n2", "1")]


def test_missing_daemons_fail_and_point_to_bootstrap(tmp_path, monkeypatch):
    monkeypatch.setattr(sc, "missing_programs", lambda: ["slurmctld", "munged"])
    with pytest.raises(pytest.fail.Exception, match="scripts/bootstrap.sh"):
        sc._start_or_fail(tmp_path, ("n1",))


def test_failed_start_quotes_the_logs_and_leaves_nothing_running(tmp_path):
    cluster = SlurmCluster(tmp_path, ("n1",), extra_conf=("NoSuchOption=1",))
    with pytest.raises(SlurmClusterError, match="NoSuchOption") as err:
        cluster.start()
    assert "slurmctld" in str(err.value) and "munged" in str(err.value)
    assert cluster.procs == {} and cluster.processes() == []



def test_stop_ends_running_jobs_and_every_daemon(tmp_path):
    cluster = SlurmCluster(tmp_path, ("n1",)).start()
    try:
        daemons = list(cluster.procs.values())
        job = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300")
        deadline = time.monotonic() + 20
        while cluster.job_state(job) != "RUNNING":
            assert time.monotonic() < deadline, cluster.log_tail()
            time.sleep(0.1)
        assert len(cluster.processes()) > len(daemons)      # slurmstepd and the job's shell
    finally:
        cluster.stop()
    assert all(p.poll() is not None for p in daemons)
    assert cluster.processes() == []
