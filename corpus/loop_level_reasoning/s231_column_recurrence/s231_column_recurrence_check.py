"""s231_column_recurrence's independent check: TSVC's loop nest (columns outside) over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa, bb = v["aa"].astype(np.float64).tolist(), v["bb"].astype(np.float64).tolist()
    for i in range(n):
        for j in range(1, n):
            aa[j][i] = aa[j - 1][i] + bb[j][i]
    aa = np.array(aa)
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-5, atol=1e-5 * np.abs(aa).max())
    assert_judged_like_an_oracle(kernel, out, {"aa": aa})
