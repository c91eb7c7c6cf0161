"""fft's independent check: numpy.fft (pocketfft), for every power of two up to 2048."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(logn=[0, 1, 2, 3, 6, 11], seed=SEEDS)
def check_against_numpy_fft(kernel, logn, seed):
    n = 2 ** logn
    v, out = run(kernel, {"N": n, "LOGN": logn}, seed)
    y = np.fft.fft(v["x"])
    np.testing.assert_allclose(out["y"], y, rtol=1e-12, atol=1e-12 * np.abs(y).max())
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"y": y})
