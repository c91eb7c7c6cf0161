"""three_mm's independent check: PolyBench/C's three loop nests over Python lists, each element
an exactly rounded dot product (math.fsum), and the other association ((A B) C) D in NumPy."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _product(X, Y, n, m, k):
    return [[math.fsum(X[i][p] * Y[p][j] for p in range(k)) for j in range(m)] for i in range(n)]


@each(shape=[(7, 9, 11, 6, 13), (1, 2, 3, 4, 5), (3, 1, 1, 2, 1), (1, 1, 1, 1, 1)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    ni, nj, nk, nl, nm = shape
    v, out = run(kernel, {"NI": ni, "NJ": nj, "NK": nk, "NL": nl, "NM": nm}, seed)
    A, B, C, D = (v[k].tolist() for k in ("A", "B", "C", "D"))
    E = _product(A, B, ni, nj, nk)
    F = _product(C, D, nj, nl, nm)
    expected = np.array(_product(E, F, ni, nl, nj))
    scale = np.abs(expected).max()
    np.testing.assert_allclose(out["G"], expected, rtol=1e-12, atol=1e-12 * scale)
    other = ((v["A"] @ v["B"]) @ v["C"]) @ v["D"]
    np.testing.assert_allclose(out["G"], other, rtol=1e-11, atol=1e-11 * scale)
    if ni * nl > 1:
        assert_judged_like_an_oracle(kernel, out, {"G": expected})
