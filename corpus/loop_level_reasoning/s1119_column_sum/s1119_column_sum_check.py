"""s1119_column_sum's independent check: the TSVC double loop over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa, bb = v["aa"].astype(np.float64).tolist(), v["bb"].astype(np.float64).tolist()
    for i in range(1, n):
        for j in range(n):
            aa[i][j] = aa[i - 1][j] + bb[i][j]
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"aa": np.array(aa)})
