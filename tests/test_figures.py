"""The figures (hpcab.analysis) on synthetic observations tables: several arms, incorrect
tasks, nulls, one row, none. Each writes PDF, PNG and CSV; the CSV is the returned table."""

from __future__ import annotations

import math
import struct
import subprocess
import sys

import polars as pl
import pytest
from matplotlib import colors as mcolors

from hpcab.analysis import figures, style
from hpcab.analysis.figures import FIGURES, OBS_DTYPES, signed_log_label, signed_log_ticks
from tests.conftest import ROOT

TRACKS = {"gemm": ("dense_linear_algebra", "dense_linear_algebra"), "jacobi_2d": ("structured_grids",
                                                                                   "structured_grids"),
          "s271_conditional": ("loop_level_reasoning", None), "softmax": ("machine_learning", None)}


def row(**kw) -> dict:
    """One observation with the contract's columns, defaults filled in."""
    kernel_name = kw.pop("kernel_name", "gemm")
    track, dwarf = TRACKS.get(kernel_name, ("misc", None))
    correct = kw.get("correct", True)
    sp = kw.pop("speedup", 2.0 if correct else None)
    r = {
        "experiment": "exp1", "run": "exp1-run0", "arm": "llm", "optimizer": "llm", "model": "some-model",
        "leg": 0, "judge_rank": 0, "db": "judge-0.db", "agent": "worker-0", "kernel": f"{track}/{kernel_name}",
        "kernel_name": kernel_name, "track": track, "dwarf": dwarf, "level": 1, "submission_id": "s1",
        "received_at": "2026-01-01T00:00:00Z", "state": "graded", "grade_id": "g1", "language": "c",
        "compiler": "gcc", "flagset": "opt", "label": "c@opt", "status": "correct" if correct else "incorrect",
        "correct": correct, "review": None, "baseline": "numpy", "speedup": sp,
        "speedup_low": sp * 0.9 if sp is not None and math.isfinite(sp) else None,
        "speedup_high": sp * 1.1 if sp is not None and math.isfinite(sp) else None,
        "speedup_numpy": sp, "speedup_numpy_low": None, "speedup_numpy_high": None,
        "model_calls": 3, "prompt_tokens": 1000, "completion_tokens": 200, "cached_tokens": 0, "tokens": 1200,
        "spend_usd": 0.01, "agent_wall_seconds": 30.0, "image_digest": "native", "environment_id": "env1",
        "cpu_model": "Some CPU", "hpcab_version": "0.1.0", "final": True,
    }
    r.update(kw)
    return r


def table(rows: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=OBS_DTYPES, orient="row") if rows else pl.DataFrame(schema=OBS_DTYPES)


def no_cost(**kw) -> dict:
    """A non-LLM optimizer's row: no model calls, no spend."""
    return row(**{"optimizer": kw.get("arm", "autotune"), "model": None, "model_calls": 0, "prompt_tokens": 0,
                  "completion_tokens": 0, "tokens": 0, "spend_usd": None, **kw})


def campaign() -> pl.DataFrame:
    rows = []
    for i, k in enumerate(TRACKS):
        # llm: two submissions per task, the second final; one kernel incorrect
        rows.append(row(kernel_name=k, submission_id=f"a{i}", final=False, correct=False, tokens=500))
        rows.append(row(kernel_name=k, submission_id=f"b{i}", speedup=[3.0, 0.4, 17.0, None][i],
                        correct=i != 3, tokens=800 + 100 * i))
        # autotune: no tokens; one NaN speedup (correct but unmeasured); one implausible unreviewed
        rows.append(no_cost(arm="autotune", kernel_name=k, speedup=[1.2, float("nan"), None, 0.7][i],
                            correct=i != 2, status="implausible" if i == 2 else "correct",
                            agent_wall_seconds=5.0 + i))
        # translator: no cost at all; a task without a submission
        rows.append(no_cost(arm="translator", kernel_name=k, agent_wall_seconds=None, speedup=1.5 if i else None,
                            correct=bool(i), submission_id=None if i == 0 else f"t{i}",
                            grade_id=None if i == 0 else f"tg{i}", status=None if i == 0 else "correct",
                            state="none" if i == 0 else "graded"))
    # a second experiment with the llm arm again: the same colour
    rows.append(row(experiment="exp2", run="exp2-run0", kernel_name="gemm", speedup=5.0))
    return table(rows)


