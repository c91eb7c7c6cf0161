"""Roofline plausibility: is a measured time faster than this machine could possibly be?

    probe(toolchains, threads, cpus) -> Machine      (measured once per machine, then cached)
    bound(kernel, sizes, machine)    -> Bound        (bound_ns: its time in ns)
    plausible(kernel, sizes, median_ns, machine)     -> (bool, message)

The probe compiles a small C library through a named flag set from toolchains/ (FLAGSET)
and runs it in a child process pinned to the given CPUs with the given number of threads
(OpenMP): STREAM-style read, copy, triad and in-place update loops over arrays several
times larger than every cache those CPUs reach, giving bytes/s (the best of several passes,
counted the STREAM way: each array element read or written once, no write-allocate
traffic; the update, b[i] += a[i] * c[i], has none to pay and keeps more misses in flight
on one core, so kernels that update in place reach its rate, 20-40 % over the triad's on
the development machine), and a loop of independent multiply-adds on the widest vectors
the CPU has, giving the peak float64 and float32 flop/s (an FMA counts 2). The result is
kept as JSON in the build cache, keyed by CPU model and flags, threads, CPU set, cache
sizes, compiler, flag set and probe source, so a judge measures once.

A kernel's manifest declares `roofline: {flops, bytes}`: lower bounds on the work every
correct implementation does (docs/manifest.md). The time bound is the larger of

    flops / peak(kernel precision)           and      max(0, bytes - 2 C) / bandwidth

where C is the capacity of every data cache the CPUs reach. The cache term is what makes
the bound sound for the judge's procedure: before each timed call the judge copies the
inputs afresh and poisons the outputs, so up to C bytes of the kernel's data can already
sit in cache when the call starts (it is served at cache speed, which we do not credit at
all), and up to C bytes of output can still sit, dirty, in cache when it returns. Every
other compulsory byte crosses the memory bus during the call. A working set that fits in
twice the caches is therefore bounded by its flops alone.
"""

from __future__ import annotations

import ctypes
import datetime as _dt
import fcntl
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from hpcab.errors import HpcabError
from hpcab.paths import cache_dir

if TYPE_CHECKING:
    from hpcab.kernel import Kernel
    from hpcab.toolchain import Toolchains

# The named flag set the probe is built with (toolchains/flagsets.toml): full optimisation
# for this CPU plus OpenMP, the same code generation a parallel candidate gets.
FLAGSET = "autopar"
# A measured time below bound / MARGIN is implausible; see plausible().
MARGIN = 2.0
# Cache capacity assumed when /sys does not describe the caches: generous (a larger C only
# lowers the bound), about the last-level cache share of one core complex of a large server.
FALLBACK_CACHE_BYTES = 64 << 20
# Total STREAM footprint when the caches are unknown (three arrays).
FALLBACK_STREAM_BYTES = 256 << 20
STREAM_CACHE_FACTOR = 4            # each array at least 4x the caches (the STREAM rule)
STREAM_MIN_ARRAY_BYTES = 32 << 20
STREAM_MAX_ARRAY_BYTES = 1 << 30
STREAM_PASSES = 5                  # best of
FMA_REPETITIONS = 5                # best of
FMA_SECONDS = 0.02                 # per timed repetition, after calibration
PROBE_TIMEOUT_S = 120
# Bump when the measuring procedure changes (the C source is hashed into the key anyway).
PROCEDURE = 1

