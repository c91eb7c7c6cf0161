"""softmax's independent check: jax.nn.softmax and scipy.special.softmax in float64."""

import numpy as np
import scipy.special

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, {"B": 9, "N": 33}, seed)
    Y = np.asarray(jax.nn.softmax(jnp.asarray(v["X"], dtype=jnp.float64), axis=-1))
    np.testing.assert_allclose(out["Y"], Y, rtol=2e-5, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})


@each(seed=SEEDS)
def check_against_scipy(kernel, seed):
    v, out = run(kernel, {"B": 13, "N": 70}, seed)
    Y = scipy.special.softmax(v["X"].astype(np.float64), axis=1)
    np.testing.assert_allclose(out["Y"], Y, rtol=2e-5, atol=1e-7)
    np.testing.assert_allclose(out["Y"].sum(axis=1), 1.0, rtol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})


def check_inputs_need_the_max_subtraction(kernel):
    v, _ = run(kernel, {"B": 13, "N": 70}, 0)
    # Without the max subtraction, exp overflows float32 on these inputs.
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp(v["X"]) / np.sum(np.exp(v["X"]), axis=1, keepdims=True)
    assert not np.all(np.isfinite(naive))
