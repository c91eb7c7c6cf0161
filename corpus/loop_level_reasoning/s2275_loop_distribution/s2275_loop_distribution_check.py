"""s2275_loop_distribution's independent check: the TSVC loop nest (columns outer) over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa, bb, cc = v["aa"].tolist(), v["bb"].tolist(), v["cc"].tolist()
    b, c, d = v["b"].tolist(), v["c"].tolist(), v["d"].tolist()
    a = [float("nan")] * n
    for i in range(n):
        for j in range(n):
            aa[j][i] = aa[j][i] + bb[j][i] * cc[j][i]
        a[i] = b[i] + c[i] * d[i]
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"aa": np.array(aa), "a": np.array(a)})
