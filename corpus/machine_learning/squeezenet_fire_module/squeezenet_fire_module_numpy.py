"""squeezenet_fire_module: SqueezeNet's Fire module, squeeze 1x1 conv + ReLU, then expand 1x1 and
expand 3x3 (padding 1) convs + ReLU, concatenated on the channel axis (float32, NCHW)."""

import numpy as np


def initialize(rng, N, C, H, W, SQ, E1, E3):
    # torch.nn.Conv2d's default init: weights and biases uniform in +-1/sqrt(fan_in); every
    # ReLU passes about half of its inputs.
    def uniform(fan_in, shape):
        bound = 1.0 / np.sqrt(fan_in)
        return rng.uniform(-bound, bound, shape).astype(np.float32)

    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "w_sq": uniform(C, (SQ, C)),
        "b_sq": uniform(C, SQ),
        "w_e1": uniform(SQ, (E1, SQ)),
        "b_e1": uniform(SQ, E1),
        "w_e3": uniform(9 * SQ, (E3, SQ, 3, 3)),
        "b_e3": uniform(9 * SQ, E3),
    }


def squeezenet_fire_module(x, w_sq, b_sq, w_e1, b_e1, w_e3, b_e3, out, N, C, H, W, SQ, E1, E3):
    # The biases as columns, to add to a (channels x W) image row.
    bias_sq = b_sq.reshape(SQ, 1)
    bias_e1 = b_e1.reshape(E1, 1)
    bias_e3 = b_e3.reshape(E3, 1)
    # The 3x3 filter's taps as E3 x SQ matrices.
    wt = np.empty((3, 3, E3, SQ), dtype=np.float32)
    for dr in range(3):
        for ds in range(3):
            wt[dr, ds, :, :] = w_e3[:, :, dr, ds]
    # The squeezed activations, zero-padded by one pixel for the 3x3 expand.
    sp = np.zeros((N, SQ, H + 2, W + 2), dtype=np.float32)
    acc = np.empty((E3, W), dtype=np.float32)
    for img in range(N):
        for row in range(H):
            sp[img, :, row + 1, 1:W + 1] = np.maximum(w_sq @ x[img, :, row, :] + bias_sq, 0.0)
    for img in range(N):
        for row in range(H):
            # expand1x1 into channels 0 .. E1 - 1 of the output.
            out[img, 0:E1, row, :] = np.maximum(w_e1 @ sp[img, :, row + 1, 1:W + 1] + bias_e1, 0.0)
            # expand3x3 (padding 1) into channels E1 .. E1 + E3 - 1, tap by tap.
            acc[:, :] = bias_e3
            for dr in range(3):
                for ds in range(3):
                    acc[:, :] += wt[dr, ds, :, :] @ sp[img, :, row + dr, ds:ds + W]
            out[img, E1:E1 + E3, row, :] = np.maximum(acc, 0.0)
