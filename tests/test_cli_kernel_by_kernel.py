"""Commands work kernel by kernel, and a user's mistake is one line that names the file,
field or flag: the CLI run in-process (main) on a private project root (HPCAB_ROOT) whose
corpus holds a few copied kernels and the broken ones each test makes."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hpcab.build import Candidate, build, cite_source
from hpcab.cli import main
from hpcab.corpus import load_corpus
from hpcab.errors import HpcabError, InputError, did_you_mean

from .conftest import ROOT, edit_manifest

KERNELS = ("scientific_computing/dense_linear_algebra/gemm", "machine_learning/softmax")
GEMM = "scientific_computing/dense_linear_algebra/gemm"


def make_project(root: Path) -> Path:
    """A project root: the real toolchains/ and schemas/, a corpus of copied kernels."""
    root.mkdir(parents=True, exist_ok=True)
    for name in ("toolchains", "schemas"):
        (root / name).symlink_to(ROOT / name)
    for kid in KERNELS:
        shutil.copytree(ROOT / "corpus" / kid, root / "corpus" / kid,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return root / "corpus"


@pytest.fixture
def corpus_dir(tmp_path, monkeypatch):
    corpus = make_project(tmp_path / "project")
    monkeypatch.setenv("HPCAB_ROOT", str(tmp_path / "project"))
    return corpus


def run(capsys, *argv) -> tuple[int, str, str]:
    try:
        rc = main(list(argv))
    except SystemExit as exc:          # argparse's usage errors
        rc = exc.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def broken_manifest(corpus: Path) -> Path:
    """machine_learning/broken: a manifest without its required provenance."""
    folder = corpus / "machine_learning" / "broken"
    shutil.copytree(corpus / "machine_learning" / "softmax", folder)
    (folder / "softmax.yaml").rename(folder / "broken.yaml")
    (folder / "softmax_numpy.py").rename(folder / "broken_numpy.py")
    edit_manifest(folder / "broken.yaml", lambda d: d.pop("provenance"))
    return folder / "broken.yaml"


# ---- 1-3: the corpus loads kernel by kernel ---------------------------------------------

def test_lint_all_reports_a_kernel_without_its_reference_and_lints_the_rest(corpus_dir, capsys):
    folder = corpus_dir / "scientific_computing" / "dense_linear_algebra" / "syrk"
    folder.mkdir()
    shutil.copy(corpus_dir / GEMM / "gemm.yaml", folder / "syrk.yaml")     # the yaml written, not yet the NumPy
    rc, out, err = run(capsys, "lint", "all")
    assert rc == 1 and "Traceback" not in out + err
    assert f"{folder / 'syrk_numpy.py'}: reference file is missing" in out
    assert "3 kernel(s) linted: 2 clean, 1 with 1 diagnostic(s) (syrk)" in out


def test_one_broken_manifest_leaves_every_other_kernel_usable(corpus_dir, capsys):
    manifest = broken_manifest(corpus_dir)
    problem = f"{manifest}: provenance: 'provenance' is required but missing"

    rc, out, err = run(capsys, "list")
    assert rc == 0 and "gemm" in out and "softmax" in out and "2 kernel(s)" in out
    assert "1 kernel(s) do not load" in out and problem in out
    rc, out, _ = run(capsys, "list", "--kernels", "machine_learning")     # covered by its track: shown, exit 0
    assert rc == 0 and problem in out and "gemm" not in out
    rc, out, _ = run(capsys, "list", "--kernels", "gemm,broken")          # asked for by name: exit 1
    assert rc == 1 and "gemm" in out and problem in out

    rc, out, _ = run(capsys, "show", "gemm")
    assert rc == 0 and out.startswith(GEMM)
    rc, out, err = run(capsys, "show", "broken")
    assert rc == 2 and err == f"error: {problem}\n"

    rc, out, err = run(capsys, "translate", "gemm", "--language", "c")
    assert rc == 0 and "void gemm(" in out

    rc, out, err = run(capsys, "lint", "all")
    assert rc == 1 and problem in out
    assert out.splitlines()[-1] == "2 kernel(s) linted: 2 clean; 1 do not load (machine_learning/broken)"


def test_a_copied_folder_holding_the_old_manifest_name_is_reported(corpus_dir, capsys):
    copy = corpus_dir / "scientific_computing" / "dense_linear_algebra" / "syrk"
    shutil.copytree(corpus_dir / GEMM, copy)
    rc, out, _ = run(capsys, "list")
    assert rc == 0
    line = [ln for ln in out.splitlines() if "syrk" in ln]
    assert line == [f"  {copy / 'gemm.yaml'}: a kernel's manifest is named after its folder: expected syrk.yaml "
                    "(a copied kernel? rename gemm.yaml to syrk.yaml and gemm_numpy.py to syrk_numpy.py)"]
    rc, _, err = run(capsys, "show", "syrk")
    assert rc == 2 and "expected syrk.yaml" in err


def test_broken_kernels_raise_their_own_problem_from_get_and_select(corpus_dir):
    manifest = broken_manifest(corpus_dir)
    corpus = load_corpus(corpus_dir)
    assert [k.name for k in corpus.kernels] == ["softmax", "gemm"]
    assert [(b.id, b.error.source, b.error.field) for b in corpus.broken] == [
        ("machine_learning/broken", str(manifest), "provenance")]
    for lookup in (lambda: corpus.get("broken"), lambda: corpus.get("machine_learning/broken"),
                   lambda: corpus.select("gemm,broken")):
        with pytest.raises(InputError) as err:
            lookup()
        assert err.value.source == str(manifest) and err.value.field == "provenance"
    assert [k.name for k in corpus.select("machine_learning")] == ["softmax"]     # the track's others
    assert [k.name for k in corpus.select("gemm,broken", skip_broken=True)] == ["gemm"]
    assert corpus.broken_in("machine_learning") == corpus.broken and corpus.broken_in("gemm") == ()


def test_two_kernels_sharing_a_name_are_both_broken(corpus_dir):
    twin = corpus_dir / "machine_learning" / "gemm"
    shutil.copytree(corpus_dir / GEMM, twin)
    edit_manifest(twin / "gemm.yaml", lambda d: d.pop("scale"))      # a valid machine_learning manifest
    corpus = load_corpus(corpus_dir)
    assert [k.name for k in corpus.kernels] == ["softmax"]
    assert sorted(b.id for b in corpus.broken) == ["machine_learning/gemm", GEMM]
    with pytest.raises(InputError, match=f"kernel name 'gemm' is also used by {GEMM}"):
        corpus.get("machine_learning/gemm")


def test_a_judge_refuses_a_selection_holding_a_broken_kernel_and_warns_of_the_others(corpus_dir, tmp_path):
    broken_manifest(corpus_dir)
    corpus = load_corpus(corpus_dir)
    for selector in (None, "machine_learning", "broken"):
        with pytest.raises(HpcabError, match="broken.yaml: provenance"):
            corpus.refuse_broken(selector, warn=lambda msg: None)
    warnings = []
    corpus.refuse_broken("gemm", warn=warnings.append)
    assert len(warnings) == 1 and "machine_learning/broken does not load" in warnings[0]

    # hpcab serve itself, a real child: it exits before listening, naming the file
    env = dict(os.environ, HPCAB_ROOT=str(corpus_dir.parent))
    proc = subprocess.run([sys.executable, "-m", "hpcab", "serve", "--db", str(tmp_path / "j.db"), "--port", "0",
                           "--unsandboxed"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "broken.yaml: provenance" in proc.stderr.splitlines()[-1], proc.stderr


# ---- 4-5: translate checks the reference; show prints the roofline and the baseline ----

def test_translate_refuses_a_reference_whose_parameters_are_out_of_order(corpus_dir, capsys):
    ref = corpus_dir / GEMM / "gemm_numpy.py"
    text = ref.read_text()
    assert "def gemm(A, B, C," in text
    ref.write_text(text.replace("def gemm(A, B, C,", "def gemm(B, A, C,"))
    rc, out, err = run(capsys, "translate", "gemm", "--language", "c")
    assert rc == 2 and out == ""
    assert err.startswith(f"error: {ref}: gemm: parameters are (B, A, C,")


def test_show_prints_the_roofline_at_each_preset_and_the_baseline(corpus_dir, capsys):
    corpus = load_corpus(corpus_dir)
    rc, out, _ = run(capsys, "show", "gemm")
    assert rc == 0
    k = corpus.get("gemm")
    assert f"roofline (lower bounds): flops {k.roofline.flops}; bytes {k.roofline.bytes}" in out
    for preset in ("S", "M", "L"):
        flops, nbytes = k.roofline.evaluate(k.presets[preset])
        assert f"  preset {preset}: {flops:,} flop, {nbytes:,} bytes" in out
    assert "baseline (scientific_computing): c-autopar, the translator's C, built with the autopar flag set" in out
    rc, out, _ = run(capsys, "show", "softmax")
    assert "baseline (machine_learning): numpy, the NumPy reference itself" in out


# ---- 6: build errors cite the user's file ----------------------------------------------

def test_a_build_error_cites_the_users_file_name(toolchains, tmp_path):
    source = "#include <stdint.h>\nvoid f(void)\n{\n    int x = undeclared_variable;\n}\n"
    built = build(Candidate(source, "c", label="my_gemm.c"), toolchains, cache_root=tmp_path)
    assert not built.ok and "my_gemm.c:4:13: error: 'undeclared_variable' undeclared" in built.diagnostics
    assert "candidate.c" not in built.diagnostics
    again = build(Candidate(source, "c", label="other.c"), toolchains, cache_root=tmp_path)
    assert again.cached and "other.c:4:13: error" in again.diagnostics       # the cache holds no label


def test_cite_source_replaces_only_the_copys_name():
    text = ("In file included from /build/candidate.c:1:\ncandidate.c:8:11: error: x\n"
            "  File \"candidate.c\", line 3\nmycandidate.c: candidate.cpp candidate.c.\n")
    assert cite_source(text, "candidate.c", "gemm.c") == (
        "In file included from gemm.c:1:\ngemm.c:8:11: error: x\n  File \"gemm.c\", line 3\n"
        "mycandidate.c: candidate.cpp gemm.c.\n")
    for label in ("harness:gemm", "roofline-probe", "", "two words.c"):     # not a file name: left alone
        assert cite_source(text, "candidate.c", label) == text


# ---- 7-8: flags named, and "did you mean" -----------------------------------------------

def test_an_unknown_preset_is_blamed_on_the_flag(corpus_dir, capsys):
    example = str(ROOT / "examples" / "gemm.c")
    for argv in (("grade", "gemm", "--source", example, "--preset", "XL"), ("baseline", "gemm", "--preset", "S,XL")):
        rc, _, err = run(capsys, *argv)
        assert rc == 2
        assert err == "error: --preset: XL: gemm has no such preset; expected one of S, M, L, or several: S,M; " \
                      "did you mean L?\n"


@pytest.mark.parametrize("argv, line", [
    (("show", "gemn"), "`hpcab list` shows them; did you mean gemm?"),
    (("list", "--kernels", "gemm,dense_linear_algebr"), "did you mean dense_linear_algebra?"),
    (("lint", "GEMM"), "did you mean gemm?"),
    (("grade", "gemm", "--source", str(ROOT / "examples" / "gemm.c"), "--flags", "opt3"),
     "error: --flags: opt3: no such flag set in toolchains/; expected one of autopar, debug, harness, opt, profile, report, unroll; "
     "did you mean opt?"),
])
def test_a_mistyped_name_gets_a_did_you_mean(corpus_dir, capsys, argv, line):
    rc, _, err = run(capsys, *argv)
    assert rc == 2 and len(err.splitlines()) == 1 and err.startswith("error: ") and line in err


def test_did_you_mean_offers_only_close_choices():
    assert did_you_mean("structured_grid", ["structured_grids", "spectral_methods"]) == \
        "; did you mean structured_grids?"
    assert did_you_mean("s", ["S", "M", "L"]) == "; did you mean S?"
    assert did_you_mean("zzz", ["gemm", "softmax"]) == ""


# ---- 9-10: one unwrapped line for each mistake -----------------------------------------

def test_errors_are_one_unwrapped_line_when_piped(tmp_path):
    deep = tmp_path / ("a_folder_with_a_long_name_" * 6) / "project"
    make_project(deep)
    env = dict(os.environ, HPCAB_ROOT=str(deep), COLUMNS="80")
    missing = deep / "no_such_candidate_with_a_long_name.c"
    for argv, expected in ((["show", "gemn"], f"error: kernel: gemn: no such kernel in {deep / 'corpus'}; "
                                              "`hpcab list` shows them; did you mean gemm?"),
                           (["grade", "gemm", "--source", str(missing)], f"error: {missing}: no such file")):
        proc = subprocess.run([sys.executable, "-m", "hpcab", *argv], capture_output=True, text=True, env=env,
                              cwd=ROOT, timeout=60)
        assert proc.returncode == 2 and proc.stderr == expected + "\n"
        assert len(expected) > 160


def manifest_not_yaml(corpus: Path) -> tuple[Path, str]:
    path = corpus / GEMM / "gemm.yaml"
    path.write_text(path.read_text() + "arrays: [\n")
    return path, "line"


def manifest_without_level(corpus: Path) -> tuple[Path, str]:
    path = corpus / GEMM / "gemm.yaml"
    edit_manifest(path, lambda d: d.pop("level"))
    return path, "level"


def manifest_empty(corpus: Path) -> tuple[Path, str]:
    path = corpus / GEMM / "gemm.yaml"
    path.write_text("")
    return path, "the file is empty"


@pytest.mark.parametrize("breaks", [manifest_not_yaml, manifest_without_level, manifest_empty])
def test_a_broken_manifest_is_one_line_naming_the_file_and_field(corpus_dir, capsys, breaks):
    path, field = breaks(corpus_dir)
    rc, out, err = run(capsys, "show", "gemm")
    assert rc == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"error: {path}: {field}"), err


@pytest.mark.parametrize("make, flag, expected", [
    (lambda d: d / "missing.c", None, "missing.c: no such file"),
    (lambda d: d, None, "is a folder; expected the candidate's source file"),
    (lambda d: (d / "empty.c").write_text("\n") and d / "empty.c", None, "empty.c: the file is empty"),
    (lambda d: (d / "gemm.rs").write_text("fn main() {}") and d / "gemm.rs", None,
     "gemm.rs: language: cannot tell the language from '.rs'; pass --language"),
    (lambda d: ROOT / "examples" / "gemm.c", ("--threads", "0"), "argument --threads: '0': expected a whole number"),
    (lambda d: ROOT / "examples" / "gemm.c", ("--threads", "4096"), "--threads: 4096: this machine lets hpcab use"),
    (lambda d: ROOT / "examples" / "gemm.c", ("--timeout", "-5"), "argument --timeout: '-5': expected a positive"),
    (lambda d: ROOT / "examples" / "gemm.c", ("--db", "."), "--db: .: is a folder; expected a judge database"),
])
def test_bad_grade_input_is_one_line_naming_the_file_or_flag(corpus_dir, capsys, tmp_path, make, flag, expected):
    rc, out, err = run(capsys, "grade", "gemm", "--source", str(make(tmp_path)), *(flag or ()))
    assert rc == 2 and out == "" and "Traceback" not in err
    last = err.splitlines()[-1]                 # argparse puts its usage line first
    assert last.startswith(("error: ", "hpcab grade: error: ")) and expected in last, err
