"""fem_assembly's independent check: the global stiffness matrix assembled explicitly with scipy
(each element matrix from the gradients of its barycentric coordinates, found by solving the
3 x 3 system [1 x y] c = e_a), then multiplied by x; and the mesh and matrix properties a P1
stiffness matrix must have."""

import numpy as np
import scipy.sparse

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _assemble(coords, tris, kappa):
    nv = len(coords)
    rows, cols, vals = [], [], []
    for e in range(len(tris)):
        V = np.column_stack([np.ones(3), coords[tris[e]]])       # rows [1, x_a, y_a]
        grads = np.linalg.solve(V, np.eye(3))[1:]                # column a: grad of lambda_a
        area = 0.5 * abs(np.linalg.det(V))
        Ke = kappa[e] * area * grads.T @ grads
        for a in range(3):
            for q in range(3):
                rows.append(tris[e, a])
                cols.append(tris[e, q])
                vals.append(Ke[a, q])
    return scipy.sparse.coo_matrix((vals, (rows, cols)), shape=(nv, nv)).tocsr()


@each(shape=[(1, 1), (2, 5), (7, 4), (16, 13)], seed=SEEDS)
def check_against_assembled_matrix(kernel, shape, seed):
    nx, ny = shape
    v, out = run(kernel, {"NX": nx, "NY": ny}, seed)
    K = _assemble(v["coords"], v["tris"], v["kappa"])
    y = K @ v["x"]
    np.testing.assert_allclose(out["y"], y, rtol=1e-12, atol=1e-12)
    assert_judged_like_an_oracle(kernel, out, {"y": y})
    # A stiffness matrix: symmetric, zero row sums (constants are in its kernel), positive
    # diagonal, x^T K x >= 0.
    np.testing.assert_allclose((K - K.T).toarray(), 0.0, atol=1e-12)
    np.testing.assert_allclose(K @ np.ones(K.shape[0]), 0.0, atol=1e-11)
    assert K.diagonal().min() > 0.0 and v["x"] @ y > 0.0


@each(shape=[(1, 1), (3, 8), (20, 20)], seed=SEEDS)
def check_mesh(kernel, shape, seed):
    nx, ny = shape
    v, _ = run(kernel, {"NX": nx, "NY": ny}, seed)
    P, T = v["coords"], v["tris"]
    assert T.min() == 0 and T.max() == (nx + 1) * (ny + 1) - 1
    assert np.all(np.bincount(T.ravel(), minlength=len(P)) >= 1)   # every vertex in a triangle
    d1, d2 = P[T[:, 1]] - P[T[:, 0]], P[T[:, 2]] - P[T[:, 0]]
    twice_area = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    assert twice_area.min() > 0.0                                  # counter-clockwise, valid
    np.testing.assert_allclose(twice_area.sum() / 2, 1.0, rtol=1e-12)   # tiles the unit square
    # Conforming: every edge is shared by two triangles, or lies on the boundary.
    edges = np.sort(np.concatenate([T[:, [0, 1]], T[:, [1, 2]], T[:, [2, 0]]]), axis=1)
    _, count = np.unique(edges, axis=0, return_counts=True)
    assert count.max() == 2 and (count == 1).sum() == 2 * (nx + ny)
