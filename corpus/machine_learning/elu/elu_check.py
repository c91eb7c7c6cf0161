"""elu's independent check: jax.nn.elu, in float64 from the kernel's float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run



def _jax(v):
    jax, jnp = jax_numpy()
    x = jnp.asarray(v["X"], dtype=jnp.float64)
    return np.asarray(jax.nn.elu(x, alpha=float(v["alpha"])))


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
def check_against_loops(kernel, seed):
    # math.expm1 element by element.
    import math
    v, out = run(kernel, {"B": 3, "N": 41}, seed)
    alpha = float(v["alpha"])
    Y = np.array([[x if x > 0 else alpha * math.expm1(x) for x in row] for row in v["X"].astype(np.float64).tolist()])
    assert_close(kernel, out["Y"], Y)
