"""mingpt_causal_attention's independent check: the projections in float64 with jnp and the heads
through jax.nn.dot_product_attention(is_causal=True), from the kernel's float32 inputs (one jitted
program per shape, so the check stays fast); the unmasked variant, in NumPy, must fail."""

import functools

import numpy as np
import scipy.special

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run

SIZES = {"B": 2, "T": 11, "D": 12, "NH": 3}


@functools.cache
def _program():
    jax, jnp = jax_numpy()

    @functools.partial(jax.jit, static_argnames=("B", "T", "D", "NH"))
    def attention_block(f, B, T, D, NH):
        qkv = f["x"] @ f["W_attn"].T + f["b_attn"]                  # B x T x 3D
        q, k, val = (qkv[:, :, j * D:(j + 1) * D].reshape(B, T, NH, D // NH) for j in range(3))
        y = jax.nn.dot_product_attention(q, k, val, is_causal=True).reshape(B, T, D)
        return y @ f["W_proj"].T + f["b_proj"]
    return attention_block


def _jax(v, sizes):
    f = {n: np.asarray(a, dtype=np.float64) for n, a in v.items() if n != "out"}
    return np.asarray(_program()(f, **sizes))


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


def check_the_mask_matters(kernel):
    # Attention over every key (no causal mask) must fail the judge.
    v, out = run(kernel, SIZES, 0)
    f = {n: a.astype(np.float64) for n, a in v.items() if n != "out"}
    B, T, D, NH = SIZES["B"], SIZES["T"], SIZES["D"], SIZES["NH"]
    hd = D // NH
    qkv = f["x"] @ f["W_attn"].T + f["b_attn"]
    y = np.empty((B, T, D))
    for h in range(NH):
        q, k, val = (qkv[:, :, j * D + h * hd:j * D + (h + 1) * hd] for j in range(3))
        y[:, :, h * hd:(h + 1) * hd] = scipy.special.softmax(q @ k.transpose(0, 2, 1) / np.sqrt(hd), axis=2) @ val
    assert not judged(kernel, out, {"out": y @ f["W_proj"].T + f["b_proj"]})
