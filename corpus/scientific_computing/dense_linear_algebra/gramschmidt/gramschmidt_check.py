"""gramschmidt's independent check: PolyBench/C's loop nest over Python floats, LAPACK's QR
(numpy.linalg.qr, Householder, its signs made R's diagonal positive), and the identities
Q R = A, Q^T Q = I and A_out = Q diag(R)."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def polybench_gramschmidt(A0):
    m, n = A0.shape
    A = A0.tolist()
    R = [[0.0] * n for _ in range(n)]
    Q = [[0.0] * n for _ in range(m)]
    for k in range(n):
        nrm = 0.0
        for i in range(m):
            nrm += A[i][k] * A[i][k]
        R[k][k] = nrm ** 0.5
        for i in range(m):
            Q[i][k] = A[i][k] / R[k][k]
        for j in range(k + 1, n):
            R[k][j] = 0.0
            for i in range(m):
                R[k][j] += Q[i][k] * A[i][j]
            for i in range(m):
                A[i][j] = A[i][j] - Q[i][k] * R[k][j]
    return np.array(A).reshape(m, n), np.array(R).reshape(n, n), np.array(Q).reshape(m, n)


@each(mn=[(1, 1), (2, 2), (5, 3), (17, 17), (40, 31)], seed=SEEDS)
def check_against_loops_and_lapack(kernel, mn, seed):
    m, n = mn
    v, out = run(kernel, {"M": m, "N": n}, seed)
    A0 = v["A"]
    A, R, Q = polybench_gramschmidt(A0)
    for name, expected in (("A", A), ("R", R), ("Q", Q)):
        np.testing.assert_allclose(out[name], expected, rtol=1e-11, atol=1e-13 * np.abs(expected).max(), err_msg=name)
    q, r = np.linalg.qr(A0)
    sign = np.sign(np.diag(r))
    np.testing.assert_allclose(out["Q"], q * sign, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out["R"], r * sign[:, None], rtol=1e-10, atol=1e-12 * np.abs(r).max())
    np.testing.assert_allclose(out["Q"] @ out["R"], A0, rtol=1e-11, atol=1e-12 * np.abs(A0).max())
    np.testing.assert_allclose(out["Q"].T @ out["Q"], np.eye(n), atol=1e-13)
    np.testing.assert_allclose(out["A"], out["Q"] * np.diag(out["R"]), rtol=1e-11, atol=1e-13 * np.abs(A).max())
    if m * n > 1:
        assert_judged_like_an_oracle(kernel, out, {"A": A, "R": R, "Q": Q})
