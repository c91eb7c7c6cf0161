"""s125_flatten's independent check: the TSVC nest with its counter k, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa, bb, cc = v["aa"].tolist(), v["bb"].tolist(), v["cc"].tolist()
    flat = [None] * (n * n)
    k = -1
    for i in range(n):
        for j in range(n):
            k += 1
            flat[k] = aa[i][j] + bb[i][j] * cc[i][j]
    np.testing.assert_allclose(out["flat_2d_array"], flat, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"flat_2d_array": np.array(flat)})
