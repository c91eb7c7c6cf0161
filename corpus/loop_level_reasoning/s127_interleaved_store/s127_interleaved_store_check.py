"""s127_interleaved_store's independent check: the TSVC loop with its induction variable, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1002
    v, out = run(kernel, {"N": n}, seed)
    b, c, d, e = (v[x].tolist() for x in "bcde")
    a = [None] * n
    j = -1
    for i in range(n // 2):
        j += 1
        a[j] = b[i] + c[i] * d[i]
        j += 1
        a[j] = b[i] + d[i] * e[i]
    assert j == n - 1
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
