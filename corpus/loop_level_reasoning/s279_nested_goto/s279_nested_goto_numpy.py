"""s279_nested_goto: TSVC s279, if a[i] > 0 then c[i] = -c[i] + e[i] * e[i] else
{b[i] = -b[i] + d[i] * d[i]; if b[i] > a[i] then c[i] += d[i] * e[i]}; then
a[i] = b[i] + c[i] * d[i]."""

import numpy as np


def initialize(rng, N):
    a, b, c, d, e = (rng.uniform(-1.0, 1.0, N).astype(np.float32) for _ in range(5))
    # Where the inner test is taken (a <= 0), the new b (-b + d*d) kept at least 1e-3 from a:
    # a fused multiply-add rounds it differently from NumPy's product-then-sum, and a value
    # within rounding of a could take the other branch (as s273's guard did).
    nb = -b.astype(np.float64) + d.astype(np.float64) * d.astype(np.float64)
    near = (a <= 0.0) & (np.abs(nb - a) < 1e-3)
    a[near] += np.where(nb[near] >= a[near], np.float32(-2e-3), np.float32(2e-3))
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


def s279_nested_goto(a, b, c, d, e, N):
    # b first: the inner test of the else path reads the new b[i]; a is written last,
    # since every test reads the old a.
    b[:] = np.where(a > 0.0, b, -b + d * d)
    c[:] = np.where(a > 0.0, -c + e * e, np.where(b > a, c + d * e, c))
    a[:] = b + c * d
