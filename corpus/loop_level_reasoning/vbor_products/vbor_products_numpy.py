"""vbor_products: TSVC vbor, x[i] = a1 * b1 * c1 * d1 from sums of products of six vectors."""

import numpy as np


def initialize(rng, N):
    # Positive inputs: a1 .. d1 are sums of positive products (no cancellation), and x
    # spans a few orders of magnitude, from about 0.1 to about 1e4.
    return {
        "a": rng.uniform(0.5, 1.5, N).astype(np.float32),
        "b": rng.uniform(0.5, 1.5, N).astype(np.float32),
        "c": rng.uniform(0.5, 1.5, N).astype(np.float32),
        "d": rng.uniform(0.5, 1.5, N).astype(np.float32),
        "e": rng.uniform(0.5, 1.5, N).astype(np.float32),
        "aa0": rng.uniform(0.5, 1.5, N).astype(np.float32),
    }


def vbor_products(a, b, c, d, e, aa0, x, N):
    # TSVC's a1, b1, c1, d1 (f1 is aa0), each a sum of products of the original values,
    # multiplied left to right as x[i] = a1 * b1 * c1 * d1.
    x[:] = ((a * b * c + a * b * d + a * b * e + a * b * aa0 + a * c * d
             + a * c * e + a * c * aa0 + a * d * e + a * d * aa0 + a * e * aa0)
            * (b * c * d + b * c * e + b * c * aa0 + b * d * e + b * d * aa0 + b * e * aa0)
            * (c * d * e + c * d * aa0 + c * e * aa0)
            * (d * e * aa0))
