"""s276_midpoint_split's independent check: the TSVC loop with its branch, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[2, 3, 1001], seed=SEEDS)
def check_against_branching_loop(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].tolist()
    b, c, d = v["b"].tolist(), v["c"].tolist(), v["d"].tolist()
    mid = n // 2
    for i in range(n):
        if i + 1 < mid:
            a[i] += b[i] * c[i]
        else:
            a[i] += b[i] * d[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    if n > 100:
        assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
