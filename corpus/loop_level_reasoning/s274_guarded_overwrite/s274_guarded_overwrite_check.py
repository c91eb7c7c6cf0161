"""s274_guarded_overwrite's independent check: the TSVC loop with its if-else, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b = v["b"].tolist()
    c, d, e = v["c"].tolist(), v["d"].tolist(), v["e"].tolist()
    a = [float("nan")] * n
    for i in range(n):
        a[i] = c[i] + e[i] * d[i]
        if a[i] > 0.0:
            b[i] = a[i] + b[i]
        else:
            a[i] = d[i] * e[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-6)
    changed = np.count_nonzero(out["b"] != v["b"])
    assert n // 3 < changed < 2 * n // 3
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b)})
