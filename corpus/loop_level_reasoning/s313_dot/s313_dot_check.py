"""s313_dot's independent check: the exactly rounded dot product (math.fsum of the float64
products, which are exact) at a small size, and the exact answer passing the judge at the
largest preset, as a vectorised (more accurate) candidate's would."""

import math

import numpy as np

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, judged, run


@each(seed=SEEDS)
def check_against_fsum(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    assert out["dot"].dtype == np.float32
    a, b = v["a"].tolist(), v["b"].tolist()
    exact = math.fsum(a[i] * b[i] for i in range(n))
    np.testing.assert_allclose(out["dot"], [exact], rtol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"dot": np.array([exact])})


def check_exact_dot_passes_at_l(kernel):
    case = explicit_case(kernel, dict(kernel.presets["L"]), 0)
    v = make_inputs(kernel, case)
    out = run_oracle(kernel, case, v)
    exact = math.fsum((v["a"].astype(np.float64) * v["b"].astype(np.float64)).tolist())
    assert judged(kernel, out, {"dot": np.array([exact])})
