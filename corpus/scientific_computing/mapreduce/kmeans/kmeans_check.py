"""kmeans's independent check: Lloyd's iterations as explicit Python loops over points,
clusters and features (Rodinia's loop nest) at small sizes, and scipy.cluster.vq.kmeans2
from the same initial centroids (it too keeps an empty cluster's centroid) at larger ones.
Memberships are compared exactly."""

import warnings

import numpy as np
import scipy.cluster.vq

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _lloyd_loops(points, k, iters):
    pts = points.astype(np.float64).tolist()
    n, d = len(pts), len(pts[0])
    cent = [row[:] for row in pts[:k]]
    member = [0] * n
    for _ in range(iters):
        for i in range(n):
            best, arg = None, 0
            for c in range(k):
                s = 0.0
                for f in range(d):
                    s += (pts[i][f] - cent[c][f]) ** 2
                if best is None or s < best:
                    best, arg = s, c
            member[i] = arg
        sums = [[0.0] * d for _ in range(k)]
        size = [0] * k
        for i in range(n):
            size[member[i]] += 1
            for f in range(d):
                sums[member[i]][f] += pts[i][f]
        for c in range(k):
            if size[c] > 0:
                cent[c] = [s / size[c] for s in sums[c]]
    return np.array(member, dtype=np.int64), np.array(cent)


@each(shape=[(1, 1, 1, 3), (2, 3, 2, 2), (5, 2, 5, 3), (17, 3, 4, 5), (150, 4, 6, 6)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    n, d, k, iters = shape
    v, out = run(kernel, {"N": n, "D": d, "K": k, "ITERS": iters}, seed)
    member, cent = _lloyd_loops(v["points"], k, iters)
    np.testing.assert_array_equal(out["membership"], member)
    np.testing.assert_allclose(out["centroids"], cent, rtol=1e-12, atol=1e-14)
    if n >= 17:
        assert_judged_like_an_oracle(kernel, out, {"membership": member, "centroids": cent})


@each(shape=[(2000, 16, 16, 10), (3001, 5, 9, 7)], seed=SEEDS)
def check_against_scipy(kernel, shape, seed):
    n, d, k, iters = shape
    v, out = run(kernel, {"N": n, "D": d, "K": k, "ITERS": iters}, seed)
    data = v["points"].astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # an empty cluster warns; it keeps its centroid
        cent, member = scipy.cluster.vq.kmeans2(data, data[:k].copy(), iter=iters, minit="matrix")
        _, first = scipy.cluster.vq.kmeans2(data, data[:k].copy(), iter=1, minit="matrix")
    np.testing.assert_array_equal(out["membership"], member)
    np.testing.assert_allclose(out["centroids"], cent, rtol=1e-12, atol=1e-14)
    # informative: points still move after the first assignment, every cluster is used
    assert np.count_nonzero(member != first) > n // 20
    assert np.bincount(member, minlength=k).min() > 0
    assert_judged_like_an_oracle(kernel, out, {"membership": member.astype(np.int64), "centroids": cent})
