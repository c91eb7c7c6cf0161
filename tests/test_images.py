"""The image lock, the SIF's verification and the apptainer command line (no Apptainer here:
real files, real hashes, the command line as a list)."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hpcab.errors import InputError
from hpcab.launch.images import ImageLock, default_lock_path, exec_prefix, load_lock, verify, verify_rows
from tests.conftest import ROOT

OCI = "sha256:" + "c" * 64


def entry(name, sif, sha, role="judge", hardware="cpu", **extra):
    return {"name": name, "role": role, "hardware": hardware, "sif": sif, "sif_sha256": sha,
            "oci_config_digest": OCI, "toolchains": {"gcc": "13.2.0", "python": "3.11.9"},
            "apptainer_version": "1.5.0", **extra}


def write_lock(folder, images, **top):
    path = folder / "images.lock.json"
    path.write_text(json.dumps({"images": images, **top}, indent=2))
    return path


@pytest.fixture
def two_images(tmp_path):
    """judge-cpu: a SIF of random bytes (several 1 MiB blocks) that matches the lock;
    agent-gpu: one whose recorded digest is another file's."""
    good = os.urandom(3 * (1 << 20) + 12345)
    bad = os.urandom(1000)
    (tmp_path / "sif").mkdir()
    (tmp_path / "sif" / "judge.sif").write_bytes(good)
    (tmp_path / "sif" / "agent.sif").write_bytes(bad)
    good_sha = hashlib.sha256(good).hexdigest()
    bad_sha = hashlib.sha256(bad).hexdigest()
    recorded = hashlib.sha256(b"the build that was published").hexdigest()
    lock = write_lock(tmp_path, [entry("judge-cpu", "sif/judge.sif", good_sha, built_at="2025-01-01T00:00:00Z"),
                                 entry("agent-gpu", str(tmp_path / "sif" / "agent.sif"), recorded, role="agent",
                                       hardware="nvidia")],
                      comment="test lock")
    return lock, good_sha, bad_sha, recorded


def test_verify_matching_and_mismatching(two_images, tmp_path, monkeypatch):
    lock_path, good_sha, bad_sha, recorded = two_images
    monkeypatch.chdir(tmp_path.parent)          # a relative sif is read from the lock's folder, not the cwd
    lock = load_lock(lock_path)
    assert isinstance(lock, ImageLock) and lock.names == ["judge-cpu", "agent-gpu"] and lock.comment == "test lock"
    judge = lock.entry("judge-cpu")
    assert judge.path == tmp_path / "sif" / "judge.sif"
    assert judge.toolchains == {"gcc": "13.2.0", "python": "3.11.9"} and judge.built_at == "2025-01-01T00:00:00Z"
    assert verify(judge) == good_sha

    with pytest.raises(InputError) as exc:
        verify(lock.entry("agent-gpu"))
    err = exc.value
    assert err.source == str(lock_path) and err.field == "images[1].sif_sha256"
    for part in ("'agent-gpu'", str(tmp_path / "sif" / "agent.sif"), bad_sha, recorded, "refusing to launch"):
        assert part in str(err), part


def test_missing_sif_is_named(two_images, tmp_path):
    lock_path, *_ = two_images
    (tmp_path / "sif" / "judge.sif").unlink()
    with pytest.raises(InputError) as exc:
        verify(load_lock(lock_path).entry("judge-cpu"))
    assert exc.value.field == "images[0].sif"
    assert str(tmp_path / "sif" / "judge.sif") in str(exc.value) and "does not exist" in str(exc.value)
    assert "'judge-cpu'" in str(exc.value) and "refusing to launch" in str(exc.value)


def test_remote_sif_cannot_be_verified_or_run(tmp_path):
    lock = load_lock(write_lock(tmp_path, [entry("pub", "oras://ghcr.io/x/judge:1", "a" * 64)]))
    e = lock.entry("pub")
    assert e.path is None
    with pytest.raises(InputError, match="apptainer pull"):
        verify(e)
    with pytest.raises(InputError, match="local, verified file"):
        exec_prefix(e, [])


