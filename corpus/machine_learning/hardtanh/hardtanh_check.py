"""hardtanh's independent check: jnp.clip in float64, and jax.nn.hard_tanh mapped onto the bounds."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run, verdict


def _expected(v):
    jax, jnp = jax_numpy()
    x = jnp.asarray(v["X"], dtype=jnp.float64)
    lo, hi = float(v["min_val"]), float(v["max_val"])
    return np.asarray(jnp.clip(x, lo, hi))



@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 17, "N": 257}, seed)
    X = v["X"]
    lo, hi = v["min_val"], v["max_val"]
    # Asymmetric bounds, and entries on all three pieces.
    assert lo < 0.0 < hi and lo != -hi
    assert (X < lo).any() and ((X > lo) & (X < hi)).any() and (X > hi).any()
    Y = _expected(v)
    assert_close(kernel, out["Y"], Y)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})


@each(shape=[(1, 1), (1, 7), (13, 1), (3, 5)], seed=[3])
def check_edge_shapes(kernel, shape, seed):
    v, out = run(kernel, {"B": shape[0], "N": shape[1]}, seed)
    Y = _expected(v)
    assert_close(kernel, out["Y"], Y)
    assert verdict(kernel, out, {"Y": Y}).correct


@each(seed=SEEDS)
def check_against_jax_hard_tanh(kernel, seed):
    # clip(x, lo, hi) = c + h * hard_tanh((x - c) / h), c the bounds' midpoint, h their half-width.
    jax, jnp = jax_numpy()
    v, out = run(kernel, {"B": 11, "N": 300}, seed)
    lo, hi = float(v["min_val"]), float(v["max_val"])
    c, h = 0.5 * (lo + hi), 0.5 * (hi - lo)
    Y = np.asarray(c + h * jax.nn.hard_tanh((jnp.asarray(v["X"], dtype=jnp.float64) - c) / h))
    assert_close(kernel, out["Y"], Y)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})
