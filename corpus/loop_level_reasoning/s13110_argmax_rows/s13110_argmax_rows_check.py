"""s13110_argmax_rows's independent check: the TSVC double loop with its conditional update
of three scalars, over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_branching_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa = v["aa"].tolist()
    mx, xindex, yindex = aa[0][0], 0, 0
    for i in range(n):
        for j in range(n):
            if aa[i][j] > mx:
                mx = aa[i][j]
                xindex = i
                yindex = j
    assert out["max"].dtype == np.float32 and out["xindex"].dtype == np.int64
    np.testing.assert_array_equal(out["max"], [mx])
    np.testing.assert_array_equal(out["xindex"], [xindex])
    np.testing.assert_array_equal(out["yindex"], [yindex])
    assert_judged_like_an_oracle(kernel, out, {"max": np.array([mx]), "xindex": np.array([xindex]),
                                               "yindex": np.array([yindex])})


def check_ties_keep_the_first_position(kernel):
    # Equal maxima in two rows and twice in one row: the first in row-major order wins.
    from hpcab.case import explicit_case, make_inputs, run_oracle
    case = explicit_case(kernel, {"N": 41}, 0)
    v = make_inputs(kernel, case)
    v["aa"][7, 30] = v["aa"][7, 3] = v["aa"][20, 1] = 10.0
    out = run_oracle(kernel, case, v)
    assert (out["xindex"][0], out["yindex"][0]) == (7, 3)
