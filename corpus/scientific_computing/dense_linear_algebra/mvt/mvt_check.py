"""mvt's independent check: PolyBench/C's two loop nests over Python lists (the second walking
A by columns), and each sum exactly rounded (math.fsum)."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1, 2, 7, 31], seed=SEEDS)
def check_against_loops(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    A, y1, y2 = v["A"].tolist(), v["y_1"].tolist(), v["y_2"].tolist()
    x1, x2 = v["x1"].tolist(), v["x2"].tolist()
    exact1 = [math.fsum([x1[i]] + [A[i][j] * y1[j] for j in range(n)]) for i in range(n)]
    exact2 = [math.fsum([x2[i]] + [A[j][i] * y2[j] for j in range(n)]) for i in range(n)]
    for i in range(n):
        for j in range(n):
            x1[i] = x1[i] + A[i][j] * y1[j]
    for i in range(n):
        for j in range(n):
            x2[i] = x2[i] + A[j][i] * y2[j]
    tol = {"rtol": 1e-12, "atol": 1e-13 * (n + 1)}
    np.testing.assert_allclose(x1, exact1, **tol)
    np.testing.assert_allclose(x2, exact2, **tol)
    np.testing.assert_allclose(out["x1"], exact1, **tol)
    np.testing.assert_allclose(out["x2"], exact2, **tol)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"x1": np.array(exact1), "x2": np.array(exact2)})
