"""The environment fingerprint recorded with every grade: what a timing depends on."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import re
from pathlib import Path

import numpy as np

import hpcab
from hpcab.corpus import content_hash
from hpcab.errors import InputError
from hpcab.paths import corpus_dir
from hpcab.toolchain import Toolchains


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def cpu_info() -> dict:
    model, flags = platform.processor() or "unknown", []
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "model name" and model in ("unknown", "", platform.machine()):
                model = value.strip()
            elif key == "flags" and not flags:
                flags = value.split()
    except OSError:
        pass
    return {"model": model, "machine": platform.machine(), "logical_cpus": os.cpu_count(), "flags": sorted(flags)}


IMAGE_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def image_digest() -> str:
    """The image this process runs in: sha256:<its SIF's sha256>, which the launcher passes in
    as HPCAB_IMAGE_DIGEST after verifying the SIF against the lock; 'native' outside one."""
    value = os.environ.get("HPCAB_IMAGE_DIGEST", "").strip()
    if not value:
        return "native"
    if not IMAGE_DIGEST.fullmatch(value):
        raise InputError("HPCAB_IMAGE_DIGEST", "", f"{value!r}: expected sha256:<64 lower-case hex digits>, the "
                                                   f"SIF's sha256 (or unset outside an image)")
    return value


def fingerprint(toolchains: Toolchains, threads: int, cpus: tuple[int, ...] | None,
                corpus_root: Path | None = None) -> dict:
    cpu = cpu_info()
    env = {
        "hpcab_version": hpcab.__version__,
        "cpu_model": cpu["model"],
        "cpu_flags": cpu["flags"],
        "machine": cpu["machine"],
        "logical_cpus": cpu["logical_cpus"],
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
        # The numba baseline's compiler (loop_level_reasoning); None where it is not installed.
        "numba": _version("numba"),
        "compilers": {n: c.installed_version() for n, c in sorted(toolchains.compilers.items())},
        "corpus_hash": content_hash(corpus_root or corpus_dir()),
        "threads": threads,
        "cpus": list(cpus) if cpus else None,
        "image_digest": image_digest(),
    }
    env["id"] = hashlib.sha256(json.dumps(env, sort_keys=True).encode()).hexdigest()[:16]
    return env
