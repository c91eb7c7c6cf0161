"""symm's independent check: PolyBench/C's loop nest (row i's rank-one scatter into the rows
above it) over Python lists, and the product with the full symmetric matrix mirrored from
A's lower triangle (NumPy's matmul)."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(1, 1), (1, 4), (5, 1), (7, 11), (12, 5)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    m, n = shape
    v, out = run(kernel, {"M": m, "N": n}, seed)
    A, B, C = v["A"].tolist(), v["B"].tolist(), v["C"].tolist()
    alpha, beta = float(v["alpha"]), float(v["beta"])
    for i in range(m):
        for j in range(n):
            temp2 = 0.0
            for k in range(i):
                C[k][j] += alpha * B[i][j] * A[i][k]
                temp2 += B[k][j] * A[i][k]
            C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2
    C = np.array(C)
    np.testing.assert_allclose(out["C"], C, rtol=1e-12, atol=1e-12 * np.abs(C).max())
    # The symmetric matrix the lower triangle stands for; the strict upper triangle of A
    # differs from it (the inputs are not symmetric), so reading it would fail here.
    low = np.tril(v["A"])
    S = low + np.tril(v["A"], -1).T
    assert m == 1 or not np.allclose(S, v["A"])
    expected = alpha * (S @ v["B"]) + beta * v["C"]
    np.testing.assert_allclose(out["C"], expected, rtol=1e-9, atol=1e-12 * np.abs(expected).max())
    if m * n > 1:
        assert_judged_like_an_oracle(kernel, out, {"C": C})
