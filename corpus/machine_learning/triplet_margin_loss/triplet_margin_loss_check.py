"""triplet_margin_loss's independent check: the loss in JAX (float64) with the eps added to
each difference as torch.pairwise_distance does, and explicit loops with math.fsum."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, judged, run

EPS = 1e-6


def _jax(v):
    jax, jnp = jax_numpy()
    a, p, n = (jnp.asarray(v[k], dtype=jnp.float64) for k in ("anchor", "positive", "negative"))
    dap = jnp.linalg.norm(a - p + EPS, ord=2, axis=1)
    dan = jnp.linalg.norm(a - n + EPS, ord=2, axis=1)
    terms = jax.nn.relu(dap - dan + float(np.float32(v["margin"])))
    return np.asarray(terms), np.array([float(jnp.mean(terms))])


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 33, "D": 130}, seed)
    _, loss = _jax(v)
    np.testing.assert_allclose(out["loss"], loss, rtol=5e-6, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"loss": loss})


@each(shape=[(1, 1), (7, 3)])
def check_edge_shapes_against_jax(kernel, shape):
    v, out = run(kernel, {"B": shape[0], "D": shape[1]}, 5)
    _, loss = _jax(v)
    np.testing.assert_allclose(out["loss"], loss, rtol=5e-6, atol=1e-6)


@each(seed=SEEDS)
def check_active_and_inactive_against_fsum(kernel, seed):
    B, D = 300, 50
    v, out = run(kernel, {"B": B, "D": D}, seed)
    margin = float(np.float32(v["margin"]))
    rows = {k: v[k].astype(np.float64).tolist() for k in ("anchor", "positive", "negative")}
    raw = []
    for b in range(B):
        a, p, n = rows["anchor"][b], rows["positive"][b], rows["negative"][b]
        dap = math.sqrt(math.fsum((x - y + EPS) ** 2 for x, y in zip(a, p)))
        dan = math.sqrt(math.fsum((x - y + EPS) ** 2 for x, y in zip(a, n)))
        raw.append(dap - dan + margin)
    terms = [max(t, 0.0) for t in raw]
    active = sum(1 for t in terms if t > 0.0)
    # Some triplets are inactive, most active.
    assert 0.1 < 1 - active / B < 0.5
    loss = math.fsum(terms) / B
    np.testing.assert_allclose(out["loss"][0], loss, rtol=5e-6)
    assert_judged_like_an_oracle(kernel, out, {"loss": np.array([loss])})
    # Without the clamp the mean is another number, far outside the band.
    assert not judged(kernel, out, {"loss": np.array([math.fsum(raw) / B])})
