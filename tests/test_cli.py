"""The command line, run as a user would: a real child process."""

import json
import subprocess
import sys

from tests.conftest import CANDIDATES, EXAMPLES, ROOT


def hpcab(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "hpcab", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)


def test_list_and_selector():
    out = hpcab("list", "--kernels", "gemm,structured_grids")
    assert out.returncode == 0
    assert "gemm" in out.stdout and "jacobi_2d" in out.stdout and "softmax" not in out.stdout
    bad = hpcab("list", "--kernels", "nonsense")
    assert bad.returncode == 2 and "nonsense" in bad.stderr


def test_show_abi_prints_exactly_the_prototype():
    out = hpcab("show", "gemm", "--abi", "fortran")
    assert out.returncode == 0 and out.stdout.startswith("! hpcab ABI")
    assert "end subroutine gemm" in out.stdout
    assert hpcab("show", "nope").returncode == 2


def test_grade_correct_records_and_exits_zero(tmp_path):
    db = tmp_path / "judge.db"
    out = hpcab("grade", "gemm", "--source", str(EXAMPLES / "gemm.c"), "--db", str(db), "--target-seconds", "0.05", "--sessions", "2")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "CORRECT" in out.stdout and "over the NumPy reference" in out.stdout and "recorded in" in out.stdout
    import sqlite3
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM grades").fetchone()[0] == 1


def test_grade_incorrect_exits_nonzero_with_json():
    out = hpcab("grade", "gemm", "--source", str(CANDIDATES / "gemm_off_by_one.c"), "--json",
                "--target-seconds", "0.05", "--sessions", "2")
    assert out.returncode == 1
    doc = json.loads(out.stdout)
    assert doc["status"] == "incorrect" and doc["cases"][0]["max_abs_err"] > 0


def test_grade_bad_input_is_a_usage_error():
    out = hpcab("grade", "gemm", "--source", "no/such/file.c")
    assert out.returncode == 2 and "no/such/file.c" in out.stderr
    out = hpcab("grade", "gemm", "--source", str(EXAMPLES / "gemm.c"), "--flags", "turbo")
    assert out.returncode == 2 and "turbo" in out.stderr
    out = hpcab("grade", "gemm", "--source", str(EXAMPLES / "gemm.c"), "--preset", "XL")
    assert out.returncode == 2 and "XL" in out.stderr


def test_grade_records_a_source_that_overrides_its_flag_set(tmp_path):
    source = tmp_path / "gemm_ofast.c"
    source.write_text('#pragma GCC optimize ("Ofast")\n' + (EXAMPLES / "gemm.c").read_text())
    db = tmp_path / "judge.db"
    out = hpcab("grade", "gemm", "--source", str(source), "--json", "--db", str(db), "--target-seconds", "0.05", "--sessions", "2")
    assert out.returncode == 0, out.stdout + out.stderr
    overridden = ['line 1: #pragma GCC optimize ("Ofast")']
    assert json.loads(out.stdout)["flagset_overridden"] == overridden
    import sqlite3
    stored = sqlite3.connect(db).execute("SELECT flagset_overridden FROM grades").fetchone()[0]
    assert json.loads(stored) == overridden


def test_serve_build_timeout_option(tmp_path):
    assert "--build-timeout SECONDS" in hpcab("serve", "--help").stdout
    bad = hpcab("serve", "--db", str(tmp_path / "judge.db"), "--build-timeout", "0")
    assert bad.returncode == 2 and "--build-timeout" in bad.stderr
