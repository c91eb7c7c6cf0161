"""`hpcab new-kernel` and `hpcab calibrate`: a kernel author's first hour, in a private corpus."""

import math
import shutil
import subprocess
import sys

import pytest
import yaml

from hpcab.build import candidate_from_file
from hpcab.calibrate import calibrate, rewrite_presets, work
from hpcab.case import explicit_case
from hpcab.cli import main as cli_main
from hpcab.corpus import load_corpus
from hpcab.errors import InputError
from hpcab.grade import grade
from hpcab.kernel import load_kernel
from hpcab.refcheck import checks_in, coverage_problems, expand, load_check_module
from hpcab.schema import validate
from tests.conftest import ROOT


def hpcab(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "hpcab", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)


@pytest.fixture
def root(tmp_path):
    (tmp_path / "corpus").mkdir()
    return tmp_path / "corpus"


def _scaffold(root, path):
    out = hpcab("new-kernel", path, "--corpus", str(root))
    assert out.returncode == 0, out.stderr
    return out


@pytest.mark.parametrize("path", ["loop_level_reasoning/s000_scaled_rows", "machine_learning/tiny_gemv",
                                  "scientific_computing/dense_linear_algebra/my_gemv"])
def test_scaffold_loads_lints_and_its_stub_is_named(root, path):
    out = _scaffold(root, path)
    name = path.rsplit("/", 1)[1]
    folder = root / path
    assert sorted(p.name for p in folder.iterdir()) == sorted([f"{name}.yaml", f"{name}_numpy.py",
                                                               f"{name}_check.py"])
    assert f"hpcab calibrate {name} --corpus {root} --write" in out.stdout
    assert f"tests/test_corpus_references.py -k {name}" in out.stdout
    doc = yaml.safe_load((folder / f"{name}.yaml").read_text())
    validate(doc, "manifest", "scaffold")
    assert {"description", "provenance", "presets", "roofline", "precision", "level"} <= set(doc)
    assert ("tsvc" in doc) == path.startswith("loop_level") and ("scale" in doc) == path.startswith("scientific")

    lint = hpcab("lint", name, "--corpus", str(root))
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert "1 clean" in lint.stdout

    corpus = load_corpus(root)
    k = corpus.get(name)
    assert k.track == path.split("/")[0] and k.check_path.is_file()
    problems = coverage_problems(corpus.kernels, root)
    assert len(problems) == 1 and problems[0].startswith(f"{name}: ") and "unedited stub" in problems[0]

    # The stub's example check is a real one for the example computation: with STUB removed
    # it passes, and the coverage logic is satisfied.
    check = k.check_path
    check.write_text(check.read_text().replace("STUB = True\n", ""))
    assert coverage_problems(corpus.kernels, root) == []
    module = load_check_module(k)
    runs = [(fn, kw) for fn in checks_in(module) for _, kw in expand(fn)]
    assert len(runs) == 3
    for fn, kw in runs:
        fn(k, **kw)


def test_coverage_names_kernels_without_checks_and_stray_check_files(root, corpus):
    for name in ("gemm", "softmax"):
        k = corpus.get(name)
        shutil.copytree(k.directory, root / k.id, ignore=shutil.ignore_patterns("__pycache__", "*_check.py"))
    empty = root / "machine_learning" / "softmax" / "softmax_check.py"
    empty.write_text("import numpy\n\ndef helper(kernel):\n    pass\n")
    stray = root / "machine_learning" / "notakernel"
    stray.mkdir()
    (stray / "notakernel_check.py").write_text("def check_x(kernel):\n    pass\n")
    problems = coverage_problems(load_corpus(root).kernels, root)
    assert any(p.startswith("gemm: no independent check (gemm_check.py is missing)") for p in problems)
    assert any(p.startswith("softmax: softmax_check.py defines no check_* function") for p in problems)
    assert any(p.startswith("machine_learning/notakernel/notakernel_check.py: a check file in a folder that is "
                            "no kernel") for p in problems)
    assert len(problems) == 3


def test_scaffolded_kernel_grades(root, toolchains, fast_policy, tmp_path):
    _scaffold(root, "machine_learning/tiny_gemv")
    k = load_corpus(root).get("tiny_gemv")
    source = tmp_path / "tiny_gemv.c"
    source.write_text(
        "#include <stdint.h>\n"
        "void tiny_gemv(const float *restrict A, const float *restrict x, float *restrict y, float alpha,\n"
        "               int64_t M, int64_t N, uint8_t *restrict workspace, int64_t workspace_size) {\n"
        "  for (int64_t i = 0; i < M; i++) {\n"
        "    float s = 0.0f;\n"
        "    for (int64_t j = 0; j < N; j++) s += A[i * N + j] * x[j];\n"
        "    y[i] = alpha * s + y[i];\n"
        "  }\n"
        "}\n")
    g = grade(k, candidate_from_file(source), [explicit_case(k, {"M": 300, "N": 200}, 0, label="S")],
              toolchains, policy=fast_policy, baseline=False, roofline=False)
    assert g.correct, g.cases[0].message if g.cases else g


