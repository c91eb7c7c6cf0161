"""stockham_fft: B independent forward DFTs of length N = 2**K by the radix-2 Stockham
autosort FFT (Van Loan 1992, section 1.7): K decimation-in-time stages, each reading
one buffer and writing the other, so the output comes out in natural order with no
bit-reversal permutation."""

import numpy as np


def initialize(rng, B, N, K):
    return {"x": rng.standard_normal((B, N)) + 1j * rng.standard_normal((B, N))}


def stockham_fft(x, y, B, N, K):
    # Twiddle table shared by all signals: stage q (span 2**q, half span h = 2**(q - 1))
    # uses tw[h + j] = exp(-2 pi i j / 2**q), j = 0 .. h - 1, kept as a column so that it
    # broadcasts along the rows of a stage's (h, r) view, r = N / 2**q.
    jj = np.empty((N, 1), dtype=np.float64)
    jj[0:1, :] = 0.0
    for s in range(K - 1):
        h = 2 ** s
        jj[h:2 * h, :] = jj[0:h, :] + h
    tw = np.empty((N, 1), dtype=np.complex128)
    for q in range(1, K + 1):
        span = 2 ** q
        half = span // 2
        tw[half:span, :] = np.cos((-2.0 * np.pi / span) * jj[0:half, :]) + 1j * np.sin((-2.0 * np.pi / span) * jj[0:half, :])

    # Two buffers alternate. Before stage q the source holds, for each j < h, the j-th
    # coefficient of the length-h DFTs of the 2r subsequences x[k::2r] in its row j
    # (columns k = 0 .. 2r - 1); the stage combines subsequence k (even part) with k + r
    # (odd part) into the length-2h DFTs of x[k::r], rows j and j + h of the destination.
    u = np.empty((N,), dtype=np.complex128)
    v = np.empty((N,), dtype=np.complex128)
    for sig in range(B):
        u[:] = x[sig, :]
        for q in range(1, K + 1):
            span = 2 ** q
            half = span // 2
            r = N // span
            t = np.empty((half, r), dtype=np.complex128)
            if q % 2 == 1:
                src = u.reshape(half, 2 * r)
                dst = v.reshape(span, r)
                t[:, :] = tw[half:span, :] * src[:, r:2 * r]
                dst[0:half, :] = src[:, 0:r] + t
                dst[half:span, :] = src[:, 0:r] - t
            else:
                src2 = v.reshape(half, 2 * r)
                dst2 = u.reshape(span, r)
                t[:, :] = tw[half:span, :] * src2[:, r:2 * r]
                dst2[0:half, :] = src2[:, 0:r] + t
                dst2[half:span, :] = src2[:, 0:r] - t
        if K % 2 == 1:
            y[sig, :] = v
        else:
            y[sig, :] = u
