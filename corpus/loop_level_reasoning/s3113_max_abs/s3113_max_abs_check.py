"""s3113_max_abs's independent check: the TSVC loop with its conditional update, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].tolist()
    m = abs(a[0])
    for i in range(n):
        if abs(a[i]) > m:
            m = abs(a[i])
    assert out["max_abs"].dtype == np.float32
    np.testing.assert_array_equal(out["max_abs"], [m])
    assert_judged_like_an_oracle(kernel, out, {"max_abs": np.array([m])})
