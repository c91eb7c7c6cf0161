"""s242_scalar_recurrence's independent check: a running sum of precomputed increments over
Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_running_sum(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    s = float(v["s1"]) + float(v["s2"])
    b, c, d = (v[k].astype(np.float64).tolist() for k in ("b", "c", "d"))
    a = v["a"].astype(np.float64).tolist()
    total = a[0]
    for i in range(1, n):
        total += s + b[i] + c[i] + d[i]
        a[i] = total
    a = np.array(a)
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-5 * np.abs(a).max())
    assert 3.0 < np.abs(a).max() < 200.0
    assert_judged_like_an_oracle(kernel, out, {"a": a})
