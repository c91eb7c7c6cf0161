"""covariance's independent check: PolyBench/C's loop nests over Python lists, and NumPy's own
sample covariance (np.cov) and means."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _loops(data, m, n):
    data = [row[:] for row in data]
    float_n = float(n)
    mean = []
    for j in range(m):
        s = 0.0
        for i in range(n):
            s += data[i][j]
        mean.append(s / float_n)
    for i in range(n):
        for j in range(m):
            data[i][j] -= mean[j]
    cov = [[0.0] * m for _ in range(m)]
    for i in range(m):
        for j in range(i, m):
            for k in range(n):
                cov[i][j] += data[k][i] * data[k][j]
            cov[i][j] /= float_n - 1.0
            cov[j][i] = cov[i][j]
    return data, mean, cov


@each(shape=[(9, 11), (13, 4), (1, 5), (3, 2)], seed=SEEDS)
def check_against_loops_and_numpy(kernel, shape, seed):
    m, n = shape
    v, out = run(kernel, {"M": m, "N": n}, seed)
    X = v["data"]
    data, mean, cov = _loops(X.tolist(), m, n)
    tol = {"rtol": 1e-12, "atol": 1e-13}
    for name, got in (("data", data), ("mean", mean), ("cov", cov)):
        np.testing.assert_allclose(out[name], got, **tol, err_msg=name)
    np.testing.assert_allclose(out["mean"], np.mean(X, axis=0), **tol)
    np.testing.assert_allclose(out["data"], X - X.mean(axis=0), **tol)
    np.testing.assert_allclose(out["cov"], np.cov(X, rowvar=False, ddof=1).reshape(m, m), **tol)
    if m > 1:
        assert_judged_like_an_oracle(kernel, out, {"data": np.array(data), "mean": np.array(mean),
                                                   "cov": np.array(cov)})
