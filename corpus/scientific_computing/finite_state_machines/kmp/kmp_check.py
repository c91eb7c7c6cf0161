"""kmp's independent check: every pattern's occurrences found by comparing byte strings at
each text position (and by the re module's overlapping search), its failure function from
the definition (the longest proper prefix that is also a suffix, by comparing strings), at
sizes from one symbol up, patterns longer than the text included; and a known answer."""

import re

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _borders(p):
    # fail[q]: the longest b < q + 1 with p[:b] == p[q + 1 - b:q + 1].
    return [max(b for b in range(q + 1) if p[:b] == p[q + 1 - b:q + 1]) for q in range(len(p))]


@each(sizes=[(1, 1, 1), (1, 3, 2), (5, 3, 9), (17, 4, 1), (64, 9, 5), (300, 64, 8),
             (3000, 40, 8), (2000, 33, 17)], seed=SEEDS)
def check_against_string_comparison(kernel, sizes, seed):
    N, P, M = sizes
    v, out = run(kernel, {"N": N, "P": P, "M": M}, seed)
    text = v["text"].tobytes()
    fail = np.zeros((P, M), dtype=np.int64)
    count = np.zeros(P, dtype=np.int64)
    for r in range(P):
        pat = v["patterns"][r].tobytes()
        fail[r] = _borders(pat)
        count[r] = sum(text[i:i + M] == pat for i in range(N - M + 1))
        assert count[r] == len(re.findall(b"(?=" + re.escape(pat) + b")", text))
    np.testing.assert_array_equal(out["fail"], fail)
    np.testing.assert_array_equal(out["count"], count)
    if N >= 300:
        assert (count > 0).mean() > 0.3 and count.max() >= 3        # informative
        assert fail.max() >= M // 2                                 # long failure links
        assert_judged_like_an_oracle(kernel, out, {"fail": fail, "count": count})


def check_known_answer(kernel):
    fn = kernel.reference().function
    text = np.frombuffer(b"ABABABACABABAC", dtype=np.uint8)
    patterns = np.frombuffer(b"ABABACABABAB", dtype=np.uint8).reshape(2, 6).copy()
    fail = np.full((2, 6), -7, dtype=np.int64)
    count = np.full(2, -7, dtype=np.int64)
    fn(text, patterns, fail, count, 14, 2, 6)
    # ABABAC occurs ending at 7 and at 13; ABABAB (border 4) at 5 only.
    np.testing.assert_array_equal(fail, [[0, 0, 1, 2, 3, 0], [0, 0, 1, 2, 3, 4]])
    np.testing.assert_array_equal(count, [2, 1])
