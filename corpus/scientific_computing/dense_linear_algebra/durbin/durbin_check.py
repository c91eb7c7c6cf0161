"""durbin's independent check: PolyBench/C's loop nest over Python floats, the Toeplitz
solver of scipy (scipy.linalg.solve_toeplitz), and the residual T y + r against the dense T."""

import numpy as np
import scipy.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def polybench_durbin(r):
    n = len(r)
    r = r.tolist()
    y, z = [0.0] * n, [0.0] * n
    y[0] = -r[0]
    beta, alpha = 1.0, -r[0]
    for k in range(1, n):
        beta = (1 - alpha * alpha) * beta
        total = 0.0
        for i in range(k):
            total += r[k - i - 1] * y[i]
        alpha = -(r[k] + total) / beta
        for i in range(k):
            z[i] = y[i] + alpha * y[k - i - 1]
        for i in range(k):
            y[i] = z[i]
        y[k] = alpha
    return np.array(y)


@each(n=[1, 2, 3, 17, 150], seed=SEEDS)
def check_against_loops_and_scipy(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    r, y = v["r"], out["y"]
    expected = polybench_durbin(r)
    np.testing.assert_allclose(y, expected, rtol=1e-11, atol=1e-14)
    column = np.concatenate([[1.0], r[:-1]])
    np.testing.assert_allclose(y, scipy.linalg.solve_toeplitz(column, -r), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(scipy.linalg.toeplitz(column) @ y, -r, rtol=1e-10, atol=1e-13)
    # The inputs keep every reflection coefficient well inside (-1, 1): T is well conditioned.
    assert np.linalg.cond(scipy.linalg.toeplitz(column)) < 100
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"y": expected})
