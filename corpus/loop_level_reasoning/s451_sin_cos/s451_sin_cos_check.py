"""s451_sin_cos's independent check: math.sin and math.cos in float64 over Python lists."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_math_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b, c = v["b"].tolist(), v["c"].tolist()
    a = [math.sin(b[i]) + math.cos(c[i]) for i in range(n)]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=2e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
