"""kmeans: ITERS iterations of Lloyd's algorithm (Rodinia kmeans): every point joins its
nearest centroid (squared Euclidean distance, the lowest index on a tie), then every
centroid moves to the mean of its points (an empty cluster keeps its centroid). The first
K points are the initial centroids. Points are float32, as Rodinia's feature files; the
distances, sums and centroids are float64."""

import numpy as np


def initialize(rng, N, D, K, ITERS):
    # Points scattered with unit variance around K random centres in [-1.5, 1.5]^D, in random
    # order: the clusters overlap, so Lloyd's iterations keep moving points between them.
    centres = rng.uniform(-1.5, 1.5, size=(K, D))
    label = rng.integers(0, K, size=N)
    points = centres[label] + rng.standard_normal((N, D))
    return {"points": points.astype(np.float32)}


def kmeans(points, membership, centroids, N, D, K, ITERS):
    pts = np.empty((N, D), dtype=np.float64)
    dist = np.empty(N, dtype=np.float64)
    best = np.empty(N, dtype=np.float64)
    onehot = np.empty((N, K), dtype=np.float64)
    sums = np.empty((K, D), dtype=np.float64)
    counts = np.empty(K, dtype=np.float64)
    ks = np.empty(K, dtype=np.int64)
    member = membership.reshape(N, 1)
    kcol = ks.reshape(1, K)
    count = counts.reshape(K, 1)
    pts[:, :] = points
    ks[:] = np.arange(0, K, dtype=np.int64)
    centroids[:, :] = pts[0:K, :]
    for it in range(ITERS):
        # Assignment: the nearest centroid, the first one on a tie.
        best[:] = np.sum((pts - centroids[0:1, :]) ** 2, axis=1)
        membership[:] = 0
        for c in range(1, K):
            dist[:] = np.sum((pts - centroids[c:c + 1, :]) ** 2, axis=1)
            membership[:] = np.where(dist < best, c, membership)
            best[:] = np.minimum(best, dist)
        # Update: each centroid the mean of its members (the sums as a product with the
        # one-hot membership matrix); an empty cluster keeps its centroid.
        onehot[:, :] = np.where(member == kcol, 1.0, 0.0)
        sums[:, :] = onehot.T @ pts
        counts[:] = np.sum(onehot, axis=0)
        centroids[:, :] = np.where(count > 0.0, sums / np.maximum(count, 1.0), centroids)
