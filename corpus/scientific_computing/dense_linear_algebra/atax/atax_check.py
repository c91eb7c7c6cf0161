"""atax's independent check: y = (A^T A) x, the other association than the reference's A^T (A x)."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_other_association(kernel, seed):
    v, out = run(kernel, {"M": 37, "N": 29}, seed)
    y = (v["A"].T @ v["A"]) @ v["x"]
    np.testing.assert_allclose(out["y"], y, rtol=1e-11, atol=1e-11 * np.abs(y).max())
    assert_judged_like_an_oracle(kernel, out, {"y": y})
