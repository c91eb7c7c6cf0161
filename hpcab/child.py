"""The measuring child process: `python -m hpcab.child JOBDIR`.

It is the only process that loads candidate code. It reads job.json from JOBDIR and the
input sets from stdin, times the targets call by call (interleaved, the order alternating every round),
and writes result.json and outputs.npz back. It never sees the oracle's outputs.

Per call, outside the timer: every input is copied fresh from the pristine input set of
the round (timed rounds rotate over K sets, the warm-up has its own, so no answer can be
replayed from the previous call) and every output buffer poisoned. Inside the timer: only
the call (C targets: timed in C by the trampoline; Python, numba and module targets:
perf_counter_ns around the call). The instant a call returns its outputs are copied and its
inputs compared with the pristine set; the parent gets each set's first answer and every
later answer that differs, to check them all. Before the candidate's next call (and once
more after a pause at the end) its outputs are compared with what they were at return:
a change means work still going on after the call returned. The judge's own targets'
outputs are poisoned right after their calls, so the answer is not in memory when the
candidate runs.

A candidate written in Python (kind "module": the python and pythran languages) is
imported from its build folder and called like the NumPy reference; what its code raises,
loading or called, is its failure: result.json's error says what and where.

An optional target (a baseline) that cannot be loaded, or raises, is dropped and its error
reported in result.json's target_errors; the others are still timed. Which target the
child is loading or calling is kept in JOBDIR/where, so that when it dies the caller knows
whose call it was.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import mmap
import os
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from hpcab.case import poison
from hpcab.errors import InputError

_dumps = json.dumps      # bound before any candidate loads (and watched: see Watch)


class CTarget:
    def __init__(self, spec: dict, job: dict, pristine: dict, ffi, harness):
        self.name = spec["name"]
        self.ffi, self.harness = ffi, harness
        err = ffi.new("char[]", 1024)
        self.fn = harness.hpcab_open(spec["library"].encode(), spec["symbol"].encode(), err, 1024)
        if self.fn == ffi.NULL:
            raise LoadError(f"cannot load {spec['symbol']!r} from {self.name!r}: {ffi.string(err).decode()}")
        self.buffers: dict[str, np.ndarray] = {}
        pointers, scalars = [], []
        for p in job["params"]:
            if p["pointer"]:
                if p["role"] == "workspace":
                    buf = np.zeros(max(job["workspace_bytes"], 64), dtype=np.uint8)
                else:
                    buf = pristine[p["name"]].copy()
                    self.buffers[p["name"]] = buf
                pointers.append(buf)
            else:
                if p["name"] == "workspace_size":
                    value = np.array([job["workspace_bytes"]], dtype=np.int64)
                elif p["role"] == "size":
                    value = np.array([job["sizes"][p["name"]]], dtype=np.int64)
                else:
                    value = np.asarray(pristine[p["name"]]).reshape(1).copy()
                scalars.append(value)
        # Wrap every buffer once, outside the timed region; keep the wrappers alive.
        self._keep = [ffi.from_buffer(b) for b in pointers + scalars]
        self.pointers = ffi.new("void *[]", [ffi.cast("void *", w) for w in self._keep[:len(pointers)]] or 1)
        self.scalars = ffi.new("void *[]", [ffi.cast("void *", w) for w in self._keep[len(pointers):]] or 1)

    def call(self) -> int:
        return int(self.harness.hpcab_timed_call(self.fn, self.pointers, self.scalars))


class PythonTarget:
    """The NumPy reference, timed in the same session so the comparison is fair."""

    def __init__(self, spec: dict, job: dict, pristine: dict):
        from hpcab.case import reference_args
        from hpcab.kernel import load_kernel
        self.name = spec["name"]
        self.kernel = load_kernel(Path(spec["kernel_dir"]), Path(spec["corpus_root"]), check=False)
        self.sizes = job["sizes"]
        self.function = self.kernel.reference().function
        self.buffers = {a.name: pristine[a.name].copy() for a in self.kernel.arrays}
        scalars = {s.name: pristine[s.name] for s in self.kernel.scalars}
        self.args = reference_args(self.kernel, {**self.buffers, **scalars}, self.sizes)
        self.returned = None
        for r in self.kernel.returns:
            self.buffers[r.name] = pristine[r.name].copy()

    def call(self) -> int:
        t0 = time.perf_counter_ns()
        self.returned = self.function(*self.args)
        t1 = time.perf_counter_ns()
        return t1 - t0

    def collect_returns(self) -> None:
        from hpcab.case import collect_outputs
        if self.kernel.returns:
            outs = collect_outputs(self.kernel, self.buffers, self.returned, self.sizes, "reference")
            for r in self.kernel.returns:
                self.buffers[r.name][...] = outs[r.name]


class NumbaTarget(PythonTarget):
    """The NumPy reference compiled with numba.njit: the loop_level_reasoning baseline.

    Compiled by one untimed call when the target is loaded, so the compiler is never timed
    whatever the policy's warm-up (the buffers are reset before every timed call anyway).
    NUMBA_NUM_THREADS comes from the judge's policy (hpcab/run.py)."""

    def __init__(self, spec: dict, job: dict, pristine: dict):
        super().__init__(spec, job, pristine)
        try:
            import numba
        except ImportError as exc:
            raise LoadError(f"target {self.name!r} needs numba, which is not installed in the judge's "
                            f"environment ({exc}); install hpcab[frameworks]") from None
        try:
            self.function = numba.njit(cache=False)(self.function)
            self.function(*self.args)
        except Exception as exc:
            raise LoadError(f"numba cannot compile the reference {self.kernel.name}: {_brief(exc)}") from None

    def collect_returns(self) -> None:
        self.returned = _cast_returns(self.returned, self.kernel.returns, scalars_only=False)
        super().collect_returns()


