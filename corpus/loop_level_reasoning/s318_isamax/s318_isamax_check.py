"""s318_isamax's independent check: the TSVC loop with its stride counter k and its goto
(as continue), over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(inc=[1, 3, 4], seed=SEEDS)
def check_against_goto_loop(kernel, inc, seed):
    n = 1001
    v, out = run(kernel, {"N": n, "INC": inc}, seed)
    a = v["a"].tolist()
    k = 0
    index = 0
    mx = abs(a[0])
    k += inc
    for i in range(1, n):
        if abs(a[k]) <= mx:
            k += inc
            continue
        index = i
        mx = abs(a[k])
        k += inc
    assert out["max_abs"].dtype == np.float32 and out["index"].dtype == np.int64
    np.testing.assert_array_equal(out["max_abs"], [mx])
    np.testing.assert_array_equal(out["index"], [index])
    assert_judged_like_an_oracle(kernel, out, {"max_abs": np.array([mx]), "index": np.array([index])})
