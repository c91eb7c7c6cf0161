"""s221_partial_recurrence's independent check: the TSVC loop over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].astype(np.float64).tolist(), v["b"].astype(np.float64).tolist()
    c, d = v["c"].astype(np.float64).tolist(), v["d"].astype(np.float64).tolist()
    for i in range(1, n):
        a[i] += c[i] * d[i]
        b[i] = b[i - 1] + a[i] + d[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    # b is a sum of up to 1000 float32 terms: compare on the scale of its largest value.
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-5 * np.abs(b).max())
    assert 3.0 < np.abs(out["b"]).max() < 200.0
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b)})
