"""Build: source → shared library through a flag set, content-addressed cache, errors as results;
the compile's limits, and the overrides of the flag set a source makes."""

import os
import threading
import time
from pathlib import Path

import pytest

from hpcab.build import BuildLimits, Candidate, build, candidate_from_file
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


# ---- the compiler is untrusted too: limits, and overrides of the flag set --------------

# g++ evaluates this constant for minutes (4·10^10 steps, against a default budget of 2^33
# constexpr operations, at well under 10^9 a second) before giving up.
SLOW_CPP = """
constexpr unsigned long long spin() {
    unsigned long long s = 0;
    for (unsigned long long i = 0; i < 200000; ++i)
        for (unsigned long long j = 0; j < 200000; ++j)
            s += i ^ j;
    return s;
}
constexpr unsigned long long value = spin();
extern "C" unsigned long long get() { return value; }
"""
# 40 000 distinct template instantiations: about 170 MB of cc1plus in 2-3 s.
HUNGRY_CPP = """
template <int A, int B> struct F { static constexpr long v = (F<A - 1, B>::v + F<A, B - 1>::v) % 1000003; };
template <int B> struct F<0, B> { static constexpr long v = 1; };
template <int A> struct F<A, 0> { static constexpr long v = 1; };
extern "C" long get() { return F<200, 200>::v; }
"""


def _compilers_below_us(name: str = "cc1plus") -> set[int]:
    """Live processes called `name` that descend from this test process (through bwrap's
    pid namespace too: the host's /proc shows every process with its parent)."""
    parents, named = {}, set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        parents[int(d.name)] = int(rest[1])
        if comm == name and rest[0] != "Z":
            named.add(int(d.name))
    me, below = os.getpid(), set()
    for pid in named:
        p, seen = parents.get(pid), 0
        while p and p != me and seen < 64:
            p, seen = parents.get(p), seen + 1
        if p == me:
            below.add(pid)
    return below


def _build_watching(*args, **kw):
    """build(), and every cc1plus seen below this process while it ran."""
    seen: set[int] = set()
    done = threading.Event()

    def watch():
        while not done.is_set():
            seen.update(_compilers_below_us())
            time.sleep(0.05)
    t = threading.Thread(target=watch, daemon=True)
    t.start()
    try:
        result = build(*args, **kw)
    finally:
        done.set()
        t.join()
    return result, seen


def _still_alive(pids: set[int], grace: float = 2.0) -> set[int]:
    """Those of pids still running after a grace period (a killed pid namespace is torn down
    by the kernel, asynchronously)."""
    deadline = time.monotonic() + grace
    while True:
        alive = pids & _compilers_below_us()
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def _cached_entries(root: Path) -> list[Path]:
    return list(root.rglob("build.json"))


def test_build_limits_defaults():
    limits = BuildLimits()
    assert limits.wall_seconds == 60 and limits.cpu == 60 and limits.memory_bytes == 4 << 30
    assert BuildLimits(wall_seconds=5, cpu_seconds=2).cpu == 2


@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_wall_limit_kills_the_whole_compile_and_is_not_cached(toolchains, tmp_path, sandbox):
    limits = BuildLimits(wall_seconds=2)
    started = time.monotonic()
    result, seen = _build_watching(Candidate(SLOW_CPP, "cpp"), toolchains, "opt", cache_root=tmp_path,
                                   sandbox=sandbox, limits=limits)
    assert time.monotonic() - started < 8
    assert not result.ok and result.library is None and not result.cached
    assert result.diagnostics.startswith("compilation stopped: it ran past the 2 s wall-clock limit")
    assert seen, "cc1plus was never seen running: the test proves nothing"
    assert not _still_alive(seen), "the compiler survived the wall-clock limit"
    assert _cached_entries(tmp_path) == []
    again = build(Candidate(SLOW_CPP, "cpp"), toolchains, "opt", cache_root=tmp_path, sandbox=sandbox,
                  limits=BuildLimits(wall_seconds=1))
    assert not again.cached and "1 s wall-clock limit" in again.diagnostics     # compiled again, not served


def test_cpu_limit_is_a_build_error_naming_it(toolchains, tmp_path):
    result = build(Candidate(SLOW_CPP, "cpp"), toolchains, "opt", cache_root=tmp_path,
                   limits=BuildLimits(wall_seconds=30, cpu_seconds=1))
    assert not result.ok and not result.cached
    assert result.diagnostics.startswith("compilation stopped: a compiler process used up the 1 s CPU-time limit")
    assert _cached_entries(tmp_path) == []


