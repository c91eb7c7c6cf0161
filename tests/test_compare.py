"""Arms compared (hpcab.experiments.compare; python -m hpcab.experiments compare) on planted
observations: a known factor between arms is found, identical arms are not told apart, and
the tests agree with scipy called directly on the same numbers."""

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from hpcab.experiments.compare import _hl_rank, compare, hodges_lehmann, holm, suite_score
from hpcab.experiments.extract import SCHEMA, empty_table

TRACKS = ("scientific_computing", "loop_level_reasoning", "machine_learning")
KERNELS = 16


def observations(arms: dict[str, dict], seed: int = 7) -> pl.DataFrame:
    """Final rows: each arm is {factor, solved (a set of kernel numbers; default all),
    noise, implausible (kernel numbers whose grade is flagged and not reviewed), tokens}.
    Every arm shares each kernel's base speedup, so pairing by kernel removes it."""
    rng = np.random.default_rng(seed)
    base = np.exp(rng.normal(0, 1.5, KERNELS))          # kernels differ far more than the arms
    rows = []
    for arm, spec in arms.items():
        noise = np.exp(rng.normal(0, spec.get("noise", 0.05), KERNELS))
        for i in range(KERNELS):
            solved = i in spec.get("solved", range(KERNELS))
            flagged = i in spec.get("implausible", ())
            sp = float(base[i] * spec.get("factor", 1.0) * noise[i]) if solved and not flagged else None
            rows.append({"experiment": "x", "run": f"run-{arm}", "arm": arm, "leg": 0, "agent": "worker-0",
                         "kernel": f"t/k{i}", "kernel_name": f"k{i}", "track": TRACKS[i % 3], "level": 1 + i % 2,
                         "correct": solved and not flagged, "speedup": sp,
                         "speedup_low": None if sp is None else sp * 0.95,
                         "speedup_high": None if sp is None else sp * 1.05,
                         "status": "implausible" if flagged else ("ok" if solved else "incorrect"),
                         "final": True, "tokens": spec.get("tokens", 1000), "submission_id": f"{arm}-{i}",
                         "state": "graded"})
    planted = pl.DataFrame(rows, schema={k: SCHEMA[k] for k in rows[0]})
    return pl.concat([empty_table(), planted], how="diagonal_relaxed")


def pair(c, a: str, b: str, group: str = "all") -> dict:
    return c.pairs.filter((pl.col("a") == a) & (pl.col("b") == b) & (pl.col("group") == group)).row(0, named=True)


def test_a_known_factor_is_found_and_identical_arms_are_not_told_apart():
    table = observations({"base": {}, "twice": {"factor": 2.0}, "same": {}})
    c = compare(table)
    found = pair(c, "base", "twice")
    assert found["best_wilcoxon_p"] < 0.001 and found["best_wilcoxon_p_holm"] < 0.01
    assert 1.8 < found["best_hl_low"] <= found["best_hl_ratio"] <= found["best_hl_high"] < 2.2
    assert 1.8 < found["best_gm_low"] <= found["best_gm_ratio"] <= found["best_gm_high"] < 2.2
    same = pair(c, "base", "same")
    assert same["mcnemar_p"] == 1.0 and same["solved_both"] == KERNELS and 0.9 < same["best_hl_ratio"] < 1.1
    # Identical arms (the same agent run twice: independent noise) are told apart no more often than the
    # test's level says; the factor 2 always is.
    ps = [(pair(cs, "base", "same")["best_wilcoxon_p"], pair(cs, "base", "twice")["best_wilcoxon_p"])
          for cs in (compare(observations({"base": {}, "twice": {"factor": 2.0}, "same": {}}, seed=s), groups=())
                     for s in range(30))]
    assert sum(p < 0.05 for p, _ in ps) <= 4 and all(p < 0.001 for _, p in ps)
    # Unpaired, the kernels' own spread hides the factor: both arms' intervals overlap.
    arms = {r["arm"]: r for r in c.arms.iter_rows(named=True)}
    assert arms["twice"]["geomean_low"] < arms["base"]["geomean_high"]
    # Per track too (a third of the kernels each).
    assert pair(c, "base", "twice", "track=machine_learning")["best_n"] == len(range(2, KERNELS, 3))


