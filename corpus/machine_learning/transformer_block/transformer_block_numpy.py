"""transformer_block: a pre-norm GPT block, h = x + Attn(LN1(x)), out = h + MLP(LN2(h)), with
minGPT's causal multi-head attention and a D -> 4D -> D MLP with the tanh GELU (float32)."""

import numpy as np


def initialize(rng, B, T, D, NH):
    # Token rows with their own offsets and spreads (so the LayerNorms matter); linear
    # layers at torch.nn.Linear's default bound, uniform in +-1/sqrt(fan_in), except c_attn
    # and c_fc, drawn wider (standard deviation 1.5/sqrt(D)) so that the scores spread ~2
    # per row (each query attends to a few keys) and the GELU's inputs cover its curved
    # region and both tails.
    x = rng.uniform(0.5, 2.0, (B, T, 1)) * rng.standard_normal((B, T, D)) + rng.uniform(-1.0, 1.0, (B, T, 1))
    bound = 1.0 / np.sqrt(D)
    bound4 = 1.0 / np.sqrt(4 * D)
    return {
        "x": x.astype(np.float32),
        "ln1_g": rng.uniform(0.5, 1.5, D).astype(np.float32),
        "ln1_b": (0.5 * rng.standard_normal(D)).astype(np.float32),
        "W_attn": (1.5 * bound * rng.standard_normal((3 * D, D))).astype(np.float32),
        "b_attn": rng.uniform(-bound, bound, 3 * D).astype(np.float32),
        "W_proj": rng.uniform(-bound, bound, (D, D)).astype(np.float32),
        "b_proj": rng.uniform(-bound, bound, D).astype(np.float32),
        "ln2_g": rng.uniform(0.5, 1.5, D).astype(np.float32),
        "ln2_b": (0.5 * rng.standard_normal(D)).astype(np.float32),
        "W_fc": (1.5 * bound * rng.standard_normal((4 * D, D))).astype(np.float32),
        "b_fc": rng.uniform(-bound, bound, 4 * D).astype(np.float32),
        "W_fc2": rng.uniform(-bound4, bound4, (D, 4 * D)).astype(np.float32),
        "b_fc2": rng.uniform(-bound4, bound4, D).astype(np.float32),
        "eps": 1e-5,
    }


def transformer_block(x, ln1_g, ln1_b, W_attn, b_attn, W_proj, b_proj, ln2_g, ln2_b, W_fc, b_fc, W_fc2, b_fc2,
                      out, eps, B, T, D, NH):
    HD = D // NH
    scale = 1.0 / np.sqrt(np.float32(HD))
    # The causal mask, added to the scores: 0 where key j <= query i, -1e30 above the diagonal
    # (exp of it underflows to exactly 0, as masked_fill(-inf) gives).
    mask = np.empty((T, T), dtype=np.float32)
    for i in range(T):
        mask[i, 0:i + 1] = 0.0
        mask[i, i + 1:T] = -1.0e30
    mu = np.empty((T, 1), dtype=np.float32)
    rstd = np.empty((T, 1), dtype=np.float32)
    hn = np.empty((T, D), dtype=np.float32)
    qkv = np.empty((T, 3 * D), dtype=np.float32)
    att = np.empty((T, T), dtype=np.float32)
    y = np.empty((T, D), dtype=np.float32)
    hres = np.empty((T, D), dtype=np.float32)
    u = np.empty((T, 4 * D), dtype=np.float32)
    for seq in range(B):
        # ln_1: mean and biased variance over each token's D features.
        mu[:, :] = np.sum(x[seq, :, :], axis=1, keepdims=True) / D
        hn[:, :] = x[seq, :, :] - mu
        rstd[:, :] = 1.0 / np.sqrt(np.sum(hn * hn, axis=1, keepdims=True) / D + eps)
        hn[:, :] = hn * rstd * ln1_g + ln1_b
        # Causal self-attention: c_attn, NH masked softmax heads, c_proj; then the residual.
        qkv[:, :] = hn @ W_attn.T + b_attn
        for h in range(NH):
            att[:, :] = (qkv[:, h * HD:(h + 1) * HD] @ qkv[:, D + h * HD:D + (h + 1) * HD].T) * scale + mask
            att[:, :] = np.exp(att - np.max(att, axis=1, keepdims=True))
            att[:, :] = att / np.sum(att, axis=1, keepdims=True)
            y[:, h * HD:(h + 1) * HD] = att @ qkv[:, 2 * D + h * HD:2 * D + (h + 1) * HD]
        hres[:, :] = x[seq, :, :] + (y @ W_proj.T + b_proj)
        # ln_2, then the MLP: c_fc (D -> 4D), GELU (tanh form), c_proj (4D -> D); the residual.
        mu[:, :] = np.sum(hres, axis=1, keepdims=True) / D
        hn[:, :] = hres - mu
        rstd[:, :] = 1.0 / np.sqrt(np.sum(hn * hn, axis=1, keepdims=True) / D + eps)
        hn[:, :] = hn * rstd * ln2_g + ln2_b
        u[:, :] = hn @ W_fc.T + b_fc
        u[:, :] = 0.5 * u * (1.0 + np.tanh(0.7978845608028654 * (u + 0.044715 * u * u * u)))
        out[seq, :, :] = hres + (u @ W_fc2.T + b_fc2)
