"""s222_squaring_recurrence's independent check: the loop, statements in their order, over
Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, e = v["a"].astype(np.float64).tolist(), v["e"].astype(np.float64).tolist()
    b, c = v["b"].astype(np.float64).tolist(), v["c"].astype(np.float64).tolist()
    for i in range(1, n):
        a[i] += b[i] * c[i]
        e[i] = e[i - 1] * e[i - 1] + e[i]
        a[i] -= b[i] * c[i]
    # a changes only by float32 rounding, which float64 arithmetic does not reproduce.
    np.testing.assert_allclose(out["a"], a, rtol=1e-6, atol=3e-7)
    np.testing.assert_allclose(out["e"], e, rtol=1e-5, atol=1e-6)
    assert -0.5 <= out["e"].min() and out["e"].max() <= 0.45 and np.std(out["e"]) > 0.1
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "e": np.array(e)})