PROBE_SOURCE = r"""/* hpcab roofline probe: memory bandwidth and peak floating-point rate. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The widest vectors the target has: GCC vector extensions, so the width does not depend
   on the auto-vectoriser's preferred width (which is 256 bits on some AVX-512 parts). */
#if defined(__AVX512F__)
#define VBYTES 64
#elif defined(__AVX__)
#define VBYTES 32
#else
#define VBYTES 16
#endif
/* Independent accumulators: more than FMA latency x FMA ports on current cores. */
#define NACC 12

typedef double vd __attribute__((vector_size(VBYTES)));
typedef float vf __attribute__((vector_size(VBYTES)));

volatile double hpcab_probe_sink;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int thread_id(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static int thread_count(void) {
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* acc = acc * x + y on NACC independent vectors: a contracted multiply-add each. The
   values converge to y / (1 - x): no overflow, no subnormals. */
#define FMA_LOOP(T, E, NAME)                                                         \
static double NAME(int64_t iters, E x0, E y0) {                                      \
    enum { W = VBYTES / sizeof(E) };                                                 \
    T acc[NACC], x, y;                                                               \
    for (int l = 0; l < W; l++) { x[l] = x0; y[l] = y0; }                            \
    for (int k = 0; k < NACC; k++)                                                   \
        for (int l = 0; l < W; l++) acc[k][l] = y0 * (E)(k + 1) + (E)l;              \
    for (int64_t i = 0; i < iters; i++)                                              \
        for (int k = 0; k < NACC; k++) acc[k] = acc[k] * x + y;                      \
    double s = 0.0;                                                                  \
    for (int k = 0; k < NACC; k++)                                                   \
        for (int l = 0; l < W; l++) s += (double)acc[k][l];                          \
    return s;                                                                        \
}
FMA_LOOP(vd, double, fma_f64)
FMA_LOOP(vf, float, fma_f32)

/* Seconds for `iters` iterations on each of `threads` threads; *flops: the flops done. */
double hpcab_probe_fma(int single, int64_t iters, int threads, double *flops) {
    double total = 0.0;
    int used = 1;
    double t0 = now();
#pragma omp parallel num_threads(threads) reduction(+:total)
    {
        total += single ? fma_f32(iters, 0.9999999f, 1e-7f) : fma_f64(iters, 0.9999999, 1e-7);
        if (thread_id() == 0) used = thread_count();
    }
    double t1 = now();
    hpcab_probe_sink = total;
    int lanes = single ? (int)(VBYTES / sizeof(float)) : (int)(VBYTES / sizeof(double));
    *flops = 2.0 * NACC * lanes * (double)iters * used;
    return t1 - t0;
}

/* This thread's share of n elements, in blocks of 64. */
static void span(int64_t n, int64_t *lo, int64_t *hi) {
    int64_t t = thread_id(), T = thread_count(), blocks = n / 64;
    *lo = blocks * t / T * 64;
    *hi = blocks * (t + 1) / T * 64;
}

/* best[0..3]: the shortest of `passes` passes of read (a sum), copy, triad and update over three
   arrays of n doubles (n a multiple of 64 per thread); each thread first touches the part
   it later streams. Returns 0, or -1 when the arrays cannot be allocated. */
int hpcab_probe_stream(int64_t n, int passes, int threads, double *best) {
    double *a = aligned_alloc(4096, (size_t)n * sizeof(double));
    double *b = aligned_alloc(4096, (size_t)n * sizeof(double));
    double *c = aligned_alloc(4096, (size_t)n * sizeof(double));
    if (!a || !b || !c) { free(a); free(b); free(c); return -1; }
#pragma omp parallel num_threads(threads)
    {
        int64_t lo, hi;
        span(n, &lo, &hi);
        for (int64_t i = lo; i < hi; i++) { a[i] = 1.0; b[i] = 2.0; c[i] = 0.5; }
    }
    for (int k = 0; k < 4; k++) best[k] = 1e30;
    double sink = 0.0;
    for (int r = 0; r < passes; r++) {
        for (int k = 0; k < 4; k++) {
            double total = 0.0;
            double t0 = now();
#pragma omp parallel num_threads(threads) reduction(+:total)
            {
                int64_t lo, hi;
                span(n, &lo, &hi);
                if (k == 0) {
                    enum { W = VBYTES / sizeof(double) };
                    vd s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, v0, v1, v2, v3;
                    for (int64_t i = lo; i < hi; i += 4 * W) {
                        memcpy(&v0, a + i, VBYTES);
                        memcpy(&v1, a + i + W, VBYTES);
                        memcpy(&v2, a + i + 2 * W, VBYTES);
                        memcpy(&v3, a + i + 3 * W, VBYTES);
                        s0 += v0; s1 += v1; s2 += v2; s3 += v3;
                    }
                    vd s = (s0 + s1) + (s2 + s3);
                    for (int l = 0; l < W; l++) total += s[l];
                } else if (k == 1) {
                    double *restrict dst = b;
                    const double *restrict src = a;
                    for (int64_t i = lo; i < hi; i++) dst[i] = src[i];
                } else if (k == 2) {
                    double *restrict dst = a;
                    const double *restrict x = b, *restrict y = c;
                    const double q = 3.0;
                    for (int64_t i = lo; i < hi; i++) dst[i] = x[i] + q * y[i];
                } else {
                    double *restrict dst = b;
                    const double *restrict x = a, *restrict y = c;
                    for (int64_t i = lo; i < hi; i++) dst[i] += x[i] * y[i];
                }
            }
            double t = now() - t0;
            sink += total;
            if (t < best[k]) best[k] = t;
        }
    }
    hpcab_probe_sink = sink + a[n / 2] + b[n / 3];
    free(a); free(b); free(c);
    return 0;
}
"""

