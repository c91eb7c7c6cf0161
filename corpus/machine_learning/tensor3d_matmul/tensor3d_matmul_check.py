"""tensor3d_matmul's independent check: jnp.matmul (broadcasting B over the leading axis) in float64
from the float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(3, 9, 40, 11), (2, 17, 8, 5), (1, 1, 3, 2), (4, 2, 1, 3)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    n, m, k, l_ = shape
    v, out = run(kernel, {"N": n, "M": m, "K": k, "L": l_}, seed)
    C = np.asarray(jnp.matmul(jnp.asarray(v["A"], dtype=jnp.float64), jnp.asarray(v["B"], dtype=jnp.float64)))
    assert out["C"].shape == C.shape == (n, m, l_)
    np.testing.assert_allclose(out["C"], C, rtol=1e-4, atol=1e-5 * np.abs(C).max())
    assert_judged_like_an_oracle(kernel, out, {"C": C})
