"""layernorm's independent check: NumPy's mean and variance in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_in_float64(kernel, seed):
    v, out = run(kernel, {"B": 11, "N": 300}, seed)
    X = v["X"].astype(np.float64)
    Y = ((X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, keepdims=True) + float(v["eps"]))
         * v["gamma"] + v["beta"])
    np.testing.assert_allclose(out["Y"], Y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})
