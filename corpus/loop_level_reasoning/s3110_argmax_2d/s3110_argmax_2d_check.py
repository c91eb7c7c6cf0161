"""s3110_argmax_2d's independent check: the TSVC double loop with its conditional update of
three scalars, over Python lists."""

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
