"""s112_reverse_shift's independent check: the TSVC backwards loop over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_backwards_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    for i in range(n - 2, -1, -1):
        a[i + 1] = a[i] + b[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-6, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
