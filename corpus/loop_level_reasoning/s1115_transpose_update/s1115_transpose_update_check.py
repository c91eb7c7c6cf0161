"""s1115_transpose_update's independent check: the TSVC double loop over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa, bb, cc = (v[k].astype(np.float64).tolist() for k in ("aa", "bb", "cc"))
    for i in range(n):
        for j in range(n):
            aa[i][j] = aa[i][j] * cc[j][i] + bb[i][j]
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"aa": np.array(aa)})