# Bytes counted per element by each STREAM pattern (reads + writes, no write-allocate).
STREAM_BYTES_PER_ELEMENT = {"read": 8, "copy": 16, "triad": 24, "update": 32}


@attrs.frozen
class Machine:
    """What the probe measured on one CPU set with one thread count."""
    key: str
    cpu_model: str
    threads: int
    cpus: tuple[int, ...]
    cache_bytes: int                  # every data/unified cache the CPUs reach, summed
    caches: tuple[str, ...]           # e.g. "L2 1024 KiB (cpus 1)"
    cache_source: str                 # sysfs | assumed
    stream_array_bytes: int           # bytes per array in the bandwidth loops
    bandwidth: dict[str, float]       # bytes/s per pattern: read, copy, triad, update
    peak: dict[str, float]            # flop/s: float64, float32
    compiler: str
    compiler_version: str
    flagset: str
    measured_at: str                  # UTC, ISO 8601
    seconds: float                    # how long the probe took (build + measurement)
    cached: bool = False              # True: read back from the cache, not measured now

    @property
    def bandwidth_bytes_per_s(self) -> float:
        """The best of the patterns: the bound must not assume less than the memory can do."""
        return max(self.bandwidth.values())

    def peak_for(self, precision: str) -> float:
        """flop/s for a kernel's precision: float32 kernels get the float32 peak; integer
        ('exact') kernels, should one ever declare flops, the larger of the two."""
        if precision in self.peak:
            return self.peak[precision]
        return max(self.peak.values())

    def describe(self) -> str:
        where = ",".join(map(str, self.cpus))
        return (f"{self.cpu_model}, {self.threads} thread(s) on CPU {where}: "
                f"{self.bandwidth_bytes_per_s / 1e9:.1f} GB/s, {self.peak['float64'] / 1e9:.1f} GF/s float64, "
                f"{self.peak['float32'] / 1e9:.1f} GF/s float32, caches {self.cache_bytes / 2**20:.1f} MiB")

    def document(self) -> dict:
        doc = attrs.asdict(self)
        doc["cpus"] = list(self.cpus)
        doc["caches"] = list(self.caches)
        doc["bandwidth_bytes_per_s"] = self.bandwidth_bytes_per_s
        return doc

    @classmethod
    def from_document(cls, doc: dict, cached: bool = False) -> "Machine":
        fields = {f.name for f in attrs.fields(cls)}
        values = {k: v for k, v in doc.items() if k in fields}
        values.update(cpus=tuple(doc["cpus"]), caches=tuple(doc["caches"]), cached=cached)
        return cls(**values)


@attrs.frozen
class Bound:
    """A kernel's roofline time bound on one machine, with its parts."""
    flops: int
    bytes: int
    memory_bytes: int         # the part of `bytes` that must cross the memory bus: bytes - 2 C
    flops_ns: float
    bytes_ns: float

    @property
    def ns(self) -> float:
        return max(self.flops_ns, self.bytes_ns)

    @property
    def limited_by(self) -> str:
        return "flops" if self.flops_ns >= self.bytes_ns else "memory"

    def describe(self) -> str:
        return (f"{_fmt_count(self.flops)} flop in {_fmt_ns(self.flops_ns)} at peak; "
                f"{_fmt_count(self.memory_bytes)}B of {_fmt_count(self.bytes)}B beyond the caches "
                f"in {_fmt_ns(self.bytes_ns)} at the measured bandwidth")


def _fmt_ns(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def _fmt_count(n: float) -> str:
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:g} "


# --- caches -------------------------------------------------------------------------------

