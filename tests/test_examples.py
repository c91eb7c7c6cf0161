"""What a new user runs first: the example agent of examples/, loaded by its path through
the real `hpcab agent` against a real judge on loopback, its guard against running out of
scores, and the progress lines that `hpcab agent` and `hpcab translate --report` print when
their output is piped."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hpcab.judge.tokens import issue_tokens

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/flag_search_agent.py:FlagSearchAgent"
FAST = ("--target-seconds", "0.05", "--sessions", "2", "--workers", "1")


def hpcab(*args: str, tmp_path: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """The real CLI as a child process, stdout and stderr piped (not a terminal)."""
    env = dict(os.environ, HPCAB_SLOT_DIR=str(tmp_path / "slots"), COLUMNS="200")
    env.pop("HPCAB_TOKEN", None)
    return subprocess.run([sys.executable, "-m", "hpcab", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def tasks(out: Path) -> dict[str, dict]:
    return {t["name"]: t for t in json.loads((out / "results.json").read_text())["tasks"]}


def events(out: Path, event: str) -> list[dict]:
    return [r for r in map(json.loads, (out / "agent.jsonl").read_text().splitlines()) if r["event"] == event]


def graded_submissions(db: Path) -> list[dict]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(
            "SELECT s.label, s.flagset, s.state, g.correct FROM submissions s JOIN grades g ON g.id = s.grade_id")]
    finally:
        conn.close()


def test_the_example_agent_scores_its_variants_and_submits_the_best(start_judge, tmp_path):
    judge = start_judge("--kernels", "gemm", *FAST)
    out = tmp_path / "run"
    proc = hpcab("agent", EXAMPLE, "--kernels", "gemm", "--judge", judge.url, "--out", str(out), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    scored = [e["label"] for e in events(out, "score")]
    assert scored[0] == "c@opt" and {"c@unroll", "c+unroll4@opt", "c-omp@autopar"} <= set(scored)
    [sub] = graded_submissions(judge.db)
    assert sub["state"] == "graded" and sub["correct"] == 1 and sub["label"] in scored
    row = tasks(out)["gemm"]
    assert row["correct"] and row["variant"] == sub["label"]
    # The table says which variant won, and the pipe got one progress line for the task.
    assert re.search(r"gemm .*\b" + re.escape(sub["label"]) + r"\b", proc.stdout), proc.stdout
    assert re.search(r"^\[1/1\] gemm: correct [0-9.]+× " + re.escape(sub["label"]) + r" \(1 submission, 4 scores\)"
                     r"  \(\d+ s elapsed\)$", proc.stderr, re.M), proc.stderr


def test_the_example_still_submits_when_the_judges_score_budget_is_smaller_than_its_variants(start_judge,
                                                                                               tmp_path):
    tokens = tmp_path / "tokens.json"
    issue_tokens(["newcomer"], 1, tokens, scores=2)
    judge = start_judge("--kernels", "gemm", "--tokens", str(tokens), *FAST)
    out = tmp_path / "run"
    proc = hpcab("agent", EXAMPLE, "--kernels", "gemm", "--judge", judge.url, "--token-file", str(tokens),
                 "--agent", "newcomer", "--out", str(out), "--no-progress", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [e["label"] for e in events(out, "score")] == ["c@opt", "c@unroll"]
    [refused] = events(out, "score_refused")             # the third score reached the judge and was refused
    assert "spent its score budget" in refused["message"]
    [sub] = graded_submissions(judge.db)
    assert sub["correct"] == 1 and sub["label"] in ("c@opt", "c@unroll")
    assert tasks(out)["gemm"]["correct"]


def test_the_example_with_its_own_score_budget_of_zero_submits_the_starting_point(start_judge, tmp_path):
    judge = start_judge("--kernels", "gemm", *FAST)
    out = tmp_path / "run"
    proc = hpcab("agent", EXAMPLE, "--kernels", "gemm", "--judge", judge.url, "--scores", "0", "--out", str(out),
                 "--no-progress", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert events(out, "score") == []
    assert [(s["label"], s["correct"]) for s in graded_submissions(judge.db)] == [("c@opt", 1)]


@pytest.mark.parametrize("name, expected", [
    ("examples/nope.py:FlagSearchAgent", "examples/nope.py: no such file"),
    ("examples/flag_search_agent.py:FlagSearch",
     "examples/flag_search_agent.py: FlagSearch: no such class in it; it defines FlagSearchAgent, Variant "
     "(did you mean FlagSearchAgent?)"),
    ("examples/flag_search_agent.py:Variant", "examples/flag_search_agent.py: Variant: not an optimizer"),
])
def test_agent_files_that_cannot_be_used_are_one_line_errors(name, expected, tmp_path):
    proc = hpcab("agent", name, "--kernels", "gemm", "--native", "--out", str(tmp_path / "x"), tmp_path=tmp_path,
                 timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("error: " + expected), line


def test_an_agent_file_that_fails_to_import_names_its_line(tmp_path):
    broken = tmp_path / "broken_agent.py"
    broken.write_text("from hpcab.agents import Agent\n\nLIMIT = int('twelve')\n")
    proc = hpcab("agent", f"{broken}:Mine", "--kernels", "gemm", "--native", "--out", str(tmp_path / "x"),
                 tmp_path=tmp_path, timeout=60)
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert line == (f"error: {broken}:3: the file fails to import: ValueError: invalid literal for int() with "
                    "base 10: 'twelve'"), line
    assert "Traceback" not in proc.stderr


def test_translate_report_prints_a_line_per_kernel_when_piped(tmp_path):
    proc = hpcab("translate", "--report", "--kernels", "gemm,atax", "--preset", "S", "--threads", "1",
                 "--target-seconds", "0.02", "--sessions", "2", "--json", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("[")]
    pattern = r"^\[{}/2\] {}: C [0-9.]+×  Fortran [0-9.]+×  C autopar [0-9.]+×  \(\d+ s elapsed\)$"
    assert len(lines) == 2, proc.stderr
    assert {re.match(pattern.format(1, "(gemm|atax)"), lines[0]) is not None,
            re.match(pattern.format(2, "(gemm|atax)"), lines[1]) is not None} == {True}, lines
    assert {k["kernel"].rsplit("/", 1)[-1] for k in json.loads(proc.stdout)["kernels"]} == {"gemm", "atax"}
