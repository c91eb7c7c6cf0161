"""s2101_diagonal's independent check: the TSVC loop over Python lists of rows, and
numpy.diagonal of the inputs, another way to the same diagonal."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loop_and_diagonal(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    aa = v["aa"].tolist()
    bb, cc = v["bb"].tolist(), v["cc"].tolist()
    for i in range(n):
        aa[i][i] = float(np.float32(aa[i][i]) + np.float32(bb[i][i]) * np.float32(cc[i][i]))
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-6, atol=1e-7)
    expected = np.diagonal(v["aa"]) + np.diagonal(v["bb"]) * np.diagonal(v["cc"])
    np.testing.assert_allclose(np.diagonal(out["aa"]), expected, rtol=1e-6, atol=1e-7)
    off = ~np.eye(n, dtype=bool)
    assert np.array_equal(out["aa"][off], v["aa"][off])
    assert_judged_like_an_oracle(kernel, out, {"aa": np.array(aa)})
