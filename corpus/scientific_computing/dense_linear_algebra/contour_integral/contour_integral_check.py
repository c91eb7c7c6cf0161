"""contour_integral's independent check: each T(z_k) assembled from Python complex powers and
solved by LAPACK (scipy.linalg.solve, partial pivoting), the moments summed with math.fsum on
real and imaginary parts; at tiny sizes also a Gauss-Jordan loop nest over Python complex
numbers; and the inputs' promise that T(z_k) is strictly diagonally dominant by rows."""

import math

import numpy as np
import scipy.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def fsum_complex(terms):
    terms = list(terms)
    return complex(math.fsum(t.real for t in terms), math.fsum(t.imag for t in terms))


def gauss_jordan(T, Y):
    n, m = len(T), len(Y[0])
    a = [list(T[i]) + list(Y[i]) for i in range(n)]
    for p in range(n):
        piv = a[p][p]
        a[p] = [x / piv for x in a[p]]
        for i in range(n):
            if i != p:
                f = a[i][p]
                a[i] = [x - f * y for x, y in zip(a[i], a[p])]
    return [row[n:n + m] for row in a]


@each(sizes=[(1, 1, 1, 1), (2, 3, 1, 2), (5, 4, 2, 7), (17, 6, 1, 12), (12, 5, 3, 16), (40, 9, 2, 5)],
      seed=SEEDS)
def check_against_lapack(kernel, sizes, seed):
    n, m, h, nq = sizes
    v, out = run(kernel, {"N": n, "M": m, "H": h, "NQ": nq}, seed)
    Tn, z, w, Y = v["Tn"], v["z"], v["w"], v["Y"]
    X = []
    for k in range(nq):
        zk = complex(z[k])
        T = sum((zk ** (j - h)) * Tn[j] for j in range(2 * h + 1))
        d = np.abs(np.diag(T))
        assert np.all(np.abs(T).sum(axis=1) - d < 0.61 * d)      # diagonally dominant by rows
        Xk = scipy.linalg.solve(T, Y)
        if n <= 5:
            np.testing.assert_allclose(gauss_jordan(T.tolist(), Y.tolist()), Xk, rtol=1e-12, atol=1e-13)
        X.append(Xk)
    P0 = np.array([[fsum_complex(complex(w[k]) * X[k][i, c] for k in range(nq)) for c in range(m)]
                   for i in range(n)])
    P1 = np.array([[fsum_complex(complex(w[k]) * complex(z[k]) * X[k][i, c] for k in range(nq))
                    for c in range(m)] for i in range(n)])
    for name, exp in (("P0", P0), ("P1", P1)):
        np.testing.assert_allclose(out[name], exp, rtol=1e-10, atol=1e-12 * np.abs(exp).max())
    if n * m > 1:
        assert_judged_like_an_oracle(kernel, out, {"P0": P0, "P1": P1})
