"""s278_goto_branches's independent check: the TSVC loop with its gotos as sequential
branches, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_goto_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c = v["a"].tolist(), v["b"].tolist(), v["c"].tolist()
    d, e = v["d"].tolist(), v["e"].tolist()
    for i in range(n):
        if a[i] > 0.0:
            c[i] = -c[i] + d[i] * e[i]    # L20
        else:
            b[i] = -b[i] + d[i] * e[i]    # then goto L30
        a[i] = b[i] + c[i] * d[i]         # L30
    for name, expected in (("a", a), ("b", b), ("c", c)):
        np.testing.assert_allclose(out[name], expected, rtol=1e-5, atol=1e-6)
    assert n // 3 < np.count_nonzero(out["c"] != v["c"]) < 2 * n // 3
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b), "c": np.array(c)})
