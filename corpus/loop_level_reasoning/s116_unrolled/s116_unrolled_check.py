"""s116_unrolled's independent check: the TSVC unrolled loop over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1001, 1003, 1005], seed=SEEDS)
def check_against_unrolled_loop(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].tolist()
    for i in range(0, n - 5, 5):
        a[i] = a[i + 1] * a[i]
        a[i + 1] = a[i + 2] * a[i + 1]
        a[i + 2] = a[i + 3] * a[i + 2]
        a[i + 3] = a[i + 4] * a[i + 3]
        a[i + 4] = a[i + 5] * a[i + 4]
    np.testing.assert_allclose(out["a"], a, rtol=1e-6, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