_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _parse_size(text: str) -> int:
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = text[-1] if text and text[-1] in _SIZE_UNITS else ""
    return int(text[: len(text) - len(unit)]) * _SIZE_UNITS[unit]


def _cpu_list(text: str) -> tuple[int, ...]:
    cpus: list[int] = []
    for part in text.strip().split(","):
        if "-" in part:
            lo, hi = part.split("-")
            cpus.extend(range(int(lo), int(hi) + 1))
        elif part:
            cpus.append(int(part))
    return tuple(cpus)


def cache_hierarchy(cpus: tuple[int, ...], sysfs: Path = Path("/sys/devices/system/cpu")) -> list[dict]:
    """The distinct data and unified caches the CPUs reach (each shared cache once), from
    sysfs (what lscpu reads too). Empty when sysfs does not describe them."""
    seen: dict[tuple, dict] = {}
    for cpu in cpus:
        for index in sorted((sysfs / f"cpu{cpu}" / "cache").glob("index*")):
            try:
                kind = (index / "type").read_text().strip()
                if kind not in ("Data", "Unified"):
                    continue
                level = int((index / "level").read_text())
                size = _parse_size((index / "size").read_text())
                shared = _cpu_list((index / "shared_cpu_list").read_text())
            except (OSError, ValueError):
                continue
            seen.setdefault((level, kind, shared or (cpu,)),
                            {"level": level, "type": kind, "bytes": size, "cpus": shared or (cpu,)})
    return sorted(seen.values(), key=lambda c: (c["level"], c["cpus"]))


# --- the probe ----------------------------------------------------------------------------

def _default_cpus(threads: int, cpus) -> tuple[int, ...]:
    from hpcab.timing.policy import Policy, pinned     # the judge's own default placement
    return tuple(pinned(Policy(threads=threads, cpus=tuple(cpus) if cpus else None)).cpus)


def cached_machine(threads: int = 1, cpus=None) -> Machine | None:
    """The latest figures `probe` cached for this CPU model, `threads` and CPU set (default:
    the judge's placement), read without building or measuring anything; None when none are."""
    from hpcab.environment import cpu_info
    model, cpus, found = cpu_info()["model"], _default_cpus(threads, cpus), []
    for path in (cache_dir() / "roofline").glob("*.json"):
        try:
            m = Machine.from_document(json.loads(path.read_text()), cached=True)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if m.cpu_model == model and m.threads == threads and tuple(m.cpus) == cpus:
            found.append(m)
    return max(found, key=lambda m: m.measured_at) if found else None


