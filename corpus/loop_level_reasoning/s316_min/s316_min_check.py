"""s316_min's independent check: the TSVC loop with its conditional update, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].tolist()
    x = a[0]
    for i in range(1, n):
        if a[i] < x:
            x = a[i]
    assert out["x"].dtype == np.float32
    np.testing.assert_array_equal(out["x"], [x])
    assert_judged_like_an_oracle(kernel, out, {"x": np.array([x])})