def test_verify_rows_states(two_images, tmp_path):
    lock_path, good_sha, bad_sha, recorded = two_images
    lock = load_lock(lock_path)
    rows = verify_rows(lock)
    assert [(r["name"], r["state"], r["actual"]) for r in rows] == [("judge-cpu", "ok", good_sha),
                                                                    ("agent-gpu", "mismatch", bad_sha)]
    (tmp_path / "sif" / "agent.sif").unlink()
    (row,) = verify_rows(lock, ["agent-gpu"])
    assert row["state"] == "missing" and row["actual"] is None and not row["ok"] and "does not exist" in row["error"]


def test_unknown_image_lists_known_names(two_images):
    lock = load_lock(two_images[0])
    with pytest.raises(InputError) as exc:
        lock.entry("inference-amd")
    assert "'inference-amd'" in str(exc.value) and "judge-cpu, agent-gpu" in str(exc.value)


def test_duplicate_names_name_the_index(tmp_path):
    sha = "b" * 64
    path = write_lock(tmp_path, [entry("a", "a.sif", sha), entry("b", "b.sif", sha), entry("a", "c.sif", sha)])
    with pytest.raises(InputError) as exc:
        load_lock(path)
    assert exc.value.source == str(path) and exc.value.field == "images[2].name"
    assert "images[0]" in exc.value.message


@pytest.mark.parametrize("change, field", [
    ({"sif_sha256": "ABC"}, "images[0].sif_sha256"),
    ({"sif_sha256": "A" * 64}, "images[0].sif_sha256"),             # lower-case hex only
    ({"oci_config_digest": "c" * 64}, "images[0].oci_config_digest"),  # needs its sha256: prefix
    ({"role": "grader"}, "images[0].role"),
    ({"hardware": "tpu"}, "images[0].hardware"),
    ({"toolchains": {"gcc": 13}}, "images[0].toolchains.gcc"),
    ({"apptainer_version": "latest"}, "images[0].apptainer_version"),
    ({"name": "bad name"}, "images[0].name"),
    ({"tag": "x"}, "images[0].tag"),
    ({"toolchains": None}, "images[0].toolchains"),
])
def test_schema_errors_name_the_field(tmp_path, change, field):
    image = {**entry("a", "a.sif", "b" * 64), **change}
    image = {k: v for k, v in image.items() if v is not None}
    path = write_lock(tmp_path, [image])
    with pytest.raises(InputError) as exc:
        load_lock(path)
    assert exc.value.source == str(path) and exc.value.field == field, str(exc.value)


