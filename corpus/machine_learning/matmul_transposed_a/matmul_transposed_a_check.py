"""matmul_transposed_a's independent check: jnp.einsum contracting A's first axis, in float64
from the float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(9, 37, 14), (32, 128, 64), (1, 3, 1)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    m, k, n = shape
    v, out = run(kernel, {"M": m, "K": k, "N": n}, seed)
    assert v["A"].shape == (k, m)
    C = np.asarray(jnp.einsum("km,kn->mn", jnp.asarray(v["A"], dtype=jnp.float64),
                              jnp.asarray(v["B"], dtype=jnp.float64)))
    np.testing.assert_allclose(out["C"], C, rtol=1e-4, atol=1e-5 * np.abs(C).max())
    assert_judged_like_an_oracle(kernel, out, {"C": C})
