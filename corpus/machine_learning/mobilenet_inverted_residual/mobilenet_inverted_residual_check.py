"""mobilenet_inverted_residual's independent check: the block in float64 with JAX from the kernel's
float32 inputs (one jitted program per shape, so the check stays fast): jax.lax.conv_general_dilated
for the 1x1 convolutions and for the depthwise one (feature_group_count = C E, padding 1), batch
statistics from jnp's mean and var, jax.nn.relu6; and in NumPy, where plain ReLU in place of
ReLU6 must fail."""

import functools

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run

SIZES = {"N": 2, "C": 3, "H": 6, "W": 5, "E": 4}


@functools.cache
def _program():
    jax, jnp = jax_numpy()

    def conv(z, w, pad, groups=1):
        return jax.lax.conv_general_dilated(z, w, window_strides=(1, 1), padding=((pad, pad), (pad, pad)),
                                            feature_group_count=groups,
                                            dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def batch_norm(z, g, b, eps):
        mean = z.mean(axis=(0, 2, 3), keepdims=True)
        var = z.var(axis=(0, 2, 3), keepdims=True)
        return (z - mean) / jnp.sqrt(var + eps) * g[None, :, None, None] + b[None, :, None, None]

    @jax.jit
    def block(f, eps):
        """The block's output and the first ReLU6's input."""
        ce = f["w_exp"].shape[0]
        a1 = batch_norm(conv(f["x"], f["w_exp"][:, :, None, None], 0), f["g1"], f["b1"], eps)
        h = conv(jax.nn.relu6(a1), f["w_dw"][:, None, :, :], 1, groups=ce)
        h = jax.nn.relu6(batch_norm(h, f["g2"], f["b2"], eps))
        return batch_norm(conv(h, f["w_proj"][:, :, None, None], 0), f["g3"], f["b3"], eps) + f["x"], a1
    return block


def _jax(v):
    f = {n: np.asarray(a, dtype=np.float64) for n, a in v.items() if n not in ("out", "eps")}
    y, a1 = _program()(f, float(v["eps"]))
    return np.asarray(y), np.asarray(a1)


def _numpy(v, top):
    f = {n: a.astype(np.float64) for n, a in v.items() if n not in ("out", "eps")}
    eps = float(v["eps"])

    def batch_norm(z, g, b):
        mean = z.mean(axis=(0, 2, 3), keepdims=True)
        return (z - mean) / np.sqrt(z.var(axis=(0, 2, 3), keepdims=True) + eps) * g[None, :, None, None] \
            + b[None, :, None, None]

    h = np.clip(batch_norm(np.einsum("ec,nchw->nehw", f["w_exp"], f["x"]), f["g1"], f["b1"]), 0.0, top)
    n, ce, hh, ww = h.shape
    hp = np.pad(h, ((0, 0), (0, 0), (1, 1), (1, 1)))
    d = sum(f["w_dw"][None, :, dr, ds, None, None] * hp[:, :, dr:dr + hh, ds:ds + ww]
            for dr in range(3) for ds in range(3))
    h = np.clip(batch_norm(d, f["g2"], f["b2"]), 0.0, top)
    return batch_norm(np.einsum("ce,nehw->nchw", f["w_proj"], h), f["g3"], f["b3"]) + f["x"]


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, SIZES, seed)
    expected, a1 = _jax(v)
    assert (a1 < 0).any() and (a1 > 6).any()        # the ReLU6 clamps on both sides
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_shape_against_jax(kernel):
    # One image, a single column, odd sizes.
    v, out = run(kernel, {"N": 1, "C": 2, "H": 3, "W": 1, "E": 5}, 1)
    assert_close(kernel, out["out"], _jax(v)[0])


def check_relu6_not_relu(kernel):
    # The block in NumPy passes; plain ReLU (no clamp at 6) fails.
    v, out = run(kernel, SIZES, 0)
    assert judged(kernel, out, {"out": _numpy(v, 6.0)})
    assert not judged(kernel, out, {"out": _numpy(v, np.inf)})
