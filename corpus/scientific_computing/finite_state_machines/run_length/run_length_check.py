"""run_length's independent check: the runs by itertools.groupby over the bytes, the runs'
starts by numpy.diff, decoding the pairs back to the stream, and a known answer."""

import itertools

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1, 2, 3, 17, 1000, 30001], seed=SEEDS)
def check_against_groupby(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    data = v["data"]
    runs = [(key, len(list(group))) for key, group in itertools.groupby(data.tobytes())]
    R = len(runs)
    values = np.zeros(n, dtype=np.uint8)
    lengths = np.zeros(n, dtype=np.int64)
    values[:R] = [key for key, _ in runs]
    lengths[:R] = [length for _, length in runs]
    assert out["nruns"][0] == R
    np.testing.assert_array_equal(out["values"], values)
    np.testing.assert_array_equal(out["lengths"], lengths)
    # The run starts another way: where the byte changes.
    starts = np.concatenate(([0], np.flatnonzero(np.diff(data.astype(np.int64))) + 1))
    np.testing.assert_array_equal(starts, np.cumsum(lengths[:R]) - lengths[:R])
    # Decoding gives the stream back.
    np.testing.assert_array_equal(np.repeat(out["values"][:R], out["lengths"][:R]), data)
    if n >= 1000:
        assert n // 20 < R < n // 2                              # short and long runs
        assert lengths.max() > 32
        assert_judged_like_an_oracle(kernel, out, {"values": values, "lengths": lengths, "nruns": np.array([R])})


def check_known_answer(kernel):
    fn = kernel.reference().function
    data = np.frombuffer(b"aaabccdddd", dtype=np.uint8)
    values = np.full(10, 0xA5, dtype=np.uint8)          # poisoned: every element must be written
    lengths = np.full(10, -1, dtype=np.int64)
    assert fn(data, values, lengths, 10) == 4
    assert values.tobytes() == b"abcd" + bytes(6)
    np.testing.assert_array_equal(lengths, [3, 1, 2, 4, 0, 0, 0, 0, 0, 0])
    same = np.zeros(5, dtype=np.uint8)
    values, lengths = np.ones(5, dtype=np.uint8), np.ones(5, dtype=np.int64)
    assert fn(same, values, lengths, 5) == 1
    np.testing.assert_array_equal(lengths, [5, 0, 0, 0, 0])
    np.testing.assert_array_equal(values, 0)
