"""householder_qr's independent check: LAPACK's own dgeqrf (scipy.linalg.qr, mode='raw'),
whose compact output and sign convention the kernel follows; Golub and Van Loan's alg. 5.2.1
transcribed as explicit Python loops at small sizes; and the identities Q R = A, Q^T Q = I
for Q rebuilt from the reflectors."""

import numpy as np
import scipy.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

SHAPES = [(1, 1), (2, 1), (2, 2), (5, 3), (7, 7), (17, 9), (40, 31), (64, 64)]


def _q_from_reflectors(QR, tau):
    m, n = QR.shape
    Q = np.eye(m)[:, :n]
    for k in range(n - 1, -1, -1):
        v = np.zeros(m)
        v[k] = 1.0
        v[k + 1:] = QR[k + 1:, k]
        Q = Q - tau[k] * np.outer(v, v @ Q)
    return Q


def _loops(A):
    # Alg. 5.2.1 with dlarfg's vector: beta = -sign(alpha) ||x||, v = x / (alpha - beta).
    m, n = len(A), len(A[0])
    A = [list(row) for row in A]
    tau = [0.0] * n
    for k in range(n):
        alpha = A[k][k]
        xnorm2 = sum(A[i][k] ** 2 for i in range(k + 1, m))
        if xnorm2 == 0.0:
            continue
        beta = -np.copysign((alpha * alpha + xnorm2) ** 0.5, alpha)
        tau[k] = (beta - alpha) / beta
        for i in range(k + 1, m):
            A[i][k] /= alpha - beta
        A[k][k] = beta
        for j in range(k + 1, n):
            s = A[k][j] + sum(A[i][k] * A[i][j] for i in range(k + 1, m))
            A[k][j] -= tau[k] * s
            for i in range(k + 1, m):
                A[i][j] -= tau[k] * A[i][k] * s
    return np.array(A), np.array(tau)


@each(shape=SHAPES, seed=SEEDS)
def check_against_lapack(kernel, shape, seed):
    m, n = shape
    v, out = run(kernel, {"M": m, "N": n}, seed)
    A0 = v["A"]
    (qr, tau), _ = scipy.linalg.qr(A0, mode="raw")
    # scipy's raw mode returns dgeqrf's output (h, tau): the same compact form.
    scale = np.abs(A0).max()
    np.testing.assert_allclose(out["A"], qr, rtol=1e-10, atol=1e-11 * scale)
    np.testing.assert_allclose(out["tau"], tau, rtol=1e-10, atol=1e-12)
    R = np.triu(out["A"])[:n, :]
    Q = _q_from_reflectors(out["A"], out["tau"])
    np.testing.assert_allclose(Q @ R, A0, rtol=1e-10, atol=1e-11 * scale)
    np.testing.assert_allclose(Q.T @ Q, np.eye(n), atol=1e-12)
    # R agrees with numpy's QR up to the signs of its rows.
    R_np = np.linalg.qr(A0, mode="r")
    np.testing.assert_allclose(np.abs(R), np.abs(R_np), rtol=1e-9, atol=1e-11 * scale)
    if m * n > 1:
        assert_judged_like_an_oracle(kernel, out, {"A": np.asarray(qr), "tau": np.asarray(tau)})


@each(shape=[(1, 1), (3, 2), (6, 6), (9, 4), (13, 11)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    m, n = shape
    v, out = run(kernel, {"M": m, "N": n}, seed)
    A, tau = _loops(v["A"].tolist())
    np.testing.assert_allclose(out["A"], A, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(out["tau"], tau, rtol=1e-12, atol=1e-14)
    # tau is 0 exactly where nothing lies below the diagonal, in [1, 2] elsewhere.
    for k in range(n):
        assert out["tau"][k] == 0.0 if k == m - 1 else 1.0 <= out["tau"][k] <= 2.0
    if m * n > 1:
        assert_judged_like_an_oracle(kernel, out, {"A": A, "tau": tau})
