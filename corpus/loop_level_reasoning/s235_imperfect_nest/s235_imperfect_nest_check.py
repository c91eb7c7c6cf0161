"""s235_imperfect_nest's independent check: TSVC's imperfect loop nest over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    a, b, c = (v[k].astype(np.float64).tolist() for k in ("a", "b", "c"))
    aa, bb = v["aa"].astype(np.float64).tolist(), v["bb"].astype(np.float64).tolist()
    for i in range(n):
        a[i] += b[i] * c[i]
        for j in range(1, n):
            aa[j][i] = aa[j - 1][i] + bb[j][i] * a[i]
    aa = np.array(aa)
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-5, atol=1e-5 * np.abs(aa).max())
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "aa": aa})
