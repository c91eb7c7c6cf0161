"""compute's independent check: the clip and the affine map as explicit Python-integer loops
(no overflow possible there) at small sizes, numpy.clip at a larger one, and the ranges the
inputs were drawn to cover."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(1, 1), (2, 3), (5, 7), (17, 31), (64, 100)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    m, n = shape
    v, out = run(kernel, {"M": m, "N": n}, seed)
    a, b, c = int(v["a"]), int(v["b"]), int(v["c"])
    x1, x2 = v["array_1"].tolist(), v["array_2"].tolist()
    expected = []
    for i in range(m):
        row = []
        for j in range(n):
            t = x1[i][j]
            if t < 2:
                t = 2
            elif t > 10:
                t = 10
            row.append(t * a + x2[i][j] * b + c)
        expected.append(row)
    expected = np.array(expected, dtype=np.int64)
    np.testing.assert_array_equal(out["result"], expected)
    if m * n >= 100:
        assert_judged_like_an_oracle(kernel, out, {"result": expected})


@each(seed=SEEDS)
def check_against_numpy_clip(kernel, seed):
    v, out = run(kernel, {"M": 300, "N": 257}, seed)
    x1 = v["array_1"]
    expected = np.clip(x1, 2, 10) * v["a"] + v["array_2"] * v["b"] + v["c"]
    np.testing.assert_array_equal(out["result"], expected)
    # informative: both clip bounds and the pass-through occur often
    assert (x1 < 2).mean() > 0.1 and (x1 > 10).mean() > 0.1 and ((x1 >= 2) & (x1 <= 10)).mean() > 0.3
    assert_judged_like_an_oracle(kernel, out, {"result": expected})
