"""The corpus: discovery of kernels under corpus/, selectors, and the content hash."""

from __future__ import annotations

import hashlib
from pathlib import Path

import attrs

from hpcab.errors import InputError
from hpcab.kernel import Kernel, load_kernel
from hpcab.paths import corpus_dir


@attrs.frozen
class Corpus:
    root: Path
    kernels: tuple[Kernel, ...]

    def get(self, name_or_id: str) -> Kernel:
        for k in self.kernels:
            if name_or_id in (k.name, k.id):
                return k
        raise InputError("kernel", name_or_id, f"no such kernel in {self.root}; `hpcab list` shows them")

    def select(self, selector: str | None) -> tuple[Kernel, ...]:
        """A comma-separated list of kernel names or IDs, tracks, dwarfs and levels (L1, L2, L3)."""
        if not selector or selector.strip() in ("all", "*"):
            return self.kernels
        chosen: list[Kernel] = []
        for term in (t.strip() for t in selector.split(",")):
            if not term:
                continue
            hits = [k for k in self.kernels if _matches(k, term)]
            if not hits:
                raise InputError("selector", term, "matches no kernel name, track, dwarf or level (L1, L2, L3)")
            chosen += [k for k in hits if k not in chosen]
        return tuple(chosen)

    def content_hash(self) -> str:
        return content_hash(self.root)


def _matches(k: Kernel, term: str) -> bool:
    if term in (k.name, k.id, k.track, k.dwarf):
        return True
    return term.upper() in ("L1", "L2", "L3") and k.level == int(term[1])


def kernel_dirs(root: Path) -> list[Path]:
    """Every folder holding <folder>.yaml, sorted."""
    return sorted(p.parent for p in root.rglob("*.yaml") if p.stem == p.parent.name)


def load_corpus(root: Path | None = None) -> Corpus:
    root = Path(root) if root else corpus_dir()
    kernels = tuple(load_kernel(d, root) for d in kernel_dirs(root))
    names = {}
    for k in kernels:
        if k.name in names:
            raise InputError(str(k.manifest_path), "path", f"kernel name {k.name!r} is also used by {names[k.name]}")
        names[k.name] = k.id
    return Corpus(root, kernels)


def content_hash(root: Path) -> str:
    """sha256 over every manifest and reference (path and bytes), so a grade names the corpus it used."""
    h = hashlib.sha256()
    for path in sorted(p for p in Path(root).rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(str(path.relative_to(root)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()
