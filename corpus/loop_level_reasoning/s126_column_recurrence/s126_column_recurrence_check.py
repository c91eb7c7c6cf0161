"""s126_column_recurrence's independent check: the TSVC nest with its counter k, over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    bb = v["bb"].astype(np.float64).tolist()
    cc = v["cc"].astype(np.float64).tolist()
    flat = v["flat_2d_array"].astype(np.float64).tolist()
    k = 1
    for i in range(n):
        for j in range(1, n):
            bb[j][i] = bb[j - 1][i] + flat[k - 1] * cc[j][i]
            k += 1
        k += 1
    assert k == n * n + 1
    np.testing.assert_allclose(out["bb"], bb, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"bb": np.array(bb)})
