"""The translator: the corpus gate (every kernel translates, compiles and validates), the
subset's error reports, overrides, and what the emitted code looks like."""

import shutil
import subprocess
import textwrap

import pytest

from hpcab.build import Candidate, build
from hpcab.case import preset_case
from hpcab.corpus import load_corpus
from hpcab.grade import grade
from hpcab.kernel import load_kernel
from hpcab.timing.policy import Policy
from hpcab.translate import TranslateError, lint, override_path, translate
from hpcab.abi import free_form_lines
from tests.conftest import sample_kernels

KERNELS = load_corpus().kernels
# Graded through the judge: a seeded sample (every kernel's translations are checked
# in-process by test_corpus_sweep; benchmarks/corpus_sweep.py grades them all).
GATE_SAMPLE = sample_kernels(KERNELS, 8, "translate-gate", always=("gemm", "s321_recurrence"))
GATE_POLICY = Policy(warmup=1, min_repetitions=1, max_repetitions=2, target_seconds=0.0, timeout_seconds=120,
                     sessions=1)   # correctness: one measuring session is enough
# (language, flag set) pairs every kernel must pass through
VARIANTS = [("c", "opt"), ("c", "autopar"), ("fortran", "opt")]
M_SAMPLE = ("gemm", "jacobi_2d", "softmax", "s321_recurrence")


def _gate(kernel, toolchains, language, flagset, preset):
    t = translate(kernel, language, flagset)
    if t.hand_written:
        text = t.source
        assert "hpcab-override-reason:" in text, f"{t.origin}: an override must say why (hpcab-override-reason: ...)"
    g = grade(kernel, Candidate(t.source, language, label=f"translated-{language}-{flagset}"),
              [preset_case(kernel, preset)], toolchains, flagset, GATE_POLICY)
    assert g.status == "ok", f"{kernel.id} {language}/{flagset} at {preset}: {g.status}: {g.message}\n" \
                             f"{g.build.diagnostics[:3000]}"
    return t


@pytest.mark.parametrize("kernel", GATE_SAMPLE, ids=[k.name for k in GATE_SAMPLE])
def test_gate_sampled_kernels_translate_compile_and_grade_ok_at_s(kernel, toolchains):
    for language, flagset in VARIANTS:
        _gate(kernel, toolchains, language, flagset, "S")


@pytest.mark.slow
@pytest.mark.parametrize("name", M_SAMPLE)
def test_gate_sample_at_m(name, toolchains, corpus):
    kernel = corpus.get(name)
    for language, flagset in (("c", "opt"), ("fortran", "opt")):
        _gate(kernel, toolchains, language, flagset, "M")


def test_cpp_translation_of_a_complex_kernel(corpus, toolchains):
    _gate(corpus.get("fft"), toolchains, "cpp", "opt", "S")


def test_autopar_adds_openmp_only_to_independent_loops(corpus):
    serial = translate(corpus.get("jacobi_2d"), "c", "opt").source
    par = translate(corpus.get("jacobi_2d"), "c", "autopar").source
    assert "#pragma omp" not in serial
    assert par.count("#pragma omp parallel for") == 2          # the two sweeps, not the time loop
    recurrence = translate(corpus.get("s321_recurrence"), "c", "autopar").source
    assert "#pragma omp" not in recurrence                     # a loop-carried dependence stays serial


def test_autopar_runs_a_serial_copy_of_a_loop_too_small_for_threads(corpus):
    # An OpenMP if() clause still outlines the loop into a one-thread region, which cost
    # crc32 1.7x against serial C at S (benchmarks/autopar_scaling.py): the small case must be
    # the serial loop itself.
    par = translate(corpus.get("crc32"), "c", "autopar").source.splitlines()
    pragmas = [i for i, ln in enumerate(par) if "#pragma omp parallel for" in ln]
    assert pragmas and not any(" if(" in par[i] for i in pragmas)
    for i in pragmas:
        assert par[i - 1].strip().startswith("if (") and par[i - 1].strip().endswith(">= 16384) {")
        end = next(j for j in range(i, len(par)) if par[j].strip() == "} else {")
        assert [ln.strip() for ln in par[i + 1:end]] == [ln.strip() for ln in par[end + 1:end + end - i]]


def test_generated_code_is_readable_and_uses_the_abi(corpus):
    k = corpus.get("gemm")
    c = translate(k, "c").source
    assert "void gemm(" in c and "const double *restrict A" in c
    f = translate(k, "fortran").source
    assert 'bind(C, name="gemm")' in f and "real(c_double), intent(inout) :: C(0:NJ - 1, 0:NI - 1)" in f


# ---- outside the subset -------------------------------------------------------------

