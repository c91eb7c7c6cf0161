"""gesummv's independent check: PolyBench/C's fused loop nest over Python lists, and the
identity y = (alpha A + beta B) x through one combined matrix."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1, 2, 9, 31], seed=SEEDS)
def check_against_loops(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    A, B, x = v["A"].tolist(), v["B"].tolist(), v["x"].tolist()
    alpha, beta = float(v["alpha"]), float(v["beta"])
    y = [0.0] * n
    for i in range(n):
        tmp = 0.0
        y[i] = 0.0
        for j in range(n):
            tmp = A[i][j] * x[j] + tmp
            y[i] = B[i][j] * x[j] + y[i]
        y[i] = alpha * tmp + beta * y[i]
    scale = np.abs(y).max()
    np.testing.assert_allclose(out["y"], y, rtol=1e-12, atol=1e-12 * scale)
    combined = (alpha * v["A"] + beta * v["B"]) @ v["x"]
    np.testing.assert_allclose(out["y"], combined, rtol=1e-9, atol=1e-12 * scale)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"y": np.array(y)})
