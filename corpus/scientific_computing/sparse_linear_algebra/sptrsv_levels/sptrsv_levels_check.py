"""sptrsv_levels' independent check: the level sets recomputed from the matrix (Anderson and
Saad's longest-path levels) and checked against order and level_ptr; the plain forward
substitution row by row as explicit Python loops; scipy's sparse triangular solve; and the
residual L x - b."""

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

SHAPES = [(1, 1, 1), (1, 1, 5), (3, 1, 1), (2, 3, 2), (4, 5, 3), (7, 6, 5)]


def _structure(v, nx, ny, nz):
    n = nx * ny * nz
    indptr, indices, values = v["indptr"].tolist(), v["indices"].tolist(), v["values"]
    assert indptr[0] == 0 and indptr[-1] == 4 * n - nx * ny - nx * nz - ny * nz
    L = scipy.sparse.csr_matrix((values, v["indices"], v["indptr"]), shape=(n, n))
    dense = L.toarray()
    # Lower triangular with the diagonal last in each row; the 7-point lower stencil.
    for i in range(n):
        cols = indices[indptr[i]:indptr[i + 1]]
        assert cols == sorted(set(cols)) and cols[-1] == i
        ix, iy, iz = i % nx, (i // nx) % ny, i // (nx * ny)
        want = [i - nx * ny] * (iz > 0) + [i - nx] * (iy > 0) + [i - 1] * (ix > 0) + [i]
        assert cols == want
    assert np.all(np.abs(np.diag(dense)) > np.abs(np.tril(dense, -1)).sum(axis=1))
    # Longest-path levels, then order / level_ptr must list exactly those level sets.
    level = [0] * n
    for i in range(n):
        for jj in range(indptr[i], indptr[i + 1] - 1):
            level[i] = max(level[i], level[indices[jj]] + 1)
    nlev = max(level) + 1
    assert nlev == nx + ny + nz - 2
    order, level_ptr = v["order"].tolist(), v["level_ptr"].tolist()
    assert sorted(order) == list(range(n))
    assert len(level_ptr) == nlev + 1 and level_ptr[0] == 0 and level_ptr[-1] == n
    for lev in range(nlev):
        rows = order[level_ptr[lev]:level_ptr[lev + 1]]
        assert rows == sorted(i for i in range(n) if level[i] == lev)
    return L


@each(shape=SHAPES, seed=SEEDS)
def check_against_forward_substitution(kernel, shape, seed):
    nx, ny, nz = shape
    n = nx * ny * nz
    v, out = run(kernel, {"NX": nx, "NY": ny, "NZ": nz}, seed)
    L = _structure(v, nx, ny, nz)
    indptr, indices, values = v["indptr"].tolist(), v["indices"].tolist(), v["values"].tolist()
    b = v["b"].tolist()
    x = [0.0] * n
    for i in range(n):
        s = b[i]
        for jj in range(indptr[i], indptr[i + 1] - 1):
            s -= values[jj] * x[indices[jj]]
        x[i] = s / values[indptr[i + 1] - 1]
    np.testing.assert_allclose(out["x"], x, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(L @ out["x"], v["b"], rtol=1e-12, atol=1e-13)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"x": np.array(x)})


@each(shape=[(9, 8, 7), (20, 3, 11)], seed=SEEDS)
def check_against_scipy(kernel, shape, seed):
    nx, ny, nz = shape
    n = nx * ny * nz
    v, out = run(kernel, {"NX": nx, "NY": ny, "NZ": nz}, seed)
    L = scipy.sparse.csr_matrix((v["values"], v["indices"], v["indptr"]), shape=(n, n))
    x = scipy.sparse.linalg.spsolve_triangular(L, v["b"], lower=True)
    np.testing.assert_allclose(out["x"], x, rtol=1e-11, atol=1e-13)
    assert_judged_like_an_oracle(kernel, out, {"x": x})
