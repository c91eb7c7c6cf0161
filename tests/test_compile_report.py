"""The compiler's report (hpcab.compile_report; POST /compile, hpcab compile, the MCP and LLM
tools): a real build with the report's flags, in the sandbox, parsed."""

import json
import subprocess
import sys

import pytest

from hpcab.build import Candidate, candidate_from_file
from hpcab.client import JudgeError
from hpcab.compile_report import compile_report, parse_remarks, report_text
from tests.conftest import CANDIDATES, EXAMPLES, ROOT


def _vectorised(doc: dict, lines: int) -> list[dict]:
    return [r for r in doc["remarks"] if r["kind"] == "optimized" and "vectorized" in r["text"]
            and 1 <= r["line"] <= lines]


@pytest.mark.parametrize("kernel,example", [("gemm", "gemm.c"), ("gemm", "gemm.f90"), ("atax", "atax.cpp")])
def test_the_report_quotes_the_compilers_vectorisation_remarks_on_the_candidates_lines(corpus, toolchains,
                                                                                      private_build_cache,
                                                                                      kernel, example):
    candidate = candidate_from_file(EXAMPLES / example)
    doc = compile_report(corpus.get(kernel), candidate, toolchains)
    lines = candidate.source.count("\n") + 1
    assert doc["ok"] and doc["flagset"] == "opt" and doc["report_flags"]
    assert _vectorised(doc, lines), doc["remarks"][:5]
    assert all(1 <= r["line"] <= lines for r in doc["remarks"])          # the candidate's own file only
    assert doc["counts"]["optimized"] == sum(r["kind"] == "optimized" for r in doc["remarks"])
    assert set(doc["report_flags"]) <= set(doc["command"])
    text = report_text(doc, example)
    assert f"{example}:{_vectorised(doc, lines)[0]['line']}:" in text and "vectorized" in text
    assert doc["disassembly"] is None


def test_the_disassembly_is_the_kernels_symbol_alone(corpus, toolchains, private_build_cache):
    doc = compile_report(corpus.get("gemm"), candidate_from_file(EXAMPLES / "gemm.c"), toolchains,
                         want_disassembly=True)
    first = doc["disassembly"].splitlines()[0]
    assert first.endswith("<gemm>:"), first
    assert "ret" in doc["disassembly"] and "Disassembly of section" not in doc["disassembly"]


def test_a_candidate_that_does_not_compile_gets_its_errors_and_no_disassembly(corpus, toolchains,
                                                                            private_build_cache):
    candidate = candidate_from_file(CANDIDATES / "gemm_compile_error.c")
    doc = compile_report(corpus.get("gemm"), candidate, toolchains, want_disassembly=True)
    assert not doc["ok"]
    assert "error" in doc["diagnostics"] and "gemm_compile_error.c" in doc["diagnostics"]
    assert doc["disassembly"] == "the candidate did not compile: nothing to disassemble"


def test_a_python_candidate_says_its_compiler_gives_no_report(corpus, toolchains, private_build_cache):
    source = "def gemm(alpha, beta, C, A, B, NI, NJ, NK):\n    C[:] = alpha * A @ B + beta * C\n"
    doc = compile_report(corpus.get("gemm"), Candidate(source, "python", label="gemm.py"), toolchains,
                         want_disassembly=True)
    assert doc["report_flags"] == [] and "gives no optimisation report" in doc["note"]
    assert "no machine code" in doc["disassembly"]


def test_remarks_are_parsed_for_gcc_and_clang_and_other_files_are_left_out():
    text = "\n".join([
        "gemm.c:17:35: optimized: loop vectorized using 32 byte vectors",
        "/build/candidate.c:9:3: missed: couldn't vectorize loop",
        "/usr/include/x86_64-linux-gnu/bits/string_fortified.h:29:10: optimized: loop vectorized",
        "gemm.c:12:5: remark: vectorized loop (vectorization width: 4, interleaved count: 2) [-Rpass=loop-vectorize]",
        "gemm.c:20:5: remark: loop not vectorized [-Rpass-missed=loop-vectorize]",
        "gemm.c:20:5: remark: loop not vectorized: value that could not be identified as reduction is used "
        "outside the loop [-Rpass-analysis=loop-vectorize]",
        "gemm.c:3:1: warning: unused variable 'x' [-Wunused-variable]",
        "In function 'gemm':",
    ])
    remarks, rest = parse_remarks(text, {"gemm.c", "candidate.c", "/build/candidate.c"})
    assert [(r["line"], r["kind"]) for r in remarks] == [(17, "optimized"), (9, "missed"), (12, "optimized"),
                                                         (20, "missed"), (20, "analysis")]
    assert remarks[2]["text"] == "vectorized loop (vectorization width: 4, interleaved count: 2)"
    assert "string_fortified" not in json.dumps(remarks) and "string_fortified" not in rest
    assert "unused variable" in rest and "In function" in rest


def test_the_cli_prints_the_report_and_its_json(private_build_cache):
    run = lambda *a: subprocess.run([sys.executable, "-m", "hpcab", "compile", "gemm", "--source",
                                     str(EXAMPLES / "gemm.c"), *a], capture_output=True, text=True, cwd=ROOT,
                                    timeout=300)
    text = run("--disassemble")
    assert text.returncode == 0, text.stderr
    assert "gemm.c compiled with gcc" in text.stdout and "optimized: loop vectorized" in text.stdout
    assert "<gemm>:" in text.stdout
    doc = json.loads(run("--json").stdout)
    assert doc["ok"] and doc["counts"]["optimized"] > 0
    bad = run("--flags", "nonesuch")
    assert bad.returncode != 0 and "nonesuch" in bad.stderr


def test_a_judge_over_http_answers_compile_and_rate_limits_it(start_judge, private_build_cache):
    judge = start_judge("--kernels", "gemm", "--compiles-per-minute", "2")
    client = judge.client(reconnect_seconds=0)
    source = (EXAMPLES / "gemm.c").read_text()
    doc = client.compile("gemm", source, "c", label="gemm.c", disassemble=True)
    assert doc["ok"] and any("vectorized" in r["text"] for r in doc["remarks"] if r["kind"] == "optimized")
    assert doc["disassembly"].startswith("0") and "<gemm>:" in doc["disassembly"]
    with pytest.raises(JudgeError) as bad:
        judge.client().compile("gemm", source, "c", flagset="harness")
    assert bad.value.status == 400 and "flag set" in bad.value.message
    client.compile("gemm", source, "c")              # the second this minute (the 400 was not counted)
    with pytest.raises(JudgeError) as limited:
        judge.client(max_wait=0).compile("gemm", source, "c")
    assert limited.value.status == 429 and "2 compiler reports" in limited.value.message
    # Nothing was graded or recorded.
    import sqlite3
    db = sqlite3.connect(judge.db)
    assert db.execute("SELECT count(*) FROM grades").fetchone()[0] == 0
