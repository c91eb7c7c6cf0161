"""s331_last_negative's independent check: the TSVC loop with its conditional index
assignment, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_search_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].tolist()
    j = -1
    for i in range(n):
        if a[i] < 0.0:
            j = i
    assert out["last"].dtype == np.int64
    assert n // 2 - 20 < j < (3 * n) // 4 + 1
    np.testing.assert_array_equal(out["last"], [j])
    assert_judged_like_an_oracle(kernel, out, {"last": np.array([j])})


def check_no_negative_gives_minus_one(kernel):
    v, out = run(kernel, {"N": 1}, 0)
    assert v["a"][0] >= 0.0 and out["last"][0] == -1
