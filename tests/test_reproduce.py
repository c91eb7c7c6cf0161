"""`hpcab reproduce`: a recorded grade graded again, natively, from the judge database; a
grade from another image refused (or, allowed, its differences reported); and the record's
image digest (docs/images.md)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hpcab.record import MIGRATIONS, connect
from hpcab.reproduce import SpeedupCheck, differences, find_grade

from .conftest import edit_manifest

ROOT = Path(__file__).resolve().parent.parent
FAST = ("--target-seconds", "0.05", "--sessions", "2", "--workers", "1")
OTHER_IMAGE = "sha256:" + "ab" * 32


def hpcab(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The CLI in a child process: each run probes its own compiler versions (they are cached
    per process) and reads its own environment."""
    return subprocess.run([sys.executable, "-m", "hpcab", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "COLUMNS": "200", **(env or {})}, cwd=cwd)


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """A grade made by a real judge (POST /submit: public and hidden cases), its database,
    and the judge stopped: what `hpcab reproduce` reads after a campaign."""
    tmp = tmp_path_factory.mktemp("judged")
    db, url_file = tmp / "judge.db", tmp / "judge.url"
    env = {**os.environ, "HPCAB_SLOT_DIR": str(tmp / "slots")}
    env.pop("HPCAB_IMAGE_DIGEST", None)
    proc = subprocess.Popen([sys.executable, "-m", "hpcab", "serve", "--db", str(db), "--port", "0", "--kernels",
                             "gemm", "--url-file", str(url_file), "--log", str(tmp / "judge.log"), *FAST],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        import time
        deadline = time.monotonic() + 60
        while not url_file.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "the judge did not start"
            time.sleep(0.1)
        from hpcab.client import JudgeClient
        doc = JudgeClient(url_file.read_text().strip()).submit_file("gemm", ROOT / "examples" / "gemm.c")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert doc["correct"] and doc["image_digest"] == "native"
    return db, doc["id"]


def copy_db(judged, tmp_path) -> Path:
    db = tmp_path / "judge.db"
    src = sqlite3.connect(judged[0])
    dst = sqlite3.connect(db)
    src.backup(dst)
    src.close()
    dst.close()
    return db


def test_a_judge_grade_is_reproduced_natively_from_the_database(judged, tmp_path):
    db = copy_db(judged, tmp_path)
    grade_id = judged[1]
    run = hpcab("reproduce", grade_id[:10], "--db", str(db), "--json")
    assert run.returncode in (0, 1), run.stderr
    doc = json.loads(run.stdout)
    assert doc["grade_id"] == grade_id
    assert doc["correctness_reproduced"] and doc["status"] == {"recorded": "ok", "now": "ok"}
    # Every recorded case was graded again, hidden ones included (their seeds are in the record).
    conn = connect(db)
    recorded = conn.execute("SELECT label, visibility FROM grade_cases WHERE grade_id = ? ORDER BY idx",
                            (grade_id,)).fetchall()
    assert [c["label"] for c in doc["cases"]] == [r["label"] for r in recorded]
    assert {r["visibility"] for r in recorded} == {"public", "hidden"}
    row = conn.execute("SELECT * FROM grades WHERE id = ?", (grade_id,)).fetchone()
    numpy = next(s for s in doc["speedups"] if s["name"] == "vs_numpy")
    assert numpy["recorded"] == {"value": row["speedup_numpy"],
                                 "ci95": [row["speedup_numpy_low"], row["speedup_numpy_high"]]}
    assert numpy["now"]["ci95"][0] <= numpy["now"]["value"] <= numpy["now"]["ci95"][1]
    # The verdict is what the stated test says (its outcome is a timing, not asserted here).
    assert doc["reproduced"] == (run.returncode == 0) == all(s["reproduced"] for s in doc["speedups"])
    assert "ratio" in doc["speedup_test"]
    assert numpy["reproduced"] == (numpy["ratio"]["ci95"][0] <= 1 <= numpy["ratio"]["ci95"][1])
    assert doc["image"] == {"recorded": "native", "now": "native", "same": True}
    # Same machine, same software: nothing in the fingerprint differs.
    assert doc["environment_differences"] == []
    # The re-run is not written into the judge's database.
    assert conn.execute("SELECT COUNT(*) FROM grades WHERE id = ?", (doc["new_grade_id"],)).fetchone()[0] == 0


def test_a_grade_from_another_image_is_refused_unless_allowed_and_then_differences_are_listed(judged, tmp_path):
    db = copy_db(judged, tmp_path)
    grade_id = judged[1]
    refused = hpcab("reproduce", grade_id, "--db", str(db), env={"HPCAB_IMAGE_DIGEST": OTHER_IMAGE})
    assert refused.returncode == 2
    err = " ".join(refused.stderr.split())
    assert f"ran in image native, but this environment is {OTHER_IMAGE}" in err
    assert "--allow-different-image" in err and f"image_digest: native → {OTHER_IMAGE}" in err
    assert refused.stdout == ""                           # refused before any grading
    allowed = hpcab("reproduce", grade_id, "--db", str(db), "--allow-different-image", "--json",
                    env={"HPCAB_IMAGE_DIGEST": OTHER_IMAGE})
    assert allowed.returncode in (0, 1), allowed.stderr
    doc = json.loads(allowed.stdout)
    assert doc["image"] == {"recorded": "native", "now": OTHER_IMAGE, "same": False}
    assert {"field": "image_digest", "recorded": "native", "now": OTHER_IMAGE} in doc["environment_differences"]
    assert doc["correctness_reproduced"]


def test_a_changed_benchmark_definition_is_reported(judged, tmp_path):
    """Another corpus (one unrelated kernel's description edited) is another environment:
    the corpus hash differs, and the report says so."""
    db = copy_db(judged, tmp_path)
    root = tmp_path / "root"
    for part in ("corpus", "schemas", "toolchains"):
        shutil.copytree(ROOT / part, root / part)
    manifest = next(p for p in sorted((root / "corpus").rglob("*.yaml")) if "gemm" not in str(p))
    edit_manifest(manifest, lambda doc: doc.update(description=doc["description"] + " (edited)"))
    run = hpcab("reproduce", judged[1], "--db", str(db), "--json", env={"HPCAB_ROOT": str(root)})
    assert run.returncode in (0, 1), run.stderr
    fields = {d["field"]: d for d in json.loads(run.stdout)["environment_differences"]}
    assert set(fields) == {"corpus_hash"}
    assert fields["corpus_hash"]["recorded"] != fields["corpus_hash"]["now"]


def test_a_different_correctness_or_a_disjoint_speedup_is_not_reproduced(judged, tmp_path):
    db = copy_db(judged, tmp_path)
    grade_id = judged[1]
    conn = sqlite3.connect(db)
    # The record claims a speedup far outside anything this candidate reaches.
    conn.execute("UPDATE grades SET speedup_numpy = 1000, speedup_numpy_low = 999, speedup_numpy_high = 1001 "
                 "WHERE id = ?", (grade_id,))
    conn.commit()
    run = hpcab("reproduce", grade_id, "--db", str(db))
    assert run.returncode == 1, run.stdout + run.stderr
    text = " ".join(run.stdout.split())
    assert "NOT REPRODUCED: a speedup differs from the recorded one: its ratio's 95% interval excludes 1" in text
    assert "test: the ratio now/recorded" in text
    # ... and then that it was wrong on its first case.
    conn.execute("UPDATE grades SET status = 'incorrect' WHERE id = ?", (grade_id,))
    conn.execute("UPDATE grade_cases SET status = 'incorrect' WHERE grade_id = ? AND idx = 0", (grade_id,))
    conn.commit()
    doc = json.loads(hpcab("reproduce", grade_id, "--db", str(db), "--json").stdout)
    assert not doc["correctness_reproduced"] and not doc["reproduced"]
    assert doc["cases"][0]["recorded"] == "incorrect" and doc["cases"][0]["now"] == "ok"


def test_unknown_grades_and_databases_are_clear_errors(judged, tmp_path):
    db = copy_db(judged, tmp_path)
    run = hpcab("reproduce", "feedfacefeed", "--db", str(db))
    assert run.returncode == 2 and "feedfacefeed: no such grade in the database" in run.stderr
    run = hpcab("reproduce", "feedface", "--db", str(tmp_path / "missing.db"))
    assert run.returncode == 2 and "no such judge database" in run.stderr
    assert not (tmp_path / "missing.db").exists()
    conn = connect(db)
    with pytest.raises(Exception, match="no such grade"):
        find_grade(conn, "abc")                     # too short to be a prefix


def test_a_malformed_image_digest_is_refused_where_it_is_read(monkeypatch):
    from hpcab.environment import image_digest
    from hpcab.errors import InputError
    monkeypatch.setenv("HPCAB_IMAGE_DIGEST", "sha256:XYZ")
    with pytest.raises(InputError, match="HPCAB_IMAGE_DIGEST.*expected sha256:<64 lower-case hex digits>"):
        image_digest()
    monkeypatch.setenv("HPCAB_IMAGE_DIGEST", OTHER_IMAGE)
    assert image_digest() == OTHER_IMAGE
    monkeypatch.delenv("HPCAB_IMAGE_DIGEST")
    assert image_digest() == "native"


# ---- the comparison, on plain data ------------------------------------------------------------

def test_two_speedups_reproduce_when_their_ratio_interval_holds_1():
    # Overlapping intervals whose ratio is still within the noise: reproduced.
    same = SpeedupCheck("vs_numpy", (2.0, 1.9, 2.1), (2.1, 2.0, 2.2))
    assert same.reproduced and same.ratio[1] < 1 < same.ratio[2]
    assert same.ratio[0] == pytest.approx(2.1 / 2.0)
    # Overlapping intervals (1.9-2.1 and 2.08-2.32) whose ratio excludes 1: a 10 % change
    # against intervals of +-5 %: the test calls it different where an overlap check would not.
    moved = SpeedupCheck("vs_numpy", (2.0, 1.9, 2.1), (2.2, 2.08, 2.32))
    assert moved.ratio[1] > 1 and not moved.reproduced
    # Wide intervals (five sessions of a noisy machine) forgive what narrow ones do not.
    assert SpeedupCheck("vs_numpy", (2.0, 1.6, 2.5), (2.24, 1.8, 2.8)).reproduced
    assert SpeedupCheck("vs_numpy", None, (2.3, 2.2, 2.4)).reproduced is None


def test_fingerprint_differences_are_flattened_and_a_new_field_is_not_one():
    then = {"id": "a", "compilers": {"gcc": "12.2.0", "gfortran": "12.2.0"}, "numpy": "2.4.6",
            "cpu_flags": ["avx", "avx2", "fma"]}
    now = {"id": "b", "compilers": {"gcc": "14.2.0", "gfortran": "12.2.0"}, "numpy": "2.4.6",
           "cpu_flags": ["avx", "avx512f", "fma"], "added_later": 1}
    diffs = differences(then, now)
    assert [d[0] for d in diffs] == ["compilers.gcc", "cpu_flags"]
    assert diffs[0][1:] == ("12.2.0", "14.2.0")
    assert "not here: avx2" in diffs[1][1] and "new: avx512f" in diffs[1][2]


def test_migration_6_takes_each_old_grades_image_from_its_fingerprint(tmp_path):
    """A database written before the image column: each grade's image comes from its
    fingerprint, and hidden edge cases are marked unscored."""
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    for i, migration in enumerate(MIGRATIONS[:5]):
        conn.executescript(migration)
        conn.execute(f"PRAGMA user_version = {i + 1}")
    for env_id, image in (("e1", OTHER_IMAGE), ("e2", None)):
        fp = {"id": env_id, **({"image_digest": image} if image else {})}
        conn.execute("INSERT INTO environments (id, fingerprint) VALUES (?, ?)", (env_id, json.dumps(fp)))
    for gid, env_id in (("g1", "e1"), ("g2", "e2")):
        conn.execute("INSERT INTO grades (id, created_at, kernel, language, compiler, compiler_version, flagset, "
                     "label, source_sha256, source, build_key, build_diagnostics, status, correct, message, policy, "
                     "environment_id) VALUES (?, '', 'k', 'c', 'gcc', '12', 'opt', '', '', '', '', '', 'ok', 1, '', "
                     "'{}', ?)", (gid, env_id))
    for idx, label in enumerate(("S", "hidden-S", "hidden-S-edge")):
        conn.execute("INSERT INTO grade_cases (grade_id, idx, label, sizes, seed, visibility, status, correct, "
                     "message) VALUES ('g1', ?, ?, '{}', 0, 'public', 'ok', 1, '')", (idx, label))
    conn.commit()
    conn.close()
    conn = connect(db)
    assert dict(conn.execute("SELECT id, image_digest FROM grades").fetchall()) == {"g1": OTHER_IMAGE,
                                                                                      "g2": "native"}
    assert [r[0] for r in conn.execute("SELECT scored FROM grade_cases ORDER BY idx")] == [1, 1, 0]


FAKE_APPTAINER = """#!/bin/sh
# A stand-in for Apptainer, which cannot run here: logs its command line, sets each --env,
# skips the binds and the GPU flags, and runs the command after the SIF on this machine.
echo "$@" >> "$FAKE_APPTAINER_LOG"
shift
while [ $# -gt 0 ]; do
    case "$1" in
        --bind) shift 2 ;;
        --env) export "$2"; shift 2 ;;
        --nv|--rocm) shift ;;
        *) break ;;
    esac
done
shift
exec "$@"
"""


def test_a_grade_from_an_image_in_the_lock_is_reproduced_inside_that_image(judged, tmp_path):
    """The grade says it ran in image X; the lock lists X with its SIF here: reproduce
    verifies the SIF and re-runs itself under `apptainer exec` with X's digest (a stand-in
    apptainer: no Apptainer runtime exists here). Without apptainer it refuses and says why."""
    import hashlib
    db = copy_db(judged, tmp_path)
    grade_id = judged[1]
    sif = tmp_path / "judge-cpu.sif"
    sif.write_bytes(os.urandom(2048))
    digest = hashlib.sha256(sif.read_bytes()).hexdigest()
    conn = sqlite3.connect(db)
    conn.execute("UPDATE grades SET image_digest = ? WHERE id = ?", (f"sha256:{digest}", grade_id))
    conn.execute("UPDATE environments SET fingerprint = json_set(fingerprint, '$.image_digest', ?) WHERE id = "
                 "(SELECT environment_id FROM grades WHERE id = ?)", (f"sha256:{digest}", grade_id))
    conn.commit()
    lock = tmp_path / "images.lock.json"
    lock.write_text(json.dumps({"images": [{
        "name": "judge-cpu", "role": "judge", "hardware": "cpu", "sif": "judge-cpu.sif", "sif_sha256": digest,
        "oci_config_digest": "sha256:" + "c" * 64, "toolchains": {"gcc": "14"}, "apptainer_version": "1.5.1"}]}))

    refused = hpcab("reproduce", grade_id, "--db", str(db), "--lock", str(lock))
    assert refused.returncode == 2
    err = " ".join(refused.stderr.split())
    assert "the lock's image 'judge-cpu'" in err and "no apptainer is on PATH" in err

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "apptainer").write_text(FAKE_APPTAINER)
    (bin_dir / "apptainer").chmod(0o755)
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')     # the image's python
    (bin_dir / "python").chmod(0o755)
    log = tmp_path / "apptainer.log"
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "FAKE_APPTAINER_LOG": str(log)}
    run = hpcab("reproduce", grade_id, "--db", str(db), "--lock", str(lock), "--json", env=env, cwd=tmp_path)
    assert run.returncode in (0, 1), run.stderr
    assert "ran in image judge-cpu" in run.stderr and "re-running inside it" in run.stderr
    [line] = log.read_text().splitlines()
    assert line.startswith("exec --bind ")
    assert f"--env HPCAB_IMAGE_DIGEST=sha256:{digest} {sif} python -m hpcab reproduce {grade_id} --db {db} --json" \
        in line
    doc = json.loads(run.stdout)
    assert doc["image"] == {"recorded": f"sha256:{digest}", "now": f"sha256:{digest}", "same": True}
    assert doc["correctness_reproduced"] and doc["environment_differences"] == []

    sif.write_bytes(b"another build")            # the SIF is no longer the one the lock records
    changed = hpcab("reproduce", grade_id, "--db", str(db), "--lock", str(lock), env=env, cwd=tmp_path)
    assert changed.returncode == 2 and "refusing to launch" in changed.stderr
