"""vanilla_rnn: an Elman RNN layer (torch.nn.RNN, tanh, one layer, batch_first=False)
unrolled over T steps: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (float32)."""

import numpy as np


def initialize(rng, T, B, IN, H):
    # torch.nn.RNN's default init: every weight and bias uniform in +-1/sqrt(H). With
    # standard normal inputs the pre-activations spread about +-0.6 (for IN = H): tanh is
    # neither saturated nor linear, and W_hh's spectral radius (about 0.58) keeps the
    # recurrence contracting, so the sequence neither dies out nor blows up.
    k = 1.0 / np.sqrt(H)
    return {
        "x": rng.standard_normal((T, B, IN)).astype(np.float32),
        "h0": (0.5 * rng.standard_normal((B, H))).astype(np.float32),
        "W_ih": rng.uniform(-k, k, (H, IN)).astype(np.float32),
        "W_hh": rng.uniform(-k, k, (H, H)).astype(np.float32),
        "b_ih": rng.uniform(-k, k, H).astype(np.float32),
        "b_hh": rng.uniform(-k, k, H).astype(np.float32),
    }


def vanilla_rnn(x, h0, W_ih, W_hh, b_ih, b_hh, out, T, B, IN, H):
    state = np.empty((B, H), dtype=np.float32)
    pre = np.empty((B, H), dtype=np.float32)
    state[:, :] = h0
    for step in range(T):
        pre[:, :] = x[step, :, :] @ W_ih.T + b_ih + state @ W_hh.T + b_hh
        state[:, :] = np.tanh(pre)
        out[step, :, :] = state
