"""s322_second_order's independent check: the second-order recurrence as a Python loop in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].astype(np.float64).tolist()
    b, c = v["b"].astype(np.float64).tolist(), v["c"].astype(np.float64).tolist()
    for i in range(2, n):
        a[i] = a[i] + a[i - 1] * b[i] + a[i - 2] * c[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-5)
    assert np.abs(out["a"]).max() < 20.0 and np.std(out["a"]) > 0.3
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
