"""s442_computed_goto's independent check: TSVC's switch and labels as a Python loop."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_switch_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b, c, d, e = (v[k].tolist() for k in "abcde")
    indx = v["indx"].tolist()
    assert set(indx) == {1, 2, 3, 4}
    for i in range(n):
        label = {1: 15, 2: 20, 3: 30, 4: 40}.get(indx[i], 15)   # switch; no match falls to L15
        if label == 15:
            a[i] += b[i] * b[i]
        elif label == 20:
            a[i] += c[i] * c[i]
        elif label == 30:
            a[i] += d[i] * d[i]
        else:
            a[i] += e[i] * e[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
