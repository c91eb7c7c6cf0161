"""Manifests: every corpus manifest validates; broken ones get errors naming file and field."""

import re

import pytest

from hpcab.corpus import load_corpus
from hpcab.errors import InputError
from hpcab.kernel import TRACKS, load_kernel

from .conftest import edit_manifest, load_error


def test_every_corpus_manifest_and_reference_loads(corpus):
    # The corpus loads kernel by kernel: a broken one would be left out of the tests that
    # iterate corpus.kernels, so the project's own corpus must have none.
    assert corpus.broken == (), "\n".join(b.describe() for b in corpus.broken)
    assert len(corpus.kernels) >= 16
    for k in corpus.kernels:
        ref = k.reference()            # signature checks run here
        assert callable(ref.function) and callable(ref.initialize)


def test_every_corpus_manifest_declares_its_size_ranges(corpus):
    import yaml
    missing = [k.id for k in corpus.kernels if "ranges" not in yaml.safe_load(k.manifest_path.read_text())]
    assert not missing, f"no ranges: in {', '.join(missing)} (docs/manifest.md, Hidden sizes)"


def test_corpus_covers_tracks_dwarfs_and_dtypes(corpus):
    assert {k.track for k in corpus.kernels} == set(TRACKS)
    assert len({k.dwarf for k in corpus.kernels if k.dwarf}) >= 5
    dtypes = {a.dtype for k in corpus.kernels for a in k.buffer_specs()}
    assert {"float32", "float64", "int32", "uint8", "complex128"} <= dtypes
    tsvc = {k.tsvc["category"] for k in corpus.kernels if k.tsvc}
    assert {"reduction", "recurrence", "wavefront", "control_flow"} <= tsvc


def test_unknown_key_names_file_and_key(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d.update(flops="2*NI*NJ*NK"))
    err = load_error(kdir)
    assert err.source.endswith("gemm.yaml")
    assert err.field == "flops" and "unknown key" in err.message


@pytest.mark.parametrize("name", ["I", "int"])
def test_a_size_named_like_a_c_macro_or_keyword_is_refused(kernel_copy, name):
    # complex.h defines I: a size named I turned the generated C's parameter into a complex
    # constant and the build failed with a message about __extension__.
    kdir = kernel_copy("gemm")
    text = (kdir / "gemm.yaml").read_text()
    (kdir / "gemm.yaml").write_text(re.sub(r"\bNI\b", name, text))
    ref = kdir / "gemm_numpy.py"
    ref.write_text(re.sub(r"\bNI\b", name, ref.read_text()))
    err = load_error(kdir)
    assert err.source.endswith("gemm.yaml") and err.field == "sizes[0]"
    assert f"{name!r} is a C keyword or a macro" in err.message


def test_wrong_dtype_names_the_array_field(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d["arrays"][1].update(dtype="double"))
    err = load_error(kdir)
    assert err.source.endswith("gemm.yaml")
    assert err.field == "arrays[1].dtype"
    assert "'double'" in err.message and "float64" in err.message


def test_missing_required_field(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d.pop("provenance"))
    err = load_error(kdir)
    assert "provenance" in err.message and "required" in err.message


def test_shape_with_undeclared_symbol(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d["arrays"][0].update(shape=["NI", "Q"]))
    err = load_error(kdir)
    assert err.field == "arrays[0].shape[1]" and "Q" in err.message


def test_tolerance_override_needs_a_reason(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d.update(tolerance={"rtol": 1e-6}))
    err = load_error(kdir)
    assert err.field == "tolerance.reason" and "required" in err.message


def test_preset_missing_a_symbol(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d["presets"]["M"].pop("NK"))
    err = load_error(kdir)
    assert err.field == "presets.M" and "NK" in err.message


def test_missing_reference_function_names_file_and_function(kernel_copy):
    kdir = kernel_copy("gemm")
    ref = kdir / "gemm_numpy.py"
    ref.write_text(ref.read_text().replace("def gemm(", "def gemm_kernel("))
    err = load_error(kdir)
    assert err.source.endswith("gemm_numpy.py") and err.field == "gemm"
    assert "must define a function named 'gemm'" in err.message


def test_reference_parameters_must_follow_the_manifest(kernel_copy):
    kdir = kernel_copy("gemm")
    ref = kdir / "gemm_numpy.py"
    ref.write_text(ref.read_text().replace("def gemm(A, B, C, alpha, beta,", "def gemm(B, A, C, alpha, beta,"))
    err = load_error(kdir)
    assert err.field == "gemm" and "expected (A, B, C, alpha, beta, NI, NJ, NK)" in err.message


def test_track_fields_are_enforced(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d.pop("scale"))
    err = load_error(kdir)
    assert err.field == "scale"


