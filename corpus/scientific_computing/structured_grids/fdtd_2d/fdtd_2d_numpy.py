"""fdtd_2d: TMAX steps of the 2-D finite-difference time-domain (Yee) scheme for a TE wave
(PolyBench/C fdtd-2d)."""

import numpy as np


def initialize(rng, TMAX, NX, NY):
    # Random fields (not smooth) and a random source term, all of order one: the scheme is
    # stable and undamped, so the fields stay of order one and vary after many steps.
    return {
        "ex": rng.uniform(-1.0, 1.0, (NX, NY)),
        "ey": rng.uniform(-1.0, 1.0, (NX, NY)),
        "hz": rng.uniform(-1.0, 1.0, (NX, NY)),
        "fict": rng.uniform(-1.0, 1.0, TMAX),
    }


def fdtd_2d(ex, ey, hz, fict, TMAX, NX, NY):
    for t in range(TMAX):
        # the source: row 0 of ey takes step t's value
        ey[0, :] = fict[t]
        # the electric field from the curl of the old magnetic field
        ey[1:NX, :] = ey[1:NX, :] - 0.5 * (hz[1:NX, :] - hz[0:NX - 1, :])
        ex[:, 1:NY] = ex[:, 1:NY] - 0.5 * (hz[:, 1:NY] - hz[:, 0:NY - 1])
        # the magnetic field from the curl of the new electric field
        hz[0:NX - 1, 0:NY - 1] = hz[0:NX - 1, 0:NY - 1] - 0.7 * (ex[0:NX - 1, 1:NY] - ex[0:NX - 1, 0:NY - 1]
                                                                 + ey[1:NX, 0:NY - 1] - ey[0:NX - 1, 0:NY - 1])
