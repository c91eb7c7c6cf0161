"""lstm's independent check: the cell as PyTorch documents it, a jax.lax.scan over the time
steps in float64 with jax.nn.sigmoid and jnp.tanh on the separately sliced gate weights,
and, over a long sequence, in NumPy float64, where it also shows that the float32
reference's error does not grow with the step."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run

_INPUTS = ("x", "h0", "c0", "W_ih", "W_hh", "b_ih", "b_hh")


def _jax_lstm(x, h0, c0, W_ih, W_hh, b_ih, b_hh):
    jax, jnp = jax_numpy()
    H = h0.shape[1]

    def gate(k, xt, hid):
        rows = slice(k * H, (k + 1) * H)
        return xt @ W_ih[rows].T + b_ih[rows] + hid @ W_hh[rows].T + b_hh[rows]

    def cell(carry, xt):
        hid, c = carry
        i = jax.nn.sigmoid(gate(0, xt, hid))
        f = jax.nn.sigmoid(gate(1, xt, hid))
        g = jnp.tanh(gate(2, xt, hid))
        o = jax.nn.sigmoid(gate(3, xt, hid))
        c = f * c + i * g
        hid = o * jnp.tanh(c)
        return (hid, c), hid

    (_, c_last), seq = jax.lax.scan(cell, (h0, c0), x)
    return seq, c_last


@each(shape=[(7, 3, 5, 6), (1, 1, 3, 2)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    T, B, IN, H = shape
    v, out = run(kernel, {"T": T, "B": B, "IN": IN, "H": H}, seed)
    seq, c_last = (np.asarray(a) for a in jax.jit(_jax_lstm)(*(jnp.asarray(v[n], dtype=jnp.float64) for n in _INPUTS)))
    assert seq.shape == out["out"].shape == (T, B, H) and c_last.shape == out["c_n"].shape == (B, H)
    np.testing.assert_allclose(out["out"], seq, rtol=1e-4, atol=1e-5 * np.abs(seq).max())
    np.testing.assert_allclose(out["c_n"], c_last, rtol=1e-4, atol=1e-5 * np.abs(c_last).max())
    assert_judged_like_an_oracle(kernel, out, {"out": seq, "c_n": c_last})


def check_long_sequence_in_float64(kernel):
    T, B, IN, H = 300, 2, 24, 32
    v, out = run(kernel, {"T": T, "B": B, "IN": IN, "H": H}, 0)
    f = {n: v[n].astype(np.float64) for n in _INPUTS}
    hid, c = f["h0"], f["c0"]
    seq = np.empty((T, B, H))
    forget = np.empty((T, B, H))
    for step in range(T):
        a = f["x"][step] @ f["W_ih"].T + f["b_ih"] + hid @ f["W_hh"].T + f["b_hh"]
        sig = 1.0 / (1.0 + np.exp(-a))
        i, fg, g, o = sig[:, :H], sig[:, H:2 * H], np.tanh(a[:, 2 * H:3 * H]), sig[:, 3 * H:]
        c = fg * c + i * g
        hid = o * np.tanh(c)
        seq[step] = hid
        forget[step] = fg
    assert_judged_like_an_oracle(kernel, out, {"out": seq, "c_n": c})
    # The forget gate is informative (neither near 0 nor near 1 everywhere), and the float32
    # error of the last steps is no larger than that of the first.
    assert 0.1 < np.std(forget) and np.mean((forget < 0.05) | (forget > 0.95)) < 0.2
    err = np.abs(out["out"] - seq).max(axis=(1, 2))
    assert err[-50:].max() <= 4 * err[:50].max() and err.max() < 1e-5
    assert np.abs(out["c_n"] - c).max() < 1e-5
