"""s273_sign_guard's independent check: the TSVC loop with its branch, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c = v["a"].tolist(), v["b"].tolist(), v["c"].tolist()
    d, e = v["d"].tolist(), v["e"].tolist()
    for i in range(n):
        a[i] += d[i] * e[i]
        if a[i] < 0.0:
            b[i] += d[i] * e[i]
        c[i] += a[i] * d[i]
    for name, want in (("a", a), ("b", b), ("c", c)):
        np.testing.assert_allclose(out[name], want, rtol=1e-5, atol=1e-6)
    changed = np.count_nonzero(out["b"] != v["b"])
    assert n // 3 < changed < 2 * n // 3
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b), "c": np.array(c)})
