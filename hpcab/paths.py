"""Where the project's data folders live: a checkout's root, or HPCAB_ROOT."""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    env = os.environ.get("HPCAB_ROOT")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parent.parent


def corpus_dir() -> Path:
    return project_root() / "corpus"


def schemas_dir() -> Path:
    return project_root() / "schemas"


def toolchains_dir() -> Path:
    return project_root() / "toolchains"


def skills_dir() -> Path:
    return project_root() / "skills"


def cache_dir() -> Path:
    """Build cache: HPCAB_CACHE, else the user's cache folder."""
    env = os.environ.get("HPCAB_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hpcab"
