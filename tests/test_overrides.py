"""Optimisation overrides (hpcab.overrides): each form a source can set its own options in is
found at its line; honest sources (the examples, the test candidates, the translator's C
and Fortran, with their `#pragma omp`) have none; and no source makes the scan fail."""

import pytest

from hpcab.build import language_of
from hpcab.overrides import find_overrides
from tests.conftest import CANDIDATES, EXAMPLES


def one(source: str, language: str = "c") -> str:
    found = find_overrides(source, language)
    assert len(found) == 1, found
    return found[0]


C_FORMS = [
    ('#pragma GCC optimize ("Ofast")', 'line 2: #pragma GCC optimize ("Ofast")'),
    ("  #  pragma   GCC   optimize(3)", "line 2: # pragma GCC optimize(3)"),
    ("%:pragma GCC optimize(3)", "line 2: %:pragma GCC optimize(3)"),
    ('#pragma GCC target("avx2,fma")', 'line 2: #pragma GCC target("avx2,fma")'),
    ('__attribute__((optimize("O3"))) void f(void) {}', 'line 2: __attribute__((optimize("O3")))'),
    ("__attribute__ ((__optimize__ (2), hot)) void f(void) {}", "line 2: __attribute__ ((__optimize__ (2), hot))"),
    ("__attribute__((noinline, __optimize__(\"-ffast-math\"))) void f(void) {}",
     "line 2: __attribute__((noinline, __optimize__(\"-ffast-math\")))"),
    ('__attribute__((target("avx512f"))) void f(void) {}', 'line 2: __attribute__((target("avx512f")))'),
    ('__attribute__((target_clones("avx2", "default"))) void f(void) {}',
     'line 2: __attribute__((target_clones("avx2", "default")))'),
    ('_Pragma("GCC optimize(\\"Ofast\\")") void f(void) {}', 'line 2: _Pragma("GCC optimize(\\"Ofast\\")")'),
    ('_Pragma("GCC target(\\"avx2\\")")', 'line 2: _Pragma("GCC target(\\"avx2\\")")'),
    ('_Pragma("clang fp contract(fast)")', 'line 2: _Pragma("clang fp contract(fast)")'),
    ('_Pragma("STDC FP_CONTRACT ON")', 'line 2: _Pragma("STDC FP_CONTRACT ON")'),
    ("#pragma clang fp reassociate(on)", "line 2: #pragma clang fp reassociate(on)"),
    ("#pragma clang fp exceptions(ignore)", "line 2: #pragma clang fp exceptions(ignore)"),
    ("#pragma clang optimize off", "line 2: #pragma clang optimize off"),
    ("#pragma float_control(precise, off)", "line 2: #pragma float_control(precise, off)"),
    ("#pragma STDC FP_CONTRACT ON", "line 2: #pragma STDC FP_CONTRACT ON"),
    ("#pragma STDC FENV_ACCESS ON", "line 2: #pragma STDC FENV_ACCESS ON"),
    ("#pragma STDC CX_LIMITED_RANGE ON", "line 2: #pragma STDC CX_LIMITED_RANGE ON"),
    ("#pragma fp_contract(on)", "line 2: #pragma fp_contract(on)"),
    ('__pragma(optimize("", off))', 'line 2: __pragma(optimize("", off))'),
]


@pytest.mark.parametrize("text, expected", C_FORMS, ids=[f[0][:40] for f in C_FORMS])
def test_each_c_form_is_found_at_its_line(text, expected):
    source = "#include <stdint.h>\n" + text + "\nint g(void) { return 0; }\n"
    assert one(source) == expected
    assert find_overrides(source, "cpp") == (expected,)        # the same scan for C++, CUDA, HIP
    assert find_overrides(source, "cuda") == (expected,)


def test_cxx_attributes():
    source = ('[[gnu::optimize("O2")]] void f();\n'
              '[[gnu::__target__("avx2"), nodiscard]] int g();\n'
              '[[using gnu: target_clones("avx2", "default")]] void h();\n'
              "[[clang::optnone]] void k();\n"
              "[[nodiscard]] int fine();\n"
              "int a[4]; int b = a[[]{ return 1; }()];\n")
    assert find_overrides(source, "cpp") == (
        'line 1: [[gnu::optimize("O2")]]', 'line 2: [[gnu::__target__("avx2"), nodiscard]]',
        'line 3: [[using gnu: target_clones("avx2", "default")]]', "line 4: [[clang::optnone]]")


