"""s258_conditional_carry's independent check: the carried scalar as an explicit index of the
last positive a, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_last_positive(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, c, d = v["a"].tolist(), v["c"].tolist(), v["d"].tolist()
    row = v["aa"][0].tolist()
    b, e = [], []
    last = -1
    for i in range(n):
        if a[i] > 0.0:
            last = i
        s = d[last] ** 2 if last >= 0 else 0.0
        b.append(s * c[i] + d[i])
        e.append((s + 1.0) * row[i])
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["e"], e, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"b": np.array(b), "e": np.array(e)})
