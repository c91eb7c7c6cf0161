"""s271_conditional's independent check: the TSVC loop with its branch, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].tolist()
    b, c = v["b"].tolist(), v["c"].tolist()
    for i in range(n):
        if b[i] > 0.0:
            a[i] += b[i] * c[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-6, atol=1e-7)
    changed = np.count_nonzero(out["a"] != v["a"])
    assert n // 3 < changed < 2 * n // 3
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
