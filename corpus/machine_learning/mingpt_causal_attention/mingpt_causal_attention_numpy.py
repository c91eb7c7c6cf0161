"""mingpt_causal_attention: minGPT's multi-head causal self-attention block, c_attn (D -> 3D),
NH heads of masked softmax(q k^T / sqrt(D / NH)) v, heads merged, c_proj (D -> D) (float32)."""

import numpy as np


def initialize(rng, B, T, D, NH):
    # torch.nn.Linear's default init, uniform in +-1/sqrt(fan_in), for weights and biases;
    # x with standard deviation 2.5 gives q and k entries of spread ~1.4 and scores of spread
    # ~2 per row, so each query attends to a few keys, not to one or to all alike.
    bound = 1.0 / np.sqrt(D)
    return {
        "x": (2.5 * rng.standard_normal((B, T, D))).astype(np.float32),
        "W_attn": rng.uniform(-bound, bound, (3 * D, D)).astype(np.float32),
        "b_attn": rng.uniform(-bound, bound, 3 * D).astype(np.float32),
        "W_proj": rng.uniform(-bound, bound, (D, D)).astype(np.float32),
        "b_proj": rng.uniform(-bound, bound, D).astype(np.float32),
    }


def mingpt_causal_attention(x, W_attn, b_attn, W_proj, b_proj, out, B, T, D, NH):
    HD = D // NH
    scale = 1.0 / np.sqrt(np.float32(HD))
    # The causal mask, added to the scores: 0 where key j <= query i, -1e30 above the diagonal
    # (exp of it underflows to exactly 0, as masked_fill(-inf) gives).
    mask = np.empty((T, T), dtype=np.float32)
    for i in range(T):
        mask[i, 0:i + 1] = 0.0
        mask[i, i + 1:T] = -1.0e30
    qkv = np.empty((T, 3 * D), dtype=np.float32)
    att = np.empty((T, T), dtype=np.float32)
    y = np.empty((T, D), dtype=np.float32)
    for seq in range(B):
        # c_attn: q, k and v of every position, heads side by side (columns h*HD:(h+1)*HD).
        qkv[:, :] = x[seq, :, :] @ W_attn.T + b_attn
        for h in range(NH):
            att[:, :] = (qkv[:, h * HD:(h + 1) * HD] @ qkv[:, D + h * HD:D + (h + 1) * HD].T) * scale + mask
            att[:, :] = np.exp(att - np.max(att, axis=1, keepdims=True))
            att[:, :] = att / np.sum(att, axis=1, keepdims=True)
            y[:, h * HD:(h + 1) * HD] = att @ qkv[:, 2 * D + h * HD:2 * D + (h + 1) * HD]
        # c_proj on the merged heads.
        out[seq, :, :] = y @ W_proj.T + b_proj
