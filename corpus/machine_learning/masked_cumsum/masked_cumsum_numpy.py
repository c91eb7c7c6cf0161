"""masked_cumsum: inclusive prefix sums along the rows of a B x N float32 matrix of which only
the entries a boolean mask selects are counted, out = cumsum(x * mask, axis=1)."""

import numpy as np


def initialize(rng, B, N):
    # Standard normal steps with a small per-row drift, as for cumsum, and a mask that keeps
    # each entry with a probability drawn per row in [0.2, 0.8]: the masked prefix sums differ
    # from the plain ones and from row to row.
    x = rng.standard_normal((B, N), dtype=np.float32)
    x += rng.uniform(-0.05, 0.05, (B, 1)).astype(np.float32)
    mask = rng.random((B, N)) < rng.uniform(0.2, 0.8, (B, 1))
    return {"x": x, "mask": mask}


def masked_cumsum(x, mask, out, B, N):
    # Column by column, every row at once: out[:, j] = out[:, j - 1] + x[:, j] * mask[:, j].
    out[:, 0] = x[:, 0] * mask[:, 0]
    for j in range(1, N):
        out[:, j] = out[:, j - 1] + x[:, j] * mask[:, j]
