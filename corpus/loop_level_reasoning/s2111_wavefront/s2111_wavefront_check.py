"""s2111_wavefront's independent check: the TSVC double loop over Python lists in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 60
    v, out = run(kernel, {"N": n}, seed)
    aa = v["aa"].astype(np.float64).tolist()
    for j in range(1, n):
        for i in range(1, n):
            aa[j][i] = (aa[j][i - 1] + aa[j - 1][i]) / 2.1 + aa[j][i]
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-4, atol=1e-5)
    assert 0.3 < np.std(out["aa"]) and np.abs(out["aa"]).max() < 20.0
    assert_judged_like_an_oracle(kernel, out, {"aa": np.array(aa)})
