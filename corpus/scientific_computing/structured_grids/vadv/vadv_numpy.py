"""vadv: COSMO's implicit vertical advection of a velocity component, one tridiagonal solve
per (i, j) column by the Thomas algorithm (the gt4py / NPBench weather stencil)."""

import numpy as np


def initialize(rng, NI, NJ, NK):
    # wcon (the contravariant vertical velocity, on the I faces: NI + 1 of them) is kept below
    # dtr_stage in magnitude, so every column's system is diagonally dominant (ratio >= 3).
    return {
        "utens_stage": rng.uniform(-1.0, 1.0, (NI, NJ, NK)),
        "u_stage": rng.uniform(-1.0, 1.0, (NI, NJ, NK)),
        "wcon": rng.uniform(-1.0, 1.0, (NI + 1, NJ, NK)),
        "u_pos": rng.uniform(-1.0, 1.0, (NI, NJ, NK)),
        "utens": rng.uniform(-1.0, 1.0, (NI, NJ, NK)),
        "dtr_stage": 2.0,
    }


def vadv(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage, NI, NJ, NK):
    # Centred implicit weights: BET_P on the new time level, BET_M on the old one.
    bet_m = 0.5
    bet_p = 0.5
    # ccol, dcol: the Thomas algorithm's forward-eliminated upper diagonal and right-hand side
    # per column; the columns (i, j) are independent and vectorised, the recurrence in k is a loop.
    ccol = np.empty((NI, NJ, NK), dtype=np.float64)
    dcol = np.empty((NI, NJ, NK), dtype=np.float64)
    xcol = np.empty((NI, NJ), dtype=np.float64)
    # Top level (k = 0): no lower neighbour.
    gcv = np.empty((NI, NJ), dtype=np.float64)
    gav = np.empty((NI, NJ), dtype=np.float64)
    acol = np.empty((NI, NJ), dtype=np.float64)
    bcol = np.empty((NI, NJ), dtype=np.float64)
    divided = np.empty((NI, NJ), dtype=np.float64)
    gcv[:, :] = 0.25 * (wcon[1:NI + 1, :, 1] + wcon[0:NI, :, 1])
    ccol[:, :, 0] = gcv * bet_p
    bcol[:, :] = dtr_stage - ccol[:, :, 0]
    dcol[:, :, 0] = (dtr_stage * u_pos[:, :, 0] + utens[:, :, 0] + utens_stage[:, :, 0]
                     - gcv * bet_m * (u_stage[:, :, 1] - u_stage[:, :, 0]))
    divided[:, :] = 1.0 / bcol
    ccol[:, :, 0] = ccol[:, :, 0] * divided
    dcol[:, :, 0] = dcol[:, :, 0] * divided
    # Interior levels: forward elimination.
    for k in range(1, NK - 1):
        gav[:, :] = -0.25 * (wcon[1:NI + 1, :, k] + wcon[0:NI, :, k])
        gcv[:, :] = 0.25 * (wcon[1:NI + 1, :, k + 1] + wcon[0:NI, :, k + 1])
        acol[:, :] = gav * bet_p
        ccol[:, :, k] = gcv * bet_p
        bcol[:, :] = dtr_stage - acol - ccol[:, :, k]
        dcol[:, :, k] = (dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k]
                         - gav * bet_m * (u_stage[:, :, k - 1] - u_stage[:, :, k])
                         - gcv * bet_m * (u_stage[:, :, k + 1] - u_stage[:, :, k]))
        divided[:, :] = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        ccol[:, :, k] = ccol[:, :, k] * divided
        dcol[:, :, k] = (dcol[:, :, k] - dcol[:, :, k - 1] * acol) * divided
    # Bottom level (k = NK - 1): no upper neighbour.
    gav[:, :] = -0.25 * (wcon[1:NI + 1, :, NK - 1] + wcon[0:NI, :, NK - 1])
    acol[:, :] = gav * bet_p
    bcol[:, :] = dtr_stage - acol
    dcol[:, :, NK - 1] = (dtr_stage * u_pos[:, :, NK - 1] + utens[:, :, NK - 1]
                          + utens_stage[:, :, NK - 1]
                          - gav * bet_m * (u_stage[:, :, NK - 2] - u_stage[:, :, NK - 1]))
    divided[:, :] = 1.0 / (bcol - ccol[:, :, NK - 2] * acol)
    dcol[:, :, NK - 1] = (dcol[:, :, NK - 1] - dcol[:, :, NK - 2] * acol) * divided
    # Back substitution, k = NK - 1 down to 0; the tendency is the solution's departure
    # from u_pos, times dtr_stage.
    xcol[:, :] = dcol[:, :, NK - 1]
    utens_stage[:, :, NK - 1] = dtr_stage * (xcol - u_pos[:, :, NK - 1])
    for m in range(1, NK):
        kb = NK - 1 - m
        xcol[:, :] = dcol[:, :, kb] - ccol[:, :, kb] * xcol
        utens_stage[:, :, kb] = dtr_stage * (xcol - u_pos[:, :, kb])
