"""go_fast's independent check: the trace as an exactly rounded sum (math.fsum) of math.tanh
over the diagonal (numpy.trace of numpy.tanh at a larger size), added to every element."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1, 2, 5, 17, 64], seed=SEEDS)
def check_against_fsum(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"]
    trace = math.fsum(math.tanh(float(a[i, i])) for i in range(n))
    expected = np.array([[float(a[i, j]) + trace for j in range(n)] for i in range(n)])
    np.testing.assert_allclose(out["out"], expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    if n >= 5:
        assert trace > 0.2 * n                # the trace moves every element
        assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(seed=SEEDS)
def check_against_numpy_trace(kernel, seed):
    v, out = run(kernel, {"N": 1000}, seed)
    a = v["a"]
    expected = a + np.trace(np.tanh(a))       # tanh of every entry, then the diagonal's sum
    np.testing.assert_allclose(out["out"], expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    assert_judged_like_an_oracle(kernel, out, {"out": expected})
