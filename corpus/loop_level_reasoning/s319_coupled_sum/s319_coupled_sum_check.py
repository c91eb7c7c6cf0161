"""s319_coupled_sum's independent check: the TSVC loop over Python lists, its sum taken
exactly (math.fsum); the exact sum passes the judge at the largest preset."""

import math

import numpy as np

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, judged, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    c, d, e = v["c"].tolist(), v["d"].tolist(), v["e"].tolist()
    a, b, terms = [0.0] * n, [0.0] * n, []
    for i in range(n):
        a[i] = float(np.float32(c[i]) + np.float32(d[i]))
        terms.append(a[i])
        b[i] = float(np.float32(c[i]) + np.float32(e[i]))
        terms.append(b[i])
    total = math.fsum(terms)
    np.testing.assert_array_equal(out["a"], a)
    np.testing.assert_array_equal(out["b"], b)
    np.testing.assert_allclose(out["total"], [total], rtol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b), "total": np.array([total])})


def check_exact_sum_passes_at_l(kernel):
    case = explicit_case(kernel, dict(kernel.presets["L"]), 0)
    v = make_inputs(kernel, case)
    out = run_oracle(kernel, case, v)
    total = math.fsum(out["a"].astype(np.float64).tolist() + out["b"].astype(np.float64).tolist())
    assert judged(kernel, out, {"a": out["a"], "b": out["b"], "total": np.array([total])})