def _cast_returns(returned, rets, scalars_only: bool):
    """numba (and pythran) box a returned scalar as a Python float or int: give it the
    manifest's dtype (scalars_only: leave arrays as they are, for the check to judge)."""
    if not rets:
        return returned
    items = returned if len(rets) > 1 else (returned,)
    if not (isinstance(items, tuple) and len(items) == len(rets)):
        return returned
    cast = tuple(v if scalars_only and np.ndim(v) else np.asarray(v).astype(r.dtype, copy=False)
                 for v, r in zip(items, rets))
    return cast if len(rets) > 1 else cast[0]


class ModuleTarget(PythonTarget):
    """A candidate in Python (languages python and pythran): its module (the source, or the
    extension module pythran built) is imported from its build folder, and its function
    with the reference's name is called with the reference's arguments, timed like the
    reference. One untimed call when it is loaded, on the warm-up's input set, so a JIT
    (numba) never compiles inside the timer."""

    def __init__(self, spec: dict, job: dict, pristine: dict, warm: dict):
        super().__init__(spec, job, pristine)
        self.path = Path(spec["library"])
        # An extension module's name is fixed by its init function (PyInit_candidate): the
        # file's stem. A source module gets a name of its own (its build's key).
        name = (f"hpcab_candidate_{self.path.parent.name[:16]}" if self.path.suffix == ".py"
                else self.path.name.split(".")[0])
        try:
            found = importlib.util.spec_from_file_location(name, self.path)
            module = importlib.util.module_from_spec(found)
            sys.modules[name] = module
            found.loader.exec_module(module)
        except (Exception, SystemExit) as exc:
            raise CandidateError(f"importing the candidate raised {_failure(exc, self.path)}") from None
        fn = getattr(module, self.kernel.name, None)
        if not callable(fn):
            raise CandidateError(f"the candidate defines no function {self.kernel.name!r}: it must have the NumPy "
                                 f"reference's name and arguments (hpcab show {self.kernel.name} --abi python)")
        self.function = fn
        for a in self.kernel.arrays:
            np.copyto(self.buffers[a.name], warm[a.name])
        try:
            fn(*self.args)
        except (Exception, SystemExit) as exc:
            raise CandidateError(f"the candidate's first (untimed) call raised {_failure(exc, self.path)}") from None

    def call(self) -> int:
        fn, args = self.function, self.args
        try:
            t0 = time.perf_counter_ns()
            self.returned = fn(*args)
            t1 = time.perf_counter_ns()
        except (Exception, SystemExit) as exc:
            raise CandidateError(f"the candidate raised {_failure(exc, self.path)}") from None
        return t1 - t0

    def collect_returns(self) -> None:
        self.returned = _cast_returns(self.returned, self.kernel.returns, scalars_only=True)
        try:
            super().collect_returns()
        except InputError as exc:
            raise CandidateError(f"{exc.field} (the candidate) {exc.message}") from None


