"""srad: speckle-reducing anisotropic diffusion (Yu and Acton 2002), as Rodinia's srad v2
runs it: NITER iterations over a positive ROWS x COLS image J, each estimating the speckle
scale q0^2 from the whole image, computing the diffusion coefficient c of every pixel from
its instantaneous coefficient of variation (clamped to [0, 1]), then taking a divergence step
of size lambda / 4. Neighbours outside the image are the pixel itself."""

import numpy as np


def initialize(rng, NITER, ROWS, COLS):
    # J = exp(a smooth field + a little noise): positive, of order one, with structure to
    # keep (the smooth part) and speckle to remove (the noise).
    y = np.arange(ROWS)[:, None] / max(ROWS, 1)
    x = np.arange(COLS)[None, :] / max(COLS, 1)
    field = np.zeros((ROWS, COLS))
    for _ in range(4):
        fy, fx = rng.uniform(0.5, 4.0, 2)
        py, px = rng.uniform(0.0, 2.0 * np.pi, 2)
        field += 0.25 * np.sin(2.0 * np.pi * fy * y + py) * np.cos(2.0 * np.pi * fx * x + px)
    field += 0.1 * rng.standard_normal((ROWS, COLS))
    return {"J": np.exp(field), "lam": 0.5}


def srad(J, lam, NITER, ROWS, COLS):
    size = ROWS * COLS
    dN = np.empty((ROWS, COLS), dtype=np.float64)
    dS = np.empty((ROWS, COLS), dtype=np.float64)
    dW = np.empty((ROWS, COLS), dtype=np.float64)
    dE = np.empty((ROWS, COLS), dtype=np.float64)
    c = np.empty((ROWS, COLS), dtype=np.float64)
    G2 = np.empty((ROWS, COLS), dtype=np.float64)
    L = np.empty((ROWS, COLS), dtype=np.float64)
    qsqr = np.empty((ROWS, COLS), dtype=np.float64)
    D = np.empty((ROWS, COLS), dtype=np.float64)
    for it in range(NITER):
        # The speckle scale from the region of interest (here the whole image).
        total = np.sum(J)
        total2 = np.sum(J * J)
        mean_roi = total / size
        var_roi = total2 / size - mean_roi * mean_roi
        q0sqr = var_roi / (mean_roi * mean_roi)
        # Directional derivatives; a neighbour outside the image is the pixel itself.
        dN[0, :] = 0.0
        dN[1:ROWS, :] = J[0:ROWS - 1, :] - J[1:ROWS, :]
        dS[0:ROWS - 1, :] = J[1:ROWS, :] - J[0:ROWS - 1, :]
        dS[ROWS - 1, :] = 0.0
        dW[:, 0] = 0.0
        dW[:, 1:COLS] = J[:, 0:COLS - 1] - J[:, 1:COLS]
        dE[:, 0:COLS - 1] = J[:, 1:COLS] - J[:, 0:COLS - 1]
        dE[:, COLS - 1] = 0.0
        # The instantaneous coefficient of variation, and the diffusion coefficient.
        G2[:, :] = (dN * dN + dS * dS + dW * dW + dE * dE) / (J * J)
        L[:, :] = (dN + dS + dW + dE) / J
        qsqr[:, :] = (0.5 * G2 - (1.0 / 16.0) * (L * L)) / ((1.0 + 0.25 * L) * (1.0 + 0.25 * L))
        c[:, :] = 1.0 / (1.0 + (qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr)))
        c[:, :] = np.minimum(np.maximum(c, 0.0), 1.0)
        # The divergence: north and west use the pixel's own coefficient, south and east
        # the neighbour's (dS and dE are zero on the last row and column).
        D[:, :] = c * (dN + dW)
        D[0:ROWS - 1, :] += c[1:ROWS, :] * dS[0:ROWS - 1, :]
        D[:, 0:COLS - 1] += c[:, 1:COLS] * dE[:, 0:COLS - 1]
        J[:, :] = J + 0.25 * lam * D
