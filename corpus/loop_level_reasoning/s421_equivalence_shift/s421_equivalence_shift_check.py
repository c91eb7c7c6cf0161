"""s421_equivalence_shift's independent check: TSVC's loop through an alias, over one Python list."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_aliased_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    xx, a = v["xx"].tolist(), v["a"].tolist()
    yy = xx                     # the same list: TSVC's yy = xx
    for i in range(n - 1):
        xx[i] = yy[i + 1] + a[i]
    np.testing.assert_allclose(out["xx"], xx, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"xx": np.array(xx)})
