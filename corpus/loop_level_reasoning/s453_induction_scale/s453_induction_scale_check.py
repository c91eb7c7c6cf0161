"""s453_induction_scale's independent check: TSVC's running float32 sum over Python lists (exact at this size)."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_running_sum_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b = v["b"].tolist()
    a = [None] * n
    s = np.float32(0.0)
    for i in range(n):
        s = np.float32(s + np.float32(2.0))
        a[i] = float(s) * b[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
