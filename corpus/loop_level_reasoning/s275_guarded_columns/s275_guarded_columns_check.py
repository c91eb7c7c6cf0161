"""s275_guarded_columns's independent check: the TSVC double loop (columns outer, recurrence
inner) over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa = v["aa"].astype(np.float64).tolist()
    bb = v["bb"].astype(np.float64).tolist()
    cc = v["cc"].astype(np.float64).tolist()
    for i in range(n):
        if aa[0][i] > 0.0:
            for j in range(1, n):
                aa[j][i] = aa[j - 1][i] + bb[j][i] * cc[j][i]
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"aa": np.array(aa)})
