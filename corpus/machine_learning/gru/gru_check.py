"""gru's independent check: the cell as PyTorch documents it, a jax.lax.scan over the time
steps in float64 with jax.nn.sigmoid and jnp.tanh on the separately sliced gate weights,
and, over a long sequence, in NumPy float64, where it also shows that the float32
reference's error does not grow with the step."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run

_INPUTS = ("x", "h0", "W_ih", "W_hh", "b_ih", "b_hh")


def _jax_gru(x, h0, W_ih, W_hh, b_ih, b_hh):
    jax, jnp = jax_numpy()
    H = h0.shape[1]
    W_ir, W_iz, W_in = W_ih[:H], W_ih[H:2 * H], W_ih[2 * H:]
    W_hr, W_hz, W_hn = W_hh[:H], W_hh[H:2 * H], W_hh[2 * H:]
    b_ir, b_iz, b_in = b_ih[:H], b_ih[H:2 * H], b_ih[2 * H:]
    b_hr, b_hz, b_hn = b_hh[:H], b_hh[H:2 * H], b_hh[2 * H:]

    def cell(hid, xt):
        r = jax.nn.sigmoid(xt @ W_ir.T + b_ir + hid @ W_hr.T + b_hr)
        z = jax.nn.sigmoid(xt @ W_iz.T + b_iz + hid @ W_hz.T + b_hz)
        n = jnp.tanh(xt @ W_in.T + b_in + r * (hid @ W_hn.T + b_hn))
        hid = (1.0 - z) * n + z * hid
        return hid, hid

    return jax.lax.scan(cell, h0, x)[1]


@each(shape=[(7, 3, 5, 6), (1, 1, 3, 2)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, dict(zip(("T", "B", "IN", "H"), shape)), seed)
    seq = np.asarray(jax.jit(_jax_gru)(*(jnp.asarray(v[n], dtype=jnp.float64) for n in _INPUTS)))
    assert seq.shape == out["out"].shape == (shape[0], shape[1], shape[3])
    np.testing.assert_allclose(out["out"], seq, rtol=1e-4, atol=1e-5 * np.abs(seq).max())
    assert_judged_like_an_oracle(kernel, out, {"out": seq})


def check_long_sequence_in_float64(kernel):
    T, B, IN, H = 300, 2, 24, 32
    v, out = run(kernel, {"T": T, "B": B, "IN": IN, "H": H}, 0)
    f = {n: v[n].astype(np.float64) for n in _INPUTS}
    hid = f["h0"]
    seq = np.empty((T, B, H))
    gates = []
    for step in range(T):
        a = f["x"][step] @ f["W_ih"].T + f["b_ih"]
        c = hid @ f["W_hh"].T + f["b_hh"]
        r = 1.0 / (1.0 + np.exp(-(a[:, :H] + c[:, :H])))
        z = 1.0 / (1.0 + np.exp(-(a[:, H:2 * H] + c[:, H:2 * H])))
        n = np.tanh(a[:, 2 * H:] + r * c[:, 2 * H:])
        hid = (1.0 - z) * n + z * hid
        seq[step] = hid
        gates.append((r, z))
    assert_judged_like_an_oracle(kernel, out, {"out": seq})
    # The gates are informative (neither near 0 nor near 1 everywhere), and the float32
    # error of the last steps is no larger than that of the first.
    r, z = (np.array([g[i] for g in gates]) for i in (0, 1))
    for g in (r, z):
        assert 0.1 < np.std(g) and np.mean((g < 0.05) | (g > 0.95)) < 0.2
    err = np.abs(out["out"] - seq).max(axis=(1, 2))
    assert err[-50:].max() <= 4 * err[:50].max() and err.max() < 1e-5
