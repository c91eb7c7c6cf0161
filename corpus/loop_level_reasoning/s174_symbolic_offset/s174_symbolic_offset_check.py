"""s174_symbolic_offset's independent check: the TSVC loop over Python lists, for M = N/2 and a smaller M."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(m=[500, 301], seed=SEEDS)
def check_against_loop(kernel, m, seed):
    n = 1001
    v, out = run(kernel, {"N": n, "M": m}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    for i in range(m):
        a[i + m] = a[i] + b[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