CASES = {
    "campaign": campaign,
    "one_arm": lambda: campaign().filter(pl.col("arm") == "llm"),
    "one_row": lambda: table([row()]),
    "one_incorrect_row": lambda: table([row(correct=False, spend_usd=None, tokens=0, agent_wall_seconds=None)]),
    "empty": lambda: table([]),
    "all_null_speedups": lambda: table([row(kernel_name=k, speedup=None) for k in TRACKS]),
}


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", FIGURES)
def test_figure_writes_pdf_png_and_its_table(tmp_path, name, case):
    fig, data = figures.draw(name, CASES[case]())
    w, h = fig.get_size_inches()
    paths = style.save(fig, data, tmp_path, name)
    assert {p.name for p in tmp_path.iterdir()} == {f"{name}.pdf", f"{name}.png", f"{name}.csv"}
    assert paths["pdf"].read_bytes().startswith(b"%PDF")
    assert png_size(paths["png"]) == (round(w * style.DPI), round(h * style.DPI))
    back = pl.read_csv(paths["csv"], schema=data.schema)
    assert back.equals(data), f"{name}.csv differs from the figure's table"
    if case == "empty":
        assert data.height == 0


def test_output_is_deterministic(tmp_path):
    t = campaign()
    names = ("speedup_vs_spend", "kernel_speedups")     # style.save is the same for all five
    for out in ("a", "b"):
        for name in names:
            style.save(*figures.draw(name, t), tmp_path / out, name)
    for name in names:
        for ext in ("pdf", "png", "csv"):
            assert (tmp_path / "a" / f"{name}.{ext}").read_bytes() == (tmp_path / "b" / f"{name}.{ext}").read_bytes()


def test_signed_log_labels_and_ticks():
    assert [signed_log_label(k) for k in (-3, -2, -1, 0, 1, 2, 3)] == ["1/8×", "1/4×", "1/2×", "1×", "2×", "4×",
                                                                        "8×"]
    assert signed_log_ticks(-0.3, 0.2) == [-1, 0, 1]
    assert signed_log_ticks(-2.5, 4.1) == [-3, -2, -1, 0, 1, 2, 3, 4, 5]
    wide = signed_log_ticks(-20, 30)
    assert 0 in wide and len(wide) <= 13 and wide[0] <= -20 and wide[-1] >= 30


def test_kernel_speedups_draws_on_the_signed_log_scale():
    fig, data = figures.kernel_speedups(campaign())
    fig.canvas.draw()
    ax = fig.axes[0]
    ticks = {round(t): lab.get_text() for t, lab in zip(ax.get_xticks(), ax.get_xticklabels())}
    assert ticks[0] == "1×" and ticks[2] == "4×" and ticks[-2] == "1/4×"
    # 17× is ~ 4.09 in log2 units: a bar reaching past 4; 0.4× a bar to the left
    widths = sorted(round(p.get_width(), 3) for p in ax.patches if p.get_height() > 0)
    assert widths[0] == round(math.log2(0.4), 3) and widths[-1] == round(math.log2(17.0), 3)
    assert any(t >= math.log2(17.0) for t in ax.get_xticks())
    # the incorrect task (llm on softmax) and the no-submission one have no speedup
    llm = data.filter((pl.col("arm") == "llm") & (pl.col("experiment") == "exp1"))
    assert llm.filter(pl.col("kernel_name") == "softmax").get_column("speedup").to_list() == [None]
    # the kernel names are the rows, and the figure grows with them
    assert [t.get_text() for t in ax.get_yticklabels()] == data.select("kernel", "kernel_name").unique(
        maintain_order=True).get_column("kernel_name").to_list()
    small, _ = figures.kernel_speedups(campaign().filter(pl.col("kernel_name") == "gemm"))
    assert small.get_size_inches()[1] < fig.get_size_inches()[1]