def test_the_tests_agree_with_scipy_called_directly():
    table = observations({"a": {"solved": set(range(12))}, "b": {"factor": 1.3, "noise": 0.3,
                                                                "solved": set(range(4, 16))}})
    c = compare(table, groups=())
    row = pair(c, "a", "b")
    assert (row["solved_a_only"], row["solved_b_only"], row["solved_both"], row["solved_neither"]) == (4, 4, 8, 0)
    assert row["mcnemar_p"] == pytest.approx(sps.binomtest(4, 8, 0.5).pvalue)
    k = c.kernels
    both = k.filter(pl.col("arm") == "a").join(k.filter(pl.col("arm") == "b"), on="kernel", suffix="_b") \
        .filter(pl.col("solved") & pl.col("solved_b"))
    d = np.log(both["best_speedup_b"].to_numpy()) - np.log(both["best_speedup"].to_numpy())
    assert row["best_n"] == d.size == 8
    assert row["best_wilcoxon_p"] == pytest.approx(sps.wilcoxon(d).pvalue)
    assert row["best_wilcoxon_w"] == pytest.approx(sps.wilcoxon(d).statistic)
    walsh = [(d[i] + d[j]) / 2 for i in range(d.size) for j in range(i, d.size)]
    assert row["best_hl_ratio"] == pytest.approx(math.exp(np.median(walsh)))
    # A discordance of 6 to 0: McNemar's exact p is 2 / 2**6.
    lopsided = compare(observations({"a": {}, "b": {"solved": set(range(10))}}), groups=())
    assert pair(lopsided, "a", "b")["mcnemar_p"] == pytest.approx(2 / 2 ** 6)


def test_hodges_lehmann_interval_ranks_match_the_signed_rank_table():
    # Two-sided 95 %: the signed-rank test's critical values (n=6: 0, 8: 3, 10: 8, 20: 52, 30: 137) plus one.
    assert [_hl_rank(n, 0.95) for n in (6, 8, 10, 20, 30)] == [1, 4, 9, 53, 138]
    assert _hl_rank(5, 0.95) == 0 and math.isnan(hodges_lehmann(np.arange(5.0))[1])   # no 95 % interval from 5
    est, low, high = hodges_lehmann(np.arange(1.0, 11.0))
    assert est == 5.5 and low < 5.5 < high
    # Its coverage, over many samples of a known shift: about 95 % (never much under).
    rng = np.random.default_rng(3)
    hits = sum(lo <= 0.3 <= hi for lo, hi in (hodges_lehmann(rng.normal(0.3, 1, 12))[1:] for _ in range(400)))
    assert hits / 400 > 0.92


def test_holm_is_applied_across_the_pairs_within_each_group():
    assert holm([0.01, 0.04, 0.03, math.nan]) == pytest.approx([0.03, 0.06, 0.06, math.nan], nan_ok=True)
    c = compare(observations({"a": {}, "b": {"factor": 1.5}, "c": {"factor": 1.1, "noise": 0.2}}))
    overall = c.pairs.filter(pl.col("group") == "all")
    assert overall.height == 3
    assert overall["best_wilcoxon_p_holm"].to_list() == pytest.approx(holm(overall["best_wilcoxon_p"].to_list()))
    assert (overall["best_wilcoxon_p_holm"] >= overall["best_wilcoxon_p"]).all()
    assert "Holm's correction across the pairs of arms" in "\n".join(c.lines())


def test_unreviewed_implausible_grades_are_excluded_and_counted():
    c = compare(observations({"a": {}, "b": {"factor": 2.0, "implausible": {0, 5}}}), groups=())
    row = pair(c, "a", "b")
    assert row["excluded"] == 2 and row["kernels"] == KERNELS - 2 and row["solved_b_only"] == 0
    assert c.arms.filter(pl.col("arm") == "b")["excluded"].item() == 2


