"""matmul_avgpool_gelu_scale_max's independent check: the linear layer in float64 with jnp,
jax.lax.reduce_window for the average pooling, jax.nn.gelu(approximate=True), the scale and
jnp.max; and the pooled-weight form (runs of P rows of W and b averaged first) in NumPy
float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v, p):
    jax, jnp = jax_numpy()
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    a = x @ w.T + b
    pooled = jax.lax.reduce_window(a, 0.0, jax.lax.add, (1, p), (1, p), "VALID") / p
    return np.asarray(jnp.max(jax.nn.gelu(pooled, approximate=True) * float(v["scale"]), axis=1))


@each(sizes=[{"B": 9, "DIN": 31, "DOUT": 40, "P": 4}, {"B": 6, "DIN": 17, "DOUT": 21, "P": 3}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    v, out = run(kernel, sizes, seed)
    expected = _jax(v, sizes["P"])
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(seed=SEEDS)
def check_against_pooled_weights(kernel, seed):
    b_, din, dout, p = 7, 12, 24, 6
    v, out = run(kernel, {"B": b_, "DIN": din, "DOUT": dout, "P": p}, seed)
    x, w, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    wp = w.reshape(dout // p, p, din).mean(axis=1)
    bp = b.reshape(dout // p, p).mean(axis=1)
    z = x @ wp.T + bp
    g = 0.5 * z * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (z + 0.044715 * z ** 3)))
    expected = (g * float(v["scale"])).max(axis=1)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_shapes(kernel):
    # No pooling (P = 1), and a single pooled feature (P = DOUT).
    v, out = run(kernel, {"B": 3, "DIN": 5, "DOUT": 7, "P": 1}, 0)
    assert_close(kernel, out["out"], _jax(v, 1))
    v, out = run(kernel, {"B": 3, "DIN": 5, "DOUT": 7, "P": 7}, 0)
    assert_close(kernel, out["out"], _jax(v, 7))
