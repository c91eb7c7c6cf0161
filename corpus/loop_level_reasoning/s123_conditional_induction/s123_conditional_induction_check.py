"""s123_conditional_induction's independent check: the TSVC loop over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].tolist()
    b, c, d, e = (v[x].tolist() for x in "bcde")
    j = -1
    for i in range(n // 2):
        j += 1
        a[j] = b[i] + d[i] * e[i]
        if c[i] > 0.0:
            j += 1
            a[j] = c[i] + d[i] * e[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert n // 2 + n // 8 < j + 1 < n // 2 + 3 * n // 8
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
