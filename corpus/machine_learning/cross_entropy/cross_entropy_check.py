"""cross_entropy's independent check: jax.nn.log_softmax in float64 with the targets' entries
taken by jnp.take_along_axis, and exactly rounded sums (math.fsum) in explicit loops."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(9, 33), (64, 10), (1, 2), (257, 100)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    B, C = shape
    v, out = run(kernel, {"B": B, "C": C}, seed)
    logp = jax.nn.log_softmax(jnp.asarray(v["logits"], dtype=jnp.float64), axis=-1)
    picked = jnp.take_along_axis(logp, jnp.asarray(v["target"])[:, None], axis=1)
    loss = np.array([-float(jnp.mean(picked))])
    # The row offsets (up to 2000) make each row's float32 log-sum-exp minus the target's
    # logit good to about 1e-4 absolute, errors of either sign; the loss is about log C.
    np.testing.assert_allclose(out["loss"], loss, rtol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"loss": loss})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    B, C = 17, 12
    v, out = run(kernel, {"B": B, "C": C}, seed)
    assert v["target"].min() >= 0 and v["target"].max() < C
    terms = []
    for row, t in zip(v["logits"].astype(np.float64).tolist(), v["target"].tolist()):
        m = max(row)
        terms.append(m + math.log(math.fsum(math.exp(z - m) for z in row)) - row[t])
    loss = math.fsum(terms) / B
    np.testing.assert_allclose(out["loss"][0], loss, rtol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"loss": np.array([loss])})


def check_one_class_is_certain(kernel):
    # A single class: each row's probability of its (only) target is 1, so the loss is 0.
    _, out = run(kernel, {"B": 5, "C": 1}, 0)
    assert abs(float(out["loss"][0])) <= 1e-5


def check_inputs_need_the_max_subtraction(kernel):
    v, _ = run(kernel, {"B": 13, "C": 70}, 0)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        naive = np.log(np.sum(np.exp(v["logits"]), axis=1))
    assert not np.all(np.isfinite(naive))
