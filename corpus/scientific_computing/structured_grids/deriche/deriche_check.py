"""deriche's independent check: PolyBench/C's loop nest over float32 scalars, and the same
four passes as IIR filters in float64 (scipy.signal.lfilter, the anticausal ones on the
reversed signal), with coefficients from alpha in float64."""

import math

import numpy as np
import scipy.signal

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

f32 = np.float32


def polybench_deriche(img, alpha):
    w, h = img.shape
    e = np.exp
    k = (f32(1) - e(-alpha)) * (f32(1) - e(-alpha)) / (f32(1) + f32(2) * alpha * e(-alpha) - e(f32(2) * alpha))
    a1 = a5 = k
    a2 = a6 = k * e(-alpha) * (alpha - f32(1))
    a3 = a7 = k * e(-alpha) * (alpha + f32(1))
    a4 = a8 = -k * e(f32(-2) * alpha)
    b1 = np.power(f32(2), -alpha)
    b2 = -e(f32(-2) * alpha)
    c1 = c2 = f32(1)
    x = img.tolist()
    x = [[f32(v) for v in row] for row in x]
    y1 = [[f32(0)] * h for _ in range(w)]
    y2 = [[f32(0)] * h for _ in range(w)]
    out = [[f32(0)] * h for _ in range(w)]
    z = f32(0)
    for i in range(w):
        ym1 = ym2 = xm1 = z
        for j in range(h):
            y1[i][j] = a1 * x[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2
            xm1 = x[i][j]
            ym2 = ym1
            ym1 = y1[i][j]
    for i in range(w):
        yp1 = yp2 = xp1 = xp2 = z
        for j in range(h - 1, -1, -1):
            y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
            xp2 = xp1
            xp1 = x[i][j]
            yp2 = yp1
            yp1 = y2[i][j]
    for i in range(w):
        for j in range(h):
            out[i][j] = c1 * (y1[i][j] + y2[i][j])
    for j in range(h):
        tm1 = ym1 = ym2 = z
        for i in range(w):
            y1[i][j] = a5 * out[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2
            tm1 = out[i][j]
            ym2 = ym1
            ym1 = y1[i][j]
    for j in range(h):
        tp1 = tp2 = yp1 = yp2 = z
        for i in range(w - 1, -1, -1):
            y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2
            tp2 = tp1
            tp1 = out[i][j]
            yp2 = yp1
            yp1 = y2[i][j]
    for i in range(w):
        for j in range(h):
            out[i][j] = c2 * (y1[i][j] + y2[i][j])
    return np.array(out, dtype=np.float32).reshape(w, h)


def iir_deriche(img, alpha):
    """The filter in float64: each pass an lfilter along one axis."""
    x = img.astype(np.float64)
    ea = math.exp(-alpha)
    k = (1 - ea) ** 2 / (1 + 2 * alpha * ea - math.exp(2 * alpha))
    a1, a2, a3, a4 = k, k * ea * (alpha - 1), k * ea * (alpha + 1), -k * math.exp(-2 * alpha)
    den = [1.0, -(2.0 ** -alpha), math.exp(-2 * alpha)]

    def both_ways(v, axis):
        causal = scipy.signal.lfilter([a1, a2], den, v, axis=axis)
        back = np.flip(v, axis)
        anticausal = np.flip(scipy.signal.lfilter([0.0, a3, a4], den, back, axis=axis), axis)
        return causal + anticausal

    return both_ways(both_ways(x, 1), 0)


@each(wh=[(1, 1), (1, 5), (2, 3), (7, 4), (16, 23)], seed=SEEDS)
def check_against_loops_and_lfilter(kernel, wh, seed):
    w, h = wh
    v, out = run(kernel, {"W": w, "H": h}, seed)
    img, alpha = v["imgIn"], np.float32(v["alpha"])
    got = out["imgOut"]
    assert got.dtype == np.float32
    loops = polybench_deriche(img, alpha)
    scale = np.abs(loops).max()
    np.testing.assert_allclose(got, loops, rtol=2e-6, atol=2e-7 * scale)
    np.testing.assert_allclose(got, iir_deriche(img, float(alpha)), rtol=1e-4, atol=1e-5 * scale)
    if w * h > 1:
        assert_judged_like_an_oracle(kernel, out, {"imgOut": loops})


def check_a_larger_image_against_lfilter(kernel):
    v, out = run(kernel, {"W": 150, "H": 110}, 3)
    expected = iir_deriche(v["imgIn"], float(v["alpha"]))
    np.testing.assert_allclose(out["imgOut"], expected, rtol=1e-4, atol=1e-5 * np.abs(expected).max())
    # The smoothed image still varies: its spread is well above the float32 band.
    assert np.std(expected) > 1e-2 * np.abs(expected).max()
    assert_judged_like_an_oracle(kernel, out, {"imgOut": expected.astype(np.float32)})
