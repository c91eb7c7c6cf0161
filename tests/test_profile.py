"""The profile (hpcab.profile; POST /profile, hpcab profile, the MCP and LLM tools): a real
build with line tables, run alone on a public case under a real `perf record` inside the
candidate's sandbox, read back by a sandboxed `perf script`."""

import json
import sqlite3
import subprocess
import sys
import time

import pytest

from hpcab.build import Candidate, candidate_from_file
from hpcab.case import preset_case
from hpcab.client import JudgeError
from hpcab.corpus import load_corpus
from hpcab.profile import Windows, available, parse_samples, profile, profile_text
from hpcab.timing.policy import Policy
from tests.conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.skipif(not available()[0], reason=f"no profiles on this machine: {available()[1]}")

GEMM_ARGS = ("const double *restrict A, const double *restrict B, double *restrict C, double alpha, double beta, "
             "int64_t NI, int64_t NJ, int64_t NK, uint8_t *restrict workspace, int64_t workspace_size")
# Spends its calls in a function of its own, then crashes (abort) or hangs on its third call.
SPIN = "static void spin(double *c, int64_t n) { for (int64_t i = 0; i < n; i++) c[i] = c[i] * 0.5 + 1.0; }\n"
CRASH = ("#include <stdint.h>\n#include <stdlib.h>\n" + SPIN + f"void gemm({GEMM_ARGS}) {{\n"
         "    static int calls = 0;\n    for (int r = 0; r < 200; r++) spin(C, NI * NJ);\n"
         "    if (++calls == 3) abort();\n}\n")
HANG = ("#include <stdint.h>\n" + SPIN + f"void gemm({GEMM_ARGS}) {{\n    static int calls = 0;\n"
        "    if (++calls == 3) for (;;) spin(C, NI * NJ);\n}\n")
# Says what it was called with: a profile's answer must carry the public case's sizes only.
TELL = ("#include <stdint.h>\n#include <stdio.h>\n" + f"void gemm({GEMM_ARGS}) {{\n"
        "    fprintf(stderr, \"sizes %ld %ld %ld first %.17g\\n\", (long)NI, (long)NJ, (long)NK, A[0]);\n"
        "    for (int64_t i = 0; i < NI * NJ; i++) C[i] *= beta;\n}\n")


def test_a_judge_over_http_profiles_c_fortran_and_cpp_the_kernels_own_function_and_lines_hot(start_judge):
    judge = start_judge("--kernels", "gemm,atax")
    client = judge.client(reconnect_seconds=0)
    for kernel, example in (("gemm", "gemm.c"), ("gemm", "gemm.f90"), ("atax", "atax.cpp")):
        candidate = candidate_from_file(EXAMPLES / example)
        doc = client.profile(kernel, candidate.source, candidate.language, label=example)
        assert doc["ok"] and doc["status"] == "ok", (example, doc["message"])
        assert doc["calls"] >= 5 and doc["samples"] > 100, example
        top = doc["functions"][0]
        assert top["function"].lower().startswith(kernel) and top["dso"] == "candidate" and top["share"] > 0.5, \
            (example, doc["functions"][:3])
        assert doc["profile_flags"] and doc["events"]["sampled"] == "cpu-clock"
        # The hottest lines are the candidate's own, quoted from its source.
        own = [e for e in doc["lines"] if e.get("line")]
        assert own and own[0]["share"] > 0.2 and own[0]["source"] in candidate.source, (example, doc["lines"][:3])
        assert doc["threads"][0]["thread"] == "main" and doc["software"]["task_clock_ms"] > 0
        text = profile_text(doc, example)
        assert "hot functions" in text and f"line {own[0]['line']}: {own[0]['source']}" in text
        assert "/tmp/" not in json.dumps(doc)          # no path of the judge's machine


def test_a_threaded_candidate_is_split_across_its_threads(corpus, toolchains):
    k = corpus.get("gemm")
    source = (EXAMPLES / "gemm.c").read_text().replace(
        "    for (int64_t i = 0; i < NI; i++) {", "    #pragma omp parallel for schedule(static)\n    for (int64_t i = 0; i < NI; i++) {")
    doc = profile(k, Candidate(source, "c", label="omp.c"), toolchains, preset_case(k, "S"), flagset="autopar",
                  policy=Policy(threads=2))
    assert doc["status"] == "ok", doc["message"]
    assert [t["thread"] for t in doc["threads"]] == ["main", "thread 1"]
    assert all(t["share"] > 0.2 for t in doc["threads"]), doc["threads"]
    assert any(f["function"].startswith("gemm._omp_fn") and f["dso"] == "candidate" for f in doc["functions"])


def test_a_candidate_that_crashes_or_hangs_is_profiled_up_to_there_in_bounded_time(corpus, toolchains, tmp_path):
    k = corpus.get("gemm")
    policy = Policy(timeout_seconds=6)
    for name, source, status in (("crash.c", CRASH, "crashed"), ("hang.c", HANG, "timeout")):
        started = time.monotonic()
        doc = profile(k, Candidate(source, "c", label=name), toolchains, preset_case(k, "S"), policy=policy)
        assert time.monotonic() - started < 6 + 25, name
        assert doc["status"] == status and doc["calls"] == 2, (name, doc["message"])
        # Where it was when it crashed or hung is in the profile: spin's line, inlined into gemm or not.
        assert doc["functions"][0]["dso"] == "candidate", doc["functions"]
        assert any(e.get("source", "") and "c[i] * 0.5" in e["source"] for e in doc["lines"][:2]), doc["lines"]


