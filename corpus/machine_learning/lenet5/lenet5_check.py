"""lenet5's independent check: the network rebuilt from JAX's operators in float64
(jax.lax.conv_general_dilated, jax.nn.relu, jax.lax.reduce_window for the max-pools, a
reshape for the flatten), and, with the pools as explicit loops in float64, that every ReLU's
input takes both signs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run

_WEIGHTS = ("x", "conv1_w", "conv1_b", "conv2_w", "conv2_b", "fc1_w", "fc1_b", "fc2_w", "fc2_b", "fc3_w", "fc3_b")


def _jax_lenet5(v):
    jax, jnp = jax_numpy()
    # One compiled function per shape: JAX's eager operators would each compile on their own.
    return np.asarray(jax.jit(_network)(*(jnp.asarray(v[n], dtype=jnp.float64) for n in _WEIGHTS)))


def _network(*arrays):
    jax, jnp = jax_numpy()
    f = dict(zip(_WEIGHTS, arrays))

    def conv_relu_pool(a, w, b):
        a = jax.lax.conv_general_dilated(a, w, window_strides=(1, 1), padding="VALID",
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
        a = jax.nn.relu(a + b[None, :, None, None])
        return jax.lax.reduce_window(a, -jnp.inf, jax.lax.max, window_dimensions=(1, 1, 2, 2),
                                     window_strides=(1, 1, 2, 2), padding="VALID")

    a = conv_relu_pool(f["x"], f["conv1_w"], f["conv1_b"])
    a = conv_relu_pool(a, f["conv2_w"], f["conv2_b"])
    a = a.reshape(a.shape[0], 400)
    a = jax.nn.relu(a @ f["fc1_w"].T + f["fc1_b"])
    a = jax.nn.relu(a @ f["fc2_w"].T + f["fc2_b"])
    return a @ f["fc3_w"].T + f["fc3_b"]


@each(sizes=[(3, 10), (1, 3)], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    N, NC = sizes
    v, out = run(kernel, {"N": N, "NC": NC}, seed)
    y = _jax_lenet5(v)
    assert out["out"].shape == y.shape == (N, NC)
    np.testing.assert_allclose(out["out"], y, rtol=1e-4, atol=1e-5 * np.abs(y).max())
    assert_judged_like_an_oracle(kernel, out, {"out": y})


def check_activations_are_informative(kernel):
    # Every ReLU has both signs in its input: the He-scaled weights leave no layer dead or
    # linear. Computed in float64 with explicit loops for the pools.
    v, _ = run(kernel, {"N": 4, "NC": 10}, 0)
    x = v["x"].astype(np.float64)

    def conv(a, w, b):
        K, C, R, S = w.shape
        P, Q = a.shape[2] - R + 1, a.shape[3] - S + 1
        y = np.zeros((a.shape[0], K, P, Q)) + b[None, :, None, None]
        for dr in range(R):
            for ds in range(S):
                y += np.einsum("kc,ncpq->nkpq", w[:, :, dr, ds], a[:, :, dr:dr + P, ds:ds + Q])
        return y

    def pool(a):
        n, c, h, w = a.shape
        return np.array([[[[max(a[i, k, 2 * p, 2 * q], a[i, k, 2 * p, 2 * q + 1], a[i, k, 2 * p + 1, 2 * q],
                                a[i, k, 2 * p + 1, 2 * q + 1]) for q in range(w // 2)] for p in range(h // 2)]
                          for k in range(c)] for i in range(n)])

    pre = []
    a = conv(x, v["conv1_w"], v["conv1_b"])
    pre.append(a)
    a = pool(np.maximum(a, 0.0))
    a = conv(a, v["conv2_w"], v["conv2_b"])
    pre.append(a)
    a = pool(np.maximum(a, 0.0)).reshape(4, 400)
    a = a @ v["fc1_w"].T + v["fc1_b"]
    pre.append(a)
    a = np.maximum(a, 0.0) @ v["fc2_w"].T + v["fc2_b"]
    pre.append(a)
    for p in pre:
        assert 0.2 < np.mean(p > 0) < 0.8
