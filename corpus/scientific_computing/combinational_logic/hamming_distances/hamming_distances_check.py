"""hamming_distances' independent check: the distances by unpacking the bits of the words
read as uint64 (numpy.unpackbits) and comparing them, by Python's int.bit_count of the XOR
of each pair of unsigned words at small sizes, the metric's identities, and known answers."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _by_unpacking(queries, refs):
    # Every bit as a 0/1 byte, then the number of positions where they differ.
    qb = np.unpackbits(queries.view(np.uint64).view(np.uint8), axis=1).astype(np.int32)
    rb = np.unpackbits(refs.view(np.uint64).view(np.uint8), axis=1).astype(np.int32)
    return (qb[:, None, :] != rb[None, :, :]).sum(axis=2).astype(np.int32)


@each(sizes=[(1, 1, 1), (2, 3, 1), (5, 7, 3), (17, 40, 8), (33, 129, 4), (64, 300, 16)], seed=SEEDS)
def check_against_unpacked_bits(kernel, sizes, seed):
    q, r, w = sizes
    v, out = run(kernel, {"Q": q, "R": r, "W": w}, seed)
    dist = out["dist"]
    assert dist.dtype == np.int32 and dist.shape == (q, r)
    expected = _by_unpacking(v["queries"], v["refs"])
    np.testing.assert_array_equal(dist, expected)
    if q * r <= 1000:
        qu = [[int(x) & (2**64 - 1) for x in row] for row in v["queries"].tolist()]
        ru = [[int(x) & (2**64 - 1) for x in row] for row in v["refs"].tolist()]
        loops = [[sum(bin(a ^ b).count("1") for a, b in zip(qu[i], ru[j])) for j in range(r)]
                 for i in range(q)]
        np.testing.assert_array_equal(dist, loops)
    assert dist.min() >= 0 and dist.max() <= 64 * w
    if r >= 40:
        assert dist.min() <= 4 * w < 28 * w <= dist.max()     # near matches and far pairs
        assert_judged_like_an_oracle(kernel, out, {"dist": expected})


@each(seed=SEEDS)
def check_metric_identities(kernel, seed):
    # The distances among the references themselves: zero diagonal, symmetric, and the
    # triangle inequality d(a, c) <= d(a, b) + d(b, c) on every triple.
    v, _ = run(kernel, {"Q": 1, "R": 30, "W": 2}, seed)
    fn = kernel.reference().function
    refs = v["refs"]
    dist = np.full((30, 30), -9, dtype=np.int32)
    fn(refs.copy(), refs.copy(), dist, 30, 30, 2)
    np.testing.assert_array_equal(np.diag(dist), 0)
    np.testing.assert_array_equal(dist, dist.T)
    assert (dist[:, None, :] <= dist[:, :, None] + dist[None, :, :]).all()


def check_known_answers(kernel):
    fn = kernel.reference().function
    words = np.array([[0, 0], [-1, -1], [-1, 0], [np.iinfo(np.int64).min, 1], [0x0F0F, 3]],
                     dtype=np.int64)
    dist = np.full((1, 5), -3, dtype=np.int32)
    fn(np.zeros((1, 2), dtype=np.int64), words, dist, 1, 5, 2)
    np.testing.assert_array_equal(dist, [[0, 128, 64, 2, 10]])
    fn(np.array([[-1, -1]], dtype=np.int64), words, dist, 1, 5, 2)
    np.testing.assert_array_equal(dist, [[128, 0, 64, 126, 118]])
