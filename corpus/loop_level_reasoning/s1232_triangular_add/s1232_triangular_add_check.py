"""s1232_triangular_add's independent check: the triangular loop nest over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa, bb, cc = v["aa"].tolist(), v["bb"].tolist(), v["cc"].tolist()
    for j in range(n):
        for i in range(j, n):
            aa[i][j] = bb[i][j] + cc[i][j]
    aa = np.array(aa)
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-6, atol=1e-7)
    assert np.array_equal(out["aa"][np.triu_indices(n, 1)], v["aa"][np.triu_indices(n, 1)])
    assert_judged_like_an_oracle(kernel, out, {"aa": aa})
