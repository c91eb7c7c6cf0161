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

The compiler is untrusted too (its input is): every compile runs under BuildLimits, a
wall-clock limit that kills its whole process group, and per-process CPU time, address
space and file size (and, sandboxed, a process count). A build stopped by a limit is a
build error whose diagnostics name the limit, and is not cached (see build()). A source
that sets its own optimisation options (`#pragma GCC optimize`, `__attribute__((target))`,
numba's `fastmath=True`, ...: hpcab.overrides) has them listed in Build.overrides, so a
grade never claims a flag set the code overrode.

What a build leaves is bounded too: a product larger than BuildLimits.product_bytes (a
small source with a huge initialised array) is a build error, cached without its product,
and the cache as a whole is kept under BuildLimits.cache_bytes by removing the entries used
longest ago (prune_cache), never one used within CACHE_GRACE_S (a grade may still load it).

Python frameworks (docs/abi_contract.md): a `python` candidate's build is a byte-compile
check of candidate.py, which is then the product; a `pythran` candidate's is an extension
module, candidate.so. Both are run by the judge's own interpreter, sandboxed with that
Python's installation visible read-only, and the interpreter's version is in their key.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

from hpcab import sandbox as _sandbox
from hpcab.errors import InputError
from hpcab.overrides import find_overrides
from hpcab.paths import cache_dir
from hpcab.toolchain import Toolchains

LANGUAGE_SUFFIXES = {".c": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".f90": "fortran",
                     ".f": "fortran", ".F90": "fortran", ".cu": "cuda", ".hip": "hip", ".py": "python"}
# Candidates a runner imports as Python modules (hpcab.timing.records.Target kind "module").
PYTHON_LANGUAGES = ("python", "pythran")
# A .py file with a pythran export line (pythran's own syntax: spaces allowed around '#') is pythran.
PYTHRAN_EXPORT = re.compile(r"^\s*#\s*pythran\s+export\b", re.MULTILINE)
MAX_SOURCE_BYTES = 4 * 1024 * 1024
MAX_DIAGNOSTICS = 20_000
BUILD_DIR = "/build"              # the private build folder, inside the sandbox


@attrs.frozen
class BuildLimits:
    """What one compile may use. The wall-clock limit is the judge's `hpcab serve
    --build-timeout`; the others are rlimits of each process of the compile (the driver,
    cc1, as, ld, pythran's g++ ...)."""
    wall_seconds: float = 60.0
    cpu_seconds: float | None = None     # RLIMIT_CPU; None: the wall limit (a threaded compile gets one core's worth)
    memory_bytes: int = 4 << 30          # RLIMIT_AS
    file_bytes: int = 1 << 30            # RLIMIT_FSIZE: the product, temporaries, the diagnostics
    processes: int = 64                  # RLIMIT_NPROC, sandboxed only (see _compile_limits)
    # The largest product kept: a build whose library (or module) is larger is a build error.
    # Optimised kernels are kilobytes to a few MiB; 448 MiB of initialised data is an attack.
    product_bytes: int = 64 << 20
    cache_bytes: int = 4 << 30           # the build cache's size, kept by prune_cache

    @property
    def cpu(self) -> float:
        return self.wall_seconds if self.cpu_seconds is None else self.cpu_seconds


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
    # Where the source sets its own optimisation options (hpcab.overrides.find_overrides):
    # "line N: <the construct>" each; () when the flag set is all there is.
    overrides: tuple[str, ...] = ()


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
    """How a runner calls a build of this language (hpcab.timing.records.Target.kind)."""
    return "module" if language in PYTHON_LANGUAGES else "c"


def candidate_from_file(path: Path, language: str | None = None) -> Candidate:
    path = Path(path)
    if path.is_dir():
        raise InputError(str(path), "", "is a folder; expected the candidate's source file")
    if not path.is_file():
        raise InputError(str(path), "", "no such file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(str(path), "", f"cannot read the source: {exc.strerror or exc}") from None
    if not data.strip():
        raise InputError(str(path), "", "the file is empty; expected the candidate's source")
    if len(data) > MAX_SOURCE_BYTES:
        raise InputError(str(path), "", f"source is {len(data)} bytes; at most {MAX_SOURCE_BYTES} allowed")
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise InputError(str(path), "", "source is not UTF-8 text") from None
    return Candidate(text, language or language_of(path, text), label=path.name)


def build(candidate: Candidate, toolchains: Toolchains, flagset: str | None = None,
          cache_root: Path | None = None, sandbox: str = _sandbox.AUTO,
          limits: BuildLimits = BuildLimits(), added: str | None = None) -> Build:
    """sandbox: "bubblewrap", "none", or "auto" (bubblewrap where it can run): a Policy's
    sandbox setting. limits: what the compile may use. added: a flag set whose flags follow
    the flag set's (the compiler report's "report"; its own cache entry: the command differs).

    A build stopped by a limit is not cached (not written to the cache at all): the limits
    are the judge's setting, not the source's, and a later build with more room may
    succeed. Putting the limits in the key instead would recompile, at every change of
    --build-timeout, everything already built, whose product and diagnostics do not depend
    on them; a build that finished is valid under any limits."""
    mode = _sandbox.resolve(sandbox)
    overrides = find_overrides(candidate.source, candidate.language)
    compiler = toolchains.compiler(candidate.compiler or candidate.language)
    if compiler.language != candidate.language:
        raise InputError("candidate", "compiler", f"{compiler.name} compiles {compiler.language}, "
                                                  f"not {candidate.language}")
    flags = toolchains.flagset(flagset)
    if added:
        flags = flags.plus(toolchains.flagset(added))
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

    def cite(diagnostics: str) -> str:       # applied after the cache: the label is in neither
        return cite_source(diagnostics, source_name, candidate.label)

    root = Path(cache_root) if cache_root else cache_dir() / "builds"
    final = root / key[:2] / key
    started = time.perf_counter()
    record = final / "build.json"
    if record.is_file():
        meta = json.loads(record.read_text())
        lib = final / product
        _touch(record)
        return Build(meta["ok"], key, lib if meta["ok"] else None, cite(meta["diagnostics"]), compiler.name,
                     version, flags.name, tuple(command), True, time.perf_counter() - started, overrides)

    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="build-", dir=root))
    try:
        (scratch / source_name).write_text(candidate.source)
        stopped = None
        if version == "missing":
            ok, diagnostics = False, (f"compiler {compiler.name!r} is not installed in the judge's Python"
                                      if compiler.runs_in_python else
                                      f"compiler {compiler.command!r} is not installed on this judge")
        else:
            ok, diagnostics, stopped = _compile(command, scratch, mode == "bubblewrap", compiler.runs_in_python,
                                                limits)
        if stopped:         # a limit's doing, not the source's alone: not cached (see above)
            return Build(False, key, None, cite(diagnostics), compiler.name, version, flags.name, tuple(command),
                         False, time.perf_counter() - started, overrides)
        library = scratch / product
        ok = ok and library.is_file() and not library.is_symlink()
        if ok and library.stat().st_size > limits.product_bytes:
            diagnostics = (f"hpcab: the built {product} is {_size(library.stat().st_size)}, over the "
                           f"{_size(limits.product_bytes)} a build may leave (a large initialised array?)\n"
                           + diagnostics)
            ok = False
            library.unlink()
        (scratch / "build.json").write_text(json.dumps({"ok": ok, "diagnostics": diagnostics, "command": command}))
        final.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(scratch, final)      # atomic publish; a concurrent identical build may win
        except OSError:
            pass
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    prune_cache(root, limits.cache_bytes)
    meta = json.loads(record.read_text())
    return Build(meta["ok"], key, final / product if meta["ok"] else None, cite(meta["diagnostics"]),
                 compiler.name, version, flags.name, tuple(command), False, time.perf_counter() - started,
                 overrides)


