"""s352_unrolled_dot's independent check: the exactly rounded dot product (math.fsum), and
TSVC's unrolled one-accumulator float32 loop, which the manifest's tolerance is written for."""

import math

import numpy as np

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, judged, run


@each(seed=SEEDS)
def check_against_fsum_and_unrolled_loop(kernel, seed):
    n = 1005
    v, out = run(kernel, {"N": n}, seed)
    assert out["dot"].dtype == np.float32
    a, b = v["a"].astype(np.float64).tolist(), v["b"].astype(np.float64).tolist()
    exact = math.fsum(a[i] * b[i] for i in range(n))
    assert abs(float(out["dot"][0]) - exact) <= 1e-5 * abs(exact)
    a32, b32 = v["a"].tolist(), v["b"].tolist()
    f = np.float32
    dot = f(0.0)
    for i in range(0, n, 5):
        dot = (
            dot
            + f(a32[i]) * f(b32[i])
            + f(a32[i + 1]) * f(b32[i + 1])
            + f(a32[i + 2]) * f(b32[i + 2])
            + f(a32[i + 3]) * f(b32[i + 3])
            + f(a32[i + 4]) * f(b32[i + 4])
        )
    assert_judged_like_an_oracle(kernel, out, {"dot": np.array([dot])})


def check_one_accumulator_loop_passes_at_l(kernel):
    # The manifest widens the float32 band for this sum; a sequential float32 loop (what a
    # straightforward C translation of TSVC's loop computes) must pass at the largest preset.
    case = explicit_case(kernel, dict(kernel.presets["L"]), 0)
    v = make_inputs(kernel, case)
    out = run_oracle(kernel, case, v)
    sequential = np.cumsum(v["a"] * v["b"])[-1]
    assert judged(kernel, out, {"dot": sequential})
    exact = math.fsum((v["a"].astype(np.float64) * v["b"].astype(np.float64)).tolist())
    assert abs(float(out["dot"][0]) - exact) <= 1e-4 * abs(exact)
