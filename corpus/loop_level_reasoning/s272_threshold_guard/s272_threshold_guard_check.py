"""s272_threshold_guard's independent check: the TSVC loop with its branch, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    c, d, e = v["c"].tolist(), v["d"].tolist(), v["e"].tolist()
    t = float(v["t"])
    for i in range(n):
        if e[i] >= t:
            a[i] += c[i] * d[i]
            b[i] += c[i] * c[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-6)
    changed = np.count_nonzero(out["b"] != v["b"])
    assert n // 3 < changed < 2 * n // 3
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b)})
