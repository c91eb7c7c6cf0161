"""s2251_wraparound_scalar's independent check: the TSVC loop with its wrap-around scalar, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b = v["b"].tolist()
    c, d, e = v["c"].tolist(), v["d"].tolist(), v["e"].tolist()
    a = [float("nan")] * n
    s = 0.0
    for i in range(n):
        a[i] = s * e[i]
        s = b[i] + c[i]
        b[i] = a[i] + d[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b)})
