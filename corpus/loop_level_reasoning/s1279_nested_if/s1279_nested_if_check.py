"""s1279_nested_if's independent check: the TSVC loop with its nested ifs, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_nested_ifs(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c = v["a"].tolist(), v["b"].tolist(), v["c"].tolist()
    d, e = v["d"].tolist(), v["e"].tolist()
    for i in range(n):
        if a[i] < 0.0:
            if b[i] > a[i]:
                c[i] += d[i] * e[i]
    np.testing.assert_allclose(out["c"], c, rtol=1e-5, atol=1e-6)
    assert n // 4 < np.count_nonzero(out["c"] != v["c"]) < n // 2
    assert_judged_like_an_oracle(kernel, out, {"c": np.array(c)})
