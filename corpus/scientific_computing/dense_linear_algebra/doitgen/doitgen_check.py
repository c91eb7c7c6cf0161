"""doitgen's independent check: PolyBench/C's loop nest over Python lists (sum[p] over s, then
copied back), each element also as an exactly rounded dot product (math.fsum), and the whole
as one np.einsum contraction."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(3, 4, 5), (2, 5, 1), (1, 3, 7), (4, 1, 2)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    nr, nq, npp = shape
    v, out = run(kernel, {"NR": nr, "NQ": nq, "NP": npp}, seed)
    A, C4 = v["A"].tolist(), v["C4"].tolist()
    exact = [[[math.fsum(A[r][q][s] * C4[s][p] for s in range(npp)) for p in range(npp)]
              for q in range(nq)] for r in range(nr)]
    for r in range(nr):
        for q in range(nq):
            acc = [0.0] * npp
            for p in range(npp):
                for s in range(npp):
                    acc[p] += A[r][q][s] * C4[s][p]
            for p in range(npp):
                A[r][q][p] = acc[p]
    expected = np.array(exact)
    scale = np.abs(expected).max()
    np.testing.assert_allclose(A, expected, rtol=1e-12, atol=1e-13 * scale)
    np.testing.assert_allclose(out["A"], expected, rtol=1e-12, atol=1e-13 * scale)
    np.testing.assert_allclose(out["A"], np.einsum("rqs,sp->rqp", v["A"], v["C4"]), rtol=1e-12,
                               atol=1e-13 * scale)
    if expected.size > 1:
        assert_judged_like_an_oracle(kernel, out, {"A": expected})
