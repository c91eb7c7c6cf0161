"""Build: candidate source → shared library through a named flag set, content-addressed and cached.

A compile error is a result (ok=False with the compiler's diagnostics), never an exception.
The cache key covers the source, language, compiler, its installed version, the exact
command line and the sandbox, so a resubmission of the same bytes never recompiles.

Sandboxed (hpcab.sandbox, the default where bubblewrap runs), the compiler sees only the
system's toolchain, read-only, and a private build folder, read-write, at /build: no
network, no home, nothing of the cache's other entries, so a source that #includes a file
outside (another agent's code, the judge's secret) is a compile error. The sandbox is in
the key: a source compiled without it (and able to read anything) is never served to a
sandboxed build from the cache.

Python frameworks (docs/abi_contract.md): a `python` candidate's build is a byte-compile
check of candidate.py, which is then the product; a `pythran` candidate's is an extension
module, candidate.so. Both are run by the judge's own interpreter, sandboxed with that
Python's installation visible read-only, and the interpreter's version is in their key.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

from hpcab import sandbox as _sandbox
from hpcab.errors import InputError
from hpcab.paths import cache_dir
from hpcab.toolchain import Toolchains

LANGUAGE_SUFFIXES = {".c": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".f90": "fortran",
                     ".f": "fortran", ".F90": "fortran", ".cu": "cuda", ".hip": "hip", ".py": "python"}
# Candidates the measuring child imports as Python modules (hpcab.run.Target kind "module").
PYTHON_LANGUAGES = ("python", "pythran")
# A .py file with a pythran export line (pythran's own syntax: spaces allowed around '#') is pythran.
PYTHRAN_EXPORT = re.compile(r"^\s*#\s*pythran\s+export\b", re.MULTILINE)
MAX_SOURCE_BYTES = 4 * 1024 * 1024
MAX_DIAGNOSTICS = 20_000
COMPILE_TIMEOUT_S = 300
BUILD_DIR = "/build"              # the private build folder, inside the sandbox
COMPILE_PROCESSES = 64            # RLIMIT_NPROC of a sandboxed compile


@attrs.frozen
class Candidate:
    """What an optimizer hands in: source text in a language, for one kernel's ABI."""
    source: str
    language: str
    compiler: str | None = None     # default: the language's default compiler
    label: str = ""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()


@attrs.frozen
class Build:
    ok: bool
    key: str
    library: Path | None
    diagnostics: str
    compiler: str
    compiler_version: str
    flagset: str
    command: tuple[str, ...]
    cached: bool
    seconds: float


def language_of(path: Path, text: str | None = None) -> str:
    """By suffix; a .py file is pythran when it has a `#pythran export` line (text: the
    file's contents, when already read)."""
    path = Path(path)
    lang = LANGUAGE_SUFFIXES.get(path.suffix) or LANGUAGE_SUFFIXES.get(path.suffix.lower())
    if lang is None:
        raise InputError(str(path), "language", f"cannot tell the language from {path.suffix!r}; "
                                                "pass --language c|cpp|fortran|cuda|hip|python|pythran")
    if lang == "python":
        text = path.read_text(errors="replace") if text is None else text
        if PYTHRAN_EXPORT.search(text):
            return "pythran"
    return lang


def target_kind(language: str) -> str:
    """How the measuring child calls a build of this language (hpcab.run.Target.kind)."""
    return "module" if language in PYTHON_LANGUAGES else "c"


def candidate_from_file(path: Path, language: str | None = None) -> Candidate:
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "", "no such file")
    data = path.read_bytes()
    if len(data) > MAX_SOURCE_BYTES:
        raise InputError(str(path), "", f"source is {len(data)} bytes; at most {MAX_SOURCE_BYTES} allowed")
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise InputError(str(path), "", "source is not UTF-8 text") from None
    return Candidate(text, language or language_of(path, text), label=path.name)


