"""s471_call_in_loop's independent check: TSVC's loop, with its empty call, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _s471s():
    return 0


@each(seed=SEEDS)
def check_against_loop_with_call(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b, c, d, e = v["b"].tolist(), v["c"].tolist(), v["d"].tolist(), v["e"].tolist()
    x = [None] * n
    for i in range(n):
        x[i] = b[i] + d[i] * d[i]
        _s471s()
        b[i] = c[i] + d[i] * e[i]
    np.testing.assert_allclose(out["x"], x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"x": np.array(x), "b": np.array(b)})
