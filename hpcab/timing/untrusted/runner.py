"""The untrusted side of a measurement: `python -m hpcab.timing.untrusted.runner`, one
process per target.

It maps the one shared buffer the driver (hpcab/timing/trusted/driver.py) made for it, loads its target
(a candidate's library through the harness, the NumPy reference, its numba jit, or a
candidate's Python module), says it is ready, then makes one call each time the driver
asks and answers when the call is done. Nothing else: it holds no clock, no other input
set, no expected output and writes no result. The driver writes each call's inputs into
the buffer just before asking, times the call from outside, and (for a candidate) keeps
this process and everything it started frozen whenever it is not in a call.

What it reads and writes is the wire's (hpcab/timing/wire.py): its job as JSON on stdin,
read and closed first, then one byte a message on two pipes the driver made.
"""

from __future__ import annotations

import importlib.util
import mmap
import os
import sys
import traceback
from pathlib import Path

from hpcab.timing.wire import (CALL_FAILED, DONE, GO, LOAD_FAILED, PING, READY, RunnerJob, send,
                               views)


class Failure(Exception):
    """The target cannot be loaded or its call raised: the text goes to the driver."""


def _brief(exc: BaseException, path: str | None = None) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    if path:
        where = next((f" (candidate line {f.lineno}: {f.line})" for f in reversed(traceback.extract_tb(exc.__traceback__))
                      if f.filename == path), "")
        text += where
    return text[:2000]


# ---- targets -----------------------------------------------------------------------

def _slot_before_load(job: RunnerJob) -> bool:
    """Whether the process takes its CPU slot before its library loads. A C library's OpenMP
    runtime (c-autopar) reads the affinity when it loads and binds its threads one per CPU
    of it: loaded on every CPU, its threads may land outside the slot, and moving the main
    thread afterwards unbinds it, so that it shared a CPU with its own worker (the baseline
    ran 2.1 to 5.7 ms where the same code as the candidate ran 2.0 to 2.5)."""
    return not job.trusted or job.kind == "c"


def _ready(job: RunnerJob, done: int) -> None:
    cpus = os.environ.get("HPCAB_CPUS")
    if cpus and not _slot_before_load(job):      # the judge's Python targets join the slot now
        os.sched_setaffinity(0, {int(c) for c in cpus.split(",")})
    send(done, READY)


def serve_c(job: RunnerJob, mapping, go: int, done: int) -> int:
    """A C-ABI library: the harness's own loop (hpcab/timing/untrusted/harness.py: hpcab_serve) makes the calls,
    its arguments pointers into the shared buffer."""
    spec = importlib.util.spec_from_file_location(Path(job.harness_ffi).stem, job.harness_ffi)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ffi = mod.ffi
    harness = ffi.dlopen(job.harness)
    err = ffi.new("char[]", 1024)
    fn = harness.hpcab_open(job.library.encode(), job.symbol.encode(), err, 1024)
    if fn == ffi.NULL:
        raise Failure(f"cannot load {job.symbol!r}: {ffi.string(err).decode(errors='replace')}")
    entries = job.layout
    base = ffi.cast("char *", ffi.from_buffer(mapping))
    pointers = [ffi.cast("void *", base + e["offset"]) for e in entries if e["pointer"]]
    scalars = [ffi.cast("void *", base + e["offset"]) for e in entries if not e["pointer"]]
    ptrs = ffi.new("void *[]", pointers or 1)
    vals = ffi.new("void *[]", scalars or 1)
    _ready(job, done)
    harness.hpcab_serve(fn, ptrs, vals, go, done)
    return 0


