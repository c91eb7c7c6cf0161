"""syr2k's independent check: PolyBench/C's loop nest over Python lists (k outside j), and the
whole update through NumPy's matrix products, lower triangle only."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(1, 1), (4, 1), (1, 5), (9, 7), (6, 13)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    m, n = shape
    v, out = run(kernel, {"M": m, "N": n}, seed)
    A, B, C = v["A"].tolist(), v["B"].tolist(), v["C"].tolist()
    alpha, beta = float(v["alpha"]), float(v["beta"])
    for i in range(n):
        for j in range(i + 1):
            C[i][j] *= beta
        for k in range(m):
            for j in range(i + 1):
                C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k]
    C = np.array(C)
    np.testing.assert_allclose(out["C"], C, rtol=1e-12, atol=1e-12 * np.abs(C).max())
    full = alpha * (v["A"] @ v["B"].T + v["B"] @ v["A"].T) + beta * v["C"]
    expected = np.tril(full) + np.triu(v["C"], 1)
    np.testing.assert_allclose(out["C"], expected, rtol=1e-9, atol=1e-12 * np.abs(expected).max())
    np.testing.assert_array_equal(np.triu(out["C"], 1), np.triu(v["C"], 1))
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"C": C})
