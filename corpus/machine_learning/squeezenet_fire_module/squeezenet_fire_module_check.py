"""squeezenet_fire_module's independent check: the module in float64 with JAX from the kernel's
float32 inputs (one jitted program per shape, so the check stays fast): jax.lax.conv_general_dilated
for the three convolutions (padding 1 for the 3x3), jax.nn.relu, jnp.concatenate on the channel
axis; and in NumPy, where edge replication in place of zero padding must fail."""

import functools

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run

SIZES = {"N": 2, "C": 5, "H": 6, "W": 7, "SQ": 3, "E1": 4, "E3": 5}


@functools.cache
def _program():
    jax, jnp = jax_numpy()

    def conv(z, w, b, pad):
        return jax.lax.conv_general_dilated(z, w, window_strides=(1, 1), padding=((pad, pad), (pad, pad)),
                                            dimension_numbers=("NCHW", "OIHW", "NCHW")) + b[None, :, None, None]

    @jax.jit
    def fire(f):
        """The module's output and the squeezed activations."""
        s = jax.nn.relu(conv(f["x"], f["w_sq"][:, :, None, None], f["b_sq"], 0))
        e1 = jax.nn.relu(conv(s, f["w_e1"][:, :, None, None], f["b_e1"], 0))
        e3 = jax.nn.relu(conv(s, f["w_e3"], f["b_e3"], 1))
        return jnp.concatenate([e1, e3], axis=1), s
    return fire


def _jax(v):
    f = {n: np.asarray(a, dtype=np.float64) for n, a in v.items() if n != "out"}
    y, s = _program()(f)
    return np.asarray(y), np.asarray(s)


def _numpy(v, pad_mode):
    f = {n: a.astype(np.float64) for n, a in v.items() if n != "out"}
    col = (None, slice(None), None, None)
    s = np.maximum(np.einsum("sc,nchw->nshw", f["w_sq"], f["x"]) + f["b_sq"][col], 0.0)
    e1 = np.maximum(np.einsum("es,nshw->nehw", f["w_e1"], s) + f["b_e1"][col], 0.0)
    n, sq, h, w = s.shape
    sp = np.pad(s, ((0, 0), (0, 0), (1, 1), (1, 1)), mode=pad_mode)
    e3 = sum(np.einsum("es,nshw->nehw", f["w_e3"][:, :, dr, ds], sp[:, :, dr:dr + h, ds:ds + w])
             for dr in range(3) for ds in range(3))
    return np.concatenate([e1, np.maximum(e3 + f["b_e3"][col], 0.0)], axis=1)


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, SIZES, seed)
    expected, s = _jax(v)
    assert 0.1 < (s == 0).mean() < 0.9 and 0.1 < (expected == 0).mean() < 0.9   # live ReLUs
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_sizes_against_jax(kernel):
    # One image of one row, single-channel expand1x1, odd sizes.
    v, out = run(kernel, {"N": 1, "C": 3, "H": 1, "W": 5, "SQ": 2, "E1": 1, "E3": 3}, 3)
    assert_close(kernel, out["out"], _jax(v)[0])


def check_the_padding_matters(kernel):
    # The module in NumPy passes; the 3x3 expand with edge replication instead of zero padding fails.
    v, out = run(kernel, SIZES, 0)
    assert judged(kernel, out, {"out": _numpy(v, "constant")})
    assert not judged(kernel, out, {"out": _numpy(v, "edge")})
