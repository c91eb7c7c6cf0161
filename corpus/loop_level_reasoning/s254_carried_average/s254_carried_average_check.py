"""s254_carried_average's independent check: the TSVC loop with its wrap-around scalar, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b = v["b"].tolist()
    a = [float("nan")] * n
    x = b[n - 1]
    for i in range(n):
        a[i] = (b[i] + x) * 0.5
        x = b[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
