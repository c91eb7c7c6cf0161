"""s277_goto_skip's independent check: the TSVC loop with its gotos as sequential branches,
over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_goto_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    c, d, e = v["c"].tolist(), v["d"].tolist(), v["e"].tolist()
    updated = 0
    for i in range(n - 1):
        if a[i] >= 0.0:
            continue                      # goto L20
        if b[i] < 0.0:                    # else goto L30
            a[i] += c[i] * d[i]
            updated += 1
        b[i + 1] = c[i] + d[i] * e[i]     # L30
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-6)
    assert n // 8 < updated < n // 2
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b)})
