"""s4115_sparse_dot's independent check: the exactly rounded sum (math.fsum) of the gathered
products, and the plain one-accumulator float32 loop, which the float32 band must accept."""

import math

import numpy as np

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, judged, run


def _one_accumulator(a, b, ip):
    # TSVC's loop in float32, one term at a time (cumsum adds sequentially).
    return np.cumsum(a * b[ip], dtype=np.float32)[-1]


@each(seed=SEEDS)
def check_against_fsum(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    assert out["total"].dtype == np.float32
    a, b, ip = v["a"].tolist(), v["b"].tolist(), v["ip"].tolist()
    exact = math.fsum(a[i] * b[ip[i]] for i in range(n))
    assert abs(float(out["total"][0]) - exact) <= 1e-5 * abs(exact)
    assert abs(exact) > 1.0
    assert_judged_like_an_oracle(kernel, out, {"total": np.array([exact])})


def check_one_accumulator_loop_passes_at_l(kernel):
    # A plain sequential float32 loop (what a straightforward C translation computes)
    # must pass at the largest preset.
    case = explicit_case(kernel, dict(kernel.presets["L"]), 0)
    v = make_inputs(kernel, case)
    out = run_oracle(kernel, case, v)
    assert judged(kernel, out, {"total": _one_accumulator(v["a"], v["b"], v["ip"])})