def test_memory_limit_is_a_build_error_naming_it(toolchains, tmp_path):
    limits = BuildLimits(memory_bytes=128 << 20)
    hungry = build(Candidate(HUNGRY_CPP, "cpp"), toolchains, "opt", cache_root=tmp_path, limits=limits)
    assert not hungry.ok and not hungry.cached
    assert hungry.diagnostics.startswith("compilation stopped: it ran out of memory under the 128 MiB "
                                         "address-space limit"), hungry.diagnostics
    assert _cached_entries(tmp_path) == []
    honest = build(candidate_from_file(EXAMPLES / "atax.cpp"), toolchains, "opt", cache_root=tmp_path, limits=limits)
    assert honest.ok, honest.diagnostics       # the limit leaves room for an ordinary compile


def test_file_size_limit_is_a_build_error_naming_it(toolchains, tmp_path):
    result = build(candidate_from_file(EXAMPLES / "gemm.c"), toolchains, "opt", cache_root=tmp_path,
                   limits=BuildLimits(file_bytes=4096))
    assert not result.ok and "file-size limit" in result.diagnostics.splitlines()[0]
    assert _cached_entries(tmp_path) == []
    assert build(candidate_from_file(EXAMPLES / "gemm.c"), toolchains, "opt", cache_root=tmp_path).ok


def test_a_compile_error_is_not_taken_for_a_limit(toolchains, tmp_path):
    """A source's own text cannot pass its error off as a limit's (and so dodge the cache)."""
    source = '#error virtual memory exhausted\n#error "CPU time limit exceeded"\nint f(void) { return 0; }\n'
    result = build(Candidate(source, "c"), toolchains, "opt", cache_root=tmp_path)
    assert not result.ok and not result.diagnostics.startswith("compilation stopped")
    assert len(_cached_entries(tmp_path)) == 1


def test_overrides_are_recorded_with_the_build_cached_or_not(toolchains, tmp_path):
    source = '#pragma GCC optimize ("Ofast")\n' + candidate_from_file(EXAMPLES / "gemm.c").source
    first = build(Candidate(source, "c"), toolchains, "opt", cache_root=tmp_path)
    second = build(Candidate(source, "c"), toolchains, "opt", cache_root=tmp_path)
    assert first.ok and second.cached
    assert first.overrides == second.overrides == ('line 1: #pragma GCC optimize ("Ofast")',)
    assert build(candidate_from_file(EXAMPLES / "gemm.c"), toolchains, "opt", cache_root=tmp_path).overrides == ()


def test_a_product_over_the_size_limit_is_a_build_error_and_leaves_nothing(toolchains, tmp_path):
    ballast = "__attribute__((used)) static volatile unsigned char ballast[3 << 20] = {1};\n"
    source = ballast + (EXAMPLES / "gemm.c").read_text()
    limits = BuildLimits(product_bytes=1 << 20)
    b = build(Candidate(source, "c"), toolchains, cache_root=tmp_path, limits=limits)
    assert not b.ok and b.library is None
    assert b.diagnostics.startswith("hpcab: the built candidate.so is 3 MiB, over the 1 MiB a build may leave")
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.stat().st_size > 1 << 20]
    again = build(Candidate(source, "c"), toolchains, cache_root=tmp_path, limits=limits)
    assert again.cached and not again.ok         # the source's doing: cached as a failure
    assert build(Candidate((EXAMPLES / "gemm.c").read_text(), "c"), toolchains, cache_root=tmp_path,
                 limits=limits).ok


def test_the_cache_is_pruned_oldest_first_but_never_what_was_just_used(toolchains, tmp_path):
    from hpcab.build import CACHE_GRACE_S, prune_cache
    builds = [build(Candidate((EXAMPLES / "gemm.c").read_text() + f"\n/* {i} */\n", "c"), toolchains,
                    cache_root=tmp_path) for i in range(4)]
    entries = [b.library.parent for b in builds]
    size = sum(f.stat().st_size for f in entries[0].iterdir())
    old = time.time() - 2 * CACHE_GRACE_S
    for age, entry in enumerate(entries[:3]):         # three used long ago, the first the longest
        os.utime(entry / "build.json", (old - 100 * (3 - age), old - 100 * (3 - age)))
    removed = prune_cache(tmp_path, limit_bytes=int(2.5 * size))
    assert removed >= size
    assert [e.exists() for e in entries] == [False, False, True, True]
    # A cache hit renews an entry; within the grace nothing goes, whatever the limit.
    build(Candidate((EXAMPLES / "gemm.c").read_text() + "\n/* 2 */\n", "c"), toolchains, cache_root=tmp_path)
    assert prune_cache(tmp_path, limit_bytes=0) == 0 and entries[2].exists() and entries[3].exists()
