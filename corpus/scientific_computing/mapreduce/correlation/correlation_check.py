"""correlation's independent check: PolyBench/C's loop nests over Python lists, and the same
matrix from NumPy's population covariance (np.cov, bias=True) and deviations (np.std),
divided by the deviations with PolyBench's eps rule."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

EPS = 0.1


def _loops(data, m, n):
    data = [row[:] for row in data]
    float_n = float(n)
    mean = [sum(data[i][j] for i in range(n)) / float_n for j in range(m)]
    stddev = []
    for j in range(m):
        s = 0.0
        for i in range(n):
            s += (data[i][j] - mean[j]) * (data[i][j] - mean[j])
        s = (s / float_n) ** 0.5
        stddev.append(1.0 if s <= EPS else s)
    for i in range(n):
        for j in range(m):
            data[i][j] -= mean[j]
            data[i][j] /= float_n ** 0.5 * stddev[j]
    corr = [[0.0] * m for _ in range(m)]
    for i in range(m - 1):
        corr[i][i] = 1.0
        for j in range(i + 1, m):
            for k in range(n):
                corr[i][j] += data[k][i] * data[k][j]
            corr[j][i] = corr[i][j]
    corr[m - 1][m - 1] = 1.0
    return data, mean, stddev, corr


@each(shape=[(9, 11), (17, 5), (8, 2), (1, 4), (3, 1)], seed=SEEDS)
def check_against_loops_and_numpy(kernel, shape, seed):
    m, n = shape
    v, out = run(kernel, {"M": m, "N": n}, seed)
    X = v["data"]
    data, mean, stddev, corr = _loops(X.tolist(), m, n)
    tol = {"rtol": 1e-12, "atol": 1e-13}
    for name, got in (("data", data), ("mean", mean), ("stddev", stddev), ("corr", corr)):
        np.testing.assert_allclose(out[name], got, **tol, err_msg=name)

    sd = np.std(X, axis=0)
    sd = np.where(sd <= EPS, 1.0, sd)
    np.testing.assert_allclose(out["mean"], np.mean(X, axis=0), **tol)
    np.testing.assert_allclose(out["stddev"], sd, **tol)
    np.testing.assert_allclose(out["data"], (X - X.mean(axis=0)) / (np.sqrt(n) * sd), **tol)
    if n > 1 and m > 1:
        c = np.cov(X, rowvar=False, bias=True) / np.outer(sd, sd)
        np.fill_diagonal(c, 1.0)
        np.testing.assert_allclose(out["corr"], c, **tol)
    if m >= 8:
        # the eps rule is exercised: column 7's deviation is replaced by 1.0
        assert np.std(X[:, 7]) <= EPS and out["stddev"][7] == 1.0
    if m > 1 and n > 2:
        assert_judged_like_an_oracle(kernel, out, {"data": np.array(data), "mean": np.array(mean),
                                                   "stddev": np.array(stddev), "corr": np.array(corr)})
