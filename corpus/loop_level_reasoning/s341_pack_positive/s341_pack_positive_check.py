"""s341_pack_positive's independent check: the TSVC loop over Python lists, and the packed
part as a list comprehension."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_packing_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a, b = v["a"].tolist(), v["b"].tolist()
    j = -1
    for i in range(n):
        if b[i] > 0.0:
            j += 1
            a[j] = b[i]
    packed = [x for x in b if x > 0.0]
    assert n // 3 < len(packed) < 2 * n // 3 and a[:len(packed)] == packed
    assert a[len(packed):] == v["a"].tolist()[len(packed):]
    np.testing.assert_array_equal(out["a"], a)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
