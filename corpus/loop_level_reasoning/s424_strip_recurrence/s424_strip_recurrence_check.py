"""s424_strip_recurrence's independent check: TSVC's loop through an offset pointer, over a Python list."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_pointer_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    flat, a = v["flat"].tolist(), v["a"].tolist()
    xx = 63                     # xx = flat_2d_array + 63: xx[i] is flat[xx + i]
    for i in range(n - 1):
        flat[xx + i + 1] = flat[i] + a[i]
    np.testing.assert_allclose(out["flat"], flat, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"flat": np.array(flat)})
