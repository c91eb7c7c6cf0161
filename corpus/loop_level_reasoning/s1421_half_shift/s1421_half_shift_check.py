"""s1421_half_shift's independent check: TSVC's loop through a pointer into b, over a Python list."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_pointer_loop(kernel, seed):
    n = 1002
    v, out = run(kernel, {"N": n}, seed)
    b, a = v["b"].tolist(), v["a"].tolist()
    off = n // 2                # xx = &b[LEN_1D/2]: xx[i] is b[off + i]
    for i in range(n // 2):
        b[i] = b[off + i] + a[i]
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"b": np.array(b)})
