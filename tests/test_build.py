"""Build: source → shared library through a flag set, content-addressed cache, errors as results."""

from hpcab.build import Candidate, build, candidate_from_file
from tests.conftest import CANDIDATES, EXAMPLES


def test_build_then_cache_hit_without_recompiling(toolchains, tmp_path):
    cand = candidate_from_file(EXAMPLES / "gemm.c")
    first = build(cand, toolchains, "opt", cache_root=tmp_path)
    assert first.ok and not first.cached and first.library.is_file()
    stamp = first.library.stat().st_mtime_ns
    second = build(cand, toolchains, "opt", cache_root=tmp_path)
    assert second.ok and second.cached and second.key == first.key
    assert second.library == first.library and second.library.stat().st_mtime_ns == stamp


def test_key_covers_source_and_flags(toolchains, tmp_path):
    cand = candidate_from_file(EXAMPLES / "gemm.c")
    opt = build(cand, toolchains, "opt", cache_root=tmp_path)
    debug = build(cand, toolchains, "debug", cache_root=tmp_path)
    edited = build(Candidate(cand.source + "\n/* edited */\n", "c"), toolchains, "opt", cache_root=tmp_path)
    assert len({opt.key, debug.key, edited.key}) == 3
    assert "-O0" in debug.command and "-O3" in opt.command


def test_compile_error_is_a_result_with_diagnostics(toolchains, tmp_path):
    result = build(candidate_from_file(CANDIDATES / "gemm_compile_error.c"), toolchains, cache_root=tmp_path)
    assert not result.ok and result.library is None
    assert "undeclared_variable" in result.diagnostics
    again = build(candidate_from_file(CANDIDATES / "gemm_compile_error.c"), toolchains, cache_root=tmp_path)
    assert again.cached and not again.ok and again.diagnostics == result.diagnostics


def test_languages_from_suffix_and_their_compilers(toolchains, tmp_path):
    for name, compiler in (("gemm.c", "gcc"), ("gemm.f90", "gfortran"), ("atax.cpp", "gxx")):
        result = build(candidate_from_file(EXAMPLES / name), toolchains, cache_root=tmp_path)
        assert result.ok, result.diagnostics
        assert result.compiler == compiler


def test_missing_compiler_is_a_build_error(toolchains, tmp_path):
    import attrs
    ghost = attrs.evolve(toolchains.compilers["gcc"], name="ghost", command="no-such-cc-xyz",
                         version_command=("no-such-cc-xyz", "--version"))
    tc = attrs.evolve(toolchains, compilers={**toolchains.compilers, "ghost": ghost})
    result = build(Candidate("void f(void){}", "c", compiler="ghost"), tc, cache_root=tmp_path)
    assert not result.ok and "not installed" in result.diagnostics
