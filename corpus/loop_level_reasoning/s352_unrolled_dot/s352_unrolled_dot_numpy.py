"""s352_unrolled_dot: TSVC s352, a float32 dot product unrolled by hand five times."""

import numpy as np


def initialize(rng, N):
    # b is positive and a is centred a little above zero: the dot product (about 3 sqrt(N))
    # sits some five standard deviations from zero, so it never cancels, yet another draw
    # of the inputs gives one about 20 % away. Partial sums stay near sqrt(N), which keeps a
    # sequential float32 loop accurate.
    return {
        "a": (rng.uniform(-1.0, 1.0, N) + 3.0 / np.sqrt(N)).astype(np.float32),
        "b": rng.uniform(0.5, 1.5, N).astype(np.float32),
    }


def s352_unrolled_dot(a, b, N):
    # TSVC's body, i = 0, 5, 10, ...: dot += a[i] * b[i] + ... + a[i+4] * b[i+4], written
    # on the rows of five of a and b (row r holds the elements 5r .. 5r+4).
    ra = a.reshape(N // 5, 5)
    rb = b.reshape(N // 5, 5)
    return np.sum(
        ra[:, 0] * rb[:, 0] + ra[:, 1] * rb[:, 1] + ra[:, 2] * rb[:, 2] + ra[:, 3] * rb[:, 3] + ra[:, 4] * rb[:, 4]
    )
