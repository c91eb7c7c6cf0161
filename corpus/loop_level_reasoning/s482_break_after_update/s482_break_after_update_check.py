"""s482_break_after_update's independent check: TSVC's loop with its break, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_breaking_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c = v["a"].tolist(), v["b"].tolist(), v["c"].tolist()
    last = n - 1
    for i in range(n):
        a[i] += b[i] * c[i]
        if c[i] > b[i]:
            last = i
            break
    assert n // 2 <= last < n
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert np.array_equal(out["a"][last + 1:], v["a"][last + 1:])
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
