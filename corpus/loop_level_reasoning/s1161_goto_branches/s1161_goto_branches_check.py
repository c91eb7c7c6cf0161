"""s1161_goto_branches's independent check: the TSVC loop with its branches, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c, d, e = (v[x].tolist() for x in "abcde")
    taken = 0
    for i in range(n - 1):
        if c[i] < 0.0:                      # goto L20
            b[i] = a[i] + d[i] * d[i]
            taken += 1
        else:
            a[i] = c[i] + d[i] * e[i]
    assert n // 3 < taken < 2 * n // 3
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b)})
