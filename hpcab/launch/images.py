"""The image lock (schemas/images.lock.schema.json) and the Apptainer command a role runs under.

    lock = load_lock("apptainer/images.lock.json")
    entry = lock.entry("judge-cpu")
    verify(entry)                                   # the SIF's sha256 against the lock, or InputError
    argv = exec_prefix(entry, [run_dir], gpus=0) + role_command

An arm role with `image: NAME` runs its command under `apptainer exec ... SIF`, but only after
the SIF's sha256 matched the lock: a mismatch or a missing file refuses to launch. The
environment is not cleaned (`--cleanenv` is not passed): the roles read HPCAB_* and SLURM_*
variables. docs/images.md.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import attrs

from hpcab.errors import HpcabError, InputError
from hpcab.paths import project_root
from hpcab.schema import validate

BLOCK = 1 << 20                                 # verify() reads the SIF 1 MiB at a time
GPU_FLAGS = {"nvidia": "--nv", "amd": "--rocm"}
REMOTE_SCHEMES = ("http://", "https://", "oras://", "library://", "docker://", "shub://")


def default_lock_path() -> Path:
    return project_root() / "apptainer" / "images.lock.json"


@attrs.frozen
class ImageEntry:
    name: str
    role: str                       # judge | agent | inference
    hardware: str                   # cpu | nvidia | amd
    sif: str                        # as written in the lock
    sif_sha256: str
    oci_config_digest: str
    toolchains: dict = attrs.field(factory=dict, hash=False)
    apptainer_version: str = ""
    built_at: str | None = None
    lock: Path = Path()             # the lock file it comes from
    index: int = 0                  # its place in the lock's images (for errors: images[i].field)

    @property
    def is_remote(self) -> bool:
        return self.sif.startswith(REMOTE_SCHEMES)

    @property
    def path(self) -> Path | None:
        """The local SIF file (a relative path resolved against the lock's folder), or None
        when the lock gives a URL."""
        if self.is_remote:
            return None
        sif = self.sif[len("file://"):] if self.sif.startswith("file://") else self.sif
        p = Path(sif).expanduser()
        return p if p.is_absolute() else Path(os.path.abspath(self.lock.parent / p))

    def where(self, field: str) -> str:
        return f"images[{self.index}].{field}"


@attrs.frozen
class ImageLock:
    path: Path
    images: tuple[ImageEntry, ...]
    comment: str = ""

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.images]

    def entry(self, name: str) -> ImageEntry:
        for e in self.images:
            if e.name == name:
                return e
        known = ", ".join(self.names) or "none: the lock lists no image"
        raise InputError(str(self.path), "images", f"no image named {name!r}; known images: {known}")


def load_lock(path: Path | str | None = None) -> ImageLock:
    """Read and check a lock file (default apptainer/images.lock.json); every error names the
    file and the field."""
    path = Path(path) if path is not None else default_lock_path()
    if not path.is_file():
        raise InputError(str(path), "", "no such image lock file")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(str(path), "", f"not valid JSON: {exc}") from None
    validate(data, "images.lock", path)
    seen: dict[str, int] = {}
    images = []
    for i, d in enumerate(data["images"]):
        if d["name"] in seen:
            raise InputError(str(path), f"images[{i}].name",
                             f"{d['name']!r} is already the name of images[{seen[d['name']]}]; names are unique")
        seen[d["name"]] = i
        images.append(ImageEntry(d["name"], d["role"], d["hardware"], d["sif"], d["sif_sha256"],
                                 d["oci_config_digest"], dict(d["toolchains"]), d["apptainer_version"],
                                 d.get("built_at"), path, i))
    return ImageLock(path, tuple(images), data.get("comment", ""))


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    buf = bytearray(BLOCK)
    view = memoryview(buf)
    with open(path, "rb") as f:
        while n := f.readinto(buf):
            h.update(view[:n])
    return h.hexdigest()


def verify(entry: ImageEntry) -> str:
    """The sha256 of the entry's local SIF file, when it is the one the lock records; else
    InputError naming the image, the file and both digests: the launch is refused."""
    actual, error = _check(entry)
    if error is not None:
        raise error
    return actual


def _check(entry: ImageEntry) -> tuple[str | None, InputError | None]:
    """(the SIF's sha256 or None when it cannot be read, the error or None)."""
    path = entry.path
    if path is None:
        return None, InputError(str(entry.lock), entry.where("sif"),
                                f"image {entry.name!r}: the SIF is a URL ({entry.sif}); only a local file can be "
                                f"checked against sif_sha256: pull it (apptainer pull FILE.sif {entry.sif}) and "
                                f"point sif at the file; refusing to launch")
    if not path.is_file():
        what = "is not a file" if path.exists() else "does not exist"
        return None, InputError(str(entry.lock), entry.where("sif"),
                                f"image {entry.name!r}: the SIF file {path} {what} (expected sha256 "
                                f"{entry.sif_sha256}); refusing to launch")
    try:
        actual = sha256_file(path)
    except OSError as exc:
        return None, InputError(str(entry.lock), entry.where("sif"),
                                f"image {entry.name!r}: the SIF file {path} cannot be read ({exc.strerror}); "
                                f"refusing to launch")
    if actual != entry.sif_sha256:
        return actual, InputError(str(entry.lock), entry.where("sif_sha256"),
                                  f"image {entry.name!r}: the SIF file {path} has sha256 {actual} but the lock "
                                  f"expects {entry.sif_sha256}; refusing to launch (rebuild the image, or record "
                                  f"the new digest if this build is the one meant)")
    return actual, None


def exec_prefix(entry: ImageEntry, binds: list[Path], gpus: int = 0) -> list[str]:
    """`apptainer exec` with each bind (absolute, deduplicated, sorted, mounted at the same
    path), the GPU flag of the image's hardware when the role uses GPUs, then the SIF; the
    role's command follows. The environment is kept (no --cleanenv): the roles need
    HPCAB_* and SLURM_* variables."""
    path = entry.path
    if path is None:
        raise InputError(str(entry.lock), entry.where("sif"),
                         f"image {entry.name!r}: the SIF is a URL ({entry.sif}); apptainer exec runs a local, "
                         f"verified file only")
    mounts = set()
    for b in binds:
        p = os.path.abspath(os.fspath(b))
        if ":" in p or "," in p:
            raise HpcabError(f"image {entry.name!r}: cannot bind {p}: apptainer --bind reads ':' and ',' as "
                             f"separators, so a path holding one cannot be bound")
        mounts.add(p)
    argv = ["apptainer", "exec"]
    for p in sorted(mounts):
        argv += ["--bind", f"{p}:{p}"]
    if gpus > 0:
        flag = GPU_FLAGS.get(entry.hardware)
        if flag is None:
            raise InputError(str(entry.lock), entry.where("hardware"),
                             f"image {entry.name!r} is built for {entry.hardware}, but the role asks for "
                             f"{gpus} GPU(s): use an nvidia or amd image")
        argv.append(flag)
    argv.append(str(path))
    return argv


# ---- hpcab images verify ----------------------------------------------------------------------

def verify_rows(lock: ImageLock, names: list[str] | None = None) -> list[dict]:
    """One row per image checked (all, or those named; an unknown name is an InputError):
    name, file, expected, actual (None when not read), ok, state (ok | mismatch | missing |
    unreadable | remote) and error (the InputError's text, or "")."""
    entries = [lock.entry(n) for n in names] if names else list(lock.images)
    rows = []
    for e in entries:
        actual, error = _check(e)
        if error is None:
            state = "ok"
        elif e.path is None:
            state = "remote"
        elif actual is not None:
            state = "mismatch"
        else:
            state = "missing" if not e.path.exists() or not e.path.is_file() else "unreadable"
        rows.append({"name": e.name, "file": str(e.path) if e.path else e.sif, "expected": e.sif_sha256,
                     "actual": actual, "ok": error is None, "state": state,
                     "error": "" if error is None else str(error)})
    return rows