@pytest.mark.parametrize("path,message", [
    ("machine_learnin/foo", "unknown track 'machine_learnin'; expected one of: loop_level_reasoning, "
                            "scientific_computing, machine_learning; did you mean machine_learning?"),
    ("scientific_computing/dense_linar_algebra/foo", "unknown dwarf 'dense_linar_algebra'; expected one of: "
                                                     "dense_linear_algebra, "),
    ("scientific_computing/dense_linar_algebra/foo", "; did you mean dense_linear_algebra?"),
    ("scientific_computing/foo", "scientific_computing kernels live under a dwarf"),
    ("machine_learning/structured_grids/foo", "only scientific_computing kernels have a dwarf folder"),
    ("machine_learning/Foo-bar", "'Foo-bar' is not a valid kernel name"),
    ("machine_learning/class", "'class' is not a valid kernel name"),
    ("machine_learning", "expected TRACK/NAME"),
])
def test_refusals(root, capsys, path, message):
    assert cli_main(["new-kernel", path, "--corpus", str(root)]) == 2
    err = capsys.readouterr().err
    assert message in " ".join(err.split()) and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert list(root.iterdir()) == []


def test_refuses_a_used_name_and_an_existing_folder(root, capsys):
    _scaffold(root, "machine_learning/tiny_gemv")
    assert cli_main(["new-kernel", "loop_level_reasoning/tiny_gemv", "--corpus", str(root)]) == 2
    assert "'tiny_gemv' is already the name of the kernel in machine_learning/tiny_gemv" in capsys.readouterr().err
    (root / "machine_learning" / "half_made").mkdir()
    assert cli_main(["new-kernel", "machine_learning/half_made", "--corpus", str(root)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert not (root / "loop_level_reasoning").exists()


def test_calibrate_grows_tiny_presets_and_write_keeps_comments(root):
    _scaffold(root, "machine_learning/tiny_gemv")
    manifest = root / "machine_learning" / "tiny_gemv" / "tiny_gemv.yaml"
    before = manifest.read_text()
    tiny = yaml.safe_load(before)["presets"]
    # A small budget: the current tiny presets are measured, then what fits of the proposals.
    out = hpcab("calibrate", "tiny_gemv", "--corpus", str(root), "--max-seconds", "4", "--write")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "current S {M: 64, N: 48}:" in out.stderr and "ms" in out.stderr
    assert "presets:\n  S: {M: " in out.stdout and "wrote the presets into" in out.stdout
    after = manifest.read_text()
    proposed = yaml.safe_load(after)["presets"]
    for p in ("S", "M", "L"):
        assert all(proposed[p][s] > tiny[p][s] for s in ("M", "N")), (p, proposed[p])
    k = load_kernel(manifest.parent, root)       # validates again
    assert work(k, k.presets["S"]) < work(k, k.presets["M"]) <= work(k, k.presets["L"])
    comments = [ln for ln in before.splitlines() if ln.lstrip().startswith("#")]
    assert comments and all(c in after.splitlines() for c in comments)
    assert [ln for ln in before.splitlines() if "presets" not in ln and not ln.startswith("  S:")
            and not ln.startswith("  M:") and not ln.startswith("  L:")] == \
        [ln for ln in after.splitlines() if "presets" not in ln and not ln.startswith("  S:")
         and not ln.startswith("  M:") and not ln.startswith("  L:")]


def test_proposals_respect_constraints_and_hit_a_known_cost(corpus):
    """With a known cost (time proportional to the roofline's work), the proposals land near
    each target and keep fft's N == 2 ** LOGN."""
    k = corpus.get("fft")
    rate = 3e-9

    def cost(kernel, sizes):
        return rate * work(kernel, sizes)
    result = calibrate(k, max_seconds=30, measure=cost)
    for p, target in (("S", 0.01), ("M", 0.1), ("L", 1.0)):
        sizes = result["proposed"][p]
        assert sizes["N"] == 2 ** sizes["LOGN"]
        assert abs(math.log(cost(k, sizes) / target)) < math.log(2.5), (p, sizes)
    assert result["exponent"] == pytest.approx(1.0, abs=0.05)


def test_write_refuses_what_no_longer_validates(root):
    _scaffold(root, "machine_learning/tiny_gemv")
    k = load_corpus(root).get("tiny_gemv")
    before = k.manifest_path.read_text()
    with pytest.raises(InputError) as info:
        rewrite_presets(k, {"S": {"M": 0, "N": -1}, "M": {"M": 5, "N": 5}, "L": {"M": 6, "N": 6}})
    assert "presets.S" in str(info.value)
    assert k.manifest_path.read_text() == before


def test_presets_grow_from_s_to_l_when_the_memory_limit_caps_l(root):
    """M's 100 ms lands just under 2 GB, so L is cut at the memory limit, a little below M's
    sizes: L must still come out no smaller than M (CI once wrote an M of 26733 x 20050 and an
    L of 26727 x 20045)."""
    _scaffold(root, "machine_learning/tiny_gemv")
    k = load_corpus(root).get("tiny_gemv")
    rate = 0.1 / work(k, {"M": 26733, "N": 20050})      # M's target work is just under the limit

    def cost(kernel, sizes):
        return rate * work(kernel, sizes)
    result = calibrate(k, max_seconds=30, measure=cost)
    w = {p: work(k, result["proposed"][p]) for p in ("S", "M", "L")}
    assert w["S"] < w["M"] <= w["L"], result["proposed"]
    assert result["proposed"]["L"] == result["proposed"]["M"] == {"M": 26733, "N": 20050}