def test_push_and_pop_options_around_an_optimize():
    source = ("#pragma GCC push_options\n"
              '#pragma GCC optimize ("unroll-loops", "O3")\n'
              "void f(void) {}\n"
              "#pragma GCC pop_options\n"
              "#pragma GCC reset_options\n")
    assert find_overrides(source, "c") == ('line 2: #pragma GCC optimize ("unroll-loops", "O3")',)


def test_a_macro_that_hides_a_pragma_is_found_where_it_is_defined():
    source = ('#define FAST _Pragma("GCC optimize(\\"Ofast\\")")\n'
              "#define OMP _Pragma(\"omp parallel for\")\n"
              "FAST\n"
              "void f(void) {}\n")
    assert one(source) == 'line 1: _Pragma("GCC optimize(\\"Ofast\\")")'


def test_a_pragma_stringized_from_a_macro_argument_is_found_where_it_is_written():
    source = ("#define PRAGMA(x) _Pragma(#x)\n"
              "#define DO(x) PRAGMA(x)\n"
              "DO(omp parallel for)\n"
              'DO(GCC optimize("Ofast"))\n'
              "void f(void) {}\n")
    assert one(source) == 'line 4: DO(GCC optimize("Ofast"))'


def test_an_attribute_in_a_macro_is_found_at_its_define():
    source = '#define HOT __attribute__((optimize("O3"), hot))\nHOT void f(void) {}\nHOT void g(void) {}\n'
    assert one(source) == 'line 1: __attribute__((optimize("O3"), hot))'


def test_line_continuations_and_crlf():
    source = "int x;\r\n#pragma GCC \\\r\n    optimize \\  \n  (\"O3\")\r\nint y;\n#pragma GCC optimize 2\n"
    assert find_overrides(source, "c") == ('line 2: #pragma GCC optimize ("O3")', "line 6: #pragma GCC optimize 2")


def test_one_entry_per_occurrence_in_source_order():
    source = ("#pragma GCC optimize 3\n"
              "void f(void) {}\n"
              "#pragma GCC optimize 3\n"
              '__attribute__((target("avx2"))) void g(void) {} __attribute__((optimize(1))) void h(void) {}\n')
    assert find_overrides(source, "c") == ("line 1: #pragma GCC optimize 3", "line 3: #pragma GCC optimize 3",
                                           'line 4: __attribute__((target("avx2")))',
                                           "line 4: __attribute__((optimize(1)))")


def test_comments_strings_and_hints_are_not_overrides():
    source = r'''/* #pragma GCC optimize("O0")
   __attribute__((optimize(0))) */
// #pragma GCC optimize("O0") \
   #pragma GCC optimize("O0"), still the comment
const char *s = "#pragma GCC optimize(\"O0\") __attribute__((optimize(1))) GCC optimize";
const char c = '"'; const char *t = "GCC target";
char raw[] = R"x(
#pragma GCC optimize("O0")
)x";
long n = 1'000'000;
#pragma omp parallel for simd
#pragma GCC ivdep
#pragma GCC unroll 4
#pragma clang loop vectorize(enable)
#pragma once
#pragma GCC diagnostic ignored "-Wunused"
__attribute__((aligned(64), always_inline, hot)) static inline int f(void) { return 0; }
int target = 0; int optimize(int x) { return x; }
'''
    assert find_overrides(source, "cpp") == ()


def test_fortran_directives():
    source = ("subroutine s(a)\n"
              "!GCC$ ATTRIBUTES NOINLINE :: s\n"
              "!GCC$ IVDEP\n"
              "!gcc$ optimize('O3')\n"
              "!DIR$ OPTIMIZE:3\n"
              "  !dir$ nooptimize\n"
              "!DIR$ VECTOR ALWAYS\n"
              "CDIR$ NOFMA\n"
              "! DIR$ OPTIMIZE: a comment, not a directive\n"
              "!$omp parallel do\n"
              "!DEC$ ATTRIBUTES OPTIMIZE:3 :: s\n"
              "!GCC$ ATTRIBUTES target_clones :: s\n"
              "end subroutine\n")
    assert find_overrides(source, "fortran") == (
        "line 4: !gcc$ optimize('O3')", "line 5: !DIR$ OPTIMIZE:3", "line 6: !dir$ nooptimize",
        "line 8: CDIR$ NOFMA", "line 11: !DEC$ ATTRIBUTES OPTIMIZE:3 :: s",
        "line 12: !GCC$ ATTRIBUTES target_clones :: s")


