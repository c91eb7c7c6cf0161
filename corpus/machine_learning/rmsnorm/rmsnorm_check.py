"""rmsnorm's independent check: jnp in float64 (jax.lax.rsqrt of the mean square), and math.fsum."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v):
    jax, jnp = jax_numpy()
    x = jnp.asarray(v["x"], dtype=jnp.float64)
    ms = jnp.mean(jnp.square(x), axis=-1, keepdims=True)
    return np.asarray(x * jax.lax.rsqrt(ms + float(v["eps"])) * jnp.asarray(v["weight"], jnp.float64))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 9, "N": 301}, seed)
    y = _jax(v)
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_fsum(kernel, seed):
    b, n = 5, 64
    v, out = run(kernel, {"B": b, "N": n}, seed)
    eps = float(v["eps"])
    y = np.empty((b, n))
    for i in range(b):
        row = [float(t) for t in v["x"][i]]
        r = math.sqrt(math.fsum(t * t for t in row) / n + eps)
        y[i] = [row[j] / r * float(v["weight"][j]) for j in range(n)]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(shape=[(1, 1), (3, 1), (1, 17)])
def check_edge_shapes(kernel, shape):
    v, out = run(kernel, {"B": shape[0], "N": shape[1]}, 1)
    np.testing.assert_allclose(out["y"], _jax(v), rtol=1e-5, atol=1e-6)
