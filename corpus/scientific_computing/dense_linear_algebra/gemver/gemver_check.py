"""gemver's independent check: PolyBench/C's four loop nests over Python lists, element by element."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1, 2, 7, 23], seed=SEEDS)
def check_against_loops(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    A = v["A"].tolist()
    u1, v1, u2, v2 = (v[k].tolist() for k in ("u1", "v1", "u2", "v2"))
    w, x, y, z = (v[k].tolist() for k in ("w", "x", "y", "z"))
    alpha, beta = float(v["alpha"]), float(v["beta"])
    for i in range(n):
        for j in range(n):
            A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j]
    for i in range(n):
        for j in range(n):
            x[i] = x[i] + beta * A[j][i] * y[j]
    for i in range(n):
        x[i] = x[i] + z[i]
    for i in range(n):
        for j in range(n):
            w[i] = w[i] + alpha * A[i][j] * x[j]
    expected = {"A": np.array(A), "w": np.array(w), "x": np.array(x)}
    for name, value in expected.items():
        np.testing.assert_allclose(out[name], value, rtol=1e-12, atol=1e-12 * np.abs(value).max())
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, expected)
