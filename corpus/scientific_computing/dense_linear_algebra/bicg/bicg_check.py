"""bicg's independent check: PolyBench/C's loop nest over Python lists, and the two products
as exactly rounded dot products (math.fsum) over A's columns and rows."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(13, 17), (1, 5), (6, 1), (2, 2)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    m, n = shape
    v, out = run(kernel, {"M": m, "N": n}, seed)
    A, p, r = v["A"].tolist(), v["p"].tolist(), v["r"].tolist()
    s = [0.0] * m
    q = [0.0] * n
    for i in range(n):
        for j in range(m):
            s[j] = s[j] + r[i] * A[i][j]
            q[i] = q[i] + A[i][j] * p[j]
    s_exact = [math.fsum(r[i] * A[i][j] for i in range(n)) for j in range(m)]
    q_exact = [math.fsum(A[i][j] * p[j] for j in range(m)) for i in range(n)]
    np.testing.assert_allclose(s, s_exact, rtol=1e-12, atol=1e-13 * n)
    np.testing.assert_allclose(q, q_exact, rtol=1e-12, atol=1e-13 * m)
    np.testing.assert_allclose(out["s"], s_exact, rtol=1e-12, atol=1e-13 * n)
    np.testing.assert_allclose(out["q"], q_exact, rtol=1e-12, atol=1e-13 * m)
    if m > 1 and n > 1:
        assert_judged_like_an_oracle(kernel, out, {"s": np.array(s_exact), "q": np.array(q_exact)})
