"""python -m hpcab.launch on Slurm: the smoke arm on a one-node cluster and on a simulated
two-node cluster (tests/slurm_cluster.py: real slurmctld, slurmd and munged on this host)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import yaml

from tests.test_launch import ROOT, roles, the_run


def slurm_arm(tmp_path, cluster, judges: int, nodes: int, tasks_per_node: int):
    arm = {
        "experiment": "slurm-smoke", "output": str(tmp_path / "runs"),
        "executor": {"kind": "slurm", "partition": cluster.partition, "nodes": nodes,
                     "tasks_per_node": tasks_per_node, "time_minutes": 10, "cpus_per_task": 1, "mem_gb": 0.5},
        "roles": {"judge": {"count": judges, "args": ["--workers", "1", "--target-seconds", "0.05", "--sessions", "2"]},
                  "agent": {"count": 2}},
        "optimizer": "replay", "options": {"dir": str(ROOT / "examples")},
        "kernels": "gemm,atax", "rendezvous_timeout_s": 120,
    }
    path = tmp_path / "arm.yaml"
    path.write_text(yaml.safe_dump(arm))
    return path


def launch(arm, cluster, tmp_path):
    env = dict(os.environ, **cluster.env, HPCAB_SLOT_DIR=str(tmp_path / "slots"), COLUMNS="220")
    return subprocess.run([sys.executable, "-m", "hpcab.launch", "--arm", str(arm)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def graded(run, judges: int) -> list[tuple[str, str, int]]:
    rows = []
    for r in range(judges):
        conn = sqlite3.connect(run / f"judge-{r}.db")
        rows += [(a, k.rsplit("/", 1)[-1], r) for a, k in
                 conn.execute("SELECT agent, kernel FROM submissions WHERE state = 'graded'")]
        conn.close()
    return sorted(rows)


def test_the_smoke_arm_runs_on_a_one_node_slurm_cluster(slurm_cluster, tmp_path):
    proc = launch(slurm_arm(tmp_path, slurm_cluster, judges=1, nodes=1, tasks_per_node=3), slurm_cluster, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr + slurm_cluster.log_tail()
    run = the_run(tmp_path)
    status = roles(run)
    assert status["_state"] == "succeeded"
    assert all(r["job_id"].isdigit() for k, r in status.items() if k != "_state")     # Slurm job ids
    assert graded(run, 1) == [("worker-0", "gemm", 0), ("worker-1", "atax", 0)]


def test_two_judges_on_a_two_node_cluster_each_worker_pinned_to_its_judge(slurm_cluster_2nodes, tmp_path):
    cluster = slurm_cluster_2nodes
    proc = launch(slurm_arm(tmp_path, cluster, judges=2, nodes=2, tasks_per_node=2), cluster, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr + cluster.log_tail()
    run = the_run(tmp_path)
    # worker w to judge w % 2: each judge's database holds its own worker's grade only.
    assert graded(run, 2) == [("worker-0", "gemm", 0), ("worker-1", "atax", 1)]
    hosts = {json.loads(p.read_text())["job"] for p in (run / "rendezvous").glob("judge-*.json")}
    assert len(hosts) == 2


def test_legs_run_one_after_the_other_through_slurm_dependencies(slurm_cluster, tmp_path):
    arm = yaml.safe_load(slurm_arm(tmp_path, slurm_cluster, judges=1, nodes=1, tasks_per_node=3).read_text())
    arm["legs"] = ["gemm", "atax"]
    arm["roles"]["agent"]["count"] = 1
    path = tmp_path / "legs.yaml"
    path.write_text(yaml.safe_dump(arm))
    proc = launch(path, slurm_cluster, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr + slurm_cluster.log_tail()
    run = the_run(tmp_path)
    doc = json.loads((run / "status.json").read_text())
    assert doc["legs"] == 2 and {r["leg"] for r in doc["roles"]} == {0, 1}
    # All of leg 1 was submitted at once with leg 0 (Slurm held it): it started after leg 0 ended.
    leg0_stop = (run / "leg-0" / "stop").stat().st_mtime
    assert (run / "leg-1" / "rendezvous" / "judge-0.json").stat().st_mtime >= leg0_stop
    # One judge database for the campaign: both legs' grades in it.
    assert graded(run, 1) == [("worker-0", "atax", 0), ("worker-0", "gemm", 0)]
    assert "leg 1: agent-0" in proc.stdout


def test_the_example_slurm_smoke_arm(slurm_cluster, tmp_path):
    """The example Slurm arm as written (executor, partition, resources, roles, optimizer),
    with its search cut to one score on two kernels: the search itself is the README arm's
    (test_launch.test_the_readme_smoke_arm_runs_locally). Whole, it took 158 s on a 2-core
    machine; cut, 64 s."""
    from tests.test_launch import example_arm
    arm = example_arm("slurm-smoke.yaml", tmp_path, kernels="gemm,softmax", options={"max_scores": 1})
    proc = launch(arm, slurm_cluster, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr + slurm_cluster.log_tail()
    run = the_run(tmp_path)
    assert {k for _, k, _ in graded(run, 1)} == {"gemm", "softmax"}
    assert "agent autotune: 2 task(s)" in proc.stdout
