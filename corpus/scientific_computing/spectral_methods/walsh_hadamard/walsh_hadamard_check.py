"""walsh_hadamard's independent check: the dense Hadamard matrix (scipy.linalg.hadamard, Sylvester
order) times each signal at small N; the closed form H[i, j] = (-1)**popcount(i & j) as an
explicit sum; and H_N H_N = N I (transforming twice gives N x)."""

import numpy as np
import scipy.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(sizes=[(1, 0), (2, 1), (3, 2), (1, 3), (4, 5), (2, 10)], seed=SEEDS)
def check_against_scipy_hadamard(kernel, sizes, seed):
    b, k = sizes
    n = 2 ** k
    v, out = run(kernel, {"B": b, "N": n, "K": k}, seed)
    expected = (scipy.linalg.hadamard(n).astype(np.float64) @ v["x"].reshape(b, n).T).T.reshape(b * n)
    np.testing.assert_allclose(out["x"], expected, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(expected).max()))
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"x": expected})


@each(k=[2, 4, 6], seed=SEEDS)
def check_against_popcount_sum(kernel, k, seed):
    n = 2 ** k
    v, out = run(kernel, {"B": 3, "N": n, "K": k}, seed)
    x = v["x"].reshape(3, n).tolist()
    expected = [[sum((-1.0) ** bin(i & j).count("1") * x[b][j] for j in range(n)) for i in range(n)] for b in range(3)]
    np.testing.assert_allclose(out["x"].reshape(3, n), expected, rtol=1e-12, atol=1e-12 * n)
    assert_judged_like_an_oracle(kernel, out, {"x": np.array(expected).reshape(3 * n)})


@each(seed=SEEDS)
def check_involution(kernel, seed):
    # H_N is symmetric with H_N H_N = N I: the transform of the transform is N times the input.
    b, k = 2, 12
    n = 2 ** k
    v, out = run(kernel, {"B": b, "N": n, "K": k}, seed)
    twice = out["x"].copy()
    kernel.reference().function(twice, b, n, k)
    np.testing.assert_allclose(twice, n * v["x"], rtol=1e-12, atol=1e-10)
