"""syrk's independent check: PolyBench/C's loop nest over Python lists (k outside j), and the
whole update through NumPy's matrix product, lower triangle only."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(1, 1), (4, 1), (1, 5), (9, 7), (6, 13)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    m, n = shape
    v, out = run(kernel, {"M": m, "N": n}, seed)
    A, C = v["A"].tolist(), v["C"].tolist()
    alpha, beta = float(v["alpha"]), float(v["beta"])
    for i in range(n):
        for j in range(i + 1):
            C[i][j] *= beta
        for k in range(m):
            for j in range(i + 1):
                C[i][j] += alpha * A[i][k] * A[j][k]
    C = np.array(C)
    np.testing.assert_allclose(out["C"], C, rtol=1e-12, atol=1e-12 * np.abs(C).max())
    expected = np.tril(alpha * (v["A"] @ v["A"].T) + beta * v["C"]) + np.triu(v["C"], 1)
    np.testing.assert_allclose(out["C"], expected, rtol=1e-9, atol=1e-12 * np.abs(expected).max())
    np.testing.assert_array_equal(np.triu(out["C"], 1), np.triu(v["C"], 1))
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"C": C})
