"""resnet_basic_block's independent check: the block in float64 with JAX from the kernel's float32
inputs (one jitted program per shape, so the check stays fast): jax.lax.conv_general_dilated with
padding 1, batch statistics from jnp's mean and var, jax.nn.relu; and in NumPy with an einsum per
filter tap, where normalising each sample on its own (instance statistics) must fail."""

import functools

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run

SIZES = {"N": 2, "C": 4, "H": 7, "W": 6}


@functools.cache
def _program():
    jax, jnp = jax_numpy()

    def conv3x3(z, w):
        return jax.lax.conv_general_dilated(z, w, window_strides=(1, 1), padding=((1, 1), (1, 1)),
                                            dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def batch_norm(z, g, b, eps):
        mean = z.mean(axis=(0, 2, 3), keepdims=True)
        var = z.var(axis=(0, 2, 3), keepdims=True)
        return (z - mean) / jnp.sqrt(var + eps) * g[None, :, None, None] + b[None, :, None, None]

    @jax.jit
    def block(f, eps):
        h = jax.nn.relu(batch_norm(conv3x3(f["x"], f["w1"]), f["g1"], f["b1"], eps))
        return jax.nn.relu(batch_norm(conv3x3(h, f["w2"]), f["g2"], f["b2"], eps) + f["x"])
    return block


def _jax(v):
    f = {n: np.asarray(a, dtype=np.float64) for n, a in v.items() if n not in ("out", "eps")}
    return np.asarray(_program()(f, float(v["eps"])))


def _numpy(v, stats_axes):
    f = {n: a.astype(np.float64) for n, a in v.items() if n not in ("out", "eps")}
    eps = float(v["eps"])

    def conv3x3(z, w):
        n, c, h, wd = z.shape
        zp = np.pad(z, ((0, 0), (0, 0), (1, 1), (1, 1)))
        return sum(np.einsum("oc,nchw->nohw", w[:, :, dr, ds], zp[:, :, dr:dr + h, ds:ds + wd])
                   for dr in range(3) for ds in range(3))

    def batch_norm(z, g, b):
        mean = z.mean(axis=stats_axes, keepdims=True)
        var = z.var(axis=stats_axes, keepdims=True)
        return (z - mean) / np.sqrt(var + eps) * g[None, :, None, None] + b[None, :, None, None]

    h = np.maximum(batch_norm(conv3x3(f["x"], f["w1"]), f["g1"], f["b1"]), 0.0)
    return np.maximum(batch_norm(conv3x3(h, f["w2"]), f["g2"], f["b2"]) + f["x"], 0.0)


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, SIZES, seed)
    expected = _jax(v)
    assert 0.2 < (expected == 0).mean() < 0.8       # the final ReLU clips part of the output, not all
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_shape_against_jax(kernel):
    # One image of one row: the padding is most of every 3 x 3 window.
    v, out = run(kernel, {"N": 1, "C": 3, "H": 1, "W": 5}, 1)
    assert_close(kernel, out["out"], _jax(v))


def check_batch_statistics_not_per_sample(kernel):
    # The block in NumPy passes; normalising each sample on its own (instance statistics) fails.
    v, out = run(kernel, SIZES, 0)
    assert judged(kernel, out, {"out": _numpy(v, (0, 2, 3))})
    assert not judged(kernel, out, {"out": _numpy(v, (2, 3))})