class LoadError(Exception):
    pass


class CandidateError(Exception):
    """The candidate's own Python code failed (import, call, return values): its graded error."""


def _failure(exc: BaseException, path: Path) -> str:
    """The exception, and the candidate's line that raised it (its last frame in the candidate's file)."""
    where = next((f" (candidate line {f.lineno}: {f.line})" for f in reversed(traceback.extract_tb(exc.__traceback__))
                  if f.filename == str(path)), "")
    return _brief(exc) + where


def _brief(exc: BaseException, limit: int = 2000) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text if len(text) <= limit else text[:limit] + " …"


# The judge's Python that its own targets (the NumPy reference, the baseline) are timed and
# run through: a candidate in the same interpreter must not rewrite it.
WATCHED_MODULES = ("builtins", "time", "math", "json", "numpy", "numpy.linalg", "numpy.fft", "hpcab.child",
                   "hpcab.case", "hpcab.kernel")


class Watch:
    """The identities of every name in the watched modules (and of every method of the
    classes they define), taken once the judge's own targets are loaded and before any
    candidate code is, and compared after each of the candidate's loads and calls and once
    at the end. A candidate that replaced numpy.where, time.perf_counter_ns or
    PythonTarget.call (to slow the references down, or to fake a time) has failed.

    This catches a rewrite that stays in place; code in the same interpreter can still undo
    its own change before the next look, or rewrite this watch (docs/threat_model.md): the
    complete answer is timing the references in a process the candidate never runs in."""

    def __init__(self, functions: list = ()):
        """functions: the judge's Python targets' functions, whose module globals are watched too."""
        self.spaces = {m: vars(sys.modules[m]) for m in WATCHED_MODULES if m in sys.modules}
        self.spaces[__name__] = globals()        # this very module, which runs as __main__
        for f in functions:
            f = getattr(f, "py_func", f)           # a numba dispatcher: the function it compiled
            self.spaces.setdefault(f.__module__ or "reference", f.__globals__)
        self.own = {__name__} | {m for m in self.spaces if m.startswith("hpcab.")}    # classes whose methods count
        self.ids = self._take()
        self.classes = [vars(v) for name in self.own for v in list(self.spaces[name].values())
                        if isinstance(v, type) and v.__module__ == name]
        self.quick = self._quick()

    def _quick(self) -> list[tuple]:
        """Every name and identity at C speed: equal to the last one means nothing changed."""
        return ([(tuple(s), tuple(map(id, s.values()))) for s in self.spaces.values()]
                + [tuple(map(id, c.values())) for c in self.classes])

    def _take(self) -> dict[tuple, int]:
        ids = {}
        for name, space in self.spaces.items():
            for key, value in list(space.items()):
                ids[(name, key)] = id(value)
                if isinstance(value, type) and value.__module__ == name and name in self.own:
                    for attr, member in list(vars(value).items()):
                        ids[(name, key, attr)] = id(member)
        return ids

    def changed(self) -> list[str]:
        now = self._take()
        names = [".".join(k) for k, v in self.ids.items() if now.get(k) != v]
        for k in now.keys() - self.ids.keys():
            value = self.spaces[k[0]].get(k[1]) if len(k) == 2 else None
            lazy = getattr(value, "__name__", None) == f"{k[0]}.{k[1]}"     # numpy imports submodules on first use
            if not (lazy or (k[-1].startswith("__") and k[-1] != "__getattr__")):    # e.g. __warningregistry__
                names.append(".".join(k))
        return sorted(names)

    def verdict(self, when: str) -> str | None:
        quick = self._quick()
        if quick == self.quick:
            return None
        names = self.changed()
        if not names:
            self.quick = quick           # only what is allowed to appear appeared (see changed)
            return None
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        return (f"the candidate rewrote the judge's Python {when}: {shown} (the references it is timed against "
                f"run through these)")


