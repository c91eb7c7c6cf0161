"""s2710_nested_select's independent check: the TSVC loop with its nested branches, over
Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _tsvc_loop(v, n):
    a, b, c = v["a"].tolist(), v["b"].tolist(), v["c"].tolist()
    d, e, x = v["d"].tolist(), v["e"].tolist(), float(v["x"])
    for i in range(n):
        if a[i] > b[i]:
            a[i] += b[i] * d[i]
            if n > 10:
                c[i] += d[i] * d[i]
            else:
                c[i] = d[i] * e[i] + 1.0
        else:
            b[i] = a[i] + e[i] * e[i]
            if x > 0.0:
                c[i] = a[i] + d[i] * d[i]
            else:
                c[i] += e[i] * e[i]
    return {"a": a, "b": b, "c": c}


@each(n=[7, 1001, 1005], seed=SEEDS)   # x > 0 at (1005, seed 2), x < 0 at 1001
def check_against_branching_loop(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    expected = _tsvc_loop(v, n)
    for name in ("a", "b", "c"):
        np.testing.assert_allclose(out[name], expected[name], rtol=1e-5, atol=1e-6)
    if n > 100:
        assert n // 3 < np.count_nonzero(out["b"] != v["b"]) < 2 * n // 3
        assert_judged_like_an_oracle(kernel, out, {k: np.array(w) for k, w in expected.items()})
