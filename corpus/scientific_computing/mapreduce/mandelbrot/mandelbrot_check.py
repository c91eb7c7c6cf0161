"""mandelbrot's independent check: each point's orbit iterated on its own in Python's
unbounded integers, stopping at its escape (a while loop, the products rounded down by
floor division, so no int64 overflow could hide), at small sizes; known orbits (c = 0, 1,
-1, -2, i, 3); and agreement with the escape counts of the complex128 iteration on all but
a sliver of boundary points, so the fixed point really is the Mandelbrot iteration."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

ONE = 2 ** 26


def _orbit(cr, ci, maxiter):
    """(count, zr, zi) of one point, NPBench's counting, in exact fixed point."""
    zr = zi = 0
    n = 0
    count = 0
    while n < maxiter and zr * zr + zi * zi < 4 * ONE * ONE:
        count = n
        zr, zi = (zr * zr - zi * zi) // ONE + cr, (2 * zr * zi) // ONE + ci
        n += 1
    if count == maxiter - 1:
        count = 0
    return count, zr, zi


@each(shape=[(1, 1, 1), (1, 1, 5), (3, 2, 7), (9, 5, 30), (24, 17, 60)], seed=SEEDS)
def check_against_orbits(kernel, shape, seed):
    xn, yn, maxiter = shape
    v, out = run(kernel, {"XN": xn, "YN": yn, "MAXITER": maxiter}, seed)
    x, y = v["x"].tolist(), v["y"].tolist()
    got = np.empty((3, yn, xn), dtype=np.int64)
    for i in range(yn):
        for j in range(xn):
            got[:, i, j] = _orbit(x[j], y[i], maxiter)
    for k, name in enumerate(("count", "zr", "zi")):
        np.testing.assert_array_equal(out[name], got[k], err_msg=name)
    if xn * yn >= 100:
        counts = got[0]
        assert (counts == 0).any() and (counts > 5).any() and len(np.unique(counts)) > 8
        assert_judged_like_an_oracle(kernel, out, {"count": got[0], "zr": got[1], "zi": got[2]})


def check_known_orbits(kernel):
    fn = kernel.reference().function
    # c = 0 stays at 0; 1: 0, 1, 2 (escaped at n = 2); -1: the 2-cycle 0, -1;
    # -2: 0, -2 (|z| = 2 is not < 2); i: 0, i, -1+i, -i, -1+i, ... bounded; 3: escapes at once.
    cs = [(0, 0), (1, 0), (-1, 0), (-2, 0), (0, 1), (3, 0)]
    x = np.array([c[0] * ONE for c in cs], dtype=np.int64)
    y = np.zeros(1, dtype=np.int64)
    count = np.full((1, 6), -7, dtype=np.int64)
    zr = np.full((1, 6), -7, dtype=np.int64)
    zi = np.full((1, 6), -7, dtype=np.int64)
    fn(x, y, count, zr, zi, 6, 1, 10)
    np.testing.assert_array_equal(count[0], [0, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(zr[0], [0, 2 * ONE, -ONE if 10 % 2 else 0, -2 * ONE, 0, 3 * ONE])
    np.testing.assert_array_equal(zi[0], [0, 0, 0, 0, 0, 0])
    # c = i alone: the orbit 0, i, -1+i, -i, -1+i, -i, ... after 10 steps sits at -1+i.
    fn(np.zeros(1, dtype=np.int64), np.array([ONE], dtype=np.int64), count[:, :1], zr[:, :1], zi[:, :1], 1, 1, 10)
    assert (count[0, 0], zr[0, 0], zi[0, 0]) == (0, -ONE, ONE)


@each(seed=SEEDS)
def check_against_complex128(kernel, seed):
    xn, yn, maxiter = 160, 120, 100
    v, out = run(kernel, {"XN": xn, "YN": yn, "MAXITER": maxiter}, seed)
    c = v["x"][None, :] / ONE + 1j * (v["y"][:, None] / ONE)
    z = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=np.int64)
    for n in range(maxiter):
        inside = np.abs(z) < 2.0
        count[inside] = n
        z[inside] = z[inside] ** 2 + c[inside]
    count[count == maxiter - 1] = 0
    agree = np.mean(out["count"] == count)
    assert agree > 0.995, agree
    # the escaped points' final z agrees to the fixed point's resolution amplified by a few steps
    near = (out["count"] == count) & (count > 0) & (count < 10)
    np.testing.assert_allclose(out["zr"][near] / ONE, z.real[near], atol=1e-4)
    np.testing.assert_allclose(out["zi"][near] / ONE, z.imag[near], atol=1e-4)
