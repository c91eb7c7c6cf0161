"""heat_3d's independent check: PolyBench/C's point-by-point loop nest, TSTEPS full steps."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n, steps = 6, 2
    v, out = run(kernel, {"TSTEPS": steps, "N": n}, seed)
    A = v["A"].copy()
    B = v["B"].copy()
    for _ in range(steps):
        for src, dst in ((A, B), (B, A)):
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    for l in range(1, n - 1):
                        dst[i, j, l] = (0.125 * (src[i + 1, j, l] - 2.0 * src[i, j, l] + src[i - 1, j, l])
                                        + 0.125 * (src[i, j + 1, l] - 2.0 * src[i, j, l] + src[i, j - 1, l])
                                        + 0.125 * (src[i, j, l + 1] - 2.0 * src[i, j, l] + src[i, j, l - 1])
                                        + src[i, j, l])
    np.testing.assert_allclose(out["A"], A, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(out["B"], B, rtol=1e-13, atol=1e-14)
    assert_judged_like_an_oracle(kernel, out, {"A": A, "B": B})
