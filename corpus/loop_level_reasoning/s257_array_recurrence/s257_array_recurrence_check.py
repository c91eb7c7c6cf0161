"""s257_array_recurrence's independent check: the TSVC double loop in its own order, over
Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].astype(np.float64).tolist()
    aa = v["aa"].astype(np.float64).tolist()
    bb = v["bb"].astype(np.float64).tolist()
    for i in range(1, n):
        for j in range(n):
            a[i] = aa[j][i] - a[i - 1]
            aa[j][i] = a[i] + bb[j][i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "aa": np.array(aa)})
