"""s441_three_way_if's independent check: TSVC's branching loop over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c, d = v["a"].tolist(), v["b"].tolist(), v["c"].tolist(), v["d"].tolist()
    taken = [0, 0, 0]
    for i in range(n):
        if d[i] < 0.0:
            a[i] += b[i] * c[i]
            taken[0] += 1
        elif d[i] == 0.0:
            a[i] += b[i] * b[i]
            taken[1] += 1
        else:
            a[i] += c[i] * c[i]
            taken[2] += 1
    assert min(taken) > n // 5
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
