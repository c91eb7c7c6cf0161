"""cross_entropy: mean cross-entropy loss of B rows of C float32 logits against integer class
targets, with a numerically stable log-sum-exp (torch.nn.CrossEntropyLoss())."""

import numpy as np


def initialize(rng, B, C):
    # Logits with a spread drawn once per case (so the loss differs from case to case)
    # around a per-row offset in [-1000, 2000]. The loss does not depend on the offset, but
    # exp overflows float32 above 88, so a log-sum-exp without the maximum subtracted
    # produces inf/NaN; and logits of that size rounded to float16 (a spacing of 0.5 to 2)
    # move the loss far outside the float32 band, so lower-precision arithmetic fails.
    spread = rng.uniform(0.5, 3.0)
    logits = spread * rng.standard_normal((B, C)) + rng.uniform(-1000.0, 2000.0, (B, 1))
    return {
        "logits": logits.astype(np.float32),
        "target": rng.integers(0, C, size=B, dtype=np.int64),
    }


def cross_entropy(logits, target, B, C):
    # loss = (1 / B) sum_b [log sum_c exp(logits[b, c]) - logits[b, target[b]]], the
    # log-sum-exp taken as m + log sum_c exp(logits[b, c] - m) with m the row's maximum, and
    # each row's term as (m - logits[b, target[b]]) + log sum_c exp(logits[b, c] - m): the
    # differences of nearby float32 logits are exact, where adding m to the logarithm
    # first would round to the spacing of the offsets (1e-4 at 2000).
    rowmax = np.empty((B, 1), dtype=np.float32)
    logsum = np.empty((B, 1), dtype=np.float32)
    nll = np.empty(B, dtype=np.float32)
    rowmax[:, :] = np.max(logits, axis=1, keepdims=True)
    logsum[:, :] = np.log(np.sum(np.exp(logits - rowmax), axis=1, keepdims=True))
    for row in range(B):
        nll[row] = (rowmax[row, 0] - logits[row, target[row]]) + logsum[row, 0]
    return np.sum(nll) / B
