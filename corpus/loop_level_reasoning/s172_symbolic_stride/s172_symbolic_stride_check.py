"""s172_symbolic_stride's independent check: the TSVC strided loop over Python lists, for unit
and non-unit offsets and strides."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n1n3=[(1, 1), (4, 3)], seed=SEEDS)
def check_against_loop(kernel, n1n3, seed):
    n = 1001
    n1, n3 = n1n3
    v, out = run(kernel, {"N": n, "N1": n1, "N3": n3}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    i = n1 - 1
    while i < n:
        a[i] += b[i]
        i += n3
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
