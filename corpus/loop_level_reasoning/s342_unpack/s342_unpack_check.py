"""s342_unpack's independent check: the TSVC loop over Python lists, and the unpacked result
built from an iterator over b."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_unpacking_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    j = -1
    for i in range(n):
        if a[i] > 0.0:
            j += 1
            a[i] = b[j]
    source = iter(b)
    other = [next(source) if x > 0.0 else x for x in v["a"].tolist()]
    assert a == other and n // 3 < j < 2 * n // 3
    np.testing.assert_array_equal(out["a"], a)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