class Where:
    """Which target the child is busy with, in the shared file the caller reads after a crash."""
    LOADING, CALLING = 1, 2

    def __init__(self, path: Path):
        self._map = None
        if path.is_file() and path.stat().st_size >= 2:
            with open(path, "r+b") as f:
                self._map = mmap.mmap(f.fileno(), 2)

    def set(self, phase: int, index: int = 0) -> None:
        if self._map is not None:
            self._map[1] = index
            self._map[0] = phase


def _reset(target, pristine: dict, poisons: dict) -> None:
    for name, buf in target.buffers.items():
        if name in poisons:
            np.copyto(buf, poisons[name])
        else:
            np.copyto(buf, pristine[name])


def set_of_round(r: int, sets: int) -> int:
    """The input set of timed round r. First the sets two by two, 0,1,0,1,2,3,2,3,... (an odd
    last one as K-1,0,K-1): each set's second call comes two rounds after its first, so the
    memo check (hpcab.grade._memoized) compares calls close in time, which a passing
    disturbance of the machine slows alike; then plain rotation. No two consecutive rounds
    share a set, so an answer replayed from the previous call is wrong."""
    if sets < 2:
        return 0
    prefix = [x for j in range(0, sets - 1, 2) for x in (j, j + 1, j, j + 1)]
    if sets % 2:
        prefix += [sets - 1, 0, sets - 1]
    return prefix[r] if r < len(prefix) else (r - len(prefix)) % sets


def _offheap(like: np.ndarray, copy: bool = False) -> np.ndarray:
    """An array shaped like `like` in its own anonymous mapping, outside malloc's heap: what
    the child keeps between calls must not move where a target's temporaries land (with
    hpcab.run.MALLOC_TUNABLES they then reuse pages already touched, for every target
    alike). copy: with like's values."""
    mapping = mmap.mmap(-1, max(like.nbytes, 1))
    arr = np.frombuffer(mapping, dtype=like.dtype, count=like.size).reshape(like.shape)
    if copy:
        np.copyto(arr, like)
    return arr


def _bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit (NaN payloads included), without copies: compared 8 bytes at a time."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    x, y = a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8)
    n = x.size - x.size % 8
    return bool(np.array_equal(x[:n].view(np.uint64), y[:n].view(np.uint64)) and np.array_equal(x[n:], y[n:]))


def _modified_inputs(target, pristine: dict, job: dict) -> list[str]:
    # Inputs are copied fresh before every call: any bit that differs was written.
    return [n for n in job["inputs"] if not _bits_equal(target.buffers[n], pristine[n])]


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    """Bit for bit, so a nondeterministic but correct answer is kept for the parent to
    check rather than judged here."""
    return all(_bits_equal(a[n], b[n]) for n in a)


@functools.lru_cache(maxsize=1)
def _harness_ffi(module: str):
    """The harness's cffi declarations, pre-parsed by the judge (hpcab.harness.harness_ffi_module):
    importing them is much faster than parsing C here."""
    spec = importlib.util.spec_from_file_location(Path(module).stem, module)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.ffi


def _load(spec: dict, job: dict, pristine: dict, warm: dict):
    """pristine: the first input set (the buffers' start); warm: the warm-up's."""
    if spec["kind"] == "c":
        ffi = _harness_ffi(job["harness_ffi"])
        harness = ffi.dlopen(job["harness"])
        return CTarget(spec, job, pristine, ffi, harness)
    if spec["kind"] == "numba":
        return NumbaTarget(spec, job, pristine)
    if spec["kind"] == "python":
        return PythonTarget(spec, job, pristine)
    if spec["kind"] == "module":
        return ModuleTarget(spec, job, pristine, warm)
    raise LoadError(f"target {spec['name']!r}: unknown kind {spec['kind']!r}")


