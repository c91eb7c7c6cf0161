"""transformer_block's independent check: the block in float64 with JAX from the kernel's float32
inputs (one jitted program per shape, so the check stays fast): LayerNorm from jnp's mean and var,
jax.nn.dot_product_attention(is_causal=True) for the heads, jax.nn.gelu(approximate=True); the
block without the mask, or with the erf GELU, written in NumPy, must fail."""

import functools

import numpy as np
import scipy.special

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run

SIZES = {"B": 2, "T": 9, "D": 12, "NH": 3}


@functools.cache
def _program():
    jax, jnp = jax_numpy()

    @functools.partial(jax.jit, static_argnames=("B", "T", "D", "NH"))
    def block(f, eps, B, T, D, NH):
        def layer_norm(z, g, b):
            return (z - z.mean(axis=-1, keepdims=True)) / jnp.sqrt(z.var(axis=-1, keepdims=True) + eps) * g + b

        x = f["x"]
        qkv = layer_norm(x, f["ln1_g"], f["ln1_b"]) @ f["W_attn"].T + f["b_attn"]
        q, k, val = (qkv[:, :, j * D:(j + 1) * D].reshape(B, T, NH, D // NH) for j in range(3))
        y = jax.nn.dot_product_attention(q, k, val, is_causal=True).reshape(B, T, D)
        h = x + y @ f["W_proj"].T + f["b_proj"]
        u = jax.nn.gelu(layer_norm(h, f["ln2_g"], f["ln2_b"]) @ f["W_fc"].T + f["b_fc"], approximate=True)
        return h + u @ f["W_fc2"].T + f["b_fc2"]
    return block


def _jax(v, sizes):
    f = {n: np.asarray(a, dtype=np.float64) for n, a in v.items() if n not in ("out", "eps")}
    return np.asarray(_program()(f, float(v["eps"]), **sizes))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, SIZES, seed)
    expected = _jax(v, SIZES)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_size_against_jax(kernel):
    # Heads of width 1, an odd sequence length.
    sizes = {"B": 1, "T": 7, "D": 5, "NH": 5}
    v, out = run(kernel, sizes, 4)
    assert_close(kernel, out["out"], _jax(v, sizes))


def _numpy_block(v, causal, erf_gelu):
    f = {n: a.astype(np.float64) for n, a in v.items() if n not in ("out", "eps")}
    B, T, D, NH = SIZES["B"], SIZES["T"], SIZES["D"], SIZES["NH"]
    hd = D // NH

    def layer_norm(z, g, b):
        return (z - z.mean(axis=-1, keepdims=True)) / np.sqrt(z.var(axis=-1, keepdims=True) + float(v["eps"])) * g + b

    qkv = layer_norm(f["x"], f["ln1_g"], f["ln1_b"]) @ f["W_attn"].T + f["b_attn"]
    masked = np.triu(np.ones((T, T), dtype=bool), 1) if causal else np.zeros((T, T), dtype=bool)
    y = np.empty((B, T, D))
    for h in range(NH):
        q, k, val = (qkv[:, :, j * D + h * hd:j * D + (h + 1) * hd] for j in range(3))
        scores = np.where(masked, -np.inf, q @ k.transpose(0, 2, 1) / np.sqrt(hd))
        y[:, :, h * hd:(h + 1) * hd] = scipy.special.softmax(scores, axis=2) @ val
    hres = f["x"] + y @ f["W_proj"].T + f["b_proj"]
    u = layer_norm(hres, f["ln2_g"], f["ln2_b"]) @ f["W_fc"].T + f["b_fc"]
    if erf_gelu:
        u = 0.5 * u * (1.0 + scipy.special.erf(u / np.sqrt(2.0)))
    else:
        u = 0.5 * u * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (u + 0.044715 * u ** 3)))
    return hres + u @ f["W_fc2"].T + f["b_fc2"]


def check_the_mask_and_the_gelu_matter(kernel):
    # The same block in NumPy passes; without the causal mask, or with the erf GELU, it fails.
    v, out = run(kernel, SIZES, 0)
    assert judged(kernel, out, {"out": _numpy_block(v, causal=True, erf_gelu=False)})
    assert not judged(kernel, out, {"out": _numpy_block(v, causal=False, erf_gelu=False)})
    assert not judged(kernel, out, {"out": _numpy_block(v, causal=True, erf_gelu=True)})
