"""trisolv's independent check: PolyBench/C's loop nest over Python floats, LAPACK's
triangular solve (scipy.linalg.solve_triangular), and the residual L x - b."""

import numpy as np
import scipy.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1, 2, 17, 64], seed=SEEDS)
def check_against_loops_and_lapack(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    L, b = v["L"], v["b"]
    np.testing.assert_array_equal(np.triu(L, 1), 0.0)
    Ll, x = L.tolist(), [0.0] * n
    for i in range(n):
        x[i] = float(b[i])
        for j in range(i):
            x[i] -= Ll[i][j] * x[j]
        x[i] = x[i] / Ll[i][i]
    x = np.array(x)
    np.testing.assert_allclose(out["x"], x, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out["x"], scipy.linalg.solve_triangular(L, b, lower=True), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(L @ out["x"], b, rtol=1e-12, atol=1e-12)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"x": x})