def test_tables_count_what_they_should():
    t = campaign()
    _, counts = figures.correctness_by_track(t)
    assert counts.get_column("tasks").sum() == t.filter("final").height
    loop = counts.filter((pl.col("track") == "loop_level_reasoning") & (pl.col("arm") == "autotune")).row(0, named=True)
    assert loop["implausible_unreviewed"] == 1 and loop["correct"] == 0
    dense = counts.filter((pl.col("track") == "dense_linear_algebra") & (pl.col("arm") == "translator")).row(
        0, named=True)
    assert dense["no_submission"] == 1
    _, q = figures.tokens_per_task(t)
    # a task's tokens are summed over its submissions (500 before the final 800 on gemm)
    llm = q.filter((pl.col("arm") == "llm") & (pl.col("experiment") == "exp1")).row(0, named=True)
    assert llm["tasks"] == 4 and llm["min"] == 1300 and llm["max"] == 1600
    zero = q.filter(pl.col("arm") == "autotune").row(0, named=True)
    assert zero["tasks"] == 4 and zero["max"] == 0
    _, pts = figures.speedup_vs_spend(t)
    measure = dict(pts.select("arm", "cost_measure").unique().iter_rows())
    assert measure == {"llm": "spend_usd", "autotune": "agent_wall_seconds", "translator": None}


def test_arm_colours_are_distinct_and_the_same_in_every_figure():
    many = style.arm_colours([f"arm{i}" for i in range(30)])
    assert len(set(many.values())) == 30
    assert style.arm_colours(["b", "a"]) == style.arm_colours(["a", "b", "a"])
    t = campaign()
    # an arm's bars (kernel_speedups) and its points (speedup_vs_spend) share a colour, even when
    # one figure shows fewer arms than the table has
    colours = {a: c.lower() for a, c in figures.colours_for(t).items()}
    fig, _ = figures.kernel_speedups(t)
    bar_colours = {mcolors.to_hex(p.get_facecolor(), keep_alpha=False) for p in fig.axes[0].patches}
    assert colours["llm"] in bar_colours and colours["autotune"] in bar_colours
    fig, _ = figures.speedup_vs_spend(t)
    dots = {mcolors.to_hex(c, keep_alpha=False) for ax in fig.axes for coll in ax.collections
            for c in list(coll.get_facecolors()) + list(coll.get_edgecolors())}
    assert colours["llm"] in dots and colours["autotune"] in dots and colours["translator"] not in dots


