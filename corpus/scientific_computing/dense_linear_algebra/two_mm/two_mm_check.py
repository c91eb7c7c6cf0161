"""two_mm's independent check: PolyBench/C's two loop nests over Python lists, each element an
exactly rounded dot product (math.fsum), and the other association alpha * A (B C) in NumPy."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(9, 11, 13, 7), (1, 3, 2, 5), (4, 1, 1, 1), (1, 1, 1, 1)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    ni, nj, nk, nl = shape
    v, out = run(kernel, {"NI": ni, "NJ": nj, "NK": nk, "NL": nl}, seed)
    A, B, C, D = (v[k].tolist() for k in ("A", "B", "C", "D"))
    alpha, beta = float(v["alpha"]), float(v["beta"])
    tmp = [[math.fsum(alpha * A[i][k] * B[k][j] for k in range(nk)) for j in range(nj)] for i in range(ni)]
    for i in range(ni):
        for j in range(nl):
            D[i][j] = math.fsum([beta * D[i][j]] + [tmp[i][k] * C[k][j] for k in range(nj)])
    expected = np.array(D)
    np.testing.assert_allclose(out["D"], expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    other = v["alpha"] * (v["A"] @ (v["B"] @ v["C"])) + v["beta"] * v["D"]
    np.testing.assert_allclose(out["D"], other, rtol=1e-11, atol=1e-11 * np.abs(other).max())
    if ni * nl > 1:
        assert_judged_like_an_oracle(kernel, out, {"D": expected})
