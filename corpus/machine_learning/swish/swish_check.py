"""swish's independent check: jax.nn.silu in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run, verdict


def _expected(v):
    jax, jnp = jax_numpy()
    x = jnp.asarray(v["X"], dtype=jnp.float64)
    return np.asarray(jax.nn.silu(x))



@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 17, "N": 257}, seed)
    X = v["X"]
    # Both signs and large magnitudes, where exp(-x) must not overflow nor sigmoid round badly.
    assert (X > 20.0).any() and (X < -20.0).any() and (np.abs(X) < 1.0).any()
    Y = _expected(v)
    assert_close(kernel, out["Y"], Y)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})


@each(shape=[(1, 1), (1, 7), (13, 1), (3, 5)], seed=[3])
def check_edge_shapes(kernel, shape, seed):
    v, out = run(kernel, {"B": shape[0], "N": shape[1]}, seed)
    Y = _expected(v)
    assert_close(kernel, out["Y"], Y)
    assert verdict(kernel, out, {"Y": Y}).correct
