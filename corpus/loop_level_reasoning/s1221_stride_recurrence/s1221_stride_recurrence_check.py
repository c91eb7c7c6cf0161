"""s1221_stride_recurrence's independent check: the four running sums, one chain at a time,
over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_four_chains(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].astype(np.float64).tolist(), v["b"].astype(np.float64).tolist()
    for lane in range(4):
        total = b[lane]
        for i in range(lane + 4, n, 4):
            total += a[i]
            b[i] = total
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-5 * np.abs(b).max())
    assert 2.0 < np.abs(out["b"]).max() < 100.0
    assert_judged_like_an_oracle(kernel, out, {"b": np.array(b)})