BAD_REFERENCES = {
    "while_loop": ("""
        def k(a, y, N):
            i = 0
            while i < N:
                y[i] = a[i]
                i = i + 1
        """, "while loops are outside the subset", "for ... in range"),
    "boolean_mask": ("""
        def k(a, y, N):
            y[:] = 0.0
            y[a > 0.0] = a[a > 0.0]
        """, "boolean-mask indexing", "np.where"),
    "library_call": ("""
        def k(a, y, N):
            y[:] = np.fft.fft(a).real
        """, "np.fft.fft hides an algorithm", "spell the algorithm out with loops"),
    "array_rebinding": ("""
        def k(a, y, N):
            t = a * 2.0
            y[:] = t
        """, "binding an array expression to the name 't'", "np.empty"),
}


def _kernel_with_body(tmp_path, body: str):
    root = tmp_path / "corpus"
    kdir = root / "machine_learning" / "k"
    kdir.mkdir(parents=True)
    (kdir / "k.yaml").write_text(textwrap.dedent("""
        description: a deliberately broken kernel for the lint tests
        provenance: hpcab tests
        level: 1
        sizes: [N]
        presets: {S: {N: 8}, M: {N: 16}, L: {N: 32}}
        arrays:
          - {name: a, shape: [N], dtype: float64, intent: in}
          - {name: y, shape: [N], dtype: float64, intent: out}
        precision: float64
        """))
    (kdir / "k_numpy.py").write_text("import numpy as np\n\n\ndef initialize(rng, N):\n"
                                     "    return {'a': rng.standard_normal(N)}\n\n" + textwrap.dedent(body))
    return load_kernel(kdir, root)


@pytest.mark.parametrize("case", sorted(BAD_REFERENCES))
def test_outside_the_subset_is_an_error_with_file_line_and_hint(tmp_path, case):
    body, message, hint = BAD_REFERENCES[case]
    k = _kernel_with_body(tmp_path, body)
    diags = lint(k)
    assert diags, "expected a diagnostic"
    d = diags[0]
    assert d.path.endswith("k_numpy.py") and d.line > 5
    assert message in d.message, str(d)
    assert hint in d.hint, str(d)
    with pytest.raises(TranslateError) as err:      # never wrong code
        translate(k, "c")
    assert f"k_numpy.py:{d.line}:" in str(err.value)
    assert not any("could not be defined" in x.message or "unknown name" in x.message for x in diags), \
        "an error's consequences are not reported again"


def test_every_corpus_kernel_lints_clean():
    assert {k.name: [str(d) for d in lint(k)] for k in KERNELS if lint(k)} == {}


def test_every_fortran_translation_is_standard_free_form(tmp_path):
    """Lines within 132 columns, so gfortran compiles them without -ffree-line-length-none
    (one file holding every kernel's subroutine, compiled once: -fsyntax-only)."""
    gfortran = shutil.which("gfortran")
    if gfortran is None:
        pytest.skip("gfortran is not installed")
    sources = {k.name: translate(k, "fortran", "opt").source for k in KERNELS}
    long = {name: max(len(ln) for ln in text.splitlines()) for name, text in sources.items()
            if any(len(ln) > 132 for ln in text.splitlines())}
    assert long == {}
    path = tmp_path / "corpus.f90"
    path.write_text("".join(sources.values()))
    out = subprocess.run([gfortran, "-std=f2008", "-fsyntax-only", "-Werror=line-truncation", path.name],
                         cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]


def test_a_long_statement_is_continued_at_spaces_and_a_long_comment_as_comments():
    stmt = "    x = " + " + ".join(f"a({i})" for i in range(60))
    lines = free_form_lines(stmt)
    assert len(lines) > 1 and all(len(ln) <= 132 for ln in lines)
    assert all(ln.endswith(" &") for ln in lines[:-1])
    assert " ".join(ln.removesuffix(" &").strip() for ln in lines).split() == stmt.split()
    comment = "! " + "word " * 60
    assert [ln.startswith("! ") and len(ln) <= 132 for ln in free_form_lines(comment)] == [True] * 3
    assert free_form_lines("  y = 1") == ["  y = 1"]


# ---- overrides ----------------------------------------------------------------------

def test_override_replaces_the_generated_source_and_is_reported(tmp_path, corpus, toolchains):
    src = corpus.get("gemm").directory
    root = tmp_path / "corpus"
    dest = root / "scientific_computing" / "dense_linear_algebra" / "gemm"
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", "*_c.c", "*_fortran.f90"))
    k = load_kernel(dest, root)
    assert not translate(k, "c").hand_written
    from tests.conftest import EXAMPLES
    override_path(k, "c").write_text("/* hpcab-override-reason: hand-tuned loop order for the tests */\n"
                                     + (EXAMPLES / "gemm.c").read_text())
    t = translate(k, "c")
    assert t.hand_written and t.origin.endswith("gemm_c.c")
    assert build(Candidate(t.source, "c"), toolchains).ok
    assert not translate(k, "fortran").hand_written          # only the language that has one
