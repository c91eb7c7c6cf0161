"""gelu_tanh's independent check: jax.nn.gelu(approximate=True), in float64 from the kernel's float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run



def _jax(v):
    jax, jnp = jax_numpy()
    x = jnp.asarray(v["X"], dtype=jnp.float64)
    return np.asarray(jax.nn.gelu(x, approximate=True))


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


def check_is_the_tanh_form_not_the_erf_form(kernel):
    # The exact (erf) GELU differs from the tanh form by up to about 5e-4, outside the band:
    # a candidate computing the other GELU fails.
    jax, jnp = jax_numpy()
    v, out = run(kernel, {"B": 9, "N": 257}, 0)
    exact = np.asarray(jax.nn.gelu(jnp.asarray(v["X"], dtype=jnp.float64), approximate=False))
    assert not judged(kernel, out, {"Y": exact})
