"""s491_scatter's independent check: the TSVC loop with its indirect store, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_scatter_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b, c, d, ip = v["b"].tolist(), v["c"].tolist(), v["d"].tolist(), v["ip"].tolist()
    assert sorted(ip) == list(range(n))
    a = [None] * n
    for i in range(n):
        a[ip[i]] = b[i] + c[i] * d[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
