"""s3251_array_expansion's independent check: the TSVC loop in its own statement order, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, d = v["a"].tolist(), v["b"].tolist(), v["d"].tolist()
    c, e = v["c"].tolist(), v["e"].tolist()
    for i in range(n - 1):
        a[i + 1] = b[i] + c[i]
        b[i] = c[i] * e[i]
        d[i] = a[i] * e[i]
    for name, want in (("a", a), ("b", b), ("d", d)):
        np.testing.assert_allclose(out[name], want, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a), "b": np.array(b), "d": np.array(d)})
