"""azimint_hist: azimuthal integration by a histogram (NPBench azimint_hist, after pyFAI):
the mean of data over each of NPT radial bins of equal width between radius.min() and
radius.max(). Each point's bin is computed once, then per-bin sums and counts are
accumulated point by point and divided. Bin i holds the points with
edge_i <= radius < edge_(i+1), edge_i = i * ((rmax - rmin) / NPT) + rmin, the last bin
closed (it holds rmax): numpy.histogram's bins, and its way of finding them (a first guess
from the scaled radius, corrected by one against the edges)."""

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


def azimint_hist(data, radius, res, N, NPT):
    rmin = np.min(radius)
    rmax = np.max(radius)
    step = (rmax - rmin) / NPT
    bin_of = np.empty((N,), dtype=np.int64)
    sums = np.empty((NPT,), dtype=np.float64)
    counts = np.empty((NPT,), dtype=np.int64)
    # The bin of every point: the scaled radius rounded down, rmax clamped into the last bin,
    # then moved by one where the edges say otherwise (a point within rounding of an edge).
    bin_of[:] = np.minimum(np.floor((radius - rmin) / (rmax - rmin) * NPT).astype(np.int64), NPT - 1)
    bin_of[:] = np.where(radius < bin_of * step + rmin, bin_of - 1, bin_of)
    bin_of[:] = np.where((radius >= (bin_of + 1) * step + rmin) & (bin_of < NPT - 1), bin_of + 1, bin_of)
    # Accumulate per bin, point by point (a scatter-add), then divide.
    sums[:] = 0.0
    counts[:] = 0
    for p in range(N):
        b = bin_of[p]
        sums[b] += data[p]
        counts[b] += 1
    res[:] = sums / counts
