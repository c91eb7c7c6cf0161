"""floyd_warshall's independent check: the textbook triple loop over Python integers."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 30
    v, out = run(kernel, {"N": n}, seed)
    p = v["path"].astype(np.int64).tolist()
    for m in range(n):
        for i in range(n):
            for j in range(n):
                if p[i][m] + p[m][j] < p[i][j]:
                    p[i][j] = p[i][m] + p[m][j]
    np.testing.assert_array_equal(out["path"], np.array(p, dtype=np.int32))
    # Shortest paths are informative: many are several hops, shorter than any direct edge.
    assert np.count_nonzero(out["path"] < v["path"]) > n
    assert_judged_like_an_oracle(kernel, out, {"path": np.array(p)})
