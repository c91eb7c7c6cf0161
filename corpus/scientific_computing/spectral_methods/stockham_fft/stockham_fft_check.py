"""stockham_fft's independent check: numpy.fft (pocketfft) on every row, for powers of two up
to 2048; the DFT as an explicit sum at small N; and Parseval's identity."""

import cmath

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(sizes=[(1, 0), (2, 1), (3, 2), (1, 3), (4, 6), (3, 11)], seed=SEEDS)
def check_against_numpy_fft(kernel, sizes, seed):
    b, k = sizes
    n = 2 ** k
    v, out = run(kernel, {"B": b, "N": n, "K": k}, seed)
    y = np.fft.fft(v["x"], axis=1)
    np.testing.assert_allclose(out["y"], y, rtol=1e-12, atol=1e-12 * np.abs(y).max())
    # Parseval: sum |y|^2 = N sum |x|^2, row by row.
    np.testing.assert_allclose((np.abs(out["y"]) ** 2).sum(axis=1), n * (np.abs(v["x"]) ** 2).sum(axis=1), rtol=1e-12)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(k=[1, 2, 4, 5], seed=SEEDS)
def check_against_explicit_sum(kernel, k, seed):
    n = 2 ** k
    v, out = run(kernel, {"B": 2, "N": n, "K": k}, seed)
    x = v["x"].tolist()
    y = [[sum(x[b][m] * cmath.exp(-2j * cmath.pi * f * m / n) for m in range(n)) for f in range(n)] for b in range(2)]
    np.testing.assert_allclose(out["y"], y, rtol=1e-12, atol=1e-12 * n)
    assert_judged_like_an_oracle(kernel, out, {"y": np.array(y)})
