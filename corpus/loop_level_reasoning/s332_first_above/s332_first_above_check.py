"""s332_first_above's independent check: the TSVC loop with its early exit (break), over
Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _search(a, t):
    index, value = -2, -1.0
    for i in range(len(a)):
        if a[i] > t:
            index = i
            value = a[i]
            break
    return index, value


@each(seed=SEEDS)
def check_against_exiting_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    index, value = _search(v["a"].tolist(), float(v["t"]))
    assert n // 2 <= index < n
    assert out["index"].dtype == np.int64 and out["value"].dtype == np.float32
    np.testing.assert_array_equal(out["index"], [index])
    np.testing.assert_array_equal(out["value"], [value])
    assert_judged_like_an_oracle(kernel, out, {"index": np.array([index]), "value": np.array([value])})


def check_no_hit(kernel):
    # A threshold above every element: -2 and -1, as TSVC's initial values.
    from hpcab.case import explicit_case, make_inputs, run_oracle
    case = explicit_case(kernel, {"N": 1001}, 0)
    v = make_inputs(kernel, case)
    v["t"] = np.float32(5.0)
    out = run_oracle(kernel, case, v)
    assert _search(v["a"].tolist(), 5.0) == (-2, -1.0)
    assert out["index"][0] == -2 and out["value"][0] == -1.0
