"""s315_argmax's independent check: the TSVC loop with its conditional update of two scalars,
over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].tolist()
    x, index = a[0], 0
    for i in range(n):
        if a[i] > x:
            x = a[i]
            index = i
    assert out["x"].dtype == np.float32 and out["index"].dtype == np.int64
    np.testing.assert_array_equal(out["x"], [x])
    np.testing.assert_array_equal(out["index"], [index])
    assert_judged_like_an_oracle(kernel, out, {"x": np.array([x]), "index": np.array([index])})


def check_first_index_of_a_tie(kernel):
    # The strict comparison keeps the first of equal maxima.
    n = 1001
    v, out = run(kernel, {"N": n}, 0)
    a = v["a"].copy()
    a[[100, 700]] = 10.0
    x, index = a[0], 0
    for i in range(n):
        if a[i] > x:
            x, index = a[i], i
    assert index == 100
    assert int(np.argmax(a)) == index          # the reference's argmax keeps the first, too