# A cache entry used (built or served) this recently is never removed: a grade that built it
# may not have loaded it yet (a grade's measuring is bounded by Policy.grade_seconds).
CACHE_GRACE_S = 900.0


def _touch(record: Path) -> None:
    try:
        os.utime(record)
    except OSError:
        pass


def prune_cache(root: Path, limit_bytes: int) -> int:
    """Keep the build cache under limit_bytes: remove the entries used longest ago (their
    build.json's time, renewed on each use), but none used within CACHE_GRACE_S. Returns the
    bytes removed."""
    entries, total = [], 0
    now = time.time()
    try:
        shards = [d for d in os.scandir(root) if d.is_dir(follow_symlinks=False) and len(d.name) == 2]
    except OSError:
        return 0
    for shard in shards:
        try:
            items = list(os.scandir(shard.path))
        except OSError:
            continue
        for entry in items:
            try:
                files = list(os.scandir(entry.path))
                size = sum(f.stat(follow_symlinks=False).st_size for f in files)
                used = os.stat(os.path.join(entry.path, "build.json")).st_mtime
            except OSError:
                continue
            entries.append((used, size, entry.path))
            total += size
    removed = 0
    for used, size, path in sorted(entries):
        if total <= limit_bytes:
            break
        if now - used < CACHE_GRACE_S:
            break
        shutil.rmtree(path, ignore_errors=True)
        total -= size
        removed += size
    return removed


