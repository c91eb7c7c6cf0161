"""azimint_naive's independent check: numpy.histogram (its own uniform bins between the
radius' extremes, the last bin closed) of the data as weights, divided by the plain
histogram; and, at small sizes, explicit Python loops over the points against
numpy.linspace's edges, with exactly rounded sums (math.fsum)."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(3, 1), (5, 3), (17, 4), (400, 13)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    n, npt = shape
    v, out = run(kernel, {"N": n, "NPT": npt}, seed)
    data, radius = v["data"].tolist(), v["radius"].tolist()
    edges = np.linspace(min(radius), max(radius), npt + 1).tolist()
    members = [[] for _ in range(npt)]
    for p in range(n):
        for b in range(npt):
            if edges[b] <= radius[p] and (radius[p] < edges[b + 1] or b == npt - 1):
                members[b].append(data[p])
                break
    assert all(members)                         # every bin holds a point
    expected = np.array([math.fsum(m) / len(m) for m in members])
    np.testing.assert_allclose(out["res"], expected, rtol=1e-12, atol=1e-14)
    if npt > 1:
        assert_judged_like_an_oracle(kernel, out, {"res": expected})


@each(shape=[(20000, 150), (5001, 999)], seed=SEEDS)
def check_against_histogram(kernel, shape, seed):
    n, npt = shape
    v, out = run(kernel, {"N": n, "NPT": npt}, seed)
    sums, _ = np.histogram(v["radius"], bins=npt, weights=v["data"])
    counts, _ = np.histogram(v["radius"], bins=npt)
    assert counts.min() > 0 and counts.sum() == n
    expected = sums / counts
    np.testing.assert_allclose(out["res"], expected, rtol=1e-12, atol=1e-14)
    assert np.ptp(expected) > 0.5                 # the radial profile shows
    assert_judged_like_an_oracle(kernel, out, {"res": expected})


@each(npt=[7, 10, 49], seed=SEEDS)
def check_points_on_edges(kernel, npt, seed):
    # Radii moved onto the interior edges (and one ulp either side): each goes to the bin
    # the edge opens, as numpy.histogram puts it.
    n = 40 * npt
    v, _ = run(kernel, {"N": n, "NPT": npt}, seed)
    data, radius = v["data"], v["radius"].copy()
    edges = np.linspace(radius.min(), radius.max(), npt + 1)
    rng = np.random.default_rng(seed)
    for k in range(1, npt):
        at = rng.choice(n, 3, replace=False)
        at = at[(radius[at] != radius.min()) & (radius[at] != radius.max())]
        radius[at] = [edges[k], np.nextafter(edges[k], -np.inf), np.nextafter(edges[k], np.inf)][:len(at)]
    res = np.full(npt, np.nan)
    kernel.reference().function(data.copy(), radius, res, n, npt)
    sums, _ = np.histogram(radius, bins=npt, weights=data)
    counts, _ = np.histogram(radius, bins=npt)
    np.testing.assert_allclose(res, sums / counts, rtol=1e-12, atol=1e-14)
