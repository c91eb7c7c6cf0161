"""s4114_reversed_gather's independent check: the TSVC loop, with TSVC's index arithmetic, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n1=[1, 2, 250], seed=SEEDS)
def check_against_loop(kernel, n1, seed):
    n = 1001
    v, out = run(kernel, {"N": n, "N1": n1}, seed)
    a, b, c, d, ip = (v[x].tolist() for x in ("a", "b", "c", "d", "ip"))
    for i in range(n1 - 1, n):
        k = ip[i]
        a[i] = b[i] + c[n - k + 1 - 2] * d[i]
        k += 5
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert np.array_equal(out["a"][:n1 - 1], v["a"][:n1 - 1])
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