def run(jobdir: Path) -> int:
    job = json.loads((jobdir / "job.json").read_text())
    sets = job["input_sets"]               # timed calls use sets 0..K-1 (set_of_round); set K is the warm-up's
    # The input sets come on stdin (hpcab.run.run_case): read them all, then close it before
    # any candidate code is loaded.
    with os.fdopen(0, "rb", closefd=False) as stdin, np.load(stdin) as data:
        pristine = [{k.split("/", 1)[1]: data[k] for k in data.files if k.startswith(f"set{i}/")}
                    for i in range(sets + 1)]
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    poisons = {n: poison(pristine[0][n].dtype, pristine[0][n].shape) for n in job["poisoned"]}
    where = Where(jobdir / "where")

    def fail(message: str) -> int:
        (jobdir / "result.json").write_text(_dumps({"error": message}))
        return 3

    targets = []                 # (index in the job, spec, target)
    target_errors: dict[str, str] = {}
    # The judge's own targets load first, then the watch is taken, then the candidate loads.
    trusted_first = sorted(enumerate(job["targets"]), key=lambda item: not item[1].get("trusted", False))
    watch = None
    for index, spec in trusted_first:
        if watch is None and not spec.get("trusted", False):
            watch = Watch([t.function for _, _, t in targets if isinstance(t, PythonTarget)])
        where.set(Where.LOADING, index)
        try:
            targets.append((index, spec, _load(spec, job, pristine[0], pristine[sets])))
        except Exception as exc:
            if spec.get("optional"):
                target_errors[spec["name"]] = str(exc) if isinstance(exc, (LoadError, CandidateError)) else _brief(exc)
                continue
            if isinstance(exc, (LoadError, CandidateError)):
                return fail(str(exc))
            raise
        if watch is not None and (bad := watch.verdict("while it was loaded")):
            return fail(bad)
    targets.sort(key=lambda item: item[0])
    where.set(0)

    names = [t.name for _, _, t in targets]
    samples: dict[str, list[int]] = {n: [] for n in names}
    sample_sets: dict[str, list[int]] = {n: [] for n in names}    # the input set of each timed sample
    snapshots: dict[str, np.ndarray] = {}     # "target/key/output": kept outputs, for the parent to check
    kept: dict[str, dict[str, dict]] = {n: {} for n in names}     # target → key → outputs
    modified: dict[str, list[str]] = {n: [] for n in names}
    changed_after_return: dict[str, list[str]] = {n: [] for n in names}
    returned: dict[str, dict[str, np.ndarray]] = {}   # an untrusted target's outputs as they were at return
    budget = {"bytes": job["snapshot_bytes"], "dropped": 0}

    # What the child holds between calls lives outside malloc's heap (see _offheap): one
    # reused copy of each target's latest outputs, and the kept snapshots.
    latest = {n: {o: _offheap(pristine[0][o]) for o in job["outputs"]} for n in names}

    def outputs_of(t) -> dict[str, np.ndarray]:
        """The outputs as they are now, copied into the target's reused off-heap buffers
        (valid until its next call)."""
        if isinstance(t, PythonTarget):
            t.collect_returns()
        outs = latest[t.name]
        for n in job["outputs"]:
            np.copyto(outs[n], t.buffers[n])
        return outs

    def keep(t, key: str, outs: dict[str, np.ndarray]) -> None:
        size = sum(o.nbytes for o in outs.values())
        if size > budget["bytes"]:
            budget["dropped"] += 1
            return
        budget["bytes"] -= size
        outs = {n: _offheap(o, copy=True) for n, o in outs.items()}
        kept[t.name][key] = outs
        for n, o in outs.items():
            snapshots[f"{t.name}/{key}/{n}"] = o

    def after_call(t, trusted: bool, s: int, timed_index: int | None) -> None:
        """The instant the call returns: snapshot the outputs, check the inputs, and keep what
        the parent must validate (each set's first answer, and any later answer that differs)."""
        key = "warmup" if timed_index is None else f"set{s}"
        # The judge's own targets are checked on their first call on each set only.
        if not trusted or key not in kept[t.name]:
            outs = outputs_of(t)
            for n in _modified_inputs(t, pristine[s], job):
                if n not in modified[t.name]:
                    modified[t.name].append(n)
            if key not in kept[t.name]:
                keep(t, key, outs)
            elif not _same(outs, kept[t.name][key]):
                keep(t, f"set{s}@{timed_index}", outs)
        if trusted:
            # The answer for this input set must not sit in memory while the candidate runs.
            for n in job["outputs"]:
                np.copyto(t.buffers[n], poisons[n] if n in poisons else pristine[s][n])
            if isinstance(t, PythonTarget):
                t.returned = None
        else:
            returned[t.name] = outs

    def check_after_return(t) -> None:
        """Outputs that changed since the call returned: work still being done after it."""
        before = returned.pop(t.name, None)
        if before is None:
            return
        now = {n: t.buffers[n] for n in before}
        for n in before:
            if n not in changed_after_return[t.name] and not _bits_equal(now[n], before[n]):
                changed_after_return[t.name].append(n)

    def drop(index, spec, t, exc):
        """An optional target failed: report it, forget everything it produced, time the rest."""
        target_errors[t.name] = _brief(exc)
        targets.remove((index, spec, t))
        for key in [k for k in snapshots if k.startswith(t.name + "/")]:
            del snapshots[key]
        for d in (samples, sample_sets, modified, kept, changed_after_return, returned):
            d.pop(t.name, None)

    warmup, min_reps, max_reps = job["warmup"], job["min_repetitions"], job["max_repetitions"]
    started = time.monotonic()
    rnd = 0
    while True:
        timed_round = rnd >= warmup
        s = set_of_round(rnd - warmup, sets) if timed_round else sets
        order = list(targets) if rnd % 2 == 0 else targets[::-1]
        for index, spec, t in order:
            trusted = spec.get("trusted", False)
            where.set(Where.CALLING, index)
            try:
                if not trusted:
                    check_after_return(t)
                _reset(t, pristine[s], poisons)
                ns = t.call()
                after_call(t, trusted, s, len(samples[t.name]) if timed_round else None)
                if watch is not None and not trusted and (bad := watch.verdict("during a call")):
                    return fail(bad)
            except Exception as exc:
                if isinstance(exc, CandidateError) and not spec.get("optional"):
                    # The candidate's failure, reported (the where file still names it).
                    return fail(str(exc))
                if not spec.get("optional"):
                    raise
                drop(index, spec, t, exc)
                continue
            if timed_round:
                samples[t.name].append(ns)
                sample_sets[t.name].append(s)
        where.set(0)
        rnd += 1
        timed = rnd - warmup
        spent = max((sum(v) for v in samples.values()), default=0) / 1e9
        if timed >= max_reps or (timed >= min_reps and (spent >= job["target_seconds"]
                                                        or time.monotonic() - started >= job["max_seconds"])):
            break
    # A last look after a pause: a thread left writing after the last call shows here.
    time.sleep(job["settle_seconds"])
    for index, spec, t in list(targets):
        if not spec.get("trusted", False):
            check_after_return(t)
    where.set(0)
    if watch is not None and (bad := watch.verdict("after its calls")):
        return fail(bad)

    np.savez(jobdir / "outputs.npz", **snapshots)
    (jobdir / "result.json").write_text(_dumps({
        "samples_ns": samples, "sample_sets": sample_sets, "inputs_modified": modified,
        "changed_after_return": changed_after_return, "snapshots_dropped": budget["dropped"],
        "rounds": rnd, "target_errors": target_errors,
    }))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    cpus = os.environ.get("HPCAB_CPUS")
    if cpus:
        os.sched_setaffinity(0, {int(c) for c in cpus.split(",")})
    return run(Path(argv[0]))


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # No exit handlers: a candidate's destructor or atexit hook must not run after the
    # results are written (it could rewrite them).
    os._exit(code)
