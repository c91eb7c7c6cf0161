"""s232_triangular_recurrence's independent check: TSVC's loop nest (rows outside) over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa, bb = v["aa"].astype(np.float64).tolist(), v["bb"].astype(np.float64).tolist()
    for j in range(1, n):
        for i in range(1, j + 1):
            aa[j][i] = aa[j][i - 1] * aa[j][i - 1] + bb[j][i]
    aa = np.array(aa)
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-5, atol=1e-6)
    assert -0.5 <= aa.min() and aa.max() <= 0.45
    assert_judged_like_an_oracle(kernel, out, {"aa": aa})