def test_best_and_mean_of_k_over_repeated_attempts():
    one = observations({"a": {}, "b": {"factor": 2.0}}, seed=1)
    again = observations({"b": {"factor": 4.0, "solved": set(range(8))}}, seed=1).with_columns(
        pl.lit("run-b2").alias("run"))
    c = compare(pl.concat([one, again]), groups=())
    kb = c.kernels.filter(pl.col("arm") == "b").sort("kernel_name")
    assert kb["attempts"].unique().to_list() == [2]
    k0 = c.kernels.filter((pl.col("arm") == "b") & (pl.col("kernel_name") == "k0")).row(0, named=True)
    k15 = c.kernels.filter((pl.col("arm") == "b") & (pl.col("kernel_name") == "k15")).row(0, named=True)
    assert k0["solved_rate"] == 1.0 and k15["solved_rate"] == 0.5 and k15["solved"]
    assert k0["best_speedup"] > k0["mean_speedup"]              # the 4x attempt is the best, the mean between
    row = pair(c, "a", "b")
    assert row["best_gm_ratio"] > row["mean_gm_ratio"] > 1.5


def test_the_seed_suites_clamped_score():
    kernels = pl.DataFrame({"solved": [True, True, False, True], "best_speedup": [0.5, 200.0, None, 4.0]})
    assert suite_score(kernels) == pytest.approx((1 * 100 * 1 * 4) ** 0.25)


# ---- the command, on run folders -------------------------------------------------------------

EIGHT = ("scientific_computing/dense_linear_algebra/gemm", "scientific_computing/dense_linear_algebra/atax",
         "scientific_computing/structured_grids/jacobi_2d", "machine_learning/softmax", "machine_learning/relu",
         "machine_learning/layernorm", "loop_level_reasoning/s000_add_one",
         "loop_level_reasoning/s311_sum")


def two_arm_runs(root):
    """runs/: arm translator (one run) and arm autotune (one run), the same 8 kernels; autotune
    2-3x faster on each, and one kernel solved by translator only."""
    from tests.test_experiments import add_submission, close, judge_db, run_folder
    speeds = {"translator": [1.0, 0.8, 1.2, 0.9, 1.1, 1.0, 0.7, 1.3],
              "autotune": [2.4, 2.0, 3.1, 2.2, 2.5, 2.1, 1.9, None]}
    for i, (arm, values) in enumerate(speeds.items()):
        run = run_folder(root / "runs", f"cmp-2026010{i}-000000", {"experiment": "cmp", "arm": arm,
                                                                     "optimizer": arm, "kernels": "x"})
        conn = judge_db(run / "judge-0.db")
        for j, (kernel, sp) in enumerate(zip(EIGHT, values)):
            add_submission(conn, f"{arm}-{j}", "worker-0", kernel, f"2026-01-01T00:00:{j:02d}.000Z",
                           grade=("ok", sp) if sp is not None else ("incorrect", None))
        close(conn)
    return root / "runs"


def test_the_command_prints_the_tests_and_writes_the_tables_and_figures(tmp_path):
    import subprocess
    import sys
    from tests.conftest import ROOT
    runs = two_arm_runs(tmp_path)
    out = tmp_path / "cmp"
    proc = subprocess.run([sys.executable, "-m", "hpcab.experiments", "compare", "--runs", str(runs / "cmp-*"),
                           "--out", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "translator vs autotune [all]: 8 kernels (0 excluded); solved A only 0, B only 1, both 7" in text
    assert "translator vs autotune [track=machine_learning]: 3 kernels" in text
    assert "McNemar p 1" in text and "Wilcoxon p 0.016" in text and "Hodges-Lehmann" in text
    assert "suite score (clamped to [1, 100], unsolved 1)" in text
    for name in ("arms", "pairs", "kernels"):
        assert (out / f"{name}.csv").stat().st_size > 0
    for name in ("paired_scatter", "spend_change", "arm_summary"):
        assert all((out / f"{name}.{ext}").stat().st_size > 0 for ext in ("pdf", "png", "csv")), name
    pairs = pl.read_csv(out / "pairs.csv")
    row = pairs.filter(pl.col("group") == "all").row(0, named=True)
    assert row["a"] == "autotune" and row["b"] == "translator" and row["best_n"] == 7
    assert row["best_wilcoxon_p"] == pytest.approx(sps.wilcoxon(np.log([1.0 / 2.4, 0.8 / 2.0, 1.2 / 3.1, 0.9 / 2.2,
                                                                         1.1 / 2.5, 1.0 / 2.1, 0.7 / 1.9])).pvalue)
    bad = subprocess.run([sys.executable, "-m", "hpcab.experiments", "compare", "--runs", str(runs / "cmp-*"),
                          "--by", "colour"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert bad.returncode == 2 and "no column 'colour'" in bad.stderr
