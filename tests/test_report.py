"""`hpcab report` end to end: real judge databases (hpcab grade --db), the real command,
and the page loaded in headless Chromium through selenium."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hpcab.analysis.comparison import FIGURES as COMPARISON_FIGURES
from hpcab.analysis.figures import FIGURES
from tests.conftest import CANDIDATES, EXAMPLES, ROOT

SCRIPT_LABEL = "<script>alert(1)</script>"


def hpcab(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "hpcab", *args], check=False, capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)


def browser_paths() -> tuple[str | None, str | None]:
    chromium = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
    return chromium, shutil.which("chromedriver")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two run folders of one experiment, arms 'fast' and 'slow': 'fast' graded gemm and atax
    correctly, on two judges (judge-0.db, judge-1.db; atax's grade relabelled with markup),
    'slow' an incorrect gemm. The grades run at once."""
    base = tmp_path_factory.mktemp("report-runs")
    grades = {"fast": [("gemm", EXAMPLES / "gemm.c"), ("atax", EXAMPLES / "atax.cpp")],
              "slow": [("gemm", CANDIDATES / "gemm_off_by_one.c")]}
    procs = []
    for arm, items in grades.items():
        run = base / f"demo-{arm}"
        run.mkdir()
        (run / "arm.yaml").write_text(f"experiment: demo\narm: {arm}\noptimizer: {arm}\n")
        for rank, (kernel, source) in enumerate(items):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "hpcab", "grade", kernel, "--source", str(source), "--preset", "S",
                 "--db", str(run / f"judge-{rank}.db"), "--target-seconds", "0.05", "--sessions", "2"],
                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    for proc in procs:
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode in (0, 1), out       # 1: the incorrect candidate
    conn = sqlite3.connect(base / "demo-fast" / "judge-1.db")
    with conn:
        assert conn.execute("UPDATE grades SET label = ? WHERE kernel LIKE '%atax'", (SCRIPT_LABEL,)).rowcount == 1
    conn.close()
    return base


@pytest.fixture(scope="module")
def driver():
    chromium, chromedriver = browser_paths()
    if not (chromium and chromedriver):
        pytest.skip("chromium and chromedriver are not installed (CI installs them: apt-get install chromium "
                    "chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,2400",
                "--allow-file-access-from-files"):
        options.add_argument(arg)
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    yield d
    d.quit()


def test_report_usage_errors(tmp_path):
    out = hpcab("report", "--db", str(tmp_path / "missing.db"), "--out", str(tmp_path / "r"))
    assert out.returncode == 2 and f"--db {tmp_path / 'missing.db'}: no such" in out.stderr
    assert "--runs" not in out.stderr                                       # the flag the user passed, only
    assert not (tmp_path / "r").exists()
    assert hpcab("report", "--out", str(tmp_path / "r")).returncode == 2     # --db is required
    (tmp_path / "empty").mkdir()
    out = hpcab("report", "--db", str(tmp_path / "empty"), "--out", str(tmp_path / "r"))
    assert out.returncode == 2 and f"--db {tmp_path / 'empty'}: a folder holding no judge database" in out.stderr
    # an `hpcab agent --out` folder of an agent that used a remote judge: no database there
    remote = tmp_path / "remote"
    remote.mkdir()
    (remote / "results.json").write_text('{"agent": "numba", "tasks": []}')
    (remote / "agent.jsonl").write_text("")
    out = hpcab("report", "--db", str(remote), "--out", str(tmp_path / "r"))
    assert out.returncode == 2 and "without a judge database" in out.stderr and "--runs" not in out.stderr
    assert not (tmp_path / "r").exists()


