"""log_softmax's independent check: jax.nn.log_softmax and scipy.special.log_softmax in float64."""

import numpy as np
import scipy.special

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, {"B": 9, "N": 333}, seed)
    Y = np.asarray(jax.nn.log_softmax(jnp.asarray(v["X"], dtype=jnp.float64), axis=1))
    np.testing.assert_allclose(out["Y"], Y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})


@each(sizes=[(1, 1), (5, 1), (1, 31), (13, 70)])
def check_edge_sizes_against_scipy(kernel, sizes):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, 2)
    Y = scipy.special.log_softmax(v["X"].astype(np.float64), axis=1)
    np.testing.assert_allclose(out["Y"], Y, rtol=1e-5, atol=1e-5)
    # Each row's probabilities sum to one.
    np.testing.assert_allclose(np.exp(out["Y"].astype(np.float64)).sum(axis=1), 1.0, rtol=1e-5)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"Y": Y})


def check_inputs_need_the_max_subtraction(kernel):
    v, _ = run(kernel, {"B": 13, "N": 70}, 0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        naive = v["X"] - np.log(np.sum(np.exp(v["X"]), axis=1, keepdims=True))
    assert not np.all(np.isfinite(naive))
