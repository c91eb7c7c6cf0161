"""vanilla_rnn's independent check: the recurrence as a jax.lax.scan over the time steps in
float64 (JAX's tanh), and, over a long sequence, in NumPy float64, where it also shows that
the float32 reference's error does not grow with the step."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run

_INPUTS = ("x", "h0", "W_ih", "W_hh", "b_ih", "b_hh")


def _jax_rnn(x, h0, W_ih, W_hh, b_ih, b_hh):
    jax, jnp = jax_numpy()

    def cell(hid, xt):
        hid = jnp.tanh(xt @ W_ih.T + b_ih + hid @ W_hh.T + b_hh)
        return hid, hid

    return jax.lax.scan(cell, h0, x)[1]


@each(shape=[(7, 3, 5, 6), (1, 1, 3, 2)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, dict(zip(("T", "B", "IN", "H"), shape)), seed)
    seq = np.asarray(jax.jit(_jax_rnn)(*(jnp.asarray(v[n], dtype=jnp.float64) for n in _INPUTS)))
    assert seq.shape == out["out"].shape == (shape[0], shape[1], shape[3])
    np.testing.assert_allclose(out["out"], seq, rtol=1e-4, atol=1e-5 * np.abs(seq).max())
    assert_judged_like_an_oracle(kernel, out, {"out": seq})


def check_long_sequence_in_float64(kernel):
    T, B, IN, H = 300, 2, 24, 32
    v, out = run(kernel, {"T": T, "B": B, "IN": IN, "H": H}, 0)
    f = {n: v[n].astype(np.float64) for n in _INPUTS}
    hid = f["h0"]
    seq = np.empty((T, B, H))
    for step in range(T):
        hid = np.tanh(f["x"][step] @ f["W_ih"].T + f["b_ih"] + hid @ f["W_hh"].T + f["b_hh"])
        seq[step] = hid
    assert_judged_like_an_oracle(kernel, out, {"out": seq})
    # The tanh is used on both its flanks and near zero, and the float32 error of the last
    # steps is no larger than that of the first: the recurrence contracts errors.
    assert 0.3 < np.std(seq) < 0.7 and np.mean(np.abs(seq) > 0.9) < 0.2
    err = np.abs(out["out"] - seq).max(axis=(1, 2))
    assert err[-50:].max() <= 4 * err[:50].max() and err.max() < 1e-5
