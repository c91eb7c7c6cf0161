"""s162_symbolic_offset's independent check: the TSVC guarded loop, over Python lists, for k = 1 and k = 5."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(k=[1, 5], seed=SEEDS)
def check_against_loop(kernel, k, seed):
    n = 1001
    v, out = run(kernel, {"N": n, "K": k}, seed)
    a, b, c = v["a"].tolist(), v["b"].tolist(), v["c"].tolist()
    if k > 0:
        for i in range(n - k):
            a[i] = a[i + k] + b[i] * c[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
