"""azimint_naive: azimuthal integration, naive form (NPBench azimint_naive, after pyFAI): the
mean of data over each of NPT radial bins of equal width between radius.min() and
radius.max(), one masked pass over all the points per bin. Bin i holds the points with
edge_i <= radius < edge_(i+1), edge_i = rmin + i * ((rmax - rmin) / NPT), the last bin
closed (it holds rmax): numpy.histogram's bins."""

import numpy as np


def initialize(rng, N, NPT):
    # Radii in [1, 3]: the two ends exactly (so rmin and rmax are known), one point inside
    # each bin (away from its edges), the rest uniform; shuffled. Every bin is non-empty.
    # The data: a smooth radial profile plus noise, so the bin means vary with the radius.
    s = rng.uniform(0.0, 1.0, N)
    s[0:NPT] = (np.arange(NPT) + rng.uniform(0.1, 0.9, NPT)) / NPT
    s[NPT] = 0.0
    s[NPT + 1] = 1.0
    radius = 1.0 + 2.0 * s[rng.permutation(N)]
    data = 1.0 + 0.5 * np.sin(3.0 * radius) + 0.3 * rng.standard_normal(N)
    return {"data": data, "radius": radius}


def azimint_naive(data, radius, res, N, NPT):
    rmin = np.min(radius)
    rmax = np.max(radius)
    step = (rmax - rmin) / NPT
    inside = np.empty((N,), dtype=np.bool)
    for i in range(NPT):
        lo = i * step + rmin
        hi = (i + 1) * step + rmin
        if i < NPT - 1:
            inside[:] = (radius >= lo) & (radius < hi)
        else:
            inside[:] = radius >= lo
        total = np.sum(np.where(inside, data, 0.0))
        count = np.sum(np.where(inside, 1.0, 0.0))
        res[i] = total / count