# A label that is a file name (candidate_from_file's, an agent's or MCP client's path), which
# the diagnostics can cite; labels such as "harness:gemm" or "roofline-probe" are not.
_FILE_LABEL = re.compile(r"[\w./][\w./+-]{0,254}\.\w+")


def cite_source(diagnostics: str, source_name: str, label: str) -> str:
    """The compiler saw the source as candidate.<suffix> (the private copy it builds, at
    /build/ when sandboxed); the user wrote `label`: put that name where the copy's is
    (`gemm.c:8:11: error: ...`), so the message points at the user's own file."""
    if not label or label == source_name or not _FILE_LABEL.fullmatch(label):
        return diagnostics
    copy = re.compile(r"(?<![\w./-])(?:" + re.escape(BUILD_DIR) + r"/)?" + re.escape(source_name) + r"(?!\w|\.\w)")
    return copy.sub(lambda _: label, diagnostics)

def _compile(command: list[str], cwd: Path, sandboxed: bool = False, python: bool = False,
             limits: BuildLimits = BuildLimits(), head: bool = False) -> tuple[bool, str, str | None]:
    """Run the compiler (or another build tool: disassemble) in a private scratch folder; its
    output is the diagnostics, their last MAX_DIAGNOSTICS characters (head: their first).
    Sandboxed, the scratch folder is all it sees of the cache, at BUILD_DIR; python: the
    compiler is the judge's interpreter, whose installation (and packages) it sees read-only.
    (ok, diagnostics, why it was stopped: None unless a limit stopped it.)"""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR", "LD_LIBRARY_PATH")}
    env["LC_ALL"] = "C"
    if python:      # numpy's BLAS would reserve memory for a thread per core of the judge's machine
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    argv = command
    if sandboxed:
        _sandbox.require()        # the judge's problem, not the candidate's: raise, never cache it
        env.update(HOME="/tmp", TMPDIR="/tmp")
        binds = [_sandbox.Bind(cwd, Path(BUILD_DIR), writable=True)] + _sandbox.tool_binds([command[0]])
        argv = _sandbox.command(command, binds=binds, env=env, cwd=BUILD_DIR, processes=limits.processes,
                               python=python)
        _sandbox.give([cwd], recursive=True)
    # The output goes to a file of the judge's (bounded by RLIMIT_FSIZE), never a pipe that a
    # process left behind could hold open.
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    env=env, preexec_fn=_compile_limits(sandboxed, limits), start_new_session=True)
            in_time = _wait(proc, limits.wall_seconds)
        finally:
            if sandboxed:
                _sandbox.reclaim([cwd], recursive=True)
        size = out.seek(0, os.SEEK_END)
        if head:
            out.seek(0)
            diagnostics = out.read(4 * MAX_DIAGNOSTICS).decode(errors="replace")[:MAX_DIAGNOSTICS]
        else:
            out.seek(max(0, size - 4 * MAX_DIAGNOSTICS))
            diagnostics = out.read().decode(errors="replace")[-MAX_DIAGNOSTICS:]
    rc = proc.returncode
    signum = -rc if rc < 0 else rc - 128 if sandboxed and rc > 128 else 0     # bwrap: 128 + N, as a shell
    stopped = None if in_time and rc == 0 else _limit_hit(not in_time, signum, diagnostics, limits)
    if stopped:
        note = f"compilation stopped: {stopped}\n"
        return False, note + diagnostics[len(note) - MAX_DIAGNOSTICS:], stopped
    return rc == 0, diagnostics, None


def disassemble(library: Path, symbol: str, sandbox: str = _sandbox.AUTO,
                limits: BuildLimits = BuildLimits()) -> str:
    """objdump's disassembly of one symbol of a built library (its first MAX_DIAGNOSTICS
    characters). The library is the candidate's, so objdump reads it as it would compile
    it: sandboxed, limited, in a scratch folder holding a copy."""
    scratch = Path(tempfile.mkdtemp(prefix="disassemble-"))
    try:
        shutil.copyfile(library, scratch / library.name)
        command = ["objdump", "-d", "--no-show-raw-insn", "-C", f"--disassemble={symbol}", library.name]
        ok, text, stopped = _compile(command, scratch, _sandbox.resolve(sandbox) == "bubblewrap", limits=limits,
                                     head=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not ok:
        return f"objdump failed{f' ({stopped})' if stopped else ''}: {text[-2000:]}"
    # objdump names every section it looked through; only the symbol's own listing is kept.
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.rstrip().endswith(f"<{symbol}>:")), None)
    if start is None:
        return f"no symbol {symbol!r} in the built library"
    return "\n".join(line for line in lines[start:] if not line.startswith("Disassembly of section")).strip() + "\n"


