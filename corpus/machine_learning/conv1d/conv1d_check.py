"""conv1d's independent check: jax.lax.conv_general_dilated and explicit loops, in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax_conv1d(v):
    jax, jnp = jax_numpy()
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    y = jax.lax.conv_general_dilated(x, w, window_strides=(1,), padding="VALID",
                                     dimension_numbers=("NCH", "OIH", "NCH")) + b[None, :, None]
    return np.asarray(y)


@each(sizes=[{"N": 3, "C": 5, "L": 17, "K": 4, "R": 3}, {"N": 2, "C": 7, "L": 11, "K": 3, "R": 5},
             {"N": 1, "C": 1, "L": 8, "K": 2, "R": 1}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    v, out = run(kernel, sizes, seed)
    y = _jax_conv1d(v)
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n_, c_, l_, k_, r_ = 2, 3, 9, 4, 4
    v, out = run(kernel, {"N": n_, "C": c_, "L": l_, "K": k_, "R": r_}, seed)
    x, w, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    y = np.empty((n_, k_, l_ - r_ + 1))
    for n in range(n_):
        for f in range(k_):
            for q in range(l_ - r_ + 1):
                y[n, f, q] = b[f] + sum(w[f, c, r] * x[n, c, q + r] for c in range(c_) for r in range(r_))
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})
