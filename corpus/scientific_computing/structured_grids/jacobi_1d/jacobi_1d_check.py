"""jacobi_1d's independent check: PolyBench/C's loop nest over Python lists, TSTEPS full steps."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _loops(A, B, n, steps):
    A, B = list(A), list(B)
    for _ in range(steps):
        for i in range(1, n - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
    return A, B


@each(size=[(3, 1), (4, 2), (17, 5), (40, 13)], seed=SEEDS)
def check_against_loops(kernel, size, seed):
    n, steps = size
    v, out = run(kernel, {"TSTEPS": steps, "N": n}, seed)
    A, B = _loops(v["A"].tolist(), v["B"].tolist(), n, steps)
    np.testing.assert_allclose(out["A"], A, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(out["B"], B, rtol=1e-13, atol=1e-14)
    assert_judged_like_an_oracle(kernel, out, {"A": np.array(A), "B": np.array(B)})

