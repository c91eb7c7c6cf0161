"""s481_exit_on_negative's independent check: TSVC's loop with its exit, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_exiting_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c, d = v["a"].tolist(), v["b"].tolist(), v["c"].tolist(), v["d"].tolist()
    stopped = n
    for i in range(n):
        if d[i] < 0.0:
            stopped = i
            break               # TSVC: exit(0)
        a[i] += b[i] * c[i]
    assert n // 2 <= stopped < n
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert np.array_equal(out["a"][stopped:], v["a"][stopped:])
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
