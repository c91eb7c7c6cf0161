"""s251_scalar_expansion's independent check: the TSVC loop with its scalar, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b, c, d = v["b"].tolist(), v["c"].tolist(), v["d"].tolist()
    a = [0.0] * n
    for i in range(n):
        s = b[i] + c[i] * d[i]
        a[i] = s * s
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