def build(candidate: Candidate, toolchains: Toolchains, flagset: str | None = None,
          cache_root: Path | None = None, sandbox: str = _sandbox.AUTO) -> Build:
    """sandbox: "bubblewrap", "none", or "auto" (bubblewrap where it can run): a Policy's
    sandbox setting."""
    mode = _sandbox.resolve(sandbox)
    compiler = toolchains.compiler(candidate.compiler or candidate.language)
    if compiler.language != candidate.language:
        raise InputError("candidate", "compiler", f"{compiler.name} compiles {compiler.language}, "
                                                  f"not {candidate.language}")
    flags = toolchains.flagset(flagset)
    version = compiler.installed_version()
    source_name = "candidate" + compiler.source_suffix
    product = "candidate" + compiler.output_suffix
    command = toolchains.compile_command(compiler, flags, Path(source_name), Path(product))
    identity = {"source": candidate.sha256, "language": candidate.language, "compiler": compiler.name,
                "version": version, "command": command, "sandbox": mode}
    if compiler.runs_in_python:     # an extension module loads only in the Python it was built for
        identity["python"] = sys.version
    if compiler.backend:
        identity["backend"] = toolchains.compiler(compiler.backend).installed_version()
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()

    root = Path(cache_root) if cache_root else cache_dir() / "builds"
    final = root / key[:2] / key
    started = time.perf_counter()
    record = final / "build.json"
    if record.is_file():
        meta = json.loads(record.read_text())
        lib = final / product
        return Build(meta["ok"], key, lib if meta["ok"] else None, meta["diagnostics"], compiler.name,
                     version, flags.name, tuple(command), True, time.perf_counter() - started)

    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="build-", dir=root))
    try:
        (scratch / source_name).write_text(candidate.source)
        if version == "missing":
            ok, diagnostics = False, (f"compiler {compiler.name!r} is not installed in the judge's Python"
                                      if compiler.runs_in_python else
                                      f"compiler {compiler.command!r} is not installed on this judge")
        else:
            ok, diagnostics = _compile(command, scratch, mode == "bubblewrap", compiler.runs_in_python)
        library = scratch / product
        ok = ok and library.is_file() and not library.is_symlink()
        (scratch / "build.json").write_text(json.dumps({"ok": ok, "diagnostics": diagnostics, "command": command}))
        final.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(scratch, final)      # atomic publish; a concurrent identical build may win
        except OSError:
            pass
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    meta = json.loads(record.read_text())
    return Build(meta["ok"], key, final / product if meta["ok"] else None, meta["diagnostics"],
                 compiler.name, version, flags.name, tuple(command), False, time.perf_counter() - started)


def _compile(command: list[str], cwd: Path, sandboxed: bool = False, python: bool = False) -> tuple[bool, str]:
    """Run the compiler in a private scratch folder; its output is the diagnostics.
    Sandboxed, the scratch folder is all it sees of the cache, at BUILD_DIR; python: the
    compiler is the judge's interpreter, whose installation (and packages) it sees read-only."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR", "LD_LIBRARY_PATH")}
    env["LC_ALL"] = "C"
    argv = command
    if sandboxed:
        _sandbox.require()        # the judge's problem, not the candidate's: raise, never cache it
        env.update(HOME="/tmp", TMPDIR="/tmp")
        binds = [_sandbox.Bind(cwd, Path(BUILD_DIR), writable=True)] + _sandbox.tool_binds([command[0]])
        argv = _sandbox.command(command, binds=binds, env=env, cwd=BUILD_DIR, processes=COMPILE_PROCESSES,
                               python=python)
        _sandbox.give([cwd], recursive=True)
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env, timeout=COMPILE_TIMEOUT_S,
                              stdin=subprocess.DEVNULL, preexec_fn=_compile_limits(sandboxed))
    except subprocess.TimeoutExpired:
        return False, f"compilation took longer than {COMPILE_TIMEOUT_S} s"
    finally:
        if sandboxed:
            _sandbox.reclaim([cwd], recursive=True)
    diagnostics = (proc.stdout + proc.stderr)[-MAX_DIAGNOSTICS:]
    return proc.returncode == 0, diagnostics


def _compile_limits(sandboxed: bool):
    """The compiler dies with its caller; sandboxed under a root judge, it gets RLIMIT_NPROC
    (see hpcab.run._limits: not root, the sandbox sets it inside)."""
    nproc = COMPILE_PROCESSES if sandboxed and _sandbox.privileged() else None

    def apply():
        import ctypes
        import resource
        import signal
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)      # PR_SET_PDEATHSIG
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    return apply
