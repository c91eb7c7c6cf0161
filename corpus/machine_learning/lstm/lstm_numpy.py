"""lstm: an LSTM layer (torch.nn.LSTM, one layer, batch_first=False) unrolled over T steps,
gates in PyTorch's order i, f, g, o (float32):
i = sigmoid(x W_ii^T + b_ii + h W_hi^T + b_hi), f and o likewise, g = tanh(x W_ig^T + b_ig
+ h W_hg^T + b_hg), c' = f * c + i * g, h' = o * tanh(c')."""

import numpy as np


def initialize(rng, T, B, IN, H):
    # torch.nn.LSTM's default init: every weight and bias uniform in +-1/sqrt(H). With
    # standard normal inputs the gates' pre-activations spread about +-0.6 (for IN = H):
    # no sigmoid or tanh is saturated or linear, and the forget gate (about 0.5 on
    # average) keeps the cell state of order 0.3 over any length of sequence.
    k = 1.0 / np.sqrt(H)
    return {
        "x": rng.standard_normal((T, B, IN)).astype(np.float32),
        "h0": (0.5 * rng.standard_normal((B, H))).astype(np.float32),
        "c0": (0.5 * rng.standard_normal((B, H))).astype(np.float32),
        "W_ih": rng.uniform(-k, k, (4 * H, IN)).astype(np.float32),
        "W_hh": rng.uniform(-k, k, (4 * H, H)).astype(np.float32),
        "b_ih": rng.uniform(-k, k, 4 * H).astype(np.float32),
        "b_hh": rng.uniform(-k, k, 4 * H).astype(np.float32),
    }


def lstm(x, h0, c0, W_ih, W_hh, b_ih, b_hh, out, c_n, T, B, IN, H):
    state = np.empty((B, H), dtype=np.float32)
    gates = np.empty((B, 4 * H), dtype=np.float32)
    ig = np.empty((B, H), dtype=np.float32)
    fg = np.empty((B, H), dtype=np.float32)
    gg = np.empty((B, H), dtype=np.float32)
    og = np.empty((B, H), dtype=np.float32)
    state[:, :] = h0
    c_n[:, :] = c0
    for step in range(T):
        # All four gates' pre-activations at once: rows i, f, g, o of W_ih and W_hh.
        gates[:, :] = x[step, :, :] @ W_ih.T + b_ih + state @ W_hh.T + b_hh
        ig[:, :] = 1.0 / (1.0 + np.exp(-gates[:, 0:H]))
        fg[:, :] = 1.0 / (1.0 + np.exp(-gates[:, H:2 * H]))
        gg[:, :] = np.tanh(gates[:, 2 * H:3 * H])
        og[:, :] = 1.0 / (1.0 + np.exp(-gates[:, 3 * H:4 * H]))
        # The cell state lives in the output c_n, which ends as c_T.
        c_n[:, :] = fg * c_n + ig * gg
        state[:, :] = og * np.tanh(c_n)
        out[step, :, :] = state
