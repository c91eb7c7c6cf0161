"""The C ABI is derived from the manifest alone, and every prototype compiles."""

import subprocess

import pytest

from hpcab.abi import c_header, c_prototype, fortran_interface, params, show_abi

GEMM_C = """void gemm(
    const double *restrict A,
    const double *restrict B,
    double *restrict C,
    double alpha,
    double beta,
    int64_t NI,
    int64_t NJ,
    int64_t NK,
    uint8_t *restrict workspace,
    int64_t workspace_size);"""


def test_gemm_c_prototype_is_exact(corpus):
    assert c_prototype(corpus.get("gemm")) == GEMM_C


def test_argument_order_pointers_scalars_sizes_workspace(corpus):
    for k in corpus.kernels:
        roles = [p.role for p in params(k)]
        assert roles[-2:] == ["workspace", "size"]
        body = roles[:-2]
        order = {"array": 0, "return": 1, "scalar": 2, "size": 3}
        assert [order[r] for r in body] == sorted(order[r] for r in body), k.id
        names = [p.name for p in params(k)]
        assert names[:len(k.arrays)] == [a.name for a in k.arrays]
        assert names[-2 - len(k.sizes):-2] == list(k.sizes)


def test_returned_scalar_becomes_an_output_buffer(corpus):
    k = next(k for k in corpus.kernels if k.returns and not k.returns[0].shape)
    r = k.returns[0]
    p = next(p for p in params(k) if p.name == r.name)
    assert p.pointer and not p.const and p.shape == (1,)
    assert f"*restrict {r.name}" in c_prototype(k)


def test_const_only_on_read_only_arrays(corpus):
    for k in corpus.kernels:
        for p in params(k):
            if p.role == "array":
                intent = next(a.intent for a in k.arrays if a.name == p.name)
                assert p.const == (intent == "in")


def _compile(tmp_path, name, text, command):
    src = tmp_path / name
    src.write_text(text)
    proc = subprocess.run(command + [str(src), "-o", str(tmp_path / (name + ".o"))], capture_output=True, text=True)
    assert proc.returncode == 0, f"{text}\n{proc.stderr}"
    return tmp_path / (name + ".o")


def _exported(obj):
    return subprocess.run(["nm", "--defined-only", str(obj)], capture_output=True, text=True).stdout


@pytest.mark.parametrize("language,compiler,suffix", [("c", ["gcc", "-std=c17"], ".c"),
                                                      ("cpp", ["g++", "-std=c++17"], ".cpp")])
def test_every_c_and_cpp_prototype_compiles_as_a_definition(corpus, tmp_path, language, compiler, suffix):
    # One translation unit for the whole corpus (kernel names are unique): a compiler start
    # per kernel cost two minutes of g++ at 155 kernels. The headers' shared includes are
    # guarded, so they may repeat.
    text = "".join(c_header(k, language).rstrip().rstrip(";") + " {}\n" for k in corpus.kernels)
    obj = _compile(tmp_path, "corpus" + suffix, text, compiler + ["-Wall", "-Werror", "-Wno-unused-parameter", "-c"])
    exported = _exported(obj)
    missing = [k.id for k in corpus.kernels if f" T {k.name}\n" not in exported]
    assert not missing, missing


def test_every_fortran_interface_compiles_with_the_c_symbol(corpus, tmp_path):
    text = "\n".join(fortran_interface(k) for k in corpus.kernels)
    obj = _compile(tmp_path, "corpus.f90", text, ["gfortran", "-std=f2008", "-c"])
    exported = _exported(obj)
    missing = [k.id for k in corpus.kernels if f" T {k.name}\n" not in exported]
    assert not missing, missing


def test_fortran_dimensions_are_reversed(corpus):
    text = fortran_interface(corpus.get("gemm"))
    assert "real(c_double), intent(in) :: A(NK, NI)" in text
    assert "real(c_double), intent(inout) :: C(NJ, NI)" in text
    assert "integer(c_int64_t), value, intent(in) :: NI" in text
    assert 'bind(C, name="gemm")' in text


def test_show_abi_for_each_language(corpus):
    k = corpus.get("gemm")
    assert 'extern "C" void gemm(' in show_abi(k, "cpp")
    assert "__restrict__" in show_abi(k, "cuda")
    assert "subroutine gemm(" in show_abi(k, "fortran")
