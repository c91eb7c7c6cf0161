"""jacobi_2d's independent check: PolyBench/C's loop nest over Python lists, TSTEPS full steps."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n, steps = 9, 3
    v, out = run(kernel, {"TSTEPS": steps, "N": n}, seed)
    A = v["A"].tolist()
    B = v["B"].tolist()
    for _ in range(steps):
        for src, dst in ((A, B), (B, A)):
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    dst[i][j] = 0.2 * (src[i][j] + src[i][j - 1] + src[i][j + 1] + src[i + 1][j] + src[i - 1][j])
    np.testing.assert_allclose(out["A"], A, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(out["B"], B, rtol=1e-13, atol=1e-14)
    assert_judged_like_an_oracle(kernel, out, {"A": np.array(A), "B": np.array(B)})
