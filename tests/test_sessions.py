"""A scored case is measured in several independent sessions (docs/measurement_statistics.md):
each with a fresh candidate runner, its own input sets, the targets' order rotated; the
grade's interval comes from the variation between them. One driver measures them all, and
keeps the judge's own runners from one session of a case to the next."""

from pathlib import Path

import attrs
import numpy as np
import pytest

import hpcab.grade as grade_module
from hpcab.build import Candidate, candidate_from_file
from hpcab.case import explicit_case, input_set_case, preset_case, session_case
from hpcab.gradedoc import grade_document
from hpcab.measure import VERDICTS
from hpcab.record import connect, load_grade, save_grade
from hpcab.timing.policy import MIN_SESSION_REPETITIONS, Policy, session_policy
from tests.conftest import CANDIDATES, EXAMPLES, ROOT

EXPLOITS = ROOT / "tests" / "exploits"


def test_a_session_gets_its_share_of_the_policy():
    p = Policy(target_seconds=1.0, max_seconds=30.0, min_repetitions=5, max_repetitions=1000, sessions=5)
    one = session_policy(p, 5)
    assert (one.sessions, one.target_seconds, one.max_seconds) == (1, 0.2, 6.0)
    assert one.min_repetitions == MIN_SESSION_REPETITIONS and one.max_repetitions == 200
    assert one.timeout_seconds == p.timeout_seconds            # each session still has the case's limit
    assert session_policy(p, 1) == attrs.evolve(p, sessions=1)


@pytest.fixture
def recorded_orders(monkeypatch):
    """The real run_case, with the targets' order and the case's seed of each call noted."""
    calls = []
    real = grade_module.run_case

    def spy(kernel, case, targets, harness, policy, driver=None):
        calls.append(([t.name for t in targets], case.seed, policy))
        return real(kernel, case, targets, harness, policy, driver)
    monkeypatch.setattr(grade_module, "run_case", spy)
    return calls


def test_a_grade_in_three_sessions(corpus, toolchains, fast_policy, recorded_orders, tmp_path):
    k = corpus.get("gemm")
    policy = attrs.evolve(fast_policy, sessions=3)
    g = grade_module.grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [preset_case(k, "S")], toolchains,
                           policy=policy)
    assert g.status == "ok", g.message
    c = g.cases[0]
    # Three sessions, each with every target, the order rotated, each its own seed.
    orders = [o for o, _, _ in recorded_orders]
    assert len(orders) == 3 and len({tuple(o) for o in orders}) == 3
    assert all(sorted(o) == sorted(orders[0]) for o in orders)
    # Each session's seed is the grade's secret's (hpcab.case.session_case): three of them,
    # none of them the public seed or one derived from it alone.
    seeds = [s for _, s, _ in recorded_orders]
    assert len(set(seeds)) == 3
    assert not set(seeds) & {session_case(c.case, i).seed for i in range(3)}
    assert all(p.sessions == 1 and p.target_seconds == pytest.approx(policy.target_seconds / 3)
               for _, _, p in recorded_orders)
    # The samples of every target, session by session, as many of each per session.
    assert c.sessions == 3 and set(c.session_counts) == {"candidate", "numpy", "c-autopar"}
    assert len(set(c.session_counts.values())) == 1
    assert all(sum(n) == len(c.samples_ns[t]) for t, n in c.session_counts.items())
    assert c.timing.sessions == c.speedup_numpy.sessions == g.speedup_numpy.sessions == 3
    # The document says how many sessions and what the gate makes of the speedup.
    doc = grade_document(g)
    assert doc["cases"][0]["sessions"] == 3
    assert doc["speedup_vs_numpy"]["sessions"] == 3 and doc["speedup_vs_numpy"]["verdict"] in VERDICTS
    # The record keeps which samples came from which session.
    db = connect(tmp_path / "judge.db")
    save_grade(db, g)
    stored = load_grade(db, g.id)["cases"][0]
    assert stored["sessions"] == 3
    assert {t: tuple(n) for t, n in stored["session_counts"].items()} == c.session_counts


def test_an_unscored_edge_case_is_measured_once(corpus, toolchains, fast_policy, recorded_orders):
    k = corpus.get("gemm")
    edge = attrs.evolve(explicit_case(k, {"NI": 3, "NJ": 5, "NK": 2}), scored=False)
    g = grade_module.grade(k, candidate_from_file(EXAMPLES / "gemm.c"), [edge], toolchains,
                           policy=attrs.evolve(fast_policy, sessions=4), baseline=False)
    assert g.status == "ok", g.message
    assert len(recorded_orders) == 1 and g.cases[0].sessions == 1


def test_a_wrong_answer_ends_the_case_at_its_session(corpus, toolchains, fast_policy, recorded_orders):
    k = corpus.get("gemm")
    wrong = Candidate((CANDIDATES / "gemm_off_by_one.c").read_text(), "c")
    g = grade_module.grade(k, wrong, [preset_case(k, "S")], toolchains,
                           policy=attrs.evolve(fast_policy, sessions=4), baseline=False)
    assert g.status == "incorrect" and len(recorded_orders) == 1


