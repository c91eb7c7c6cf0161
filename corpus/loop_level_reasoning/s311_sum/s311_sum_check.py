"""s311_sum's independent check: the exactly rounded sum (math.fsum), and the plain
one-accumulator float32 loop the manifest's tolerance is written for."""

import math

import numpy as np

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.refcheck import SEEDS, each, judged, run


@each(seed=SEEDS)
def check_against_fsum(kernel, seed):
    v, out = run(kernel, {"N": 100003}, seed)
    assert out["total"].dtype == np.float32
    exact = math.fsum(v["a"].astype(np.float64))
    assert abs(float(out["total"][0]) - exact) <= 1e-5 * abs(exact)
    sequential = np.cumsum(v["a"])[-1]          # a one-accumulator float32 loop
    assert judged(kernel, out, {"total": sequential})
    assert not judged(kernel, out, {"total": np.zeros(1)})


def check_one_accumulator_loop_passes_at_l(kernel):
    # The manifest widens the float32 band for this sum; a plain sequential float32 loop
    # (what a straightforward C translation computes) must pass at the largest preset.
    case = explicit_case(kernel, dict(kernel.presets["L"]), 0)
    v = make_inputs(kernel, case)
    out = run_oracle(kernel, case, v)
    assert judged(kernel, out, {"total": np.cumsum(v["a"])[-1]})