def test_report_reads_an_agent_out_folder(tmp_path):
    """`hpcab agent --native --out OUT` leaves OUT/judge.db and OUT/results.json: --db OUT reads them."""
    from tests.test_experiments import GEMM, add_submission, close, judge_db
    out = tmp_path / "agent-numba"
    out.mkdir()
    conn = judge_db(out / "judge.db")
    add_submission(conn, "a1", "numba", GEMM, "2026-01-01T00:00:01.000Z", grade=("ok", 2.0))
    close(conn)
    (out / "results.json").write_text('{"agent": "numba", "tasks": [{"kernel": "%s", "wall_seconds": 6.5}]}' % GEMM)
    (out / "agent.jsonl").write_text("")
    res = hpcab("report", "--db", str(out), "--out", str(tmp_path / "r"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"1 observation(s), {len(FIGURES)} figure(s)" in res.stdout
    # the agent's wall time is its cost in the speed-vs-spend figure's data
    spend = (tmp_path / "r" / "speedup_vs_spend.csv").read_text().splitlines()
    assert len(spend) == 2 and spend[1].endswith(",agent_wall_seconds,6.5")


def test_report_opens_in_chromium(runs, driver, tmp_path):
    from selenium.webdriver.common.by import By

    out_dir = tmp_path / "report"
    res = hpcab("report", "--db", str(runs / "demo-fast"), "--db", str(runs / "demo-slow" / "judge-0.db"),
                "--out", str(out_dir))
    assert res.returncode == 0, res.stdout + res.stderr
    index = out_dir / "index.html"
    for name in ("speedup_summary", "speedup_vs_spend", "tokens_per_task", "kernel_speedups",
                 "correctness_by_track"):
        for ext in ("png", "pdf", "csv"):
            assert (out_dir / f"{name}.{ext}").is_file()
    page = index.read_text()
    assert SCRIPT_LABEL not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "http://" not in page and "https://" not in page          # nothing to fetch: opens offline

    driver.get(index.as_uri())
    # every image loaded
    images = driver.execute_script(
        "return Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth]);")
    # the six figures, then the comparison's three: two arms, paired by kernel (hpcab.experiments.compare)
    assert len(images) == len(FIGURES) + len(COMPARISON_FIGURES)
    assert all(complete and width > 0 for _, complete, width in images), images
    [pair] = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
              for tr in driver.find_elements(By.CSS_SELECTOR, "table.comparison tbody tr")]
    assert pair[:4] == ["slow vs fast", "1", "1 / 0 / 0 / 0", "1"]         # gemm: fast solved it, slow did not
    assert {f.get_attribute("id") for f in driver.find_elements(By.CSS_SELECTOR, "#comparison figure")} == {
        f"fig-{name}" for name in COMPARISON_FIGURES}
    # no script ran or was injected: the label is text
    assert driver.execute_script("return document.getElementsByTagName('script').length") == 0
    labels = [td.text for td in driver.find_elements(By.CSS_SELECTOR, "table.tasks tbody td")]
    assert SCRIPT_LABEL in labels
    # the tables have the rows expected
    arms = [tuple(td.text for td in tr.find_elements(By.TAG_NAME, "td")[:3])
            for tr in driver.find_elements(By.CSS_SELECTOR, "table.per-arm tbody tr")]
    assert [(e, a) for e, a, _ in arms] == [("demo", "fast"), ("demo", "slow")]
    assert [n for _, _, n in arms] == ["2", "1"]                       # tasks
    tasks = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
             for tr in driver.find_elements(By.CSS_SELECTOR, "table.tasks tbody tr")]
    assert sorted((t[1], t[4], t[8]) for t in tasks) == [("fast", "atax", "yes"), ("fast", "gemm", "yes"),
                                                         ("slow", "gemm", "no")]
    assert "×" in next(t[9] for t in tasks if t[1] == "fast" and t[4] == "gemm")
    from hpcab.measure import VERDICTS
    # a graded speedup has its CI, so the gate's verdict after it
    assert next(t[9] for t in tasks if t[1] == "fast" and t[4] == "gemm").endswith(VERDICTS)
    tracks = {tr.find_elements(By.TAG_NAME, "td")[2].text
              for tr in driver.find_elements(By.CSS_SELECTOR, "table.per-track tbody tr")}
    assert tracks and "(none)" not in tracks
    assert driver.find_elements(By.CSS_SELECTOR, "table.per-dwarf tbody tr")
    assert "No problems" in driver.find_element(By.ID, "problems").text
    severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    assert not severe, severe
    _screenshot(driver, tmp_path / "report.png")

    # a source it cannot read: still a report, the problem shown, exit 1
    bad = tmp_path / "broken.db"
    bad.write_bytes(b"not a database at all" * 10)
    res = hpcab("report", "--db", str(runs / "demo-slow"), "--db", str(bad), "--out", str(tmp_path / "report2"))
    assert res.returncode == 1, res.stdout + res.stderr
    assert "broken.db" in res.stderr
    driver.get((tmp_path / "report2" / "index.html").as_uri())
    box = driver.find_element(By.ID, "problems")
    assert box.is_displayed() and "broken.db" in box.text and "Problems" in box.text
    assert all(driver.execute_script(
        "return Array.from(document.images).map(i => i.complete && i.naturalWidth > 0);"))


def _screenshot(driver, path: Path) -> None:
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1300, min(max(int(height) + 100, 800), 8000))
    assert driver.save_screenshot(str(path)) and path.stat().st_size > 0
    extra = os.environ.get("HPCAB_REPORT_SCREENSHOT")
    if extra:
        Path(extra).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, extra)


def test_speedups_in_the_tables_carry_the_gates_verdict():
    import polars as pl

    from hpcab.report import _summary_table, fmt_speedup
    assert fmt_speedup(1.3, 1.1, 1.6) == "1.30× [1.10, 1.60] faster"
    assert fmt_speedup(1.3, 0.9, 1.8) == "1.30× [0.90, 1.80] no measurable difference"
    assert fmt_speedup(0.7, 0.5, 0.9) == "0.70× [0.50, 0.90] slower"
    assert fmt_speedup(3.0, float("nan"), float("nan")) == "3.00×"      # a geomean of one task: no CI, no verdict
    assert fmt_speedup(None) == "-"
    # a geometric mean over tasks: the same gate on its bootstrap CI
    summary = pl.DataFrame({"experiment": ["e", "e"], "arm": ["a", "b"], "tasks": [3, 3], "correct": [3, 2],
                            "correct_rate": [1.0, 2 / 3], "geomean": [1.3, 2.0], "geomean_low": [0.9, 1.2],
                            "geomean_high": [1.8, 3.1], "fast_1.0": [0.0, 2 / 3]})
    html = _summary_table(summary, ["experiment", "arm"], "per-arm")
    assert '1.30× [0.90, 1.80]<span class="verdict"> no measurable difference</span>' in html
    assert '2.00× [1.20, 3.10]<span class="verdict"> faster</span>' in html
