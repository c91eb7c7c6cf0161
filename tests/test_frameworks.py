"""Python frameworks as candidate languages (docs/abi_contract.md, "Python frameworks"):
`python` (a module, plain NumPy or jitted by numba in the measuring child) and `pythran`
(an extension module pythran builds), graded end to end through the one pipeline: real
builds in the sandbox, the real measuring child, the real CLI and judge.

Small sizes throughout; one pythran build for the whole module (a pythran compile takes
seconds to tens of seconds), reused by the tests that need it.
"""

import ast
import subprocess
import sys

import pytest

from hpcab.abi import show_abi
from hpcab.build import build, candidate_from_file
from hpcab.case import explicit_case
from hpcab.grade import grade
from tests.conftest import ROOT

S271 = "s271_conditional"

NUMBA_S271 = '''\
import numba


@numba.njit(cache=False)
def s271_conditional(a, b, c, N):
    for i in range(N):
        if b[i] > 0.0:
            a[i] += b[i] * c[i]
'''

WRONG_S271 = '''\
def s271_conditional(a, b, c, N):
    a[:] = a + b * c        # ignores the condition
'''

SYNTAX_ERROR_S271 = '''\
def s271_conditional(a, b, c, N):
    a[:] = (a +
    return
'''

RAISES_S271 = '''\
def s271_conditional(a, b, c, N):
    if N > 0:
        raise ValueError("not implemented for N = %d" % N)
'''

# A returned value: a Python float, cast to the manifest's float32 as numba's would be.
SUM_S311 = '''\
import numpy as np


def s311_sum(a, N):
    return float(a.sum(dtype=np.float64))
'''


def _s271_case(kernel, n=10007, label="small"):
    return explicit_case(kernel, {"N": n}, seed=1, label=label)


def _grade(corpus, toolchains, policy, tmp_path, kernel, source, name="candidate.py", **kw):
    path = tmp_path / name
    path.write_text(source)
    k = corpus.get(kernel)
    kw.setdefault("baseline", False)
    return grade(k, candidate_from_file(path), [_s271_case(k)], toolchains, policy=policy, roofline=False, **kw)


@pytest.fixture(scope="module")
def pythran_candidate(tmp_path_factory, corpus, toolchains):
    """The s271 reference body under the export line show_abi gives, built once."""
    k = corpus.get(S271)
    text = k.reference_path.read_text()
    fn = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == S271)
    body = text.splitlines()[fn.body[0].lineno - 1:fn.end_lineno]
    source = "import numpy as np\n\n\n" + show_abi(k, "pythran") + "\n".join(body) + "\n"
    path = tmp_path_factory.mktemp("pythran") / "s271_pythran.py"
    path.write_text(source)
    candidate = candidate_from_file(path)
    built = build(candidate, toolchains)
    return candidate, built


def test_numba_candidate_is_correct_against_the_numba_baseline(corpus, toolchains, fast_policy, tmp_path):
    g = _grade(corpus, toolchains, fast_policy, tmp_path, S271, NUMBA_S271, baseline=True)
    assert g.candidate.language == "python" and g.build.compiler == "python"
    assert g.build.library.name == "candidate.py"
    assert g.status == "ok", g.message
    case = g.cases[0]
    assert case.timing.n >= fast_policy.min_repetitions
    assert case.baseline_error is None and g.baseline == "numba"
    # The JIT compiled in the untimed first call: no timed call took anywhere near a compile.
    assert case.timing.median_ns < 50e6 and max(case.samples_ns["candidate"]) < 200e6


def test_wrong_plain_python_is_incorrect(corpus, toolchains, fast_policy, tmp_path):
    g = _grade(corpus, toolchains, fast_policy, tmp_path, S271, WRONG_S271)
    assert g.status == "incorrect" and g.cases[0].check is not None
    assert g.speedup_numpy is None


def test_syntax_error_is_a_build_error_with_its_line(corpus, toolchains, fast_policy, tmp_path):
    g = _grade(corpus, toolchains, fast_policy, tmp_path, S271, SYNTAX_ERROR_S271)
    assert g.status == "build_error" and not g.cases
    assert "SyntaxError" in g.build.diagnostics and "line 2" in g.build.diagnostics, g.build.diagnostics


def test_candidate_that_raises_is_its_error_with_the_line(corpus, toolchains, fast_policy, tmp_path):
    g = _grade(corpus, toolchains, fast_policy, tmp_path, S271, RAISES_S271)
    assert g.status == "error" and not g.correct
    msg = g.cases[0].message
    assert "the candidate raised ValueError: not implemented for N = 10007" in msg, msg
    assert "candidate line 3" in msg and "Traceback" not in msg, msg


def test_candidate_without_the_function_says_so(corpus, toolchains, fast_policy, tmp_path):
    g = _grade(corpus, toolchains, fast_policy, tmp_path, S271, "def s271(a, b, c, N):\n    pass\n")
    assert g.status == "error"
    assert "defines no function 's271_conditional'" in g.cases[0].message, g.cases[0].message


def test_returned_scalar_is_collected_like_the_reference(corpus, toolchains, fast_policy, tmp_path):
    g = _grade(corpus, toolchains, fast_policy, tmp_path, "s311_sum", SUM_S311)
    assert g.status == "ok", g.message


def test_pythran_candidate_builds_and_is_correct(pythran_candidate, corpus, toolchains, fast_policy):
    candidate, built = pythran_candidate
    assert candidate.language == "pythran"                  # told by its export line
    assert built.ok, built.diagnostics
    assert built.compiler == "pythran" and built.library.name == "candidate.so"
    assert any(f == "-O3" for f in built.command)           # the opt flag set's pythran flags
    k = corpus.get(S271)
    g = grade(k, candidate, [_s271_case(k)], toolchains, policy=fast_policy, baseline=False, roofline=False)
    assert g.status == "ok", g.message
    assert g.build.cached                                   # the module's one pythran build, reused


def test_show_abi_pythran_and_python_from_the_cli():
    out = subprocess.run([sys.executable, "-m", "hpcab", "show", S271, "--abi", "pythran"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "#pythran export s271_conditional(float32[:], float32[:], float32[:], int64)" in lines
    assert lines[-1] == "def s271_conditional(a, b, c, N):"


def test_judge_task_shows_the_def_line_and_scores_python(start_judge):
    judge = start_judge("--kernels", S271, "--target-seconds", "0.05", "--sessions", "2", "--workers", "1")
    client = judge.client()
    task = client.task(S271, language="python")
    assert task["language"] == "python"
    assert task["prototype"].splitlines()[-1] == "def s271_conditional(a, b, c, N):"
    assert {"python", "pythran"} <= set(task["languages"])
    doc = client.score(S271, WRONG_S271, "python")
    assert doc["language"] == "python" and doc["status"] == "incorrect"
