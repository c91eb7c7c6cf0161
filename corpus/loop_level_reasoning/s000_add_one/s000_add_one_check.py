"""s000_add_one's independent check: the TSVC loop over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b = v["b"].tolist()
    a = [0.0] * n
    for i in range(n):
        a[i] = b[i] + 1.0
    np.testing.assert_allclose(out["a"], a, rtol=1e-6, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
