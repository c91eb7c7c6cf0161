"""s3111_conditional_sum's independent check: the TSVC loop with its branch, over Python
lists, summed exactly (math.fsum); the exact sum passes the judge at the largest preset."""

import math

import numpy as np

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, judged, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].tolist()
    kept = []
    for i in range(n):
        if a[i] > 0.0:
            kept.append(a[i])
    assert n // 3 < len(kept) < 2 * n // 3
    total = math.fsum(kept)
    assert out["total"].dtype == np.float32
    np.testing.assert_allclose(out["total"], [total], rtol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"total": np.array([total])})


def check_exact_sum_passes_at_l(kernel):
    case = explicit_case(kernel, dict(kernel.presets["L"]), 0)
    v = make_inputs(kernel, case)
    out = run_oracle(kernel, case, v)
    a = v["a"].astype(np.float64)
    assert judged(kernel, out, {"total": np.array([math.fsum(a[a > 0.0].tolist())])})
