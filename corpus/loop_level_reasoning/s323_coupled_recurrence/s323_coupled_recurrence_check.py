"""s323_coupled_recurrence's independent check: the TSVC loop over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].astype(np.float64).tolist()
    b = v["b"].astype(np.float64).tolist()
    c, d, e = (v[k].astype(np.float64).tolist() for k in "cde")
    for i in range(1, n):
        a[i] = b[i - 1] + c[i] * d[i]
        b[i] = a[i] + c[i] * e[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-5)
    assert out["a"][0] == v["a"][0]
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b)})
