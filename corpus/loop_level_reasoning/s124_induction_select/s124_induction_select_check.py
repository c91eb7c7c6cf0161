"""s124_induction_select's independent check: the TSVC loop with its branches and induction
variable, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b, c, d, e = (v[x].tolist() for x in "bcde")
    a = [None] * n
    j = -1
    taken = 0
    for i in range(n):
        if b[i] > 0.0:
            j += 1
            a[j] = b[i] + d[i] * e[i]
            taken += 1
        else:
            j += 1
            a[j] = c[i] + d[i] * e[i]
    assert j == n - 1 and n // 3 < taken < 2 * n // 3
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