def test_scripts_write_their_files(tmp_path):
    obs = tmp_path / "observations.csv"
    campaign().write_csv(obs)
    out = subprocess.run([sys.executable, str(ROOT / "analysis" / "kernel_speedups.py"), "--obs", str(obs),
                          "--out", str(tmp_path / "figs")], check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == ["kernel_speedups.csv", "kernel_speedups.pdf",
                                                                    "kernel_speedups.png"]
    parquet = tmp_path / "observations.parquet"
    campaign().write_parquet(parquet)
    assert figures.load_observations(parquet).equals(figures.load_observations(obs))
    bad = subprocess.run([sys.executable, str(ROOT / "analysis" / "all_figures.py"), "--obs",
                          str(tmp_path / "missing.parquet")], check=False, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "missing.parquet" in bad.stderr


def gated() -> pl.DataFrame:
    """Speedups of 1.3× measurably faster ([1.1, 1.6]) and not ([0.9, 1.8]), and one measurably slower."""
    return table([
        row(kernel_name="gemm", speedup=1.3, speedup_low=1.1, speedup_high=1.6),
        row(kernel_name="jacobi_2d", speedup=1.3, speedup_low=0.9, speedup_high=1.8, submission_id="s2"),
        row(kernel_name="softmax", speedup=0.7, speedup_low=0.5, speedup_high=0.9, submission_id="s3"),
    ])


def _legend_texts(fig) -> list[str]:
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def test_no_measurable_difference_is_drawn_lighter():
    fig, kt = figures.kernel_speedups(gated())
    verdicts = dict(zip(kt["kernel_name"].to_list(), kt["verdict"].to_list()))
    assert verdicts == {"gemm": "faster", "jacobi_2d": "no measurable difference", "softmax": "slower"}
    # each bar's length is log2 of its speedup; the one whose CI includes 1 is filled lighter
    alpha = {round(p.get_width(), 6): p.get_facecolor()[3] for p in fig.axes[0].patches if p.get_height() > 0}
    assert set(alpha) == {round(math.log2(1.3), 6), round(math.log2(0.7), 6)}
    faint = [p for p in fig.axes[0].patches if p.get_height() > 0 and p.get_facecolor()[3] == figures.LIGHT]
    rows = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(faint) == 1 and faint[0].get_y() + faint[0].get_height() / 2 == pytest.approx(rows.index("jacobi_2d"))
    assert sum(p.get_facecolor()[3] == pytest.approx(0.9) for p in fig.axes[0].patches if p.get_height() > 0) == 2
    assert figures.NO_DIFFERENCE_LABEL in _legend_texts(fig)
    # a table where every CI excludes 1 has no lighter bar and no legend entry for it
    fig, _ = figures.kernel_speedups(gated().filter(pl.col("kernel_name") != "jacobi_2d"))
    assert all(p.get_facecolor()[3] != figures.LIGHT for p in fig.axes[0].patches)
    assert figures.NO_DIFFERENCE_LABEL not in _legend_texts(fig)


def test_no_measurable_difference_points_and_arm_bars_are_lighter():
    fig, pts = figures.speedup_vs_spend(gated())
    assert dict(zip(pts["kernel_name"].to_list(), pts["verdict"].to_list()))["jacobi_2d"] == "no measurable difference"
    faces = [(tuple(c), len(coll.get_offsets())) for coll in fig.axes[0].collections for c in coll.get_facecolors()]
    assert [n for c, n in faces if c[3] == pytest.approx(figures.LIGHT)] == [1]     # the one point
    assert [n for c, n in faces if c[3] == pytest.approx(0.85)] == [2]              # the other two, solid
    assert figures.NO_DIFFERENCE_LABEL in _legend_texts(fig)
    # per arm: 1.3, 1.3 and 0.7 have a bootstrap CI that includes 1; a sure 3x does not
    two = pl.concat([gated(), table([row(arm="b", kernel_name=k, speedup=3.0, submission_id=f"b{i}")
                                     for i, k in enumerate(TRACKS)])])
    fig, summary = figures.speedup_summary(two)
    assert dict(zip(summary["arm"].to_list(), summary["verdict"].to_list())) == {
        "b": "faster", "llm": "no measurable difference"}
    bars = {round(p.get_height(), 6): p.get_facecolor()[3] for p in fig.axes[0].patches}
    assert bars[round(3.0 - 1.0, 6)] == pytest.approx(0.85) and figures.LIGHT in bars.values()
    assert figures.NO_DIFFERENCE_LABEL in _legend_texts(fig)


def test_a_table_without_verdict_columns_still_draws(tmp_path):
    old = gated().drop("verdict", "verdict_numpy")          # written before the columns existed
    obs = tmp_path / "old.csv"
    old.write_csv(obs)
    loaded = figures.load_observations(obs)
    assert "verdict" not in loaded.columns
    for name in FIGURES:
        figures.draw(name, loaded)
    assert figures.kernel_table(loaded)["verdict"].to_list() == figures.kernel_table(gated())["verdict"].to_list()
