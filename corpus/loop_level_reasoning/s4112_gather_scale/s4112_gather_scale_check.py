"""s4112_gather_scale's independent check: the TSVC loop with its indirect load, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_gather_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, ip = v["a"].tolist(), v["b"].tolist(), v["ip"].tolist()
    s = float(v["s"])
    for i in range(n):
        a[i] += b[ip[i]] * s
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