def test_path_is_the_id(kernel_copy):
    kdir = kernel_copy("gemm")
    k = load_kernel(kdir, kdir.parents[2])
    assert (k.track, k.dwarf, k.name) == ("scientific_computing", "dense_linear_algebra", "gemm")
    assert k.id == "scientific_computing/dense_linear_algebra/gemm"


def test_unknown_dwarf_folder_is_rejected(tmp_path, kernel_copy):
    kdir = kernel_copy("gemm")
    bad = kdir.parents[1] / "linear_stuff" / "gemm"
    bad.parent.mkdir()
    kdir.rename(bad)
    corpus = load_corpus(bad.parents[2])          # kept as broken, the rest of the corpus still loads
    assert [b.id for b in corpus.broken] == ["scientific_computing/linear_stuff/gemm"]
    with pytest.raises(InputError, match="unknown dwarf 'linear_stuff'"):
        corpus.get("gemm")


def test_selectors(corpus):
    assert [k.name for k in corpus.select("gemm")] == ["gemm"]
    structured = corpus.select("structured_grids")
    assert structured and all(k.dwarf == "structured_grids" for k in structured)
    l2 = corpus.select("L2")
    assert l2 and all(k.level == 2 for k in l2)
    mixed = corpus.select("gemm,structured_grids,machine_learning")
    assert {k.track for k in mixed} == {"scientific_computing", "machine_learning"}
    assert len(mixed) == len(set(mixed))
    with pytest.raises(InputError, match="no_such_thing"):
        corpus.select("gemm,no_such_thing")


def test_selectors_take_tags_tsvc_categories_and_ids(corpus):
    tagged = corpus.select("if_conversion")
    assert "s271_conditional" in {k.name for k in tagged}
    assert all("if_conversion" in k.tags for k in tagged)
    reductions = corpus.select("reduction")          # a TSVC category, and a tag
    assert "s311_sum" in {k.name for k in reductions}
    assert all("reduction" in k.tags or k.tsvc["category"] == "reduction" for k in reductions)
    assert [k.name for k in corpus.select("s321")] == ["s321_recurrence"]
    both = corpus.select("wavefront,recurrence")
    assert all({(k.tsvc or {}).get("category"), *k.tags} & {"wavefront", "recurrence"} for k in both)
    assert any(k.tsvc is None for k in both)         # a scientific kernel's tag selects it too (seidel_2d)
    assert [k.name for k in corpus.select("gemm")] == ["gemm"]     # its name, not the tag attention has
    with pytest.raises(InputError, match="tag or TSVC category; did you mean if_conversion"):
        corpus.select("if_convertion")


def test_corpus_hash_changes_with_content(kernel_copy):
    from hpcab.corpus import content_hash
    kdir = kernel_copy("gemm")
    root = kdir.parents[2]
    before = content_hash(root)
    assert before == content_hash(root)
    (kdir / "gemm_numpy.py").write_text((kdir / "gemm_numpy.py").read_text() + "\n# changed\n")
    assert content_hash(root) != before
    assert re.fullmatch(r"[0-9a-f]{64}", before)


def test_shape_expressions_cannot_run_code(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d["arrays"][0].update(shape=["__import__('os').getpid()", "NK"]))
    err = load_error(kdir)
    assert err.field == "arrays[0].shape[0]"


def test_bitwise_constraint_and_its_fortran_form(kernel_copy):
    from hpcab import expr
    from hpcab.abi import fortran_expr
    assert expr.evaluate("N & (N - 1) == 0", {"N": 64}) and not expr.evaluate("N & (N - 1) == 0", {"N": 48})
    assert fortran_expr("N & (N - 1)") == "iand(N, (N - 1_c_int64_t))"
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d.update(constraints=["NI & (NI - 1) == 0"]))
    err = load_error(kdir)
    assert err.field == "presets.S" and "constraints[0]" in err.message   # 400 is no power of two


def test_unsupported_constraint_names_its_field(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d.update(constraints=["NI if NJ else NK"]))
    err = load_error(kdir)
    assert err.field == "constraints[0]" and "unsupported" in err.message


@pytest.mark.parametrize("change, field, words", [
    (lambda d: d["ranges"].pop("NK"), "ranges", "no range for size symbol(s) NK"),
    (lambda d: d["ranges"].update(Q=[1, 2]), "ranges.Q", "not a size symbol"),
    (lambda d: d["ranges"].update(NI=[9, 3]), "ranges.NI", "low must not exceed high"),
    (lambda d: d["ranges"].update(NI=[1, 100]), "presets.S", "outside ranges.NI [1, 100]"),
    (lambda d: d["ranges"].update(NI=[1]), "ranges.NI", ""),
])
def test_size_ranges_are_checked_naming_the_field(kernel_copy, change, field, words):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", change)
    err = load_error(kdir)
    assert err.source.endswith("gemm.yaml")
    assert err.field == field and words in err.message, (err.field, err.message)
