"""s151_interprocedural's independent check: the TSVC caller and callee, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _callee(a, b, m, n):
    for i in range(n - 1):
        a[i] = a[i + m] + b[i]


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    _callee(a, b, 1, n)
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert out["a"][n - 1] == v["a"][n - 1]
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
