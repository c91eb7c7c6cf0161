"""s152_interprocedural's independent check: the TSVC loop and its callee, over Python lists
in float32 arithmetic."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _callee(a, b, c, i):
    a[i] += b[i] * c[i]


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, c, d, e = (list(v[x]) for x in "acde")   # numpy float32 scalars
    b = [None] * n
    for i in range(n):
        b[i] = d[i] * e[i]
        _callee(a, b, c, i)
    np.testing.assert_array_equal(out["b"], np.array(b, dtype=np.float32))
    np.testing.assert_allclose(out["a"], np.array(a, dtype=np.float64), rtol=1e-6, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b)})
