"""The graded loop end to end: real compilers, a real child process, real checks."""

import os
from pathlib import Path

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


EXPLOITS = EXAMPLES.parent / "tests" / "exploits"


def test_a_hidden_case_takes_the_time_the_public_cases_set_whatever_it_holds(corpus, toolchains, fast_policy):
    """tests/exploits/hidden_latency.c sleeps NI x 4 ms in each warm-up of a hidden shape:
    at NI=10 and NI=300 the hidden case's grading, padded, takes the same time, a function
    of the public case's time per session alone (hpcab.grade._hidden_pad)."""
    import attrs
    from hpcab.build import Candidate
    from hpcab.grade import HIDDEN_PAD_FACTOR, HIDDEN_PAD_S
    k = corpus.get("gemm")
    latency = Candidate((EXPLOITS / "hidden_latency.c").read_text(), "c")
    for ni in (10, 300):
        hidden = attrs.evolve(explicit_case(k, {"NI": ni, "NJ": 60, "NK": 50}, seed=7), visibility="hidden",
                              label="hidden-S1")
        g = grade(k, latency, [preset_case(k, "S"), hidden], toolchains, policy=fast_policy, baseline=False)
        public, secret = g.cases
        assert g.status == "ok", g.message
        pad = HIDDEN_PAD_FACTOR * public.seconds / public.sessions * fast_policy.sessions + HIDDEN_PAD_S
        assert secret.seconds < pad and secret.seconds + g.durations["hidden_pad"] == pytest.approx(pad, abs=0.05)
        assert g.durations["public_cases"] == pytest.approx(public.seconds)


def test_a_hidden_case_past_its_padding_is_a_timeout(corpus, toolchains, fast_policy):
    import attrs
    from hpcab.build import Candidate
    k = corpus.get("gemm")
    slow = Candidate((EXPLOITS / "hidden_latency.c").read_text().replace("NI * 4", "NI * 100"), "c")
    hidden = attrs.evolve(explicit_case(k, {"NI": 90, "NJ": 60, "NK": 50}, seed=7), visibility="hidden")
    g = grade(k, slow, [preset_case(k, "S"), hidden], toolchains, policy=fast_policy, baseline=False)
    assert g.cases[0].status == "ok" and g.cases[1].status == "timeout", g.message
    assert "the grade's wall-clock limit was reached" in g.cases[1].message


def test_one_wall_clock_limit_per_grade_whatever_its_sessions(corpus, toolchains, fast_policy):
    """tests/exploits/slot_hold.c sleeps 8 s in every session's warm-up, under the session
    limit (30 s); the grade's own limit (6 s) stops it, whatever the number of sessions."""
    import time

    import attrs
    from hpcab.build import Candidate
    k = corpus.get("gemm")
    hold = Candidate((EXPLOITS / "slot_hold.c").read_text(), "c")
    policy = attrs.evolve(fast_policy, sessions=4, timeout_seconds=30, grade_seconds=6)
    started = time.monotonic()
    g = grade(k, hold, [preset_case(k, "S")], toolchains, policy=policy, baseline=False)
    assert g.status == "timeout" and "the grade's wall-clock limit was reached" in g.cases[0].message, g.message
    assert time.monotonic() - started < 6 + 10          # the limit, build and start-up


def test_the_grades_limit_reached_in_the_references_call_is_the_candidates_timeout(corpus, monkeypatch,
                                                                                   fast_policy):
    """The grade's limit is spent by the candidate's sessions (slot_hold sleeps in each): when it
    runs out while the NumPy reference is in its call, the case is a timeout, not the judge's
    failure. On a session's own limit the reference's timeout stays the judge's."""
    import attrs
    import hpcab.grade as grade_module
    from hpcab.timing.records import RunResult
    k = corpus.get("gemm")
    ran_out = RunResult("timeout", "killed", failed_target="numpy", failed_phase="calling")
    monkeypatch.setattr(grade_module, "run_case", lambda *args: ran_out)
    policy = attrs.evolve(fast_policy, sessions=2, timeout_seconds=30)
    r = grade_module.grade_case(k, preset_case(k, "S"), Path("unused.so"), None, policy, budget=5)
    assert r.status == "timeout" and "the grade's wall-clock limit was reached while calling target 'numpy'" \
        in r.message, r.message
    with pytest.raises(RuntimeError, match="the NumPy reference"):
        grade_module.grade_case(k, preset_case(k, "S"), Path("unused.so"), None, policy)


def test_an_agent_is_shown_the_public_cases_speedup_only(corpus, toolchains, fast_policy):
    import attrs
    from hpcab.build import Candidate
    from hpcab.gradedoc import grade_document
    from hpcab.measure import geometric_mean_speedup
    k = corpus.get("gemm")
    hidden = attrs.evolve(explicit_case(k, {"NI": 70, "NJ": 60, "NK": 50}, seed=7), visibility="hidden")
    g = grade(k, Candidate((EXPLOITS / "hidden_speedup.c").read_text(), "c"), [preset_case(k, "S"), hidden],
              toolchains, policy=fast_policy)
    assert g.status == "ok", g.message
    public = g.cases[0]
    both = geometric_mean_speedup([c.speedup_numpy for c in g.cases])
    assert g.speedup_numpy == both                                  # the record's: every scored case
    shown = grade_document(g, "submit", redact_hidden=True)
    assert shown["speedup_vs_numpy"]["value"] == public.speedup_numpy.value
    assert shown["speedup_vs_baseline"]["value"] == public.speedup_baseline.value
    assert grade_document(g)["speedup_vs_numpy"]["value"] == both.value