def test_a_memo_seen_in_one_session_is_not_forgotten(corpus, toolchains, recorded_orders):
    k = corpus.get("gemm")
    memo = Candidate((EXPLOITS / "memoize_by_input.c").read_text(), "c", label="memo")
    policy = Policy(sessions=3, target_seconds=0.6, min_repetitions=60, fresh_fraction=0.0)
    g = grade_module.grade(k, memo, [preset_case(k, "S")], toolchains, policy=policy, baseline=False)
    assert g.status == "implausible" and g.cases[0].flag == "memoized", (g.status, g.message)
    assert len(recorded_orders) <= 3 and g.cases[0].sessions == len(recorded_orders)


def test_input_sets_of_two_sessions_differ(corpus):
    k = corpus.get("gemm")
    case = preset_case(k, "S")
    seeds = {input_set_case(session_case(case, s), i).seed for s in range(4) for i in range(-2, 20)}
    assert len(seeds) == 4 * 22
    assert session_case(case, 0) == case


def test_the_drivers_input_sets_are_the_inputs_without_the_poisoned_outputs(corpus):
    """The driver poisons each target's out arrays itself: a set it makes carries none, and
    its inputs are those make_inputs gives with them."""
    from hpcab.case import make_inputs
    from hpcab.timing.trusted.inputs import InputSets
    k = corpus.get("gemm")
    case = explicit_case(k, {"NI": 5, "NJ": 6, "NK": 7})
    sets = InputSets(k, case, 1 << 20)
    made, full = sets.make(0), make_inputs(k, input_set_case(case, 0))
    assert set(made) == set(sets.inputs) and not (set(made) & {a.name for a in k.arrays if a.intent == "out"})
    assert all(np.array_equal(made[n], full[n]) for n in made)
    s000 = corpus.get("s000_add_one")
    lean = make_inputs(s000, explicit_case(s000, {"N": 10}), outputs=False)
    assert "a" not in lean and "a" in make_inputs(s000, explicit_case(s000, {"N": 10}))


def test_with_the_grade_secret_no_session_seed_follows_from_public_data(corpus):
    k = corpus.get("gemm")
    case = preset_case(k, "S")
    secret, other = b"s" * 32, b"t" * 32
    seeds = [session_case(case, s, secret).seed for s in range(8)]
    public = {session_case(case, s).seed for s in range(8)}
    assert len(set(seeds)) == 8 and not set(seeds) & public and case.seed not in seeds
    assert seeds == [session_case(case, s, secret).seed for s in range(8)]            # the grade's own, stable
    assert not set(seeds) & {session_case(case, s, other).seed for s in range(8)}      # another grade's differ
    # The sizes, the kernel and the visibility stay the case's: only the seed is secret.
    assert attrs.evolve(session_case(case, 3, secret), seed=case.seed) == case


def _runners_below(pid: int) -> dict[int, bytes]:
    """The measuring runners below pid (through bubblewrap where sandboxed), by pid: their
    command lines."""
    from tests.conftest import descendants
    out = {}
    for child in descendants(pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"hpcab.timing.untrusted.runner" in cmdline and not cmdline.startswith(b"bwrap"):
            out[child] = cmdline
    return out


def test_one_driver_keeps_the_judges_runners_within_a_case_and_no_candidates(corpus, toolchains, fast_policy):
    from hpcab.grade import CANDIDATE, NUMPY
    from hpcab.timing.records import Target
    from hpcab.timing.session import Driver, run_case
    from hpcab.timing.untrusted.harness import build_harness
    k = corpus.get("gemm")
    library = candidate_from_file(EXAMPLES / "gemm.c")
    from hpcab.build import build
    built = build(library, toolchains)
    harness = build_harness(k, toolchains).library
    targets = [Target(CANDIDATE, "c", built.library), Target(NUMPY, "python", trusted=True)]
    small = explicit_case(k, {"NI": 40, "NJ": 44, "NK": 48})
    with Driver() as driver:
        first = run_case(k, session_case(small, 0), targets, harness, fast_policy, driver)
        after_first = _runners_below(driver.proc.pid)
        second = run_case(k, session_case(small, 1), targets, harness, fast_policy, driver)
        after_second = _runners_below(driver.proc.pid)
        other = run_case(k, explicit_case(k, {"NI": 30, "NJ": 20, "NK": 10}), targets, harness, fast_policy, driver)
        after_other = _runners_below(driver.proc.pid)
        pid = driver.proc.pid
    assert first.status == second.status == other.status == "ok"
    # Between sessions only the NumPy reference's runner lives on (the candidate's ended with
    # its session), the same process for the case's next session, a new one for another case.
    assert len(after_first) == 1 and after_second == after_first
    assert len(after_other) == 1 and after_other.keys() != after_first.keys()
    # The driver and everything below it end with it.
    assert not Path(f"/proc/{pid}").exists() or b"zombie" in Path(f"/proc/{pid}/status").read_bytes().lower()
    assert not _runners_below(pid)
