"""gru: a GRU layer (torch.nn.GRU, one layer, batch_first=False) unrolled over T steps, gates
in PyTorch's order r, z, n (float32):
r = sigmoid(x W_ir^T + b_ir + h W_hr^T + b_hr), z = sigmoid(x W_iz^T + b_iz + h W_hz^T + b_hz),
n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)), h' = (1 - z) * n + z * h."""

import numpy as np


def initialize(rng, T, B, IN, H):
    # torch.nn.GRU's default init: every weight and bias uniform in +-1/sqrt(H). With
    # standard normal inputs the gates' pre-activations spread about +-0.6 (for IN = H):
    # the sigmoids and the tanh are neither saturated nor linear, and the update gate mixes
    # old and new state in proportions that vary from element to element.
    k = 1.0 / np.sqrt(H)
    return {
        "x": rng.standard_normal((T, B, IN)).astype(np.float32),
        "h0": (0.5 * rng.standard_normal((B, H))).astype(np.float32),
        "W_ih": rng.uniform(-k, k, (3 * H, IN)).astype(np.float32),
        "W_hh": rng.uniform(-k, k, (3 * H, H)).astype(np.float32),
        "b_ih": rng.uniform(-k, k, 3 * H).astype(np.float32),
        "b_hh": rng.uniform(-k, k, 3 * H).astype(np.float32),
    }


def gru(x, h0, W_ih, W_hh, b_ih, b_hh, out, T, B, IN, H):
    state = np.empty((B, H), dtype=np.float32)
    gi = np.empty((B, 3 * H), dtype=np.float32)
    gh = np.empty((B, 3 * H), dtype=np.float32)
    reset = np.empty((B, H), dtype=np.float32)
    update = np.empty((B, H), dtype=np.float32)
    cand = np.empty((B, H), dtype=np.float32)
    state[:, :] = h0
    for step in range(T):
        # The input's and the state's projections onto all three gates, rows r, z, n of
        # W_ih and W_hh.
        gi[:, :] = x[step, :, :] @ W_ih.T + b_ih
        gh[:, :] = state @ W_hh.T + b_hh
        reset[:, :] = 1.0 / (1.0 + np.exp(-(gi[:, 0:H] + gh[:, 0:H])))
        update[:, :] = 1.0 / (1.0 + np.exp(-(gi[:, H:2 * H] + gh[:, H:2 * H])))
        cand[:, :] = np.tanh(gi[:, 2 * H:3 * H] + reset * gh[:, 2 * H:3 * H])
        state[:, :] = (1.0 - update) * cand + update * state
        out[step, :, :] = state
