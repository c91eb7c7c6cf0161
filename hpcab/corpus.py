"""The corpus: discovery of kernels under corpus/, selectors, and the content hash."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable

import attrs

from hpcab.errors import HpcabError, InputError, did_you_mean
from hpcab.kernel import CHECK_SUFFIX, Kernel, load_kernel
from hpcab.paths import corpus_dir


@attrs.frozen
class BrokenKernel:
    """A kernel folder that does not load: where it is, and the error naming the file and
    field at fault. The corpus keeps it, so that one kernel being written or broken stops
    only the commands that ask for it."""
    directory: Path
    id: str                 # its path below the corpus folder (what the ID would be)
    error: InputError

    @property
    def name(self) -> str:
        return self.directory.name

    def named_by(self, term: str) -> bool:
        return term in (self.name, self.id)

    def covered_by(self, term: str) -> bool:
        """Named, or below a track or dwarf folder the term names (a level needs the manifest)."""
        return self.named_by(term) or term in self.id.split("/")[:-1]

    def describe(self) -> str:
        return str(self.error)


@attrs.frozen
class Corpus:
    root: Path
    kernels: tuple[Kernel, ...]
    broken: tuple[BrokenKernel, ...] = ()

    def get(self, name_or_id: str) -> Kernel:
        for k in self.kernels:
            if name_or_id in (k.name, k.id):
                return k
        for b in self.broken:
            if b.named_by(name_or_id):
                raise b.error
        raise InputError("kernel", name_or_id, f"no such kernel in {self.root}; `hpcab list` shows them"
                         + did_you_mean(name_or_id, self._names()))

    def select(self, selector: str | None, skip_broken: bool = False) -> tuple[Kernel, ...]:
        """A comma-separated list of kernel names or IDs, tracks, dwarfs, levels (L1, L2, L3),
        tags (if_conversion, memory_bound, ...), TSVC categories (control_flow, ...) and TSVC ids.
        Only kernels that load are selected; a term that names a broken kernel raises its error
        (skip_broken: it selects nothing instead; broken_in says which they are)."""
        if not selector or selector.strip() in ("all", "*"):
            return self.kernels
        chosen: list[Kernel] = []
        for term in _terms(selector):
            # A kernel's own name wins over a tag spelled the same (attention is tagged gemm).
            hits = ([k for k in self.kernels if term in (k.name, k.id)]
                    or [k for k in self.kernels if _matches(k, term)])
            if not hits:
                broken = [b for b in self.broken if b.covered_by(term)]
                if broken and skip_broken:
                    continue
                named = [b for b in broken if b.named_by(term)]
                if named:
                    raise named[0].error
                if broken:
                    raise InputError("selector", term, f"matches only kernels that do not load, "
                                                       f"first {broken[0].describe()}")
                raise InputError("selector", term, "matches no kernel name, track, dwarf, level (L1, L2, L3), tag or TSVC category"
                                 + did_you_mean(term, self._vocabulary()))
            chosen += [k for k in hits if k not in chosen]
        return tuple(chosen)

    def broken_in(self, selector: str | None) -> tuple[BrokenKernel, ...]:
        """The broken kernels a selector covers: all of them for 'all', else those it names or
        whose track or dwarf folder it names."""
        if not selector or selector.strip() in ("all", "*"):
            return self.broken
        terms = _terms(selector)
        return tuple(b for b in self.broken if any(b.covered_by(t) for t in terms))

    def refuse_broken(self, selector: str | None, warn: Callable[[str], None]) -> None:
        """For a service of the kernels a selector picks (the judge): raise when a broken kernel
        is among them, since serving the rest would pass a partial corpus off as the one asked
        for; a broken kernel outside the selector is only warned about."""
        inside = self.broken_in(selector)
        if inside:
            raise HpcabError(f"{len(inside)} selected kernel(s) ({selector or 'all'}) do not load, so the judge "
                             "does not start: " + "; ".join(b.describe() for b in inside))
        for b in self.broken:
            warn(f"kernel {b.id} does not load (not selected, so not served): {b.describe()}")

    def content_hash(self) -> str:
        return content_hash(self.root)

    def _names(self) -> list[str]:
        return [k.name for k in self.kernels] + [b.name for b in self.broken]

    def _vocabulary(self) -> list[str]:
        return (self._names() + [k.id for k in self.kernels] + [k.track for k in self.kernels]
                + [k.dwarf for k in self.kernels if k.dwarf] + [t for k in self.kernels for t in k.tags]
                + [k.tsvc["category"] for k in self.kernels if k.tsvc] + ["L1", "L2", "L3", "all"])


def _terms(selector: str) -> list[str]:
    return [t for t in (t.strip() for t in selector.split(",")) if t]


def _matches(k: Kernel, term: str) -> bool:
    if term in (k.name, k.id, k.track, k.dwarf) or term in k.tags:
        return True
    if k.tsvc and term in (k.tsvc.get("category"), k.tsvc.get("tsvc_id")):
        return True
    return term.upper() in ("L1", "L2", "L3") and k.level == int(term[1])


def kernel_dirs(root: Path) -> list[Path]:
    """Every folder holding <folder>.yaml, sorted."""
    return sorted(p.parent for p in root.rglob("*.yaml") if p.stem == p.parent.name)


def misnamed_manifests(root: Path) -> list[Path]:
    """YAML files in a folder that holds no <folder>.yaml: a kernel copied to a new folder
    whose files still carry the old name (syrk/gemm.yaml). Reported, never skipped silently."""
    root, named = Path(root), set(kernel_dirs(root))
    return sorted(p for p in root.rglob("*.yaml") if p.parent not in named and p.parent != root)


def load_corpus(root: Path | None = None) -> Corpus:
    """Every kernel under root, kernel by kernel: one that does not load is kept as a
    BrokenKernel with its error, and the others load as usual."""
    root = Path(root) if root else corpus_dir()
    if not root.is_dir():
        raise InputError(str(root), "", "no such corpus folder")
    kernels, broken = [], []
    for d in kernel_dirs(root):
        try:
            kernels.append(load_kernel(d, root))
        except InputError as exc:
            broken.append(BrokenKernel(d, _relative_id(d, root), exc))
    for path in misnamed_manifests(root):
        d = path.parent
        if any(b.directory == d for b in broken):
            continue
        expected = f"{d.name}.yaml"
        broken.append(BrokenKernel(d, _relative_id(d, root), InputError(
            str(path), "", f"a kernel's manifest is named after its folder: expected {expected} (a copied "
                           f"kernel? rename {path.name} to {expected} and {path.stem}_numpy.py to "
                           f"{d.name}_numpy.py)")))
    # A name two kernels share would be a guess at which one is meant: both are broken.
    users: dict[str, list[Kernel]] = {}
    for k in kernels:
        users.setdefault(k.name, []).append(k)
    for name, same in users.items():
        if len(same) < 2:
            continue
        for k in same:
            others = ", ".join(o.id for o in same if o is not k)
            broken.append(BrokenKernel(k.directory, k.id, InputError(
                str(k.manifest_path), "path", f"kernel name {name!r} is also used by {others}; kernel names "
                                              "are unique across tracks")))
    kernels = [k for k in kernels if len(users[k.name]) == 1]
    return Corpus(root, tuple(kernels), tuple(sorted(broken, key=lambda b: b.id)))


def _relative_id(directory: Path, root: Path) -> str:
    try:
        return directory.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(directory)


def content_hash(root: Path) -> str:
    """sha256 over every manifest and reference (path and bytes), so a grade names the corpus it used.
    The independent checks (<name>_check.py) are left out: they change no grade."""
    h = hashlib.sha256()
    for path in sorted(p for p in Path(root).rglob("*") if p.is_file() and "__pycache__" not in p.parts
                       and not p.name.endswith(CHECK_SUFFIX)):
        h.update(str(path.relative_to(root)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()
