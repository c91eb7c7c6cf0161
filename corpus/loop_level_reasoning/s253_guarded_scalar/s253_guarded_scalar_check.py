"""s253_guarded_scalar's independent check: the TSVC loop with its branch, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, c = v["a"].tolist(), v["c"].tolist()
    b, d = v["b"].tolist(), v["d"].tolist()
    for i in range(n):
        if a[i] > b[i]:
            s = a[i] - b[i] * d[i]
            c[i] += s
            a[i] = s
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["c"], c, rtol=1e-5, atol=1e-6)
    changed = np.count_nonzero(out["c"] != v["c"])
    assert n // 3 < changed < 2 * n // 3
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "c": np.array(c)})
