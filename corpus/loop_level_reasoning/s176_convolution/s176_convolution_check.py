"""s176_convolution's independent check: the TSVC nest over Python lists in float64, and
numpy.convolve of the same halves (the exact convolution, another way)."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 601
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].astype(np.float64).tolist()
    b = v["b"].astype(np.float64).tolist()
    c = v["c"].astype(np.float64).tolist()
    m = n // 2
    for j in range(m):
        for i in range(m):
            a[i] += b[i + m - j - 1] * c[j]
    # a[i] - a0[i] = sum_j b[i + m - 1 - j] c[j]: entries m-1 .. 2m-2 of the full convolution.
    conv = np.convolve(v["b"][: 2 * m - 1].astype(np.float64), v["c"][:m].astype(np.float64))
    np.testing.assert_allclose(np.array(a[:m]) - v["a"][:m], conv[m - 1 : 2 * m - 1], rtol=1e-9, atol=1e-9)
    # float32 sums of m = 300 terms of random sign, results of order sqrt(m): 1e-5 relative
    # to the largest element is what float32 rounding leaves.
    scale = np.abs(a).max()
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-5 * scale)
    assert np.array_equal(out["a"][m:], v["a"][m:])
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
