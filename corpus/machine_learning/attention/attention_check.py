"""attention's independent check: jax.nn.dot_product_attention, and softmax(Q K^T / sqrt(D)) V with scipy's softmax, in float64."""

import math

import numpy as np
import scipy.special

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_scipy_softmax(kernel, seed):
    v, out = run(kernel, {"SQ": 17, "SK": 40, "D": 16}, seed)
    Q, K, V = (v[n].astype(np.float64) for n in ("Q", "K", "V"))
    O = scipy.special.softmax(Q @ K.T / math.sqrt(16), axis=1) @ V
    np.testing.assert_allclose(out["O"], O, rtol=1e-4, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"O": O})


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, {"SQ": 5, "SK": 23, "D": 8}, seed)
    Q, K, V = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("Q", "K", "V"))
    O = np.asarray(jax.nn.dot_product_attention(Q[None, :, None, :], K[None, :, None, :], V[None, :, None, :])[0, :, 0, :])
    np.testing.assert_allclose(out["O"], O, rtol=1e-4, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"O": O})