def _wait(proc: subprocess.Popen, seconds: float) -> bool:
    """Wait for the compiler, at most `seconds`; then kill its whole process group (the
    driver started in a session of its own: cc1, as, ld, pythran's g++ ... are in it; a
    sandboxed compile's processes die with bwrap, their pid namespace's end). The group is
    killed whether it ended in time or not (what it left running goes too), before the
    driver is reaped, so the group's id cannot have been reused. True: it ended in time."""
    deadline = time.monotonic() + seconds
    delay, ended = 0.001, False
    try:
        while True:
            try:
                ended = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            except ChildProcessError:
                ended = True
            left = deadline - time.monotonic()
            if ended or left <= 0:
                break
            time.sleep(min(delay, left))
            delay = min(delay * 2, 0.05)
    finally:            # also when the judge is interrupted while it waits
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    return ended


# How compilers say that a limit stopped them: lines of the driver or a tool (`g++: `,
# `cc1plus: `, `/usr/bin/ld: `), which a diagnostic about the source does not start with
# (it starts `candidate.c:LINE:COL: `, or with blanks and `N | ` for the quoted source). A
# source that fakes one anyway only keeps its own failed build out of the cache.
_TOOL = r"^[^\s:]+: (?:internal compiler error|fatal error|error|final link failed|Fatal error): "
_CPU_HIT = re.compile(_TOOL + r"CPU time limit exceeded", re.MULTILINE)
_FILE_HIT = re.compile(_TOOL + r"(?:File size limit exceeded|[^\n]*File too large)", re.MULTILINE)
_MEMORY_HIT = re.compile(r"^(?:virtual memory exhausted|[^\s:]+: out of memory allocating \d+ bytes"
                         r"|LLVM ERROR: out of memory|terminate called after throwing an instance of 'std::bad_alloc'"
                         r"|MemoryError\b)|" + _TOOL + r"[^\n]*(?:memory exhausted|Cannot allocate memory)",
                         re.MULTILINE)
_PROCESS_HIT = re.compile(_TOOL + r"[^\n]*(?:fork|spawn|execute)[^\n]*Resource temporarily unavailable",
                          re.MULTILINE)


def _limit_hit(timed_out: bool, signum: int, diagnostics: str, limits: BuildLimits) -> str | None:
    """Which limit stopped a compile that failed (signum: the signal that ended the driver,
    or 0), in words; None when none did."""
    if timed_out:
        return f"it ran past the {limits.wall_seconds:g} s wall-clock limit"
    if signum == signal.SIGXCPU or _CPU_HIT.search(diagnostics):
        return f"a compiler process used up the {_cpu_limit(limits)} s CPU-time limit"
    if signum == signal.SIGXFSZ or _FILE_HIT.search(diagnostics):
        return f"a file it wrote reached the {_size(limits.file_bytes)} file-size limit"
    if _MEMORY_HIT.search(diagnostics):
        return f"it ran out of memory under the {_size(limits.memory_bytes)} address-space limit"
    if _PROCESS_HIT.search(diagnostics):
        return f"it could not start a process under the {limits.processes}-process limit"
    return None


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n}-byte"


def _cpu_limit(limits: BuildLimits) -> int:
    return max(1, math.ceil(limits.cpu))


def _compile_limits(sandboxed: bool, limits: BuildLimits = BuildLimits()):
    """The compiler dies with its caller, and runs under the limits (none above what this
    process may itself set); sandboxed under a root judge, it gets RLIMIT_NPROC (see
    hpcab.timing.trusted.process.limits: not root, the sandbox sets it inside)."""
    import ctypes
    import resource
    nproc = limits.processes if sandboxed and _sandbox.privileged() else None
    cpu = _cpu_limit(limits)
    # RLIMIT_CPU: at the soft limit SIGXCPU (which a compiler's driver reports by name), at
    # the hard one SIGKILL.
    wanted = {resource.RLIMIT_CORE: (0, 0), resource.RLIMIT_CPU: (cpu, cpu + 2),
              resource.RLIMIT_AS: (limits.memory_bytes,) * 2, resource.RLIMIT_FSIZE: (limits.file_bytes,) * 2}
    if nproc is not None:
        wanted[resource.RLIMIT_NPROC] = (nproc, nproc)
    settings = []
    for which, (soft, hard) in wanted.items():
        _, ceiling = resource.getrlimit(which)
        if ceiling != resource.RLIM_INFINITY:
            soft, hard = min(soft, ceiling), min(hard, ceiling)
        settings.append((which, (soft, hard)))
    libc = ctypes.CDLL(None)

    def apply():
        libc.prctl(1, signal.SIGKILL)      # PR_SET_PDEATHSIG
        for which, values in settings:
            resource.setrlimit(which, values)
    return apply
