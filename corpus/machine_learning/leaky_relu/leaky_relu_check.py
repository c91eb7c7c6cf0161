"""leaky_relu's independent check: jax.nn.leaky_relu, in float64 from the kernel's float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run



def _jax(v):
    jax, jnp = jax_numpy()
    x = jnp.asarray(v["X"], dtype=jnp.float64)
    return np.asarray(jax.nn.leaky_relu(x, negative_slope=float(v["negative_slope"])))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 9, "N": 257}, seed)
    X = v["X"]
    assert (X < 0).any() and (X > 0).any()      # both sides of the kink in the case
    Y = _jax(v)
    assert_close(kernel, out["Y"], Y)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})


@each(B=[1, 3], N=[1, 7])
def check_edge_sizes_against_jax(kernel, B, N):
    v, out = run(kernel, {"B": B, "N": N}, 5)
    assert_close(kernel, out["Y"], _jax(v))


@each(seed=SEEDS)
def check_negative_branch_is_judged(kernel, seed):
    # The slope matters: a plain ReLU (zeros for negative inputs) fails the judge.
    v, out = run(kernel, {"B": 9, "N": 257}, seed)
    assert not judged(kernel, out, {"Y": np.maximum(v["X"].astype(np.float64), 0.0)})
