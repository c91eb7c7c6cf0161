"""s1351_pointer_add's independent check: the pointer walk as three advancing indices over Python lists."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_pointer_loop(kernel, seed):
    n = 1001
    v, out = run(kernel, {"N": n}, seed)
    b, c = v["b"].tolist(), v["c"].tolist()
    a = [None] * n
    pa = pb = pc = 0
    for _ in range(n):
        a[pa] = b[pb] + c[pc]
        pa += 1
        pb += 1
        pc += 1
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})
