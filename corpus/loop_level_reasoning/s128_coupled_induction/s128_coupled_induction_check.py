"""s128_coupled_induction's independent check: the TSVC loop with its coupled induction
variables, over Python lists in float32 arithmetic (a[i] is stored as float32 before b uses it)."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1002
    v, out = run(kernel, {"N": n}, seed)
    a, b = list(v["a"]), list(v["b"])          # numpy float32 scalars: float32 arithmetic
    c, d = list(v["c"]), list(v["d"])
    j = -1
    for i in range(n // 2):
        k = j + 1
        a[i] = b[k] - d[i]
        j = k + 1
        b[k] = a[i] + c[k]
    assert j == n - 1
    np.testing.assert_allclose(out["a"], np.array(a, dtype=np.float64), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out["b"], np.array(b, dtype=np.float64), rtol=1e-6, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b)})
