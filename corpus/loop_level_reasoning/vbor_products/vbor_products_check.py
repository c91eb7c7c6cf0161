"""vbor_products's independent check: TSVC's loop body, statement by statement, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c, d, e, aa0 = (v[k].tolist() for k in ("a", "b", "c", "d", "e", "aa0"))
    x = [None] * n
    for i in range(n):
        a1, b1, c1, d1, e1, f1 = a[i], b[i], c[i], d[i], e[i], aa0[i]
        a1 = (a1 * b1 * c1 + a1 * b1 * d1 + a1 * b1 * e1 + a1 * b1 * f1 + a1 * c1 * d1
              + a1 * c1 * e1 + a1 * c1 * f1 + a1 * d1 * e1 + a1 * d1 * f1 + a1 * e1 * f1)
        b1 = b1 * c1 * d1 + b1 * c1 * e1 + b1 * c1 * f1 + b1 * d1 * e1 + b1 * d1 * f1 + b1 * e1 * f1
        c1 = c1 * d1 * e1 + c1 * d1 * f1 + c1 * e1 * f1
        d1 = d1 * e1 * f1
        x[i] = a1 * b1 * c1 * d1
    x = np.array(x)
    np.testing.assert_allclose(out["x"], x, rtol=1e-5, atol=0.0)
    assert_judged_like_an_oracle(kernel, out, {"x": x})
