"""The graded loop end to end: real compilers, a real child process, real checks."""

import os

import pytest

from hpcab.build import candidate_from_file
from hpcab.case import explicit_case, preset_case
from hpcab.grade import grade
from tests.conftest import CANDIDATES, EXAMPLES


def _grade(corpus, toolchains, policy, kernel, path, cases=None):
    k = corpus.get(kernel)
    return grade(k, candidate_from_file(path), cases or [preset_case(k, "S")], toolchains, policy=policy)


def test_c_gemm_is_correct_with_timing_and_speedup(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "gemm", EXAMPLES / "gemm.c")
    assert g.status == "ok", g.message
    case = g.cases[0]
    assert case.check.max_abs_err < 1e-9
    assert case.timing.n >= fast_policy.min_repetitions
    assert case.timing.ci_low_ns <= case.timing.median_ns <= case.timing.ci_high_ns
    assert g.speedup_numpy.ci_low <= g.speedup_numpy.value <= g.speedup_numpy.ci_high
    assert len(case.samples_ns["candidate"]) == len(case.samples_ns["numpy"])   # interleaved rounds


def test_fortran_gemm_is_correct(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "gemm", EXAMPLES / "gemm.f90")
    assert g.status == "ok", g.message
    assert g.build.compiler == "gfortran"


def test_cpp_atax_is_correct(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "atax", EXAMPLES / "atax.cpp")
    assert g.status == "ok", g.message
    assert g.build.compiler == "gxx"


def test_several_cases_including_odd_sizes(corpus, toolchains, fast_policy):
    k = corpus.get("gemm")
    cases = [preset_case(k, "S"), explicit_case(k, {"NI": 1, "NJ": 7, "NK": 13}, seed=3, label="odd")]
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), cases, toolchains, policy=fast_policy)
    assert g.status == "ok" and len(g.cases) == 2


def test_off_by_one_is_incorrect_with_its_max_error(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "gemm", CANDIDATES / "gemm_off_by_one.c")
    assert g.status == "incorrect"
    check = g.cases[0].check
    assert check is not None and check.max_abs_err > 1e-3
    assert "max abs error" in g.cases[0].message and "worst at" in g.cases[0].message
    assert g.speedup_numpy is None


def test_segfault_is_a_graded_crash_and_the_caller_lives(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "gemm", CANDIDATES / "gemm_segfault.c")
    assert g.status == "crashed" and "SIGSEGV" in g.cases[0].message
    assert os.getpid()  # still here; and the next grade works
    assert _grade(corpus, toolchains, fast_policy, "gemm", EXAMPLES / "gemm.c").status == "ok"


def test_abort_is_a_graded_crash(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "gemm", CANDIDATES / "gemm_abort.c")
    assert g.status == "crashed" and "SIGABRT" in g.cases[0].message


def test_endless_candidate_times_out_within_its_limit(corpus, toolchains, fast_policy):
    import attrs
    policy = attrs.evolve(fast_policy, timeout_seconds=3.0)
    g = _grade(corpus, toolchains, policy, "gemm", CANDIDATES / "gemm_endless.c")
    assert g.status == "timeout"
    assert "3 s" in g.cases[0].message


def test_compile_error_grade(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "gemm", CANDIDATES / "gemm_compile_error.c")
    assert g.status == "build_error" and not g.cases
    assert "undeclared_variable" in g.build.diagnostics


def test_missing_symbol_is_an_error_naming_it(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "gemm", CANDIDATES / "gemm_wrong_name.c")
    assert g.status == "error" and "undefined symbol: gemm" in g.cases[0].message


def test_unwritten_output_keeps_the_poison_and_fails(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "atax", CANDIDATES / "atax_no_write.c")
    assert g.status == "incorrect" and "NaN" in g.cases[0].message


def test_modifying_a_read_only_input_fails(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "gemm", CANDIDATES / "gemm_modifies_input.c")
    assert g.status == "incorrect" and "modified read-only input(s) A" in g.cases[0].message


def test_right_only_on_the_first_call_fails(corpus, toolchains, fast_policy):
    g = _grade(corpus, toolchains, fast_policy, "gemm", CANDIDATES / "gemm_right_once.c")
    assert g.status == "incorrect"


def test_memory_limit_is_enforced(corpus, toolchains, fast_policy, tmp_path):
    import attrs
    src = tmp_path / "gemm.c"
    src.write_text((CANDIDATES / "gemm_endless.c").read_text().replace(
        "volatile int64_t spin = 0;\n    for (;;) spin++;",
        "for (int64_t n = 0;; n++) { char *p = malloc(1 << 26); if (!p) abort(); for (int i = 0; i < (1 << 26); i += 4096) p[i] = 1; }"
    ).replace("#include <stdint.h>", "#include <stdint.h>\n#include <stdlib.h>"))
    policy = attrs.evolve(fast_policy, memory_bytes=1 << 30, timeout_seconds=20)
    g = _grade(corpus, toolchains, policy, "gemm", src)
    assert g.status == "crashed" and "SIGABRT" in g.cases[0].message