def test_numba_fastmath_and_pythran_options():
    source = '''import os
import numba
from numba import njit
#pythran export k(float64[:])
#pythran -Ofast -ffast-math
@njit(fastmath=True)
def a(x): return x
@njit(fastmath={"nnan", "ninf"},
      cache=True)
def b(x): return x
@njit(fastmath=False)
def c(x): return x
@njit(fastmath={})
def d(x): return x
options = {"fastmath": True}
s = "fastmath=True"
# fastmath=True, in a comment
os.environ["NUMBA_OPT"] = "3"
@numba.njit(parallel=True,
            fastmath = True)
def e(x): return x
'''
    assert find_overrides(source, "python") == (
        "line 5: #pythran -Ofast -ffast-math", "line 6: fastmath=True", 'line 8: fastmath={"nnan", "ninf"}',
        'line 15: "fastmath": True', 'line 18: os.environ["NUMBA_OPT"] = "3"', "line 20: fastmath = True")
    assert find_overrides("#pythran export f(int)\ndef f(n): return n\n", "pythran") == ()


def test_a_python_source_that_does_not_tokenize_is_scanned_line_by_line():
    assert find_overrides("def f(:\n    g = njit(fastmath=True)\n  '''\n", "python") == (
        "line 2: g = njit(fastmath=True)",)


@pytest.mark.parametrize("source", [
    "", "\\", "/*", "/* unterminated", '"unterminated', "'", 'R"x(unterminated', "#pragma", "_Pragma(",
    "_Pragma(x", "__attribute__((", "__attribute__((optimize(", "[[", "[[gnu::", "__pragma(", "\x00\xff\ud7ff",
    "#pragma GCC optimize(" + "(" * 10000, "\\\n" * 1000, "#" * 5000 + "\n",
])
@pytest.mark.parametrize("language", ["c", "cpp", "fortran", "python", "pythran", "hip", "unknown"])
def test_no_source_makes_it_fail(source, language):
    found = find_overrides(source, language)
    assert isinstance(found, tuple) and all(isinstance(f, str) and f.startswith("line ") for f in found)


def test_a_construct_is_quoted_short():
    found = one('#pragma GCC optimize ("' + "O3," * 500 + '")\n')
    assert len(found) < 200 and found.endswith("…")


def test_honest_sources_have_none():
    files = sorted(EXAMPLES.iterdir()) + sorted(CANDIDATES.iterdir())
    sources = [p for p in files if p.suffix in (".c", ".cpp", ".f90", ".py", ".cu")]
    assert len(sources) >= 10
    for path in sources:
        text = path.read_text()
        assert find_overrides(text, language_of(path, text)) == (), path


def test_the_translators_c_and_fortran_have_none(corpus):
    from hpcab.translate import translate
    checked = with_omp = 0
    for k in corpus.kernels:
        for language, flagset in (("c", "autopar"), ("c", "opt"), ("fortran", "opt")):
            try:
                t = translate(k, language, flagset)
            except Exception:          # not every kernel translates to every language
                continue
            checked += 1
            with_omp += "#pragma omp" in t.source or "!$omp" in t.source.lower()
            assert find_overrides(t.source, language) == (), (k.name, language, flagset)
    assert checked >= 10 and with_omp >= 1        # `#pragma omp` among them, and not an override


def test_a_large_source_is_scanned_quickly():
    import time
    source = (EXAMPLES / "atax.cpp").read_text() * 1500          # about 1.6 MB
    started = time.perf_counter()
    assert find_overrides(source, "cpp") == ()
    assert time.perf_counter() - started < 5


def test_very_many_are_counted_not_listed():
    found = find_overrides("#pragma GCC optimize 3\n" * 60, "c")
    assert len(found) == 51 and found[0] == "line 1: #pragma GCC optimize 3" and found[-1] == "and 10 more"


@pytest.mark.parametrize("language, source", [
    ("c", "__attribute__((optimize(" * 50_000),
    ("cpp", "[[gnu::optimize]]" * 60_000),
    ("cpp", "[[" * 250_000 + "]]" * 250_000),
    ("c", '_Pragma("GCC optimize 3")\n' * 40_000),
    ("c", "GCC optimize\n" * 80_000),
    ("c", "'" * 1_000_000),
    ("c", "\\\n" * 500_000),
    ("fortran", "!DIR$ OPTIMIZE\n" * 70_000),
    ("python", "f(fastmath=True)\n" * 60_000),
], ids=["attributes", "cxx-attributes", "nested", "pragma-operators", "bare", "quotes", "splices", "fortran",
        "python"])
def test_a_hostile_source_is_scanned_in_linear_time(language, source):
    """About 1 MB each, built to make a careless scan quadratic; it runs in the judge's
    worker, outside the compile's limits."""
    import time
    started = time.perf_counter()
    find_overrides(source, language)
    assert time.perf_counter() - started < 5
