"""s2244_dead_store's independent check: the TSVC loop, both stores in their order, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_sequential_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b, c, e = v["b"].tolist(), v["c"].tolist(), v["e"].tolist()
    a = [float("nan")] * n
    for i in range(n - 1):
        a[i + 1] = b[i] + e[i]
        a[i] = b[i] + c[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-6, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
