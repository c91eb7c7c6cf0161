"""s4117_half_index's independent check: the TSVC loop with C's integer division, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1000, 1001], seed=SEEDS)
def check_against_loop(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    b, c, d = v["b"].tolist(), v["c"].tolist(), v["d"].tolist()
    a = [None] * n
    for i in range(n):
        a[i] = b[i] + c[i // 2] * d[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
