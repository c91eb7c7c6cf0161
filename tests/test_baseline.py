"""Per-track baselines in the graded loop: numba, c-autopar (generated or hand-written) and
numpy; a baseline that cannot be prepared, is wrong, crashes or hangs never sinks the
candidate; the judge database's migration to the baseline columns."""

import shutil
import sqlite3

import attrs
import pytest

import hpcab.translate
from hpcab.baseline import baseline_name, prepare_baseline
from hpcab.build import Candidate, candidate_from_file
from hpcab.case import preset_case
from hpcab.corpus import load_corpus
from hpcab.grade import grade, measure_baseline
from hpcab.record import MIGRATIONS, SCHEMA_VERSION, connect, load_grade, save_grade
from hpcab.timing.records import Target
from hpcab.timing.session import run_case
from hpcab.translate import Diagnostic, TranslateError
from tests.conftest import CANDIDATES, EXAMPLES

S321_C = """#include <stdint.h>
void s321_recurrence(float *restrict a, const float *restrict b, int64_t N,
                     uint8_t *restrict workspace, int64_t workspace_size)
{
    (void)workspace; (void)workspace_size;
    for (int64_t i = 1; i < N; i++) a[i] += a[i - 1] * b[i];
}
"""

SOFTMAX_C = """#include <math.h>
#include <stdint.h>
void softmax(const float *restrict X, float *restrict Y, int64_t B, int64_t N,
             uint8_t *restrict workspace, int64_t workspace_size)
{
    (void)workspace; (void)workspace_size;
    for (int64_t b = 0; b < B; b++) {
        const float *x = X + b * N;
        float *y = Y + b * N;
        float mx = x[0], sum = 0.0f;
        for (int64_t j = 1; j < N; j++) mx = x[j] > mx ? x[j] : mx;
        for (int64_t j = 0; j < N; j++) { y[j] = expf(x[j] - mx); sum += y[j]; }
        for (int64_t j = 0; j < N; j++) y[j] /= sum;
    }
}
"""


def _grade(kernel, source, language, toolchains, policy, **kw):
    return grade(kernel, Candidate(source, language, label="test"), [preset_case(kernel, "S")], toolchains,
                 policy=policy, **kw)


@pytest.fixture
def gemm_with_override(kernel_copy):
    """A private corpus holding gemm with a hand-written C file beside it (the override path)."""
    def make(override_source) -> object:
        folder = kernel_copy("gemm")
        shutil.copy(override_source, folder / "gemm_c.c")
        return load_corpus(folder.parents[2]).get("gemm")
    return make


def test_track_baselines(corpus):
    assert baseline_name(corpus.get("s321_recurrence")) == "numba"
    assert baseline_name(corpus.get("gemm")) == "c-autopar"
    assert baseline_name(corpus.get("softmax")) == "numpy"


# ---- numba ---------------------------------------------------------------------------

def test_numba_baseline_is_timed_interleaved_and_validated(corpus, toolchains, fast_policy):
    k = corpus.get("s321_recurrence")
    g = _grade(k, S321_C, "c", toolchains, fast_policy)
    assert g.status == "ok", g.message
    assert g.baseline == "numba" and g.baseline_error is None, g.baseline_error
    case = g.cases[0]
    assert len(case.samples_ns["numba"]) == len(case.samples_ns["candidate"]) == len(case.samples_ns["numpy"])
    assert case.baseline_timing.n >= fast_policy.min_repetitions
    assert case.speedup_baseline.ci_low <= case.speedup_baseline.value <= case.speedup_baseline.ci_high
    assert g.speedup_baseline == case.speedup_baseline      # geometric mean of one case
    # A jitted loop is far faster than the interpreted one: the baseline's time was really measured.
    assert case.baseline_timing.median_ns < case.numpy_timing.median_ns / 5


def test_the_numba_baseline_compiles_into_the_judges_cache_and_no_candidate_is_told_of_it(
        corpus, toolchains, fast_policy):
    """Each session starts a fresh numba runner: it compiles the reference once into the
    judge's cache (NUMBA_CACHE_DIR, trusted runners only) and later sessions load it. A
    Python candidate's runner gets no such variable (it would point at the judge's files):
    this one answers wrong if it sees it."""
    import os

    from hpcab.paths import cache_dir
    k = corpus.get("s311_sum")
    reference = (k.directory / "s311_sum_numpy.py").read_text()
    spy = reference.replace("import numpy as np", "import os\nimport numpy as np", 1) + (
        "\n\n_honest = s311_sum\n\n\ndef s311_sum(a, N):\n"
        "    return _honest(a, N) + (1e6 if 'NUMBA_CACHE_DIR' in os.environ else 0)\n")
    g = grade(k, Candidate(spy, "python", label="spy"), [preset_case(k, "S")], toolchains,
              policy=attrs.evolve(fast_policy, sessions=3))
    assert g.status == "ok" and g.baseline_error is None, (g.message, g.baseline_error)
    assert g.cases[0].sessions == 3
    cached = [p for p in (cache_dir() / "numba").rglob("*") if p.is_file()]
    assert any("s311_sum" in p.name for p in cached), cached
    assert "NUMBA_CACHE_DIR" not in os.environ


