"""tanh_activation's independent check: jnp.tanh in float64 from the kernel's float32 inputs,
and math.tanh element by element."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v):
    _, jnp = jax_numpy()
    return np.asarray(jnp.tanh(jnp.asarray(v["X"], dtype=jnp.float64)))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 16, "N": 257}, seed)
    X = v["X"]
    # Both tails (saturated in float32) and the near-linear middle are in the case.
    assert (X > 9.0).any() and (X < -9.0).any() and (np.abs(X) < 0.1).any()
    Y = _jax(v)
    assert_close(kernel, out["Y"], Y)
    # The middle is matched to float32 accuracy relative to each value, not only to the band.
    small = np.abs(X) < 0.1
    np.testing.assert_allclose(out["Y"][small], Y[small], rtol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})


@each(B=[1, 3], N=[1, 7])
def check_edge_sizes_against_math(kernel, B, N):
    v, out = run(kernel, {"B": B, "N": N}, 5)
    Y = np.array([[math.tanh(float(t)) for t in row] for row in v["X"]])
    assert_close(kernel, out["Y"], Y)
