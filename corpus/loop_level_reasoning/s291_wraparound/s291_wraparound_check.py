"""s291_wraparound's independent check: the TSVC loop with its wrap-around variable, over
Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1, 2, 1001], seed=SEEDS)
def check_against_loop(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    b = v["b"].tolist()
    a = [0.0] * n
    im1 = n - 1
    for i in range(n):
        a[i] = (b[i] + b[im1]) * 0.5
        im1 = i
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    if n > 100:
        assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
