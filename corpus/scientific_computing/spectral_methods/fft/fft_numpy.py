"""fft: iterative radix-2 decimation-in-time Cooley-Tukey FFT (bit reversal, then butterflies)."""

import numpy as np


def initialize(rng, N, LOGN):
    return {"x": rng.standard_normal(N) + 1j * rng.standard_normal(N)}


def fft(x, y, N, LOGN):
    # Bit-reversed index table, built by doubling: rev[h + i] = rev[i] + N / (2h).
    rev = np.empty((N,), dtype=np.int64)
    rev[0:1] = 0
    for s in range(LOGN):
        h = 2 ** s
        rev[h:2 * h] = rev[0:h] + N // (2 * h)
    y[:] = x[rev]

    # kk[k] = k for k < N / 2 (twiddle exponents), built the same way.
    kk = np.empty((N // 2,), dtype=np.float64)
    kk[0:1] = 0.0
    for s in range(LOGN - 1):
        h = 2 ** s
        kk[h:2 * h] = kk[0:h] + h

    # Stage s combines pairs of length-h transforms into length-m = 2h transforms. The
    # contiguous array y is viewed as N / m rows of m: the butterflies of one stage are
    # between the left half (columns 0..h-1) and right half (columns h..m-1) of each row,
    # with twiddle factor tw[k] = exp(-2 pi i k / m) for column k of the left half.
    tw = np.empty((N // 2,), dtype=np.complex128)
    for s in range(LOGN):
        h = 2 ** s
        m = 2 * h
        tw[0:h] = np.cos((-2.0 * np.pi / m) * kk[0:h]) + 1j * np.sin((-2.0 * np.pi / m) * kk[0:h])
        rows = y.reshape(N // m, m)
        t = np.empty((N // m, h), dtype=np.complex128)
        t[:, :] = rows[:, h:m] * tw[0:h]
        rows[:, h:m] = rows[:, 0:h] - t
        rows[:, 0:h] += t
