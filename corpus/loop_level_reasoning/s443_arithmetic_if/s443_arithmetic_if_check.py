"""s443_arithmetic_if's independent check: TSVC's goto loop as a Python loop with labels."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_goto_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c, d = v["a"].tolist(), v["b"].tolist(), v["c"].tolist(), v["d"].tolist()
    to_l20 = 0
    for i in range(n):
        label = 20 if d[i] <= 0.0 else 30
        if label == 20:
            a[i] += b[i] * c[i]
            to_l20 += 1
        else:
            a[i] += b[i] * b[i]
    assert n // 3 < to_l20 < 2 * n // 3
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