def _python_call(job: RunnerJob, buf: dict):
    """The reference, its numba jit, or a candidate's module: a function called with the
    reference's arguments (arrays as views on the shared buffer, scalars read at each call)."""
    from hpcab.case import collect_outputs
    from hpcab.kernel import load_kernel
    kernel = load_kernel(Path(job.kernel_dir), Path(job.corpus_root), check=False)
    sizes = job.sizes
    kind = job.kind
    path = job.library
    function = kernel.reference().function
    if kind == "numba":
        try:
            import numba
        except ImportError as exc:
            raise Failure(f"target {job.name!r} needs numba, which is not installed in the judge's "
                          f"environment ({exc}); install hpcab[frameworks]") from None
        # Cached only where the judge gave its own cache folder (hpcab/timing/trusted/process.py: trusted runners).
        function = numba.njit(cache=bool(os.environ.get("NUMBA_CACHE_DIR")))(function)
    elif kind == "module":
        p = Path(path)
        name = f"hpcab_candidate_{p.parent.name[:16]}" if p.suffix == ".py" else p.name.split(".")[0]
        try:
            found = importlib.util.spec_from_file_location(name, p)
            module = importlib.util.module_from_spec(found)
            sys.modules[name] = module
            found.loader.exec_module(module)
        except (Exception, SystemExit) as exc:
            raise Failure(f"importing the candidate raised {_brief(exc, str(p))}") from None
        function = getattr(module, kernel.name, None)
        if not callable(function):
            raise Failure(f"the candidate defines no function {kernel.name!r}: it must have the NumPy "
                          f"reference's name and arguments (hpcab show {kernel.name} --abi python)")
    arrays = [buf[a.name] for a in kernel.arrays]
    scalars = [buf[s.name] for s in kernel.scalars]
    size_values = [sizes[s] for s in kernel.sizes]
    rets = kernel.returns
    source = "the candidate" if kind == "module" else "reference"

    import numpy as np
    ret_bufs = [buf[r.name] for r in rets]

    def call() -> None:
        returned = function(*arrays, *[s[()] for s in scalars], *size_values)
        if rets:
            if kind != "python":
                returned = _cast_returns(returned, rets, scalars_only=kind == "module")
            # The common case in a few operations (this runs inside the timed call, for every
            # target alike); anything unexpected goes through collect_outputs, which says what.
            items = returned if len(rets) > 1 else (returned,)
            if isinstance(items, tuple) and len(items) == len(rets):
                values = [np.asarray(v) for v in items]
                if all(v.dtype == b.dtype and v.size == b.size and (v.ndim == b.ndim or b.shape == (1,))
                       for v, b in zip(values, ret_bufs)):
                    for v, b in zip(values, ret_bufs):
                        b[...] = v.reshape(b.shape)
                    return
            outs = collect_outputs(kernel, buf, returned, sizes, source)
            for r in rets:
                buf[r.name][...] = outs[r.name].reshape(buf[r.name].shape)
        elif returned is not None and kind == "module":
            raise Failure(f"the candidate returned a value but the manifest of {kernel.name} declares no returns")
    if kind == "numba":
        try:
            call()       # numba compiles here, outside any timed call
        except Exception as exc:
            raise Failure(f"numba cannot compile the reference {kernel.name}: {_brief(exc)}") from None
    return call, (str(path) if kind == "module" else None)


def _cast_returns(returned, rets, scalars_only: bool):
    """numba (and pythran) box a returned scalar as a Python float or int: give it the
    manifest's dtype (scalars_only: leave arrays as they are, for the check to judge)."""
    import numpy as np
    items = returned if len(rets) > 1 else (returned,)
    if not (isinstance(items, tuple) and len(items) == len(rets)):
        return returned
    cast = tuple(v if scalars_only and np.ndim(v) else np.asarray(v).astype(r.dtype, copy=False)
                 for v, r in zip(items, rets))
    return cast if len(rets) > 1 else cast[0]


def serve_python(job: RunnerJob, mapping, go: int, done: int) -> int:
    call, path = _python_call(job, views(mapping, job.layout))
    _ready(job, done)
    while True:
        c = os.read(go, 1)
        if c == PING:
            os.write(done, DONE)
            continue
        if c != GO:
            return 0
        try:
            call()
        except Failure as exc:
            send(done, CALL_FAILED, str(exc))
            continue
        except (Exception, SystemExit) as exc:
            send(done, CALL_FAILED, f"the candidate raised {_brief(exc, path)}" if path else _brief(exc))
            continue
        os.write(done, DONE)


def main() -> int:
    with os.fdopen(0, "rb", closefd=False) as stdin:
        job = RunnerJob.from_json(stdin.read())
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    cpus = os.environ.get("HPCAB_CPUS")
    slot = {int(c) for c in cpus.split(",")} if cpus else None
    # The candidate is confined before any of its code loads (its cgroup's cpuset holds it
    # there too), and so is the judge's C baseline; the judge's Python targets load on any
    # CPU, in parallel (numba compiles), then join the slot.
    if slot and _slot_before_load(job):
        os.sched_setaffinity(0, slot)
    go, done = job.go, job.done
    mapping = mmap.mmap(job.buffer_fd, job.buffer_bytes)
    os.close(job.buffer_fd)
    try:
        if job.kind == "c":
            return serve_c(job, mapping, go, done)
        return serve_python(job, mapping, go, done)
    except Failure as exc:
        send(done, LOAD_FAILED, str(exc))
        return 3
    except (Exception, SystemExit) as exc:
        send(done, LOAD_FAILED, f"loading raised {_brief(exc)}")
        return 3


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)      # no exit handlers: nothing of the candidate's runs after the last call
