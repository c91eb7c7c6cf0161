"""maxpool3d's independent check: jax.lax.reduce_window (max, padded with -inf) in float64, and
explicit loops over every window that skip the positions outside the volume."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run

# (N, C, D, H, W, K, S, P)
SHAPES = [(2, 3, 7, 6, 9, 3, 2, 1), (1, 2, 5, 8, 4, 2, 2, 1), (2, 1, 6, 5, 7, 4, 3, 2),
          (1, 2, 3, 4, 5, 3, 1, 1), (1, 3, 2, 3, 1, 3, 2, 1), (2, 1, 3, 2, 4, 1, 1, 0),
          (1, 1, 8, 7, 6, 3, 4, 0)]


def _sizes(shape):
    return dict(zip(("N", "C", "D", "H", "W", "K", "S", "P"), shape))


def _out_shape(shape):
    N, C, D, H, W, K, S, P = shape
    return (N, C, (D + 2 * P - K) // S + 1, (H + 2 * P - K) // S + 1, (W + 2 * P - K) // S + 1)


@each(shape=SHAPES, seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    N, C, D, H, W, K, S, P = shape
    v, out = run(kernel, _sizes(shape), seed)
    y = np.asarray(jax.lax.reduce_window(jnp.asarray(v["x"], dtype=jnp.float64), -jnp.inf, jax.lax.max,
                                         window_dimensions=(1, 1, K, K, K), window_strides=(1, 1, S, S, S),
                                         padding=((0, 0), (0, 0), (P, P), (P, P), (P, P))))
    assert out["y"].shape == y.shape == _out_shape(shape)
    # The maximum is one of the inputs: exact.
    np.testing.assert_array_equal(out["y"], y)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    shape = (2, 2, 5, 6, 7, 3, 2, 1)
    N, C, D, H, W, K, S, P = shape
    v, out = run(kernel, _sizes(shape), seed)
    x = v["x"].tolist()
    _, _, Do, Ho, Wo = _out_shape(shape)
    y = np.empty((N, C, Do, Ho, Wo))
    for n in range(N):
        for c in range(C):
            for o in range(Do):
                for p in range(Ho):
                    for q in range(Wo):
                        y[n, c, o, p, q] = max(x[n][c][o * S - P + a][p * S - P + b][q * S - P + e]
                                               for a in range(K) for b in range(K) for e in range(K)
                                               if 0 <= o * S - P + a < D and 0 <= p * S - P + b < H
                                               and 0 <= q * S - P + e < W)
    np.testing.assert_array_equal(out["y"], y.astype(np.float32))
    assert_judged_like_an_oracle(kernel, out, {"y": y})
