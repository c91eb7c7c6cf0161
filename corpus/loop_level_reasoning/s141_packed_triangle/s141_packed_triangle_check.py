"""s141_packed_triangle's independent check: the TSVC loop with its induction variable k,
over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    bb, flat = v["bb"].tolist(), v["flat_2d_array"].tolist()
    for i in range(n):
        k = (i + 1) * ((i + 1) - 1) // 2 + (i + 1) - 1
        for j in range(i, n):
            flat[k] += bb[j][i]
            k += j + 1
    np.testing.assert_allclose(out["flat_2d_array"], flat, rtol=1e-6, atol=1e-7)
    half = n * (n + 1) // 2
    assert np.array_equal(out["flat_2d_array"][half:], v["flat_2d_array"][half:])
    assert_judged_like_an_oracle(kernel, out, {"flat_2d_array": np.array(flat)})
