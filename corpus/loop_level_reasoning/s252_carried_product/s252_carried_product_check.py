"""s252_carried_product's independent check: the TSVC loop with its carried scalar, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b, c = v["b"].tolist(), v["c"].tolist()
    a = [float("nan")] * n
    t = 0.0
    for i in range(n):
        s = b[i] * c[i]
        a[i] = s + t
        t = s
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
