"""run_length: run-length encoding of a byte stream into (value, run length) pairs, with
outputs of a fixed size (a run per byte at most) and their unused tail set to zero."""

import numpy as np


def initialize(rng, N):
    # Runs like those of a bitmap's scanlines: mostly short (geometric, mean 4), one in ten
    # long (mean 64); half of them background zeros, the rest arbitrary bytes. Neighbouring
    # runs of the same value merge into one.
    long_run = rng.random(N) < 0.1
    lengths = np.where(long_run, rng.geometric(1.0 / 64.0, N), rng.geometric(0.25, N))
    values = np.where(rng.random(N) < 0.5, 0, rng.integers(1, 256, N))
    data = np.repeat(values, lengths)[:N]
    return {"data": data.astype(np.uint8)}


def run_length(data, values, lengths, N):
    # A two-state scan: inside a run (count it) or at a change of byte (close the run and
    # open the next). Byte values are compared as int64.
    values[:] = 0
    lengths[:] = 0
    wide = np.empty(N, dtype=np.int64)
    wide[:] = data.astype(np.int64)
    r = 0
    run = 1
    values[0] = data[0]
    for i in range(1, N):
        if wide[i] != wide[i - 1]:
            lengths[r] = run
            r += 1
            values[r] = data[i]
            run = 1
        else:
            run += 1
    lengths[r] = run
    return r + 1
