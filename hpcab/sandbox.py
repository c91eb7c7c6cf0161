"""Sandbox: run untrusted work (a candidate's runner, its compile) inside bubblewrap.

`bwrap` gives the command its own mount, pid, network, IPC, UTS and (where the kernel has
them) cgroup namespaces. Its file system is an empty read-only root with, read-only, only
what the command needs: the system's /usr (the /lib, /bin, ... links of a merged-/usr
distribution), the dynamic loader's /etc files, the Python installation, the hpcab package,
and the individual files and folders the caller names; read-write, only the caller's work
folder and a private, size-limited tmpfs /tmp. A fresh /proc shows the sandbox's own
processes only; /dev is bwrap's minimal one. The environment is cleared and set from the
caller's mapping. There is no network (a private loopback only).

Two ways of running, by who runs the judge:

- as root (the judge's images, CI): bwrap runs privileged (no user namespace needed, so it
  can bind paths that only root can reach, such as a Python under /root), and the command
  is started through `setpriv` as an unprivileged uid and gid with no supplementary
  groups, no capabilities and no_new_privs. The caller sets RLIMIT_NPROC before bwrap
  starts (bwrap, still root, is exempt): it really limits the sandboxed user's processes
  and threads, which root's would not be (root ignores RLIMIT_NPROC).
  That uid is not nobody (65534) but one of its own for each process that starts
  sandboxes (`sandbox_uid()`: UID_BASE + pid, outside the ranges distributions, systemd
  and container engines hand out): RLIMIT_NPROC counts every process of a uid, so with
  one shared uid a fork bomb held at the limit would make a concurrent grading of another
  agent (or its compile) fail to start a thread. Such a process runs one sandbox at a
  time, and a sandbox leaves no process behind (its pid namespace ends with it).
  The caller makes what the command writes that uid's (`give`, and `reclaim` after) and
  checks that what it binds read-only is world-readable (`ensure_readable`).
- as any other user: bwrap makes a user namespace (Debian allows unprivileged ones) in
  which the command keeps the caller's uid with no capabilities, may not make further user
  namespaces, and `prlimit` sets RLIMIT_NPROC inside it (there, the kernel counts only the
  sandbox's own processes; set outside, the limit would count every process of the user).

`available()` says whether this machine can do it, by running a trivial command so.
HPCAB_BWRAP names the bwrap binary to use (default: `bwrap` on PATH; an empty or missing
path makes the sandbox unavailable, which tests use to simulate a machine without it).
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import attrs

MODES = ("bubblewrap", "none")
AUTO = "auto"                 # a Policy's default: bubblewrap where available, else none
BWRAP_ENV = "HPCAB_BWRAP"
# Under a root judge, sandboxed work runs as UID_BASE + the starting process's pid (uid and
# gid): above the ranges of regular, system, systemd-dynamic and container users (those
# reach 1879048191), below 2**31 (some tools mishandle larger ids); pids stay below 2**22.
UID_BASE = 1_900_000_000
TMP_BYTES = 512 << 20                      # the private /tmp (a tmpfs, i.e. memory)
HOSTNAME = "hpcab-sandbox"
PROBE_TIMEOUT_S = 20

# The system: where the merged-/usr distributions keep everything, and what else may be a
# real folder on others. /etc: only what the dynamic loader reads, and the alternatives
# links some compiler and tool names resolve through.
SYSTEM_DIRS = ("/usr",)
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_PATHS = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")
# Read-only software trees bound whole when the machine has them (Nix images keep the
# toolchains and Python there).
SOFTWARE_TREES = ("/nix/store",)
# Accelerators' device nodes (GPU candidates), bound when present.
DEVICE_GLOBS = ("nvidia*", "dri", "kfd")


class SandboxError(RuntimeError):
    """The sandbox cannot be used here (a judge-side problem, never the candidate's)."""


@attrs.frozen
class Bind:
    source: Path
    dest: Path
    writable: bool = False


def bwrap_path() -> str | None:
    """The bwrap binary: $HPCAB_BWRAP when set (it must exist), else `bwrap` on PATH."""
    env = os.environ.get(BWRAP_ENV)
    if env is not None:
        return env if env and os.path.isfile(env) and os.access(env, os.X_OK) else None
    return shutil.which("bwrap")


def privileged() -> bool:
    """Root runs bwrap privileged and drops to sandbox_uid(); anyone else uses a user namespace."""
    return os.geteuid() == 0


def sandbox_uid() -> int:
    """Who the sandboxed command runs as (its gid is the same number, root or not)."""
    return UID_BASE + os.getpid() if privileged() else os.getuid()


def available() -> tuple[bool, str]:
    """(True, "") when bubblewrap can run a command with this module's options here;
    else (False, why). Probed once per process and bwrap binary."""
    return _probe(bwrap_path(), os.geteuid())


@functools.lru_cache(maxsize=None)
def _probe(bwrap: str | None, euid: int) -> tuple[bool, str]:
    if bwrap is None:
        named = os.environ.get(BWRAP_ENV)
        return False, (f"{BWRAP_ENV}={named!r} is not an executable file" if named is not None
                       else "bwrap (bubblewrap) is not installed: no `bwrap` on PATH")
    helper = "setpriv" if euid == 0 else "prlimit"
    if _tool(helper) is None:
        return False, f"{helper} (util-linux) is not installed under /usr"
    # The running Python with its binds, started as the sandbox's user: what every run needs.
    argv = command([sys.executable, "-c", "import hpcab"], binds=(), env={"PATH": "/usr/bin"}, cwd="/",
                   processes=64, bwrap=bwrap)
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"{bwrap} could not be run: {exc}"
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        why = lines[-1] if lines else f"exit status {proc.returncode}"
        return False, f"{bwrap} cannot make a sandbox on this machine: {why}"
    return True, ""


def require() -> None:
    ok, why = available()
    if not ok:
        raise SandboxError(f"the bubblewrap sandbox is required but cannot run: {why}")


def resolve(mode: str) -> str:
    """A policy's sandbox setting made concrete: "auto" becomes "bubblewrap" when it can
    run here, else "none"; the others must be valid."""
    if mode == AUTO:
        return "bubblewrap" if available()[0] else "none"
    if mode not in MODES:
        raise ValueError(f"sandbox {mode!r}: expected one of {', '.join(MODES + (AUTO,))}")
    return mode


@functools.lru_cache(maxsize=None)
def _tool(name: str) -> str | None:
    """A helper run inside the sandbox: it must live under /usr (the only system tree bound)."""
    path = shutil.which(name, path="/usr/bin:/usr/sbin:/bin:/sbin")
    if path is None:
        return None
    real = os.path.realpath(path)
    return real if real.startswith("/usr/") else None


def python_binds(pythonpath: str = "") -> list[Bind]:
    """The running Python, read-only: its installation (following the venv's links to it),
    the virtual environment, the hpcab package (an editable install lives outside both),
    and the folders of the PYTHONPATH the command is given (the operator's setting)."""
    import hpcab
    paths = {Path(sys.base_prefix), Path(sys.base_exec_prefix), Path(sys.prefix), Path(sys.exec_prefix),
             Path(hpcab.__file__).parent}
    exe = Path(os.path.realpath(sys.executable))
    paths.add(exe.parent.parent)         # <prefix>/bin/python → <prefix>
    paths |= {Path(p) for p in pythonpath.split(os.pathsep) if os.path.isabs(p) and os.path.isdir(p)}
    return [Bind(p, p) for p in _with_real_paths(paths)]


def _with_real_paths(paths: Iterable[Path]) -> list[Path]:
    """Each path, and its real path where a link leads elsewhere (bound at both places)."""
    out: list[Path] = []
    for p in paths:
        p = Path(os.path.abspath(p))
        for q in (p, Path(os.path.realpath(p))):
            if q not in out and q.exists():
                out.append(q)
    return out


def tool_binds(executables: Iterable[str]) -> list[Bind]:
    """The installation of each program (a compiler outside /usr: /opt/..., a toolchain
    prefix): its <prefix> (the folder above its bin/), read-only."""
    binds = []
    for name in executables:
        found = shutil.which(name)
        if found is None:
            continue
        for exe in {Path(os.path.abspath(found)), Path(os.path.realpath(found))}:
            prefix = exe.parent.parent if exe.parent.name == "bin" else exe.parent
            if not _covered(prefix):
                binds.append(Bind(prefix, prefix))
    return binds


def _covered(path: Path) -> bool:
    """Already visible through the system binds."""
    s = str(path)
    return any(s == d or s.startswith(d + "/") for d in SYSTEM_DIRS + SOFTWARE_TREES) or s == "/"


def command(argv: Sequence[str], *, binds: Iterable[Bind], env: Mapping[str, str], cwd: str,
            processes: int | None = None, tmp_bytes: int = TMP_BYTES, bwrap: str | None = None,
            python: bool = True) -> list[str]:
    """The bwrap command line that runs argv in the sandbox.

    binds: what the command needs besides the system (and, python=True, the running Python
    and hpcab); env: its whole environment; cwd: its working folder inside; processes: its
    RLIMIT_NPROC when not root (as root, the caller sets the limit before exec: see above)."""
    bwrap = bwrap or bwrap_path()
    if bwrap is None:
        raise SandboxError(available()[1])
    root = privileged()
    args = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
            "--hostname", HOSTNAME, "--die-with-parent", "--new-session"]
    if not root:
        args += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    for d in SYSTEM_DIRS:
        args += ["--ro-bind", d, d]
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    # /etc holds only these; made traversable first (bwrap, as root, would make it mode 700,
    # and the sandbox's user could not follow /etc/alternatives' links: Open MPI's libmpi.so).
    args += ["--perms", "0755", "--dir", "/etc"]
    for p in ETC_PATHS + SOFTWARE_TREES:
        if os.path.exists(p):
            args += ["--ro-bind", p, p]
    args += ["--proc", "/proc", "--dev", "/dev"]
    for pattern in DEVICE_GLOBS:
        for dev in sorted(Path("/dev").glob(pattern)):
            args += ["--dev-bind", str(dev), str(dev)]
    args += ["--perms", "1777", "--size", str(int(tmp_bytes)), "--tmpfs", "/tmp"]
    every = (python_binds(env.get("PYTHONPATH", "")) if python else []) + list(binds)
    mounted = [Path(d) for d in SYSTEM_DIRS + SOFTWARE_TREES]
    made: set[Path] = {Path("/"), Path("/tmp")}
    for b in _ordered(every):
        # bwrap makes the folders above a mount point private (mode 700) when it runs as
        # root: make them traversable, or the sandbox's user could not reach what is bound.
        for a in reversed(b.dest.parents):
            if a in made or any(a == m or _under(a, m) for m in mounted):
                continue
            args += ["--perms", "0755", "--dir", str(a)]
            made.add(a)
        args += ["--bind" if b.writable else "--ro-bind", str(b.source), str(b.dest)]
        mounted.append(b.dest)
    args += ["--remount-ro", "/", "--clearenv"]
    for k, v in env.items():
        args += ["--setenv", k, v]
    args += ["--chdir", cwd, "--"]
    if root:
        setpriv = _tool("setpriv")
        if setpriv is None:
            raise SandboxError("setpriv (util-linux) is not installed under /usr")
        uid = sandbox_uid()
        args += [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all", "--"]
    elif processes is not None:
        prlimit = _tool("prlimit")
        if prlimit is None:
            raise SandboxError("prlimit (util-linux) is not installed under /usr")
        args += [prlimit, f"--nproc={processes}:{processes}", "--"]
    return args + list(argv)


def _ordered(binds: list[Bind]) -> list[Bind]:
    """Parents before children (a later bind shades what an earlier one shows below it).
    A read-only bind of a path already shown as it is (by the system binds or a read-only
    parent bound at its own path) is left out."""
    out: list[Bind] = []
    for b in sorted(binds, key=lambda b: (len(b.dest.parts), str(b.dest), b.writable)):
        if any(o.dest == b.dest for o in out):
            continue
        if not b.writable and b.source == b.dest and (
                _covered(b.dest) or any(not o.writable and o.source == o.dest and _under(b.dest, o.dest)
                                        for o in out)):
            continue
        out.append(b)
    return out


def _under(path: Path, parent: Path) -> bool:
    return parent in path.parents


# ---- what a sandboxed user may touch -------------------------------------------------


def give(paths: Iterable[Path], recursive: bool = False) -> None:
    """Make what the sandboxed command writes (files, or whole folders: recursive) the
    sandbox user's, when that user is not us (under a root judge)."""
    if privileged():
        for p in paths:
            _chown(Path(p), sandbox_uid(), sandbox_uid(), recursive)


def reclaim(paths: Iterable[Path], recursive: bool = False) -> None:
    """Take back what give() gave away (before it is published or read)."""
    if privileged():
        for p in paths:
            _chown(Path(p), os.getuid(), os.getgid(), recursive)


def _chown(path: Path, uid: int, gid: int, recursive: bool) -> None:
    os.chown(path, uid, gid, follow_symlinks=False)
    if recursive and path.is_dir() and not path.is_symlink():
        _chown_tree(path, uid, gid)


def _chown_tree(folder: Path, uid: int, gid: int) -> None:
    """chown -R, never through a link: the folder was the sandbox's, and something left
    running there could swap a folder for a link to one of the judge's while we walk."""
    for _, dirnames, filenames, dirfd in os.fwalk(folder, follow_symlinks=False):
        for name in dirnames + filenames:
            try:
                os.chown(name, uid, gid, dir_fd=dirfd, follow_symlinks=False)
            except FileNotFoundError:
                pass


def ensure_readable(paths: Iterable[Path]) -> None:
    """Each bound file or folder must be readable by the sandbox's user, i.e. by anyone
    (under a root judge, that user owns nothing). One of ours that is not (a file made by
    mkstemp: mode 600) is made so: these are the judge's own build products and the
    corpus, never secrets. Anything else is a SandboxError."""
    if not privileged():
        return
    for p in paths:
        st = os.stat(p)
        need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(st.st_mode) else 0)
        if st.st_mode & need == need:
            continue
        if st.st_uid == os.geteuid():
            os.chmod(p, stat.S_IMODE(st.st_mode) | need)
            continue
        raise SandboxError(f"{p} is not readable by the sandbox's user: mode {stat.S_IMODE(st.st_mode):o}, "
                           f"owner uid {st.st_uid}")
