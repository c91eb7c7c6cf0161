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
IMAGE_DIGEST_VAR = "HPCAB_IMAGE_DIGEST"         # inside an image: sha256:<its SIF's sha256>
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
    oci_config_digest: str | None   # None: built from a .def file (no OCI config)
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


def exec_prefix(entry: ImageEntry, binds: list[Path], gpus: int = 0, digest: str | None = None) -> list[str]:
    """`apptainer exec` with each bind (absolute, deduplicated, sorted, mounted at the same
    path), the GPU flag of the image's hardware when the role uses GPUs, then the SIF; the
    role's command follows. The environment is kept (no --cleanenv): the roles need
    HPCAB_* and SLURM_* variables. digest: the SIF's verified sha256, passed in as
    HPCAB_IMAGE_DIGEST so that every grade made inside records the image it ran in."""
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
    if digest is not None:
        argv += ["--env", f"{IMAGE_DIGEST_VAR}=sha256:{digest}"]
    argv.append(str(path))
    return argv


def entry_for_digest(lock: ImageLock, digest: str) -> ImageEntry | None:
    """The lock's image whose SIF has this digest (sha256:<hex> or <hex>), if any."""
    hexdigest = digest.removeprefix("sha256:")
    return next((e for e in lock.images if e.sif_sha256 == hexdigest), None)


# ---- recording a built image: hpcab images add / versions -------------------------------------

def docker_archive_config_digest(archive: Path) -> str:
    """sha256:<hex> of the image config inside a docker-archive tar (what nixpkgs'
    streamLayeredImage writes and `apptainer build ... docker-archive:` reads): the file that
    manifest.json's Config names. It lists the layers' uncompressed digests, so it names the
    image's content whatever the compression."""
    import tarfile
    where = str(archive)
    try:
        with tarfile.open(archive) as tar:
            try:
                manifest = json.load(tar.extractfile("manifest.json"))
            except KeyError:
                raise InputError(where, "manifest.json", "not a docker-archive: it holds no manifest.json") from None
            if not isinstance(manifest, list) or len(manifest) != 1 or "Config" not in manifest[0]:
                raise InputError(where, "manifest.json", "expected a list of exactly one image with a Config entry")
            name = manifest[0]["Config"]
            try:
                config = tar.extractfile(name).read()
            except (KeyError, AttributeError):
                raise InputError(where, "manifest.json[0].Config", f"names {name!r}, which the archive does not hold") \
                    from None
    except (tarfile.TarError, OSError) as exc:
        raise InputError(where, "", f"cannot read the archive: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(where, "manifest.json", f"not valid JSON: {exc}") from None
    return "sha256:" + hashlib.sha256(config).hexdigest()


def add_entry(lock_path: Path, entry: dict) -> dict:
    """Write one image's entry into the lock (replacing an entry of the same name; the file
    is created if missing), checked against the schema before the file is replaced."""
    lock_path = Path(lock_path)
    data = {"images": []}
    if lock_path.exists():
        load_lock(lock_path)                        # a broken lock is reported, never overwritten
        data = json.loads(lock_path.read_text())
    data["images"] = sorted([e for e in data["images"] if e["name"] != entry["name"]] + [entry],
                            key=lambda e: e["name"])
    validate(data, "images.lock", lock_path)
    tmp = lock_path.with_name(lock_path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, lock_path)
    return entry


def installed_versions() -> dict[str, str]:
    """The versions of the tools on this machine (inside an image: the image's), as the lock
    records them: every compiler toolchains/ declares that is installed, Python and NumPy."""
    import platform

    import numpy as np

    from hpcab.toolchain import load_toolchains
    out = {}
    for name, c in sorted(load_toolchains().compilers.items()):
        version = c.installed_version()
        if version not in ("missing", "unknown"):
            out[name] = version
    out["python"], out["numpy"] = platform.python_version(), np.__version__
    return out


# ---- hpcab images verify ----------------------------------------------------------------------

def _is_path(arg: str) -> bool:
    return "/" in arg or arg.endswith(".sif") or os.path.isfile(arg)


def _path_row(lock: ImageLock, arg: str) -> dict:
    """A SIF file named on the command line: which image of the lock it is, by its digest.
    Else a mismatch against the image whose sif is this file, or 'unlocked' when the lock
    has no such file and no such digest."""
    path = Path(os.path.abspath(arg))
    same_file = next((e for e in lock.images if e.path == path), None)
    row = {"name": same_file.name if same_file else "-", "file": str(path),
           "expected": same_file.sif_sha256 if same_file else "", "actual": None}
    if not path.is_file():
        return {**row, "ok": False, "state": "missing", "error": f"{path}: no such file"}
    try:
        actual = sha256_file(path)
    except OSError as exc:
        return {**row, "ok": False, "state": "unreadable", "error": f"{path}: cannot be read ({exc.strerror})"}
    match = entry_for_digest(lock, actual)
    if match is not None:
        return {**row, "name": match.name, "expected": match.sif_sha256, "actual": actual, "ok": True,
                "state": "ok", "error": ""}
    if same_file is not None:
        return {**row, "actual": actual, "ok": False, "state": "mismatch",
                "error": f"{path} has sha256 {actual}, but the lock ({lock.path}) expects {same_file.sif_sha256} "
                         f"for image {same_file.name!r}"}
    return {**row, "actual": actual, "ok": False, "state": "unlocked",
            "error": f"{path} has sha256 {actual}, which no image of the lock ({lock.path}) has"}


def verify_rows(lock: ImageLock, names: list[str] | None = None) -> list[dict]:
    """One row per image checked: all the lock's, or those named, where an argument is an
    image's name or a SIF file's path (a path holds '/', ends with .sif or is a file; an
    unknown name is an InputError). Each row: name, file, expected, actual (None when not
    read), ok, state (ok | mismatch | missing | unreadable | remote | unlocked) and error
    (why, or "")."""
    wanted = names or lock.names
    # Names are looked up first: an unknown one fails before any file is hashed.
    targets = [a if a not in lock.names and _is_path(a) else lock.entry(a) for a in wanted]
    rows = []
    for e in targets:
        if isinstance(e, str):
            rows.append(_path_row(lock, e))
            continue
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
