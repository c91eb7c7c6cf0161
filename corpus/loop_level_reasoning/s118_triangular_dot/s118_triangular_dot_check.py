"""s118_triangular_dot's independent check: the recurrence as exactly rounded dot products
(math.fsum) over Python lists in float64."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_fsum_recurrence(kernel, seed):
    n = 61
    v, out = run(kernel, {"N": n}, seed)
    a, bb = v["a"].astype(np.float64).tolist(), v["bb"].astype(np.float64).tolist()
    for i in range(1, n):
        a[i] = math.fsum([a[i]] + [bb[j][i] * a[i - j - 1] for j in range(i)])
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