def test_samples_outside_the_calls_are_left_out():
    text = "\n".join([
        "   101 10.000000100:    250000    cpu-clock:u:      7f00 gemm (/x/candidate.so)",
        "   101 10.000000900:    250000    cpu-clock:u:      7f10 gemm (/x/candidate.so)",
        "   101 10.000002000:    250000    cpu-clock:u:      7f20 _PyEval_EvalFrameDefault (/usr/lib/libpython3.11.so)",
        "   102 10.000003500:    250000    cpu-clock:u:      7f30 gemm._omp_fn.0 (/x/candidate.so)",
        "   101 10.000004500:         7    page-faults:u:    7f40 memset (/usr/lib/libc.so.6)",
        "garbage that is not a sample",
    ])
    windows = [(10_000_000_000, 10_000_001_000), (10_000_003_000, 10_000_005_000)]
    assert 10_000_000_500 in Windows(windows) and 10_000_002_000 not in Windows(windows)
    samples = parse_samples(text, windows)
    assert [(s["tid"], s["sym"]) for s in samples] == [(101, "gemm"), (101, "gemm"), (102, "gemm._omp_fn.0"),
                                                      (101, "memset")]
    assert samples[-1]["event"] == "page-faults" and samples[-1]["period"] == 7


def test_the_cli_prints_the_profile_and_its_json():
    run = lambda *a: subprocess.run([sys.executable, "-m", "hpcab", "profile", "gemm", "--source",
                                     str(EXAMPLES / "gemm.c"), *a], capture_output=True, text=True, cwd=ROOT,
                                    timeout=300)
    text = run()
    assert text.returncode == 0, text.stderr
    assert "hot functions" in text.stdout and "[candidate]" in text.stdout and "c[j] += a * b[j];" in text.stdout
    doc = json.loads(run("--json").stdout)
    assert doc["functions"][0]["function"] == "gemm"
    bad = run("--flags", "nonesuch")
    assert bad.returncode != 0 and "nonesuch" in bad.stderr


def test_a_judge_profiles_public_cases_only_charges_its_budget_and_records_it(start_judge, tmp_path):
    from hpcab.judge.cases import hidden_cases, load_secret
    from hpcab.judge.tokens import issue_tokens
    tokens = issue_tokens(["ada"], 5, tmp_path / "tokens.json", profiles=2)
    judge = start_judge("--kernels", "gemm", "--tokens", str(tmp_path / "tokens.json"))
    client = judge.client(tokens["ada"], reconnect_seconds=0)
    doc = client.profile("gemm", (EXAMPLES / "gemm.c").read_text(), "c", label="gemm.c")
    assert doc["status"] == "ok" and doc["functions"][0]["function"] == "gemm" and doc["profile_id"]
    assert any(e.get("source") == "c[j] += a * b[j];" for e in doc["lines"][:2])
    # A preset the judge does not show is refused (400), and not charged.
    with pytest.raises(JudgeError) as hidden:
        client.profile("gemm", TELL, "c", preset="L")
    assert hidden.value.status == 400 and "public" in hidden.value.message
    # A candidate that prints what it is called with shows the public case, and nothing hidden.
    told = client.profile("gemm", TELL, "c", label="tell.c")
    assert told["status"] == "ok"
    public = preset_case(load_corpus().get("gemm"), "S")
    assert f"sizes {public.sizes['NI']} {public.sizes['NJ']} {public.sizes['NK']}" in told["stderr"]
    secret = load_secret(judge.db.with_name(judge.db.name + ".secret"))
    for case in hidden_cases(load_corpus().get("gemm"), ("S",), secret):
        if case.sizes != public.sizes:
            assert f"sizes {case.sizes['NI']} {case.sizes['NJ']} {case.sizes['NK']}" not in json.dumps(told)
    # The budget: two profiles, then a 403 that says so.
    with pytest.raises(JudgeError) as spent:
        client.profile("gemm", TELL, "c")
    assert spent.value.status == 403 and "profile budget" in spent.value.message
    assert client.task("gemm", "c")["budget"]["profiles_used"] == 2
    db = sqlite3.connect(judge.db)
    rows = db.execute("SELECT agent, kernel, language, status FROM profiles ORDER BY at").fetchall()
    gemm = load_corpus().get("gemm").id
    assert rows == [("ada", gemm, "c", "ok"), ("ada", gemm, "c", "ok")]
    assert db.execute("SELECT count(*) FROM grades").fetchone()[0] == 0           # a profile is not a grade
    assert db.execute("SELECT count(*) FROM scores").fetchone()[0] == 0


def test_a_judge_without_perf_refuses_profiles_and_charges_nothing(start_judge, tmp_path, monkeypatch):
    monkeypatch.setenv("HPCAB_PERF", "")
    judge = start_judge("--kernels", "gemm")
    with pytest.raises(JudgeError) as refused:
        judge.client(reconnect_seconds=0).profile("gemm", (EXAMPLES / "gemm.c").read_text(), "c")
    assert refused.value.status == 409 and "perf" in refused.value.message
    assert sqlite3.connect(judge.db).execute("SELECT count(*) FROM profiles").fetchone()[0] == 0
