"""hdiff's independent check: the stencil point by point over Python lists, each flux and
Laplacian recomputed where it is needed, as COSMO's definition states them."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _lap(f, a, b, k):
    # The 5-point Laplacian at in_field[a][b][k].
    return 4.0 * f[a][b][k] - (f[a + 1][b][k] + f[a - 1][b][k] + f[a][b + 1][k] + f[a][b - 1][k])


def _limited(flux, diff):
    return 0.0 if flux * diff > 0.0 else flux


@each(size=[(1, 1, 1), (2, 3, 1), (5, 4, 3), (7, 6, 2)], seed=SEEDS)
def check_against_loops(kernel, size, seed):
    ni, nj, nk = size
    v, out = run(kernel, {"NI": ni, "NJ": nj, "NK": nk}, seed)
    f = v["in_field"].tolist()
    c = v["coeff"].tolist()
    expected = np.empty((ni, nj, nk))
    for i in range(ni):
        for j in range(nj):
            for k in range(nk):
                a, b = i + 2, j + 2  # the point in in_field's (halo-extended) indices
                # Flux across the face between a and a + 1 (right) and a - 1 and a (left).
                fr = _limited(_lap(f, a + 1, b, k) - _lap(f, a, b, k), f[a + 1][b][k] - f[a][b][k])
                fl = _limited(_lap(f, a, b, k) - _lap(f, a - 1, b, k), f[a][b][k] - f[a - 1][b][k])
                gr = _limited(_lap(f, a, b + 1, k) - _lap(f, a, b, k), f[a][b + 1][k] - f[a][b][k])
                gl = _limited(_lap(f, a, b, k) - _lap(f, a, b - 1, k), f[a][b][k] - f[a][b - 1][k])
                expected[i, j, k] = f[a][b][k] - c[i][j][k] * (fr - fl + gr - gl)
    np.testing.assert_allclose(out["out_field"], expected, rtol=1e-12, atol=1e-13)
    assert_judged_like_an_oracle(kernel, out, {"out_field": expected})


@each(seed=SEEDS)
def check_limiter_acts(kernel, seed):
    # The inputs exercise both branches of the limiter: some fluxes are dropped, most kept.
    ni, nj, nk = 6, 5, 4
    v, _ = run(kernel, {"NI": ni, "NJ": nj, "NK": nk}, seed)
    f = v["in_field"].tolist()
    dropped = kept = 0
    for i in range(ni + 1):
        for j in range(nj):
            for k in range(nk):
                a, b = i + 1, j + 2
                flux = _lap(f, a + 1, b, k) - _lap(f, a, b, k)
                if flux * (f[a + 1][b][k] - f[a][b][k]) > 0.0:
                    dropped += 1
                else:
                    kept += 1
    assert dropped > 0 and kept > 0
