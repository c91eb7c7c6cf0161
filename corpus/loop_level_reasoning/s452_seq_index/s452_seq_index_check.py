"""s452_seq_index's independent check: TSVC's loop over Python lists, the index in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_index_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b, c = v["b"].tolist(), v["c"].tolist()
    a = [b[i] + c[i] * float(i + 1) for i in range(n)]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
