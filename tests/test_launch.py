"""python -m hpcab.launch on the local executor: a smoke arm end to end, and the failures
that must fail the launch loudly (a judge that dies at start, an inference server that
never answers, an agent that raises), and arm files with bad fields."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hpcab.errors import InputError
from hpcab.launch.arm import load_arm

ROOT = Path(__file__).resolve().parent.parent


def write_arm(tmp_path: Path, name: str = "arm.yaml", **changes) -> Path:
    arm = {
        "experiment": "t", "output": str(tmp_path / "runs"),
        "executor": {"kind": "local", "time_minutes": 10},
        "roles": {"judge": {"count": 1, "args": ["--workers", "1", "--target-seconds", "0.05", "--sessions", "2"]},
                  "agent": {"count": 2}},
        "optimizer": "replay", "options": {"dir": str(ROOT / "examples")},
        "kernels": "gemm,atax", "rendezvous_timeout_s": 60,
    }
    arm.update(changes)         # top-level keys replaced whole
    p = tmp_path / name
    p.write_text(yaml.safe_dump(arm))
    return p


def launch(arm: Path, tmp_path: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, HPCAB_SLOT_DIR=str(tmp_path / "slots"), COLUMNS="220")
    return subprocess.run([sys.executable, "-m", "hpcab.launch", "--arm", str(arm)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def the_run(tmp_path: Path) -> Path:
    [run] = list((tmp_path / "runs").iterdir())
    return run


def roles(run: Path) -> dict[str, dict]:
    doc = json.loads((run / "status.json").read_text())
    return {f"{r['role']}-{r['index']}": r for r in doc["roles"]} | {"_state": doc["state"]}


def test_a_smoke_arm_runs_end_to_end_on_local_processes(tmp_path):
    proc = launch(write_arm(tmp_path), tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = the_run(tmp_path)
    status = roles(run)
    assert status["_state"] == "succeeded"
    assert {k: v["state"] for k, v in status.items() if k != "_state"} == {
        "judge-0": "COMPLETED", "agent-0": "COMPLETED", "agent-1": "COMPLETED"}
    # Each worker took its share of the kernels, through its own token, on judge 0.
    conn = sqlite3.connect(run / "judge-0.db")
    rows = conn.execute("SELECT agent, kernel, state FROM submissions ORDER BY agent").fetchall()
    assert [(a, k.rsplit("/", 1)[-1], s) for a, k, s in rows] == [("worker-0", "gemm", "graded"),
                                                                  ("worker-1", "atax", "graded")]
    assert "gemm" in proc.stdout and "atax" in proc.stdout and "succeeded" in proc.stdout
    # Piped, the launch is not silent: a progress line at each change of a role's state
    # (hpcab.launch.live), the last of them with every task done and a grade read from the judge.
    progress = [line for line in proc.stdout.splitlines() if line.startswith("[") and " s] judge-0 " in line]
    assert progress and "agent-0 RUNNING 0/1 tasks" in progress[0]
    assert any("agent-0" in line and "1/1 tasks, last gemm ok" in line for line in progress), progress
    assert any("judge-0 COMPLETED" in line or "1/1 tasks, last atax ok" in line for line in progress), progress
    assert oct((run / "secrets" / "worker-0.token").stat().st_mode & 0o777) == "0o600"
    shown = subprocess.run([sys.executable, "-m", "hpcab", "status", str(run)], capture_output=True, text=True,
                           env=dict(os.environ, COLUMNS="220"))
    assert shown.returncode == 0 and "judge-0" in shown.stdout and "COMPLETED" in shown.stdout


CRASHING_JUDGE = [sys.executable, "-c", "import sys; print('opening the database'); print(); "
                  "print('judge: cannot open RUN/judge-0.db: disk full'); sys.exit(2)", "{port}"]


def test_a_judge_that_crashes_at_start_fails_the_launch_naming_it_with_its_last_log_lines(tmp_path):
    arm = write_arm(tmp_path, roles={"judge": {"count": 1, "command": CRASHING_JUDGE}, "agent": {"count": 1}})
    proc = launch(arm, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    status = roles(the_run(tmp_path))
    assert status["_state"] == "failed"
    assert status["judge-0"]["state"] == "FAILED" and "judge-0" in status["judge-0"]["error"]
    assert "exited with status 2" in status["judge-0"]["error"]
    # The role's own last words, not only its exit status: the non-empty lines of its log.
    assert status["judge-0"]["tail"] == ["opening the database", "judge: cannot open RUN/judge-0.db: disk full"]
    assert status["agent-0"]["state"] in ("FAILED", "CANCELLED")
    assert "judge-0" in proc.stdout and "FAILED" in proc.stdout and "disk full" in proc.stdout
    shown = subprocess.run([sys.executable, "-m", "hpcab", "status", str(the_run(tmp_path))], capture_output=True,
                           text=True, env=dict(os.environ, COLUMNS="220"))
    assert shown.returncode == 1 and "disk full" in shown.stdout


def test_an_inference_server_that_never_answers_fails_the_launch(tmp_path):
    arm = write_arm(tmp_path, rendezvous_timeout_s=4,
                    roles={"judge": {"count": 1, "args": ["--workers", "1"]}, "agent": {"count": 1},
                           "inference": {"count": 1, "command": [sys.executable, "-c", "import time; time.sleep(600)",
                                                                 "{port}"]}})
    proc = launch(arm, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    status = roles(the_run(tmp_path))
    assert status["inference-0"]["state"] == "FAILED"
    assert "never answered" in status["inference-0"]["error"] and "/v1/models" in status["inference-0"]["error"]


def test_an_agent_that_raises_fails_the_launch(tmp_path):
    arm = write_arm(tmp_path, optimizer="tests.test_agents:Raising", kernels="gemm",
                    roles={"judge": {"count": 1, "args": ["--workers", "1"]}, "agent": {"count": 1}})
    proc = launch(arm, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    status = roles(the_run(tmp_path))
    assert status["agent-0"]["state"] == "FAILED" and "exited with status 1" in status["agent-0"]["error"]
    assert status["judge-0"]["state"] in ("COMPLETED", "CANCELLED", "FAILED")
    log = (the_run(tmp_path) / "logs" / "agent-0.out").read_text()
    assert "RuntimeError: boom in the agent" in log


@pytest.mark.parametrize("changes, field, message", [
    ({"executor": {"kind": "kubernetes"}}, "executor.kind", "'kubernetes' is not allowed"),
    ({"roles": {"judge": {"count": 1}, "agent": {"count": 3}},
      "executor": {"kind": "slurm", "partition": "debug", "nodes": 1, "tasks_per_node": 2}},
     "executor.tasks_per_node", "need 4 tasks"),
    ({"roles": {"judge": {"count": 0}, "agent": {"count": 1}}}, "roles.judge.count", "at least one judge"),
    ({"roles": {"judge": {"count": 1}, "agent": {"count": 1}, "inference": {"count": 1}}},
     "roles.inference.command", "needs its server's command"),
    ({"optimizer": "llm"}, "model", "needs a model"),
    ({"budgets": {"submissions": 0}}, "budgets.submissions", ""),
    ({"colour": "blue"}, "colour", "unknown key 'colour'"),
    ({"skills": "all"}, "skills", "the replay optimizer is given no skills"),
    ({"optimizer": "llm", "model": {"name": "m", "url": "http://127.0.0.1:9/v1"}, "options": {"hints": 1},
      "hints": 2}, "hints", "given twice"),
    ({"tools": ["score", "debug"]}, "tools[1]", ""),
    ({"hints": 4}, "hints", ""),
])
def test_an_arm_with_a_bad_field_is_refused_naming_the_field(tmp_path, changes, field, message):
    arm = write_arm(tmp_path, **changes)
    with pytest.raises(InputError) as err:
        load_arm(arm)
    assert err.value.field == field and message in err.value.message and str(arm) in str(err.value)
    proc = subprocess.run([sys.executable, "-m", "hpcab.launch", "--arm", str(arm)], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 2 and field in proc.stderr
    assert not (tmp_path / "runs").exists()          # nothing was submitted


def test_the_example_arms_are_valid():
    for path in sorted((ROOT / "launch" / "arms").glob("*.yaml")):
        load_arm(path)


def example_arm(name: str, tmp_path: Path, **changes) -> Path:
    """An arm of launch/arms/, its run folder under tmp_path."""
    arm = yaml.safe_load((ROOT / "launch" / "arms" / name).read_text())
    arm.update(output=str(tmp_path / "runs"), **changes)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(arm))
    return path


@pytest.mark.slow
def test_the_readme_smoke_arm_runs_locally(tmp_path):
    proc = launch(example_arm("local-smoke.yaml", tmp_path), tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = the_run(tmp_path)
    assert roles(run)["_state"] == "succeeded"
    conn = sqlite3.connect(run / "judge-0.db")
    kernels = {k.rsplit("/", 1)[-1] for (k,) in conn.execute("SELECT kernel FROM submissions WHERE state = 'graded'")}
    assert kernels == {"gemm", "s271_conditional", "softmax"}
    assert "agent autotune: 3 task(s)" in proc.stdout


def test_an_imaged_role_runs_under_apptainer_after_its_digest_matched_the_lock(tmp_path):
    import hashlib

    from hpcab.launch.plan import instances, verified_images
    from tests.test_images import entry, write_lock
    sif = tmp_path / "judge.sif"
    sif.write_bytes(os.urandom(4096))
    lock = write_lock(tmp_path, [entry("judge-cpu", "judge.sif", hashlib.sha256(sif.read_bytes()).hexdigest())])
    arm_path = write_arm(tmp_path, images_lock=str(lock),
                         roles={"judge": {"count": 1, "image": "judge-cpu"}, "agent": {"count": 1}})
    proc = subprocess.run([sys.executable, "-m", "hpcab.launch", "--arm", str(arm_path), "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    said = " ".join(proc.stdout.split())         # rich wraps long lines where the path's length puts them
    assert proc.returncode == 0 and "image judge-cpu" in said and "matches the lock" in said
    arm = load_arm(arm_path)
    run = tmp_path / "run"
    [judge, agent] = instances(arm, run, run / "tokens.json", 0, verified_images(arm))
    digest = hashlib.sha256(sif.read_bytes()).hexdigest()
    # The verified digest goes in as HPCAB_IMAGE_DIGEST: every grade the judge makes records it.
    assert list(judge.argv[:8]) == ["apptainer", "exec", "--bind", f"{run}:{run}",
                                    "--env", f"HPCAB_IMAGE_DIGEST=sha256:{digest}", str(sif), "python"]
    assert judge.argv[8:11] == ("-m", "hpcab", "serve")
    assert agent.argv[0] == sys.executable                 # the agent role has no image: this machine's hpcab

    sif.write_bytes(os.urandom(4096))                      # not the bytes the lock recorded
    proc = launch(arm_path, tmp_path)
    assert proc.returncode == 2 and "judge-cpu" in proc.stderr and "refusing to launch" in proc.stderr
    assert not (tmp_path / "runs").exists()                # nothing was submitted


def test_ctrl_c_cancels_every_job_of_the_run(tmp_path):
    import signal
    import time
    arm = write_arm(tmp_path, optimizer="autotune", options={"max_scores": 12}, kernels="gemm,jacobi_2d",
                    roles={"judge": {"count": 1, "args": ["--workers", "1"]}, "agent": {"count": 1}})
    env = dict(os.environ, HPCAB_SLOT_DIR=str(tmp_path / "slots"), COLUMNS="220")
    proc = subprocess.Popen([sys.executable, "-m", "hpcab.launch", "--arm", str(arm)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:           # until the worker is at work
        runs = list((tmp_path / "runs").glob("*/agents/worker-0/agent.jsonl"))
        if runs and runs[0].stat().st_size:
            break
        time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("the agent worker never started")
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    run = the_run(tmp_path)
    status = roles(run)
    assert status["_state"] == "cancelled"
    assert {status[k]["state"] for k in ("judge-0", "agent-0")} <= {"CANCELLED", "COMPLETED"}
    time.sleep(2)
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline(p).count(str(run))]
    assert not left, [_cmdline(p) for p in left]          # nothing of the run is still running


def _cmdline(p: Path) -> str:
    try:
        return (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_an_arm_is_named_by_its_arm_field_or_its_optimizer_and_model(tmp_path):
    """The name the observations table and the figures give an arm (docs/plotting.md)."""
    assert load_arm(write_arm(tmp_path)).name == "replay"
    assert load_arm(write_arm(tmp_path, arm="replay-examples")).name == "replay-examples"
    llm = write_arm(tmp_path, optimizer="llm", options={}, model={"name": "qwen3-8b", "url": "http://127.0.0.1:9/v1",
                                                                  "price": {"prompt": 0.2, "completion": 0.6}})
    assert load_arm(llm).name == "llm/qwen3-8b"
    bad = write_arm(tmp_path, model={"name": "m", "url": "http://127.0.0.1:9/v1", "price": {"prompt": -1}})
    with pytest.raises(InputError, match="model.price"):
        load_arm(bad)


# ---- --check: as strict as the roles at their start -------------------------------------------

@pytest.mark.parametrize("changes, field, message", [
    ({"optimizer": "llmm"}, "optimizer", "unknown optimizer 'llmm'; did you mean 'llm'?"),
    ({"kernels": "gemm,softmaxx"}, "kernels", "'softmaxx' matches no kernel name, track, dwarf, level "
                                              "(L1, L2, L3), tag or TSVC category; did you mean "),
    ({"legs": ["gemm", "atxa"]}, "legs[1]", "atax"),
    ({"roles": {"judge": {"count": 1, "args": ["--presets", "XL"]}, "agent": {"count": 1}}},
     "roles.judge.args", "has no preset 'XL'"),
    ({"roles": {"judge": {"count": 1, "args": ["--workers", "two"]}, "agent": {"count": 1}}},
     "roles.judge.args", "argument --workers: invalid int value: 'two'"),
    ({"options": {"dir": "no/such/folder"}}, "options.dir", "no/such/folder: no such folder"),
    ({"options": {"dir": str(ROOT / "examples"), "flagset": "fastest"}}, "options.flagset",
     "unknown flag set 'fastest'"),
    ({"optimizer": "llm", "options": {"max_turn": 3}, "model": {"name": "m", "url": "http://127.0.0.1:9/v1"}},
     "options", "unknown option(s) max_turn"),
    ({"optimizer": "llm", "options": {}, "model": {"name": "m", "url": "ftp://x"}}, "model.url",
     "not an http(s) URL"),
    ({"roles": {"judge": {"count": 1}, "agent": {"count": 1}, "inference": {"count": 1, "command": ["srv"]}}},
     "roles.inference.command", "has no '{port}'"),
])
def test_check_refuses_what_a_role_would_refuse_at_its_start(tmp_path, changes, field, message):
    from hpcab.launch.preflight import ArmProblems, check_roles
    arm = write_arm(tmp_path, **changes)
    with pytest.raises(ArmProblems) as err:
        check_roles(load_arm(arm))
    [problem] = err.value.problems
    assert (problem.source, problem.field) == (str(arm), field) and message in problem.message, str(problem)


def test_a_valid_arm_passes_the_check():
    from hpcab.launch.preflight import check_roles
    for name in ("local-smoke.yaml", "corpus-autotune.yaml"):
        assert check_roles(load_arm(ROOT / "launch" / "arms" / name)) == {}


def test_the_launch_refuses_an_arm_the_check_refuses_before_making_its_run_folder(tmp_path):
    arm = write_arm(tmp_path, optimizer="llmm", kernels="gemm,softmaxx")
    for extra in (["--check"], []):
        proc = subprocess.run([sys.executable, "-m", "hpcab.launch", "--arm", str(arm), *extra], cwd=ROOT,
                              capture_output=True, text=True, env=dict(os.environ, COLUMNS="80"))
        lines = proc.stderr.splitlines()
        assert proc.returncode == 2, proc.stdout + proc.stderr
        # one line per problem, each naming the arm file and the field, however narrow the terminal
        assert len(lines) == 2, lines
        assert lines[0].startswith(f"error: {arm}: kernels: 'softmaxx' matches no kernel name")
        assert lines[0].endswith(("did you mean 'softmax'?", "did you mean softmax?")), lines[0]
        assert lines[1] == f"error: {arm}: optimizer: unknown optimizer 'llmm'; did you mean 'llm'?"
        assert not (tmp_path / "runs").exists()          # no run folder for experiments to count


# ---- the live view -------------------------------------------------------------------------------

def live_run(tmp_path: Path):
    """A run folder as a launch leaves it half-way: worker 0 done with one of its two kernels
    and at work on the next, worker 1 finished, a judge database with their grades."""
    from hpcab.launch.plan import instances
    from hpcab.launch.status import RoleStatus
    from tests.test_experiments import ATAX, GEMM, add_submission, close, judge_db
    arm = load_arm(write_arm(tmp_path, kernels="gemm,atax,jacobi_2d"))
    run = tmp_path / "run"
    insts = instances(arm, run, run / "tokens.json")
    conn = judge_db(run / "judge-0.db")
    add_submission(conn, "s1", "worker-0", GEMM, "2026-01-01T00:00:01.000Z", grade=("ok", 1.25))
    add_submission(conn, "s2", "worker-1", ATAX, "2026-01-01T00:00:02.000Z", grade=("incorrect", None))
    conn.execute("UPDATE submissions SET finished_at = received_at")
    close(conn)
    w0 = run / "agents" / "worker-0"
    w0.mkdir(parents=True)
    (w0 / "agent.jsonl").write_text("\n".join(json.dumps(e) for e in [
        {"kernel": GEMM, "event": "score"}, {"kernel": GEMM, "event": "submit"},
        {"kernel": "x/jacobi_2d", "event": "score"}]) + "\n{\"kernel\": \"x/jaco")   # a line being written
    w1 = run / "agents" / "worker-1"
    w1.mkdir(parents=True)
    (w1 / "results.json").write_text(json.dumps({"tasks": [{"kernel": ATAX}]}))
    states = {"judge-0": "RUNNING", "agent-0": "RUNNING", "agent-1": "COMPLETED"}
    statuses = {i.key: RoleStatus(i.role, i.index, "1", states[i.name], "log") for i in insts}
    return insts, statuses


def test_the_live_views_rows_come_from_the_runs_files(tmp_path):
    from hpcab.launch.live import ViewRow, view_rows
    insts, statuses = live_run(tmp_path)
    assert view_rows(insts, statuses) == [
        ViewRow("judge-0", "RUNNING", "2 graded", "atax incorrect"),
        ViewRow("agent-0", "RUNNING", "1/2", "gemm ok 1.25×"),          # gemm and jacobi_2d: one done
        ViewRow("agent-1", "COMPLETED", "1/1", "atax incorrect"),
    ]


def test_piped_the_view_is_a_progress_line_every_period_and_at_each_change(tmp_path):
    import io

    import attrs
    from rich.console import Console

    from hpcab.launch.live import LiveView
    insts, statuses = live_run(tmp_path)
    out = io.StringIO()
    console = Console(file=out, width=100)         # not a terminal
    with LiveView(console, "t", every=3600) as view:
        view.update(insts, statuses)                               # the first: printed
        view.update(insts, statuses)                               # nothing changed, the period not over
        key = next(k for k in statuses if k.endswith("agent-0"))
        statuses[key] = attrs.evolve(statuses[key], state="COMPLETED")
        view.update(insts, statuses)                               # a state changed: printed
    lines = out.getvalue().splitlines()
    assert len(lines) == 2, lines                                  # one line each, however long
    assert lines[0].endswith("] judge-0 RUNNING 2 graded, last atax incorrect; agent-0 RUNNING 1/2 tasks, "
                             "last gemm ok 1.25×; agent-1 COMPLETED 1/1 tasks, last atax incorrect")
    assert "agent-0 COMPLETED 1/2 tasks" in lines[1]
    out.truncate(0)
    out.seek(0)
    with LiveView(console, "t", every=0.01) as view:               # the period: a line at every update
        for _ in range(3):
            view.update(insts, statuses)
            __import__("time").sleep(0.02)
    assert len(out.getvalue().splitlines()) == 3


def test_the_check_refuses_a_selected_kernel_that_does_not_load(tmp_path, monkeypatch):
    """The judge would refuse to start on it (hpcab.corpus.Corpus.refuse_broken): so does the check."""
    from hpcab.launch.preflight import ArmProblems, check_roles
    from tests.test_cli_kernel_by_kernel import broken_manifest, make_project
    corpus = make_project(tmp_path / "project")
    manifest = broken_manifest(corpus)
    monkeypatch.setenv("HPCAB_ROOT", str(tmp_path / "project"))
    arm = write_arm(tmp_path, kernels="gemm,machine_learning")
    with pytest.raises(ArmProblems) as err:
        check_roles(load_arm(arm))
    [problem] = err.value.problems
    assert problem.field == "kernels" and str(manifest) in problem.message and "provenance" in problem.message, \
        str(problem)
    assert check_roles(load_arm(write_arm(tmp_path, kernels="gemm"))) == {}    # outside the selection: served


def test_two_llm_arms_that_differ_in_skills_alone_differ_in_what_the_agent_was_given_alone(tmp_path):
    """The experiment users most want to repeat, end to end on local processes: the same llm
    agent (a scripted model server) with skills none and all, launched side by side. Their
    observations differ in the skills column and in the prompt (the hash of the text the
    model received, which lists the skills) and in nothing else that describes the setup."""
    from hpcab.experiments.extract import extract
    from tests.fake_model import FakeModel, call, reply
    gemm = (ROOT / "examples" / "gemm.c").read_text()
    script = lambda: [reply(call("write_file", path="gemm.c", content=gemm), usage=(100, 10, 0)),
                      reply(call("submit", path="gemm.c"), usage=(120, 5, 0))]
    runs, procs = {}, {}
    with FakeModel(script()) as bare, FakeModel(script()) as skilled:
        for name, fake in (("bare", bare), ("skilled", skilled)):
            folder = tmp_path / name
            folder.mkdir()
            arm = write_arm(folder, optimizer="llm", options={"max_turns": 4}, kernels="gemm",
                            roles={"judge": {"count": 1, "args": ["--workers", "1", "--target-seconds", "0.05",
                                                                  "--sessions", "2"]}, "agent": {"count": 1}},
                            model={"name": "fake-model", "url": fake.url, "api": "openai"},
                            skills="none" if name == "bare" else "all", tools=["score", "submit", "read_skill"],
                            prompt="terse", hints=2, arm="llm")
            env = dict(os.environ, HPCAB_SLOT_DIR=str(folder / "slots"))
            procs[name] = subprocess.Popen([sys.executable, "-m", "hpcab.launch", "--arm", str(arm)], cwd=ROOT,
                                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for name, proc in procs.items():
            out, _ = proc.communicate(timeout=300)
            assert proc.returncode == 0, out
            [runs[name]] = list((tmp_path / name / "runs").iterdir())
    assert bare.problems == [] and skilled.problems == []
    # What the model was told: the skills (and read_skill) only where given; the rest alike.
    bare_tools = {t["function"]["name"] for t in bare.requests[0]["tools"]}
    skilled_tools = {t["function"]["name"] for t in skilled.requests[0]["tools"]}
    assert skilled_tools - bare_tools == {"read_skill"} and "compile" not in bare_tools
    assert "## Hints" in bare.requests[0]["messages"][1]["content"]
    t = extract([str(runs["bare"]), str(runs["skilled"])]).table
    assert t.height == 2 and t["correct"].to_list() == [True, True]
    rows = {("skilled" if r["skills"] != "none" else "bare"): r for r in t.iter_rows(named=True)}
    assert rows["bare"]["skills"] == "none" and rows["skilled"]["skills"] == "all"
    assert rows["bare"]["tools"] == "score,submit" and rows["skilled"]["tools"] == "score,submit,read_skill"
    assert len(rows["bare"]["prompt"]) == 64 and rows["bare"]["prompt"] != rows["skilled"]["prompt"]
    setup = ("experiment", "arm", "optimizer", "model", "prompt_variant", "hints", "kernel", "language", "flagset",
             "status", "correct", "model_calls", "prompt_tokens", "completion_tokens")
    assert {c: rows["bare"][c] for c in setup} == {c: rows["skilled"][c] for c in setup}
    assert (rows["bare"]["prompt_variant"], rows["bare"]["hints"]) == ("terse", 2)
    # The prompt itself is in the judge's database, by its hash.
    conn = sqlite3.connect(runs["skilled"] / "judge-0.db")
    [(text,)] = conn.execute("SELECT text FROM prompts WHERE sha256 = ?", (rows["skilled"]["prompt"],)).fetchall()
    assert "Skill pages" in text and "Wrong on any case scores nothing" in text
    # The two arms compared by what differs, paired by kernel (python -m hpcab.experiments compare).
    cmp = subprocess.run([sys.executable, "-m", "hpcab.experiments", "compare", "--runs", str(runs["bare"]),
                          "--runs", str(runs["skilled"]), "--by", "skills", "--out", str(tmp_path / "cmp")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert cmp.returncode == 0, cmp.stderr
    assert "none vs all [all]: 1 kernels (0 excluded); solved A only 0, B only 0, both 1" in cmp.stdout
    assert "scores 0/0, submissions 1/1" in cmp.stdout
    assert (tmp_path / "cmp" / "paired_scatter.png").is_file()


def test_repeats_run_each_task_k_times_and_the_comparison_reads_best_of_k(tmp_path):
    """repeats: 3 with the noop control (the translator's C, submitted unchanged): three
    attempts at gemm, each a leg of its own, three final rows in the observations, and the
    comparison's kernels table counting three attempts."""
    from hpcab.experiments.compare import compare
    from hpcab.experiments.extract import extract
    arm = write_arm(tmp_path, optimizer="noop", options={}, kernels="gemm", repeats=3,
                    roles={"judge": {"count": 1, "args": ["--workers", "1", "--target-seconds", "0.05",
                                                          "--sessions", "2"]}, "agent": {"count": 1}})
    proc = launch(arm, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = the_run(tmp_path)
    assert sorted(p.name for p in (run / "agents").iterdir()) == ["leg-0", "leg-1", "leg-2"]
    rows = sqlite3.connect(run / "judge-0.db").execute("SELECT label, state FROM submissions").fetchall()
    assert rows == [("noop c@opt", "graded")] * 3                   # one submission an attempt, no score
    t = extract([str(run)]).table
    assert sorted(t["leg"].to_list()) == [0, 1, 2] and t["final"].all() and t["correct"].all()
    assert t["task_scores"].to_list() == [0, 0, 0]            # from each attempt's results.json
    k = compare(t).kernels.row(0, named=True)
    assert k["attempts"] == 3 and k["solved_rate"] == 1.0 and k["best_speedup"] >= k["mean_speedup"]
