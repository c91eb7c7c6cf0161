"""A/A: each track's baseline handed in as a candidate is graded about 1x against itself.

A judge that times the candidate's process differently from the baseline's (the sandbox,
the freezer, thread binding, placement, the order of targets) shows a bias here: the same
autopar C ran 25-40 % faster in the candidate's sandbox than as the judge's unsandboxed
baseline before the baseline joined the sandbox. The full figure, over 30 kernels with
95 % intervals, is benchmarks/aa_baseline.py; these check that no such bias is back, with a
band wide enough for a loaded machine (a 95 % interval alone would fail one grade in twenty).
"""

import attrs
import pytest

from hpcab.baseline import as_candidate
from hpcab.case import preset_case
from hpcab.grade import grade

BAND = (0.85, 1 / 0.85)
# Beside the other test worker grades have come out at 0.84x (its interval 0.57-1.23), and at
# 0.850x then 0.827x (0.61-1.12), where quiet and loaded re-runs gave 0.96-1.02x: a grade
# outside the band is taken again before it fails. A bias is in every grade; the other
# worker's bursts are not. (Two such loops side by side here, 16 grades each, four designs of
# the driver: the grades' log spread 0.045-0.089, their extremes 0.86x and 1.29x.) A full suite
# run later gave gemm 0.840x, 1.532x, 0.795x in three grades: noise on both sides of 1x, not a
# bias, which would be on one side in every grade; so up to five grades.
GRADES = 5


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gemm", "s311_sum", "softmax"])
def test_the_baseline_as_a_candidate_is_graded_1x(corpus, toolchains, fast_policy, name):
    k = corpus.get(name)
    candidate, flags = as_candidate(k)
    policy = attrs.evolve(fast_policy, sessions=4, target_seconds=0.4, max_seconds=20)
    seen = []
    for _ in range(GRADES):
        g = grade(k, candidate, [preset_case(k, "S")], toolchains, flags, policy=policy)
        assert g.status == "ok", g.message
        sp = g.speedup_baseline
        assert sp is not None, g.baseline_error
        seen.append(sp.value)
        if BAND[0] < sp.value < BAND[1]:
            break
    assert BAND[0] < sp.value < BAND[1], (
        f"{name}: the {g.baseline} baseline against itself: {', '.join(f'{v:.3f}x' for v in seen)}")
