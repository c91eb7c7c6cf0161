"""s1111_stride_two's independent check: the TSVC loop over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1000
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].astype(np.float64).tolist()
    b, c, d = (v[k].astype(np.float64).tolist() for k in ("b", "c", "d"))
    for i in range(n // 2):
        a[2 * i] = c[i] * b[i] + d[i] * b[i] + c[i] * c[i] + d[i] * b[i] + d[i] * c[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert np.array_equal(out["a"][1::2], v["a"][1::2])
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
