"""selu's independent check: jax.nn.selu, in float64 from the kernel's float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run



def _jax(v):
    jax, jnp = jax_numpy()
    x = jnp.asarray(v["X"], dtype=jnp.float64)
    return np.asarray(jax.nn.selu(x))


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
def check_against_loops_with_published_constants(kernel, seed):
    # Klambauer et al.'s constants to full precision, and math.expm1, element by element.
    import math
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    v, out = run(kernel, {"B": 3, "N": 41}, seed)
    X = v["X"].astype(np.float64)
    Y = np.array([[scale * (x if x > 0 else alpha * math.expm1(x)) for x in row] for row in X.tolist()])
    assert_close(kernel, out["Y"], Y)
