"""compute: clip(array_1, 2, 10) * a + array_2 * b + c on int64 arrays (NPBench's compute,
the example of the Cython tutorial "Working with NumPy"): a fused elementwise map."""

import numpy as np


def initialize(rng, M, N):
    # array_1 straddles the clip interval [2, 10] (about a quarter of it below 2, a quarter
    # above 10), so both bounds and the pass-through all matter; small scalars, no overflow.
    return {
        "array_1": rng.integers(-4, 17, size=(M, N), dtype=np.int64),
        "array_2": rng.integers(-50, 51, size=(M, N), dtype=np.int64),
        "a": int(rng.integers(2, 10)),
        "b": int(rng.integers(2, 10)),
        "c": int(rng.integers(-20, 21)),
    }


def compute(array_1, array_2, result, a, b, c, M, N):
    result[:, :] = np.minimum(np.maximum(array_1, 2), 10) * a + array_2 * b + c
