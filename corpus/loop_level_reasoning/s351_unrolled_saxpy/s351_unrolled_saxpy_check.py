"""s351_unrolled_saxpy's independent check: TSVC's unrolled loop over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_unrolled_loop(kernel, seed):
    n = 1005
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    alpha = float(v["alpha"])
    for i in range(0, n, 5):
        a[i] += alpha * b[i]
        a[i + 1] += alpha * b[i + 1]
        a[i + 2] += alpha * b[i + 2]
        a[i + 3] += alpha * b[i + 3]
        a[i + 4] += alpha * b[i + 4]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
