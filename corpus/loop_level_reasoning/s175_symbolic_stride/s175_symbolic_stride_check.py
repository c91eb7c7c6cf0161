"""s175_symbolic_stride's independent check: the TSVC strided loop over Python lists, for inc = 1 and inc = 4."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(inc=[1, 4], seed=SEEDS)
def check_against_loop(kernel, inc, seed):
    n = 1001
    v, out = run(kernel, {"N": n, "INC": inc}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    i = 0
    while i < n - 1:
        a[i] = a[i + inc] + b[i]
        i += inc
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
