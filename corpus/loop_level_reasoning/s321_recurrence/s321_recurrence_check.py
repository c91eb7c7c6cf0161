"""s321_recurrence's independent check: the first-order recurrence as a Python loop in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 5000
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].astype(np.float64).tolist(), v["b"].astype(np.float64).tolist()
    for i in range(1, n):
        a[i] += a[i - 1] * b[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-4, atol=1e-5)
    assert np.abs(out["a"]).max() < 20.0
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
