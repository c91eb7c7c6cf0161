"""fdtd_2d's independent check: PolyBench/C's loop nests over Python lists, TMAX full steps."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(size=[(1, 2, 2), (2, 3, 5), (3, 7, 4), (6, 12, 9), (4, 2, 11)], seed=SEEDS)
def check_against_loops(kernel, size, seed):
    tmax, nx, ny = size
    v, out = run(kernel, {"TMAX": tmax, "NX": nx, "NY": ny}, seed)
    ex, ey, hz = v["ex"].tolist(), v["ey"].tolist(), v["hz"].tolist()
    fict = v["fict"].tolist()
    for t in range(tmax):
        for j in range(ny):
            ey[0][j] = fict[t]
        for i in range(1, nx):
            for j in range(ny):
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j])
        for i in range(nx):
            for j in range(1, ny):
                ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1])
        for i in range(nx - 1):
            for j in range(ny - 1):
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j])
    expected = {"ex": np.array(ex), "ey": np.array(ey), "hz": np.array(hz)}
    for name, value in expected.items():
        np.testing.assert_allclose(out[name], value, rtol=1e-13, atol=1e-14, err_msg=name)
    assert_judged_like_an_oracle(kernel, out, expected)
