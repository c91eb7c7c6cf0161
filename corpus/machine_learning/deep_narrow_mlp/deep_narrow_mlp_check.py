"""deep_narrow_mlp's independent check: the network in float64 with JAX (jax.nn.relu, a
Python loop over the stacked hidden layers), and once more in NumPy float64 with one explicit
dot product per output."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


def _sizes(shape):
    return dict(zip(("B", "IN", "H", "DEPTH", "OUT"), shape))


@each(shape=[(5, 33, 9, 4, 3), (1, 7, 6, 2, 2)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, _sizes(shape), seed)
    f = {n: jnp.asarray(a, dtype=jnp.float64) for n, a in v.items() if n != "y"}

    act = jax.nn.relu(f["x"] @ f["W_in"] + f["b_in"])
    for d in range(shape[3] - 1):
        act = jax.nn.relu(act @ f["W_hid"][d] + f["b_hid"][d])
    y = np.asarray(act @ f["W_out"] + f["b_out"])
    np.testing.assert_allclose(out["y"], y, rtol=1e-4, atol=1e-5 * np.abs(y).max())
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_dot_products(kernel, seed):
    B, IN, H, DEPTH, OUT = 4, 6, 5, 5, 3
    v, out = run(kernel, _sizes((B, IN, H, DEPTH, OUT)), seed)
    f = {n: a.astype(np.float64) for n, a in v.items() if n != "y"}
    act = [[max(0.0, float(f["b_in"][j] + sum(f["x"][r, k] * f["W_in"][k, j] for k in range(IN))))
            for j in range(H)] for r in range(B)]
    for d in range(DEPTH - 1):
        act = [[max(0.0, float(f["b_hid"][d, j] + sum(act[r][k] * f["W_hid"][d, k, j] for k in range(H))))
                for j in range(H)] for r in range(B)]
    y = np.array([[f["b_out"][j] + sum(act[r][k] * f["W_out"][k, j] for k in range(H)) for j in range(OUT)]
                  for r in range(B)])
    np.testing.assert_allclose(out["y"], y, rtol=1e-4, atol=1e-5 * np.abs(y).max())
    assert_judged_like_an_oracle(kernel, out, {"y": y})
