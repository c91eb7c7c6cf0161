"""bitap's independent check: every occurrence found by comparing byte strings (and by the
re module's overlapping search), at sizes from one byte up and patterns up to 63 bytes,
and a known answer."""

import re

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(sizes=[(1, 1), (5, 5), (64, 63), (100, 1), (3000, 17), (20000, 63), (20000, 62)], seed=SEEDS)
def check_against_byte_comparison(kernel, sizes, seed):
    N, P = sizes
    v, out = run(kernel, {"N": N, "P": P}, seed)
    text, pat = v["text"].tobytes(), v["pattern"].tobytes()
    ends = [i for i in range(P - 1, N) if text[i - P + 1:i + 1] == pat]
    flags = np.zeros(N, dtype=np.int64)
    flags[ends] = 1
    np.testing.assert_array_equal(out["match"], flags)
    assert out["count"][0] == len(ends)
    # The same occurrences by the regular-expression engine (a lookahead lets them overlap).
    starts = [m.start() for m in re.finditer(b"(?=" + re.escape(pat) + b")", text)]
    assert [s + P - 1 for s in starts] == ends
    if N >= 3000:
        assert len(ends) >= N // 1000                         # informative: planted ones found
        assert any(b - a < P for a, b in zip(ends, ends[1:]))  # overlapping occurrences
        assert_judged_like_an_oracle(kernel, out, {"match": flags, "count": np.array([len(ends)])})


def check_known_answer(kernel):
    fn = kernel.reference().function
    text = np.frombuffer(b"abababa xaba", dtype=np.uint8)
    pattern = np.frombuffer(b"aba", dtype=np.uint8)
    match = np.full(len(text), -7, dtype=np.int64)
    assert fn(text, pattern, match, len(text), 3) == 4
    np.testing.assert_array_equal(np.flatnonzero(match), [2, 4, 6, 11])
    assert set(match.tolist()) == {0, 1}