def test_lock_file_errors(tmp_path):
    with pytest.raises(InputError, match="no such image lock"):
        load_lock(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{images: []")
    with pytest.raises(InputError, match="not valid JSON") as exc:
        load_lock(bad)
    assert exc.value.source == str(bad)
    with pytest.raises(InputError) as exc:
        load_lock(write_lock(tmp_path, [], extra=1))
    assert exc.value.field == "extra"


def test_example_lock_is_valid():
    lock = load_lock(default_lock_path())
    assert lock.path == ROOT / "apptainer" / "images.lock.json"
    assert "network access" in lock.comment
    for e in lock.images:
        assert len(e.sif_sha256) == 64


def test_exec_prefix_cpu_nvidia_amd(tmp_path, monkeypatch):
    sha = "b" * 64
    lock = load_lock(write_lock(tmp_path, [entry("cpu", "cpu.sif", sha), entry("nv", "nv.sif", sha, hardware="nvidia"),
                                           entry("amd", "/images/amd.sif", sha, hardware="amd")]))
    run, slot = tmp_path / "run", tmp_path / "slot"
    monkeypatch.chdir(tmp_path)
    binds = [slot, run, tmp_path / "run" / ".." / "run", Path("run")]
    cpu = exec_prefix(lock.entry("cpu"), binds)
    assert cpu == ["apptainer", "exec", "--bind", f"{run}:{run}", "--bind", f"{slot}:{slot}", str(tmp_path / "cpu.sif")]
    assert "--cleanenv" not in cpu          # the roles read HPCAB_* and SLURM_* from the environment
    assert exec_prefix(lock.entry("cpu"), []) == ["apptainer", "exec", str(tmp_path / "cpu.sif")]

    assert exec_prefix(lock.entry("nv"), [run], gpus=1) == ["apptainer", "exec", "--bind", f"{run}:{run}", "--nv",
                                                             str(tmp_path / "nv.sif")]
    assert "--nv" not in exec_prefix(lock.entry("nv"), [run], gpus=0)
    assert exec_prefix(lock.entry("amd"), [], gpus=2) == ["apptainer", "exec", "--rocm", "/images/amd.sif"]
    with pytest.raises(InputError) as exc:
        exec_prefix(lock.entry("cpu"), [], gpus=1)
    assert exc.value.field == "images[0].hardware" and "1 GPU" in str(exc.value)
    with pytest.raises(Exception, match="cannot bind"):
        exec_prefix(lock.entry("cpu"), [tmp_path / "a:b"])


def hpcab(*args):
    return subprocess.run([sys.executable, "-m", "hpcab", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)


def test_cli_images_verify(two_images, tmp_path):
    lock_path, good_sha, bad_sha, recorded = two_images
    ok = hpcab("images", "verify", "--lock", str(lock_path), "judge-cpu")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    for col in ("name", "file", "expected", "actual", "ok", "judge-cpu"):
        assert col in ok.stdout
    assert "agent-gpu" not in ok.stdout
    assert good_sha[:16] in ok.stdout            # the table shortens the digests

    (tmp_path / "sif" / "judge.sif").unlink()
    out = hpcab("images", "verify", "--lock", str(lock_path))
    assert out.returncode == 1, out.stdout + out.stderr
    assert "MISSING" in out.stdout and "MISMATCH" in out.stdout
    # Each failure in full below the table: the image, the file and both digests.
    assert bad_sha in out.stdout and recorded in out.stdout and "does not exist" in out.stdout

    unknown = hpcab("images", "verify", "--lock", str(lock_path), "nope")
    assert unknown.returncode == 2 and "'nope'" in unknown.stderr and "judge-cpu" in unknown.stderr


def test_cli_images_verify_by_path(two_images, tmp_path):
    """A SIF file named by its path: which image of the lock it is, found by its digest."""
    lock_path, good_sha, bad_sha, recorded = two_images
    copy = tmp_path / "elsewhere" / "copy.sif"
    copy.parent.mkdir()
    copy.write_bytes((tmp_path / "sif" / "judge.sif").read_bytes())
    ok = hpcab("images", "verify", "--lock", str(lock_path), str(copy))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "judge-cpu" in ok.stdout and good_sha[:16] in ok.stdout
    # The lock's own file for agent-gpu, whose bytes are not the recorded ones: a mismatch.
    bad = hpcab("images", "verify", "--lock", str(lock_path), str(tmp_path / "sif" / "agent.sif"))
    assert bad.returncode == 1 and "MISMATCH" in bad.stdout
    assert f"has sha256 {bad_sha}, but the lock ({lock_path}) expects {recorded} for image 'agent-gpu'" in \
        " ".join(bad.stdout.split()).replace("… ", "")
    stranger = tmp_path / "stranger.sif"
    stranger.write_bytes(b"not any image of the lock")
    out = hpcab("images", "verify", "--lock", str(lock_path), str(stranger), str(tmp_path / "gone.sif"))
    assert out.returncode == 1 and "UNLOCKED" in out.stdout and "MISSING" in out.stdout
    text = " ".join(out.stdout.split())
    assert "which no image of the lock" in text and "gone.sif: no such file" in text


def docker_archive(path, config: bytes) -> None:
    """A docker-archive tar as streamLayeredImage writes it: manifest.json naming the config."""
    import io
    import tarfile
    name = hashlib.sha256(config).hexdigest() + ".json"
    manifest = json.dumps([{"Config": name, "RepoTags": ["judge-cpu:latest"], "Layers": []}]).encode()
    with tarfile.open(path, "w") as tar:
        for member, data in (("manifest.json", manifest), (name, config)):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_images_add_records_a_built_image_that_verify_then_accepts(tmp_path):
    from hpcab.launch.images import docker_archive_config_digest
    config = json.dumps({"architecture": "amd64", "rootfs": {"type": "layers", "diff_ids": []}}).encode()
    docker_archive(tmp_path / "judge-cpu.tar", config)
    assert docker_archive_config_digest(tmp_path / "judge-cpu.tar") == "sha256:" + hashlib.sha256(config).hexdigest()
    sif = tmp_path / "images" / "judge-cpu.sif"
    sif.parent.mkdir()
    sif.write_bytes(os.urandom(5000))
    lock = tmp_path / "images.lock.json"
    write_lock(tmp_path, [entry("agent-cpu", "other.sif", "d" * 64, role="agent")])
    versions = tmp_path / "versions.json"
    versions.write_text(json.dumps({"gcc": "14.2.1", "python": "3.11.14"}))
    add = hpcab("images", "add", "--lock", str(lock), "--name", "judge-cpu", "--sif", str(sif), "--docker-archive",
                str(tmp_path / "judge-cpu.tar"), "--apptainer-version", "1.5.1", "--toolchains-json", str(versions))
    assert add.returncode == 0, add.stdout + add.stderr
    lock_doc = json.loads(lock.read_text())
    assert [e["name"] for e in lock_doc["images"]] == ["agent-cpu", "judge-cpu"]     # the other entry is kept
    new = lock_doc["images"][1]
    assert new["sif"] == "images/judge-cpu.sif" and new["role"] == "judge" and new["hardware"] == "cpu"
    assert new["sif_sha256"] == hashlib.sha256(sif.read_bytes()).hexdigest()
    assert new["oci_config_digest"] == "sha256:" + hashlib.sha256(config).hexdigest()
    assert new["toolchains"] == {"gcc": "14.2.1", "python": "3.11.14"} and new["apptainer_version"] == "1.5.1"
    assert hpcab("images", "verify", "--lock", str(lock), "judge-cpu").returncode == 0
    # Without --toolchains-json the versions are the ones toolchains/ declares for the image.
    again = hpcab("images", "add", "--lock", str(lock), "--name", "judge-cpu", "--sif", str(sif),
                  "--oci-config-digest", "sha256:" + "e" * 64, "--apptainer-version", "1.5.1")
    assert again.returncode == 0, again.stderr
    [judge] = [e for e in json.loads(lock.read_text())["images"] if e["name"] == "judge-cpu"]
    from hpcab.toolchain import load_toolchains
    assert judge["toolchains"] == load_toolchains().matrix()["images"]["judge-cpu"]["versions"]
    # A SIF built from apptainer/judge-cpu.def has no OCI config: recorded as null, still verified.
    from_def = hpcab("images", "add", "--lock", str(lock), "--name", "judge-cpu", "--sif", str(sif),
                     "--apptainer-version", "1.5.1")
    assert from_def.returncode == 0, from_def.stderr
    assert load_lock(lock).entry("judge-cpu").oci_config_digest is None
    assert hpcab("images", "verify", "--lock", str(lock), str(sif)).returncode == 0


@pytest.mark.parametrize("args, message", [
    (["--name", "judge-tpu"], "no image 'judge-tpu'; known: agent-cpu, judge-amd, judge-cpu, judge-nvidia"),
    (["--name", "judge-cpu", "--apptainer-version", "latest"], "apptainer_version"),
    (["--name", "judge-cpu", "--docker-archive", "missing.tar"], "missing.tar: cannot read the archive"),
])
def test_images_add_refuses_bad_input_and_leaves_the_lock_alone(tmp_path, args, message):
    sif = tmp_path / "x.sif"
    sif.write_bytes(b"sif")
    lock = write_lock(tmp_path, [entry("agent-cpu", "other.sif", "d" * 64, role="agent")])
    before = lock.read_text()
    base = {"--sif": str(sif), "--apptainer-version": "1.5.0", "--oci-config-digest": "sha256:" + "e" * 64}
    given = dict(zip(args[::2], args[1::2]))
    if "--docker-archive" in given:
        base.pop("--oci-config-digest")
    argv = [a for k, v in {**base, **given}.items() for a in (k, v)]
    out = hpcab("images", "add", "--lock", str(lock), *argv)
    assert out.returncode == 2 and message in " ".join(out.stderr.split()), out.stderr
    assert lock.read_text() == before


def test_images_versions_reports_the_tools_installed_here():
    out = hpcab("images", "versions")
    assert out.returncode == 0, out.stderr
    versions = json.loads(out.stdout)
    import platform
    assert versions["python"] == platform.python_version()
    assert versions["gcc"].split(".")[0].isdigit()
    assert "nvcc" not in versions or versions["nvcc"][0].isdigit()
