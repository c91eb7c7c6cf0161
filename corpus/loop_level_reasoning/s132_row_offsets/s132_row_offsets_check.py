"""s132_row_offsets's independent check: the TSVC loop with its index variables, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    aa, b, c = v["aa"].astype(np.float64).tolist(), v["b"].tolist(), v["c"].tolist()
    m = 0
    j = m
    k = m + 1
    for i in range(1, n):
        aa[j][i] = aa[k][i - 1] + b[i] * c[1]
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-6, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"aa": np.array(aa)})