def test_numba_baseline_alone_returning_a_scalar(corpus, toolchains, fast_policy):
    # s311_sum returns a float32; numba boxes it as a Python float, which must still validate.
    k = corpus.get("s311_sum")
    m = measure_baseline(k, [preset_case(k, "S")], toolchains, fast_policy)
    assert m.error is None, m.error
    c = m.cases[0]
    assert c.status == "ok" and c.baseline_timing is not None and c.speedup_over_numpy is not None


def test_missing_numba_is_a_clear_baseline_error(corpus, toolchains, fast_policy, tmp_path, monkeypatch):
    fake = tmp_path / "site" / "numba"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('numba is hidden by this test')\n")
    monkeypatch.setenv("PYTHONPATH", str(fake.parent))
    k = corpus.get("s321_recurrence")
    g = _grade(k, S321_C, "c", toolchains, fast_policy)
    assert g.status == "ok" and g.speedup_numpy is not None
    assert g.speedup_baseline is None
    assert "needs numba" in g.baseline_error and "hpcab[frameworks]" in g.baseline_error
    # As a required target (not a baseline) the same problem is the run's error.
    case = preset_case(k, "S")
    run = run_case(k, case, [Target("numba", "numba", trusted=True), Target("numpy", "python", trusted=True)], None,
                   fast_policy)
    assert run.status == "error" and "needs numba" in run.message


# ---- numpy ---------------------------------------------------------------------------

def test_numpy_baseline_adds_no_target(corpus, toolchains, fast_policy):
    k = corpus.get("softmax")
    g = _grade(k, SOFTMAX_C, "c", toolchains, fast_policy)
    assert g.status == "ok", g.message
    assert g.baseline == "numpy" and g.baseline_error is None
    case = g.cases[0]
    assert set(case.samples_ns) == {"candidate", "numpy"}
    assert case.baseline_timing == case.numpy_timing
    assert g.speedup_baseline == g.speedup_numpy


# ---- c-autopar -----------------------------------------------------------------------

def test_c_autopar_generated_or_reported(corpus, toolchains, fast_policy):
    """Whatever state the translator is in, the candidate is graded; when the translator
    handles the kernel, the generated C is timed and validated."""
    k = corpus.get("gemm")
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains, policy=fast_policy)
    assert g.status == "ok" and g.speedup_numpy is not None
    assert g.baseline == "c-autopar"
    try:
        hpcab.translate.translate(k, "c", "autopar")
        works = True
    except (NotImplementedError, ImportError, TranslateError):
        works = False
    if works:
        assert g.baseline_error is None, g.baseline_error
        assert g.baseline_origin == "generated"
        assert g.speedup_baseline is not None and g.cases[0].baseline_timing is not None
        assert "c-autopar" in g.cases[0].samples_ns
    else:
        assert g.baseline_error and g.speedup_baseline is None


@pytest.mark.parametrize("exc", [
    NotImplementedError("lowering of this construct is not written yet"),
    ImportError("cannot import name 'lower'"),
    TranslateError([Diagnostic("gemm_numpy.py", 3, "unsupported call np.frobnicate", "use a loop")]),
    RuntimeError("a bug in the translator"),
])
def test_translator_failure_never_fails_the_candidate(corpus, toolchains, fast_policy, monkeypatch, exc):
    def broken(*_a, **_k):
        raise exc
    monkeypatch.setattr(hpcab.translate, "translate", broken)
    k = corpus.get("gemm")
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains, policy=fast_policy)
    assert g.status == "ok" and g.speedup_numpy is not None
    assert g.speedup_baseline is None and g.cases[0].baseline_timing is None
    assert str(exc).splitlines()[0] in g.baseline_error or "frobnicate" in g.baseline_error
    assert set(g.cases[0].samples_ns) == {"candidate", "numpy"}


def test_hand_written_override_is_the_c_autopar_baseline(gemm_with_override, toolchains, fast_policy):
    k = gemm_with_override(EXAMPLES / "gemm.c")
    prepared = prepare_baseline(k, toolchains)
    assert prepared.hand_written and prepared.origin.endswith("gemm_c.c") and prepared.error is None
    assert prepared.build.flagset == "autopar"
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains, policy=fast_policy)
    assert g.status == "ok" and g.baseline_error is None, g.baseline_error
    assert g.baseline_origin.endswith("gemm_c.c")
    assert g.speedup_baseline is not None and "c-autopar" in g.cases[0].samples_ns


def test_crashing_baseline_leaves_the_candidate_graded(gemm_with_override, toolchains, fast_policy):
    k = gemm_with_override(CANDIDATES / "gemm_segfault.c")
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains, policy=fast_policy)
    assert g.status == "ok", g.message
    assert g.speedup_numpy is not None and g.speedup_baseline is None
    assert "SIGSEGV" in g.baseline_error and "c-autopar" in g.baseline_error
    assert set(g.cases[0].samples_ns) == {"candidate", "numpy"}


