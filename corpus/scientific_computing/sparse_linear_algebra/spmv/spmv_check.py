"""spmv's independent check: scipy.sparse's CSR product, after checking the CSR structure the
initializer draws."""

import numpy as np
import scipy.sparse

from hpcab.case import explicit_case, make_inputs
from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(50, 60, 400), (7, 4, 14), (1, 3, 1)], seed=SEEDS)
def check_against_scipy(kernel, shape, seed):
    M, N, NNZ = shape
    v, out = run(kernel, {"M": M, "N": N, "NNZ": NNZ}, seed)
    indptr, indices = v["indptr"], v["indices"]
    assert indptr[0] == 0 and indptr[-1] == NNZ and np.all(np.diff(indptr) >= 1)
    assert indices.min() >= 0 and indices.max() < N
    for i in range(M):
        assert np.all(np.diff(indices[indptr[i]:indptr[i + 1]]) > 0)   # sorted, no duplicates
    A = scipy.sparse.csr_matrix((v["values"], indices, indptr), shape=(M, N))
    y = A @ v["x"]
    np.testing.assert_allclose(out["y"], y, rtol=1e-13, atol=1e-13)
    if M > 1:
        assert_judged_like_an_oracle(kernel, out, {"y": y})


def check_rows_are_irregular(kernel):
    v = make_inputs(kernel, explicit_case(kernel, {"M": 200, "N": 300, "NNZ": 3200}, 1))
    lengths = np.diff(v["indptr"])
    assert lengths.min() < 16 < lengths.max()
