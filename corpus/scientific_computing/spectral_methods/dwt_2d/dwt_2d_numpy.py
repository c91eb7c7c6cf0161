"""dwt_2d: one level of the 2-D reversible CDF 5/3 (LeGall) wavelet transform by integer
lifting, rows then columns, with whole-sample symmetric extension at the borders (JPEG 2000's
lossless filter, as in Rodinia dwt2d). Each line of n samples becomes its (n + 1) // 2
low-pass coefficients followed by its n // 2 high-pass ones, so that the output holds the
LL, HL, LH and HH subbands as four blocks."""

import numpy as np


def initialize(rng, H, W):
    # 12-bit samples after JPEG 2000's DC level shift: a smooth ramp plus noise, so that
    # both the low-pass and the high-pass bands carry information.
    ramp = (np.arange(H)[:, None] * 7 + np.arange(W)[None, :] * 3) % 1024
    img = ramp + rng.integers(-1024, 1024, (H, W)) - 512
    return {"img": img.astype(np.int32)}


def dwt_2d(img, out, H, W):
    tmp = np.empty((H, W), dtype=np.int32)
    # Along a line x of n samples: K = n // 2 high-pass and L = n - K low-pass coefficients,
    # with floor divisions throughout (the lossless lifting),
    #   predict d[i] = x[2i+1] - (x[2i] + x[2i+2]) // 2,   i = 0 .. K-1,
    #   update  s[i] = x[2i] + (d[i-1] + d[i] + 2) // 4,    i = 0 .. L-1,
    # under whole-sample symmetric extension (x[n] = x[n-2], d[-1] = d[0], d[K] = d[K-1]),
    # stored as [s[0] .. s[L-1], d[0] .. d[K-1]]. A line is copied into a buffer of K + 1
    # (even, odd) sample pairs with its extension, and d into one with its own.
    k1 = W // 2
    l1 = W - k1
    xh = np.empty((2 * (W // 2) + 2,), dtype=np.int32)
    ph = xh.reshape(W // 2 + 1, 2)
    dh = np.empty((W // 2 + 2,), dtype=np.int32)
    for r in range(H):
        if k1 == 0:
            tmp[r, 0] = img[r, 0]
        else:
            xh[0:W] = img[r, :]
            if W % 2 == 0:
                xh[W] = img[r, W - 2]
            dh[1:k1 + 1] = ph[0:k1, 1] - (ph[0:k1, 0] + ph[1:k1 + 1, 0]) // 2
            dh[0] = dh[1]
            dh[k1 + 1] = dh[k1]
            tmp[r, 0:l1] = ph[0:l1, 0] + (dh[0:l1] + dh[1:l1 + 1] + 2) // 4
            tmp[r, l1:W] = dh[1:k1 + 1]
    # The same lifting down every column of the row-transformed image.
    k2 = H // 2
    l2 = H - k2
    xv = np.empty((2 * (H // 2) + 2,), dtype=np.int32)
    pv = xv.reshape(H // 2 + 1, 2)
    dv = np.empty((H // 2 + 2,), dtype=np.int32)
    for c in range(W):
        if k2 == 0:
            out[0, c] = tmp[0, c]
        else:
            xv[0:H] = tmp[:, c]
            if H % 2 == 0:
                xv[H] = tmp[H - 2, c]
            dv[1:k2 + 1] = pv[0:k2, 1] - (pv[0:k2, 0] + pv[1:k2 + 1, 0]) // 2
            dv[0] = dv[1]
            dv[k2 + 1] = dv[k2]
            out[0:l2, c] = pv[0:l2, 0] + (dv[0:l2] + dv[1:l2 + 1] + 2) // 4
            out[l2:H, c] = dv[1:k2 + 1]
