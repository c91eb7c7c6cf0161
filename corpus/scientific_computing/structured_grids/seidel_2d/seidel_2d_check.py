"""seidel_2d's independent check: PolyBench/C's row-by-row loop nest over Python lists, and each
sweep as the triangular solve it is (the Gauss-Seidel splitting, solved by scipy)."""

import numpy as np
from scipy.linalg import solve_triangular

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(size=[(3, 1), (4, 2), (7, 3), (20, 4), (33, 5)], seed=SEEDS)
def check_against_loops(kernel, size, seed):
    n, steps = size
    v, out = run(kernel, {"TSTEPS": steps, "N": n}, seed)
    A = v["A"].tolist()
    for _ in range(steps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                           + A[i][j - 1] + A[i][j] + A[i][j + 1]
                           + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0
    # The reference adds the same operands in the same order: the values agree exactly.
    np.testing.assert_array_equal(out["A"], np.array(A))
    assert_judged_like_an_oracle(kernel, out, {"A": np.array(A)})


@each(size=[(5, 1), (12, 3), (17, 6)], seed=SEEDS)
def check_against_triangular_solves(kernel, size, seed):
    # Number the interior points row by row. A sweep makes x_new satisfy
    #   9 x_new[p] - sum of x_new over p's earlier neighbours (up-left, up, up-right, left)
    #     = x_old[p] + sum of x_old over p's later neighbours (right, down-left, down, down-right)
    #       + the boundary values in p's block,
    # a lower-triangular system, solved here by forward substitution (scipy, LAPACK).
    n, steps = size
    v, out = run(kernel, {"TSTEPS": steps, "N": n}, seed)
    A = v["A"].copy()
    m = n - 2
    idx = {(i, j): (i - 1) * m + (j - 1) for i in range(1, n - 1) for j in range(1, n - 1)}
    earlier = [(-1, -1), (-1, 0), (-1, 1), (0, -1)]
    later = [(0, 1), (1, -1), (1, 0), (1, 1)]
    L = 9.0 * np.eye(m * m)
    U = np.eye(m * m)
    for (i, j), p in idx.items():
        for di, dj in earlier:
            if (i + di, j + dj) in idx:
                L[p, idx[i + di, j + dj]] -= 1.0
        for di, dj in later:
            if (i + di, j + dj) in idx:
                U[p, idx[i + di, j + dj]] += 1.0
    boundary = np.zeros(m * m)
    for (i, j), p in idx.items():
        boundary[p] = sum(A[i + di, j + dj] for di in (-1, 0, 1) for dj in (-1, 0, 1)
                          if (i + di, j + dj) not in idx)
    x = A[1:n - 1, 1:n - 1].reshape(m * m)
    for _ in range(steps):
        x = solve_triangular(L, U @ x + boundary, lower=True)
    A[1:n - 1, 1:n - 1] = x.reshape(m, m)
    np.testing.assert_allclose(out["A"], A, rtol=1e-12, atol=1e-13)
    assert_judged_like_an_oracle(kernel, out, {"A": A})
