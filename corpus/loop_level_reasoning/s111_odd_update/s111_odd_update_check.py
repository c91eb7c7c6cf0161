"""s111_odd_update's independent check: the TSVC stride-two loop over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1000
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    for i in range(1, n, 2):
        a[i] = a[i - 1] + b[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-6, atol=1e-7)
    assert np.array_equal(out["a"][0::2], v["a"][0::2])
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
