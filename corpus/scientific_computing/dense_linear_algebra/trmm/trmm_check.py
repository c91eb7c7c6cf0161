"""trmm's independent check: PolyBench/C's loop nest over Python lists, in place, and
alpha (L + I)^T B through NumPy's matmul, with L the strict lower triangle of A."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(1, 1), (1, 4), (5, 1), (8, 11), (13, 6)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    m, n = shape
    v, out = run(kernel, {"M": m, "N": n}, seed)
    A, B = v["A"].tolist(), v["B"].tolist()
    alpha = float(v["alpha"])
    for i in range(m):
        for j in range(n):
            for k in range(i + 1, m):
                B[i][j] += A[k][i] * B[k][j]
            B[i][j] = alpha * B[i][j]
    B = np.array(B)
    np.testing.assert_allclose(out["B"], B, rtol=1e-12, atol=1e-12 * np.abs(B).max())
    # The diagonal and upper triangle of A are not ones and zeros: reading them would fail here.
    unit_lower = np.tril(v["A"], -1) + np.eye(m)
    assert not np.allclose(unit_lower, v["A"])
    expected = alpha * (unit_lower.T @ v["B"])
    np.testing.assert_allclose(out["B"], expected, rtol=1e-9, atol=1e-12 * np.abs(expected).max())
    if m * n > 1:
        assert_judged_like_an_oracle(kernel, out, {"B": B})
