"""s161_goto_branches's independent check: the TSVC loop with its branches in sequential
order, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c, d, e = (v[x].tolist() for x in "abcde")
    chained = 0
    for i in range(n - 1):
        if b[i] < 0.0:                      # goto L20
            c[i + 1] = a[i] + d[i] * d[i]
        else:
            if i > 0 and b[i - 1] < 0.0:
                chained += 1                # reads the c[i] iteration i - 1 wrote
            a[i] = c[i] + d[i] * e[i]
    assert chained > n // 8
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["c"], c, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "c": np.array(c)})
