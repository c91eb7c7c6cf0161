"""s1113_midpoint's independent check: the TSVC loop over Python lists, in order."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1000, 1001], seed=SEEDS)
def check_against_loop(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    for i in range(n):
        a[i] = a[n // 2] + b[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-6, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
