"""sigmoid's independent check: jax.nn.sigmoid, in float64 from the kernel's float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run



def _jax(v):
    jax, jnp = jax_numpy()
    x = jnp.asarray(v["X"], dtype=jnp.float64)
    return np.asarray(jax.nn.sigmoid(x))


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
def check_against_scipy(kernel, seed):
    import scipy.special
    v, out = run(kernel, {"B": 13, "N": 70}, seed)
    Y = scipy.special.expit(v["X"].astype(np.float64))
    assert_close(kernel, out["Y"], Y)
    assert_judged_like_an_oracle(kernel, out, {"Y": Y})


@each(seed=SEEDS)
def check_inputs_need_the_overflow_free_form(kernel, seed):
    v, out = run(kernel, {"B": 256, "N": 512}, seed)
    X = v["X"]
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isinf(np.exp(-X)).any()                               # exp(-x) overflows float32
        assert not np.isfinite(np.exp(X) / (1.0 + np.exp(X))).all()     # inf / inf = NaN
    assert np.isfinite(out["Y"]).all()
