"""s261_scalar_renaming's independent check: the TSVC loop with its reused scalar, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, c = v["a"].tolist(), v["c"].tolist()
    b, d = v["b"].tolist(), v["d"].tolist()
    for i in range(1, n):
        t = a[i] + b[i]
        a[i] = t + c[i - 1]
        t = c[i] * d[i]
        c[i] = t
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["c"], c, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "c": np.array(c)})
