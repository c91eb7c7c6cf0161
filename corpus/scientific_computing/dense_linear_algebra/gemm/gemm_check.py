"""gemm's independent check: every element as an exactly rounded dot product (math.fsum) in
explicit loops, at sizes where no dimension equals another."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(13, 11, 17), (1, 5, 3), (6, 1, 1)], seed=SEEDS)
def check_against_exact_dot_products(kernel, shape, seed):
    ni, nj, nk = shape
    v, out = run(kernel, {"NI": ni, "NJ": nj, "NK": nk}, seed)
    A, B, C = v["A"].tolist(), v["B"].tolist(), v["C"].tolist()
    alpha, beta = float(v["alpha"]), float(v["beta"])
    expected = [[alpha * math.fsum(A[i][k] * B[k][j] for k in range(nk)) + beta * C[i][j] for j in range(nj)]
                for i in range(ni)]
    np.testing.assert_allclose(out["C"], expected, rtol=1e-12, atol=1e-12)
    if ni * nj > 1:
        assert_judged_like_an_oracle(kernel, out, {"C": np.array(expected)})
