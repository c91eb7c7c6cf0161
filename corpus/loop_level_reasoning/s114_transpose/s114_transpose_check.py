"""s114_transpose's independent check: the TSVC double loop over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa, bb = v["aa"].tolist(), v["bb"].tolist()
    for i in range(n):
        for j in range(i):
            aa[i][j] = aa[j][i] + bb[i][j]
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-6, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"aa": np.array(aa)})
