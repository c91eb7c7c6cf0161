"""mlp's independent check: the three layers recomputed in float64, with NumPy and with jax.nn.relu."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_in_float64(kernel, seed):
    v, out = run(kernel, {"B": 9, "DIN": 31, "DH": 40, "DOUT": 7}, seed)
    f = {n: a.astype(np.float64) for n, a in v.items()}
    h = np.maximum(f["x"] @ f["W1"] + f["b1"], 0.0)
    h = np.maximum(h @ f["W2"] + f["b2"], 0.0)
    y = h @ f["W3"] + f["b3"]
    np.testing.assert_allclose(out["y"], y, rtol=1e-4, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, {"B": 4, "DIN": 17, "DH": 9, "DOUT": 3}, seed)
    f = {n: jnp.asarray(a, dtype=jnp.float64) for n, a in v.items() if n != "y"}
    h = jax.nn.relu(f["x"] @ f["W1"] + f["b1"])
    h = jax.nn.relu(h @ f["W2"] + f["b2"])
    y = np.asarray(h @ f["W3"] + f["b3"])
    np.testing.assert_allclose(out["y"], y, rtol=1e-4, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})
