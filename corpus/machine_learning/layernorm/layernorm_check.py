"""layernorm's independent check: JAX's mean and variance in float64, and NumPy's."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    _, jnp = jax_numpy()
    v, out = run(kernel, {"B": 11, "N": 300}, seed)
    X = jnp.asarray(v["X"], dtype=jnp.float64)
    Y = np.asarray((X - X.mean(axis=1, keepdims=True)) / jnp.sqrt(X.var(axis=1, keepdims=True) + float(v["eps"]))
                   * jnp.asarray(v["gamma"], jnp.float64) + jnp.asarray(v["beta"], jnp.float64))
    np.testing.assert_allclose(out["Y"], Y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})


def check_in_float64_numpy(kernel):
    v, out = run(kernel, {"B": 3, "N": 1}, 1)
    X = v["X"].astype(np.float64)
    Y = ((X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, keepdims=True) + float(v["eps"]))
         * v["gamma"] + v["beta"])
    np.testing.assert_allclose(out["Y"], Y, rtol=1e-5, atol=1e-5)
