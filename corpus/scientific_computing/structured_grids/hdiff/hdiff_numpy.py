"""hdiff: the COSMO weather model's fourth-order horizontal diffusion on a 3-D field, with the
monotonic flux limiter (the gt4py / NPBench weather stencil)."""

import numpy as np


def initialize(rng, NI, NJ, NK):
    # A rough field on the domain extended by a halo of two points in I and J, and a
    # positive diffusion coefficient per output point.
    return {
        "in_field": rng.uniform(-1.0, 1.0, (NI + 4, NJ + 4, NK)),
        "coeff": rng.uniform(0.05, 0.25, (NI, NJ, NK)),
    }


def hdiff(in_field, coeff, out_field, NI, NJ, NK):
    # lap[a, b] is the 5-point Laplacian at in_field[a + 1, b + 1] (the domain plus a halo of one).
    lap = np.empty((NI + 2, NJ + 2, NK), dtype=np.float64)
    lap[:, :, :] = 4.0 * in_field[1:NI + 3, 1:NJ + 3, :] - (
        in_field[2:NI + 4, 1:NJ + 3, :] + in_field[0:NI + 2, 1:NJ + 3, :]
        + in_field[1:NI + 3, 2:NJ + 4, :] + in_field[1:NI + 3, 0:NJ + 2, :])
    # Fluxes across the I faces (NI + 1 of them per row) and the J faces; a flux whose sign
    # agrees with the field's own difference across the face would sharpen it, and is dropped.
    flx = np.empty((NI + 1, NJ, NK), dtype=np.float64)
    flx[:, :, :] = lap[1:NI + 2, 1:NJ + 1, :] - lap[0:NI + 1, 1:NJ + 1, :]
    flx[:, :, :] = np.where(
        flx * (in_field[2:NI + 3, 2:NJ + 2, :] - in_field[1:NI + 2, 2:NJ + 2, :]) > 0.0, 0.0, flx)
    fly = np.empty((NI, NJ + 1, NK), dtype=np.float64)
    fly[:, :, :] = lap[1:NI + 1, 1:NJ + 2, :] - lap[1:NI + 1, 0:NJ + 1, :]
    fly[:, :, :] = np.where(
        fly * (in_field[2:NI + 2, 2:NJ + 3, :] - in_field[2:NI + 2, 1:NJ + 2, :]) > 0.0, 0.0, fly)
    out_field[:, :, :] = in_field[2:NI + 2, 2:NJ + 2, :] - coeff * (
        flx[1:NI + 1, :, :] - flx[0:NI, :, :] + fly[:, 1:NJ + 1, :] - fly[:, 0:NJ, :])