def probe(toolchains: "Toolchains", threads: int = 1, cpus=None, fresh: bool = False,
          cache_root: Path | None = None) -> Machine:
    """This machine's memory bandwidth and peak flop rates on `cpus` (default: the judge's
    default placement, the last `threads` CPUs) with `threads` threads. Measured once per
    (CPU, threads, CPU set, caches, compiler, flag set, probe source) and cached as JSON;
    fresh=True measures again. Raises HpcabError when the probe cannot be built or run."""
    from hpcab.build import Candidate, build
    from hpcab.environment import cpu_info

    if threads < 1:
        raise HpcabError(f"probe: threads must be at least 1, not {threads}")
    started = time.perf_counter()
    cpus = _default_cpus(threads, cpus)
    caches = cache_hierarchy(cpus)
    cache_bytes = sum(c["bytes"] for c in caches) if caches else FALLBACK_CACHE_BYTES
    built = build(Candidate(PROBE_SOURCE, "c", label="roofline-probe"), toolchains, FLAGSET)
    if not built.ok:
        raise HpcabError(f"the roofline probe did not compile with flag set {FLAGSET!r}:\n{built.diagnostics}")
    cpu = cpu_info()
    key = hashlib.sha256(json.dumps({
        "procedure": PROCEDURE, "cpu_model": cpu["model"], "cpu_flags": cpu["flags"], "threads": threads,
        "cpus": list(cpus), "caches": [[c["level"], c["type"], c["bytes"], list(c["cpus"])] for c in caches],
        "build": built.key,
    }, sort_keys=True).encode()).hexdigest()
    folder = Path(cache_root) if cache_root else cache_dir() / "roofline"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key[:32]}.json"
    with open(folder / f"{key[:32]}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)      # concurrent graders: one measures, the others wait and read
        if path.is_file() and not fresh:
            try:
                return Machine.from_document(json.loads(path.read_text()), cached=True)
            except (ValueError, KeyError, TypeError):
                pass                            # a damaged record is measured again
        if caches:
            array_bytes = STREAM_CACHE_FACTOR * cache_bytes
        else:
            array_bytes = FALLBACK_STREAM_BYTES // 3
        array_bytes = min(max(array_bytes, STREAM_MIN_ARRAY_BYTES), STREAM_MAX_ARRAY_BYTES, _memory_share())
        n = max(array_bytes // 8 // (64 * threads), 1) * 64 * threads
        figures = _measure(built.library, threads, cpus, n)
        machine = Machine(
            key=key, cpu_model=cpu["model"], threads=threads, cpus=cpus, cache_bytes=cache_bytes,
            caches=tuple(f"L{c['level']} {c['type'].lower()} {c['bytes'] >> 10} KiB "
                         f"(CPUs {','.join(map(str, c['cpus']))})" for c in caches),
            cache_source="sysfs" if caches else "assumed", stream_array_bytes=n * 8,
            bandwidth=figures["bandwidth"], peak=figures["peak"], compiler=built.compiler,
            compiler_version=built.compiler_version, flagset=built.flagset,
            measured_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds"),
            seconds=round(time.perf_counter() - started, 3))
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(machine.document(), f, indent=2)
        os.replace(tmp, path)                   # atomic: a reader sees all of it or none
        return machine


def _memory_share() -> int:
    """At most an eighth of the physical memory per array (three arrays)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 8
    except (ValueError, OSError):
        return STREAM_MAX_ARRAY_BYTES


def _measure(library: Path, threads: int, cpus: tuple[int, ...], n: int) -> dict:
    """Run the probe in a child process pinned to `cpus` (OpenMP threads bound to them)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="true", OMP_DYNAMIC="false")
    job = json.dumps({"library": str(library), "threads": threads, "cpus": list(cpus), "n": n})
    try:
        proc = subprocess.run([sys.executable, "-m", "hpcab.roofline", job], capture_output=True, text=True,
                              env=env, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise HpcabError(f"the roofline probe took longer than {PROBE_TIMEOUT_S} s") from None
    if proc.returncode != 0:
        raise HpcabError(f"the roofline probe failed (exit status {proc.returncode}):\n{proc.stderr[-2000:]}")
    figures = json.loads(proc.stdout)
    for group in ("bandwidth", "peak"):
        for name, value in figures[group].items():
            if not (math.isfinite(value) and value > 0):
                raise HpcabError(f"the roofline probe measured {group} {name} = {value!r}")
    return figures


def _child(job: dict) -> dict:
    """In the child: pin, load the probe library, measure. Stdout: the figures as JSON."""
    os.sched_setaffinity(0, set(job["cpus"]))     # before the OpenMP runtime starts
    lib = ctypes.CDLL(job["library"])
    lib.hpcab_probe_fma.restype = ctypes.c_double
    lib.hpcab_probe_fma.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
    lib.hpcab_probe_stream.restype = ctypes.c_int
    lib.hpcab_probe_stream.argtypes = [ctypes.c_int64, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
    threads = job["threads"]
    kinds = {"float64": 0, "float32": 1}
    iterations = {}
    for name, single in kinds.items():
        flops = ctypes.c_double()
        iters = 1 << 10
        while True:                               # calibrate: grow until one run takes FMA_SECONDS
            seconds = lib.hpcab_probe_fma(single, iters, threads, ctypes.byref(flops))
            if seconds >= FMA_SECONDS or iters >= 1 << 40:
                break
            iters *= 2 if seconds <= 0 else max(2, min(16, int(FMA_SECONDS / seconds) + 1))
        iterations[name] = iters
    peak = {name: 0.0 for name in kinds}
    for _ in range(FMA_REPETITIONS):              # interleaved, so a burst of interference hits one sample
        for name, single in kinds.items():
            flops = ctypes.c_double()
            seconds = lib.hpcab_probe_fma(single, iterations[name], threads, ctypes.byref(flops))
            peak[name] = max(peak[name], flops.value / seconds) if seconds > 0 else peak[name]
    best = (ctypes.c_double * len(STREAM_BYTES_PER_ELEMENT))()
    if lib.hpcab_probe_stream(job["n"], STREAM_PASSES, threads, best) != 0:
        raise MemoryError(f"cannot allocate three arrays of {job['n'] * 8} bytes")
    bandwidth = {name: job["n"] * per / t for (name, per), t in zip(STREAM_BYTES_PER_ELEMENT.items(), best)}
    return {"bandwidth": bandwidth, "peak": peak}


# --- the bound ----------------------------------------------------------------------------

def bound(kernel: "Kernel", sizes: dict[str, int], machine: Machine) -> Bound | None:
    """The roofline time bound of one case on `machine`; None when the kernel declares no
    roofline. The machine must have been probed with the threads and CPUs the time was
    measured with (more threads: a higher peak and bandwidth, so a lower bound)."""
    if kernel.roofline is None:
        return None
    flops, nbytes = kernel.roofline.evaluate(sizes)
    memory = max(0, nbytes - 2 * machine.cache_bytes)
    return Bound(flops, nbytes, memory, 1e9 * flops / machine.peak_for(kernel.precision),
                 1e9 * memory / machine.bandwidth_bytes_per_s)


def bound_ns(kernel: "Kernel", sizes: dict[str, int], machine: Machine) -> float:
    """max(flops / peak, bytes beyond the caches / bandwidth), in ns (0 without a roofline)."""
    b = bound(kernel, sizes, machine)
    return b.ns if b is not None else 0.0


def plausible(kernel: "Kernel", sizes: dict[str, int], median_ns: float, machine: Machine,
              margin: float = MARGIN, round_trip_ns: float = 0.0) -> tuple[bool, str]:
    """Whether a measured median time is possible: implausible when it is below the roofline
    bound divided by `margin` (a grade that is implausible is not scored until reviewed).

    `round_trip_ns` is the timer's round trip that was subtracted from the samples (the
    driver's ping). It is given back before the comparison: a ping of some 5-10 us varies by
    a microsecond or more between two measurements, so at a shape whose bound is below that
    an honest call minus the ping can come out at 1 ns. A call is implausible only when even
    its whole round trip is faster than the bound allows.

    Why a margin of 2. The bound is already a lower bound: the manifests count only the work
    every correct implementation must do (docs/manifest.md), cached data is not charged at
    all, and the machine figures are the best of several runs of loops written to reach the
    hardware's limits. What remains, and what the margin absorbs, is:
    - fast matrix multiplication: Strassen-like products need fewer flops than the 2 per
      multiply-add the dense kernels (gemm, cholesky) count: (7/8) per recursion level,
      about 0.67 after the three levels worth doing at the corpus sizes;
    - memory tricks the plain STREAM loops do not use (non-temporal stores skip the
      write-allocate read, software prefetch): some 10-30 % over the best pattern;
    - clock variation between the probe and the grade (turbo, a busy neighbour during the
      probe lowering its figures): some 10-20 %.
    Their product stays under 2. What the check is for is much further away: a candidate
    that skips the work or hands back a result cached from an earlier call beats the bound
    by orders of magnitude on every compute-bound kernel. The check does not catch a cheat
    on a memory-bound kernel whose data fits in the caches (its bound is flops only, and
    those are few): the hidden inputs and the per-call fresh copies are the defence there.
    """
    b = bound(kernel, sizes, machine)
    where = f"{kernel.name} at " + " ".join(f"{s}={v}" for s, v in sizes.items())
    if b is None:
        return True, f"{where}: no roofline declared, not checked"
    limit = b.ns / margin
    if median_ns + round_trip_ns >= limit:
        return True, (f"{where}: the median {_fmt_ns(median_ns)} respects the roofline bound "
                      f"{_fmt_ns(b.ns)} ({b.limited_by}-limited)")
    given = f" (with the timer's round trip of {_fmt_ns(round_trip_ns)} given back)" if round_trip_ns else ""
    return False, (f"{where}: implausibly fast: the median {_fmt_ns(median_ns)}{given} is below 1/{margin:g} of the "
                   f"roofline bound {_fmt_ns(b.ns)} ({b.describe()}) on {machine.describe()}; "
                   "not scored until reviewed")


if __name__ == "__main__":
    print(json.dumps(_child(json.loads(sys.argv[1]))))
