"""s256_alternating_rows's independent check: the TSVC double loop (column outer, recurrence
inner, repeated for every column) over Python lists in float32 steps."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    f = np.float32
    a = [f(x) for x in v["a"].tolist()]
    aa = v["aa"].tolist()
    bb, d = v["bb"].tolist(), v["d"].tolist()
    for i in range(n):
        for j in range(1, n):
            a[j] = f(1.0) - a[j - 1]
            aa[j][i] = float(a[j]) + bb[j][i] * d[j]
    a = [float(x) for x in a]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "aa": np.array(aa)})
