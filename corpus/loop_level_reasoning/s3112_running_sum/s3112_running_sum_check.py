"""s3112_running_sum's independent check: the TSVC loop over Python lists in float64, and
the exact running sums passing the judge at the largest preset."""

import numpy as np

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, judged, run


@each(seed=SEEDS)
def check_against_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    a = v["a"].tolist()
    b = [0.0] * n
    s = 0.0
    for i in range(n):
        s += a[i]
        b[i] = s
    np.testing.assert_allclose(out["b"], b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["total"], [s], rtol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"b": np.array(b), "total": np.array([s])})


def check_exact_running_sums_pass_at_l(kernel):
    # The reference's float32 sequential order drifts from the exact running sums; a
    # candidate that sums in another (more accurate) order must still pass at L.
    case = explicit_case(kernel, dict(kernel.presets["L"]), 0)
    v = make_inputs(kernel, case)
    out = run_oracle(kernel, case, v)
    exact = np.cumsum(v["a"].astype(np.float64))
    assert judged(kernel, out, {"b": exact, "total": exact[-1:]})
