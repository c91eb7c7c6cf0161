"""s131_offset_m's independent check: the TSVC loop with its offset variable, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    m = 1
    for i in range(n - 1):
        a[i] = a[i + m] + b[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-6, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