def test_hanging_baseline_leaves_the_candidate_graded(gemm_with_override, toolchains, fast_policy):
    k = gemm_with_override(CANDIDATES / "gemm_endless.c")
    policy = attrs.evolve(fast_policy, timeout_seconds=4.0)
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains, policy=policy)
    assert g.status == "ok", g.message
    assert "timeout" in g.baseline_error and g.speedup_baseline is None


def test_wrong_baseline_is_reported_and_its_time_unused(gemm_with_override, toolchains, fast_policy):
    k = gemm_with_override(CANDIDATES / "gemm_off_by_one.c")
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains, policy=fast_policy)
    assert g.status == "ok"
    assert "wrong" in g.baseline_error and g.speedup_baseline is None
    assert g.cases[0].baseline_timing is None and "c-autopar" not in g.cases[0].samples_ns


def test_baseline_that_does_not_compile(gemm_with_override, toolchains, fast_policy):
    k = gemm_with_override(CANDIDATES / "gemm_compile_error.c")
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains, policy=fast_policy)
    assert g.status == "ok" and "did not compile" in g.baseline_error and "undeclared_variable" in g.baseline_error


def test_crashing_candidate_is_not_blamed_on_a_sound_baseline(gemm_with_override, toolchains, fast_policy):
    k = gemm_with_override(EXAMPLES / "gemm.c")
    g = grade(k, candidate_from_file(CANDIDATES / "gemm_segfault.c"), [preset_case(k, "S")], toolchains,
              policy=fast_policy)
    assert g.status == "crashed" and "SIGSEGV" in g.cases[0].message and "'candidate'" in g.cases[0].message
    assert g.baseline_error is None


def test_grading_without_a_baseline(corpus, toolchains, fast_policy):
    k = corpus.get("s321_recurrence")
    g = _grade(k, S321_C, "c", toolchains, fast_policy, baseline=False)
    assert g.status == "ok" and g.baseline is None and g.speedup_baseline is None
    assert set(g.cases[0].samples_ns) == {"candidate", "numpy"}


# ---- the judge database --------------------------------------------------------------

def _version_1_database(path):
    raw = sqlite3.connect(path)
    raw.executescript(MIGRATIONS[0])
    raw.execute("PRAGMA user_version = 1")
    raw.execute("INSERT INTO environments(id, fingerprint) VALUES ('env1', '{}')")
    raw.execute("INSERT INTO grades VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                ("old", "2026-01-01T00:00:00Z", "k", "c", "gcc", "12", "opt", "x.c", "sha", "src", "key", "",
                 "ok", 1, "", 2.0, 1.5, 2.5, "{}", "env1"))
    raw.execute("INSERT INTO grade_cases VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                ("old", 0, "S", "{}", 0, "public", "ok", 1, "", 0.0, 0.0, 0.0, 10.0, 9.0, 11.0, 0, 20.0,
                 2.0, 1.5, 2.5))
    raw.execute("INSERT INTO samples VALUES ('old', 0, 'candidate', 1, ?)", (b"\x0a" + b"\0" * 7,))
    raw.commit()
    raw.close()


def test_version_1_database_is_migrated_in_place(tmp_path, corpus, toolchains, fast_policy):
    assert SCHEMA_VERSION >= 2
    path = tmp_path / "v1.db"
    _version_1_database(path)
    db = connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    old = load_grade(db, "old")
    assert old["speedup_numpy"] == 2.0 and old["baseline"] is None and old["speedup_baseline"] is None
    assert old["cases"][0]["numpy_median_ns"] == 20.0 and old["cases"][0]["baseline_median_ns"] is None
    assert list(old["cases"][0]["samples_ns"]["candidate"]) == [10]
    # New grades store their baseline next to the old rows.
    k = corpus.get("s321_recurrence")
    g = _grade(k, S321_C, "c", toolchains, fast_policy)
    save_grade(db, g)
    new = load_grade(db, g.id)
    assert new["baseline"] == "numba" and new["baseline_error"] is None
    assert new["speedup_baseline"] == g.speedup_baseline.value
    assert new["speedup_baseline_low"] == g.speedup_baseline.ci_low
    case = new["cases"][0]
    assert case["baseline_median_ns"] == g.cases[0].baseline_timing.median_ns
    assert case["speedup_baseline_high"] == g.cases[0].speedup_baseline.ci_high
    assert list(case["samples_ns"]["numba"]) == list(g.cases[0].samples_ns["numba"])
    assert db.execute("SELECT COUNT(*) FROM grades").fetchone()[0] == 2


def test_baseline_error_is_recorded(tmp_path, gemm_with_override, toolchains, fast_policy):
    k = gemm_with_override(CANDIDATES / "gemm_segfault.c")
    g = grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains, policy=fast_policy)
    db = connect(tmp_path / "judge.db")
    save_grade(db, g)
    stored = load_grade(db, g.id)
    assert stored["baseline"] == "c-autopar" and "SIGSEGV" in stored["baseline_error"]
    assert stored["speedup_baseline"] is None and stored["baseline_origin"].endswith("gemm_c.c")
