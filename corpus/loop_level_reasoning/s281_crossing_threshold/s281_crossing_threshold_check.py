"""s281_crossing_threshold's independent check: the TSVC loop, sequentially over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1, 2, 1000, 1001], seed=SEEDS)
def check_against_loop(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    a, b, c = v["a"].tolist(), v["b"].tolist(), v["c"].tolist()
    for i in range(n):
        x = a[n - i - 1] + b[i] * c[i]
        a[i] = x - 1.0
        b[i] = x
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-6)
    if n > 100:
        assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b)})
