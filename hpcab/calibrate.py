"""Preset calibration: time a kernel's NumPy reference on one core and propose S, M and L sizes
for the corpus's targets (about 10 ms, 100 ms and 1 s; L within 2 GB: docs/manifest.md).

The model: time grows as a power of the kernel's work W (its roofline's flops + bytes, or the
bytes of its buffers when it declares no roofline), t = c * W**p, fitted on the measured
points. A proposal scales the symbols the presets already vary by a common factor, tries the
integers around each (and nearby powers of two, for constraints like N == 2 ** LOGN), keeps
the combinations the manifest's constraints accept, and picks the one predicted closest to the
target. Each proposal is then measured, and proposed again from that point when it missed.
The measuring runs in a child process (`python -m hpcab.calibrate`) with one BLAS/OpenMP
thread, pinned to one CPU.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from hpcab import expr
from hpcab.errors import HpcabError, InputError
from hpcab.kernel import Kernel, load_kernel

TARGETS = {"S": 0.010, "M": 0.100, "L": 1.0}
BAND = 3.0                  # CORPUS.md: within a factor of 3 of the target
GOOD_ENOUGH = 1.5           # a measured proposal this close to its target is kept
MEMORY_LIMIT = 2 * 1024 ** 3
MAX_COMBINATIONS = 4096
SETUP_SECONDS_PER_BYTE = 2e-8   # drawing random inputs: about 50 MB/s, until measured
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


# --- measuring -----------------------------------------------------------------------------

def time_reference(kernel: Kernel, sizes: dict[str, int], seed: int = 0, min_seconds: float = 0.2,
                   max_repeats: int = 5) -> float:
    """Seconds of the best call of the NumPy reference at these sizes: inputs made once, each
    call on fresh copies (copying not timed), repeated until min_seconds or max_repeats."""
    from hpcab.case import explicit_case, make_inputs, reference_args
    case = explicit_case(kernel, sizes, seed)
    inputs = make_inputs(kernel, case)
    fn = kernel.reference().function
    best, spent, repeats = math.inf, 0.0, 0
    while repeats < max_repeats and (repeats == 0 or spent < min_seconds):
        args = reference_args(kernel, {k: v.copy() for k, v in inputs.items()}, case.sizes)
        t = time.perf_counter()
        fn(*args)
        dt = time.perf_counter() - t
        best, spent, repeats = min(best, dt), spent + dt, repeats + 1
    return best


def footprint(kernel: Kernel, sizes: dict[str, int]) -> int:
    """Bytes of every buffer of the ABI and the workspace at these sizes."""
    import numpy as np
    total = kernel.workspace_size(sizes)
    for spec in kernel.buffer_specs():
        total += math.prod(kernel.shape_of(spec, sizes)) * np.dtype(spec.dtype).itemsize
    return total


def work(kernel: Kernel, sizes: dict[str, int]) -> float:
    if kernel.roofline is not None:
        flops, moved = kernel.roofline.evaluate(sizes)
        if flops + moved > 0:
            return float(flops + moved)
    return float(max(footprint(kernel, sizes), 1))


# --- the model -----------------------------------------------------------------------------

# Points faster than this mostly time the call's overhead, not the kernel: the fit skips them.
OVERHEAD_SECONDS = 1e-3


def fit_exponent(points: list[tuple[float, float]]) -> float:
    """p of t = c * W**p by least squares in log-log over (W, seconds); 1 (time proportional
    to work) until two points are slow enough to say more."""
    pts = [(math.log(w), math.log(t)) for w, t in points if t >= OVERHEAD_SECONDS and w > 0]
    if len({w for w, _ in pts}) < 2:
        return 1.0
    mw = sum(w for w, _ in pts) / len(pts)
    mt = sum(t for _, t in pts) / len(pts)
    p = sum((w - mw) * (t - mt) for w, t in pts) / sum((w - mw) ** 2 for w, _ in pts)
    return min(max(p, 0.5), 4.0)      # timer noise must not give a silly exponent


def predict(points: list[tuple[float, float]], p: float, w: float) -> float:
    """Seconds at work w, from the measured point nearest in log W."""
    w0, t0 = min(points, key=lambda pt: abs(math.log(pt[0] / w)))
    return t0 * (w / w0) ** p


def _valid(kernel: Kernel, sizes: dict[str, int]) -> bool:
    try:
        if any(v < 1 for v in sizes.values()) or not all(expr.evaluate(c, sizes) for c in kernel.constraints):
            return False
        return all(expr.evaluate(d, sizes) >= 0 for a in kernel.buffer_specs() for d in a.shape)
    except (ArithmeticError, expr.ExprError):
        return False


def _options(value: int, factor: float) -> set[int]:
    """Integers to try for a size symbol scaled by factor: around value * factor, the nearest
    powers of two, and (for small, logarithm-like symbols) a few steps around the value."""
    x = max(value * factor, 1.0)
    out = {math.floor(x), math.ceil(x), 2 ** math.floor(math.log2(x)), 2 ** math.ceil(math.log2(x))}
    if value <= 64:
        out |= {value + d for d in range(-2, 3)}
    return {v for v in out if v >= 1}


def _along(base: dict[str, int], scaled: tuple[str, ...], factor: float) -> dict[str, int]:
    return {s: (max(1, round(v * factor)) if s in scaled else v) for s, v in base.items()}


def _solve(increasing: Callable[[float], float], goal: float) -> float:
    """The factor where an increasing function of it reaches goal (bisection in log)."""
    lo, hi = 1e-6, 1e6
    for _ in range(80):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if increasing(mid) < goal else (lo, mid)
    return math.sqrt(lo * hi)


def propose(kernel: Kernel, base: dict[str, int], scaled: tuple[str, ...], points, p: float,
            target: float) -> tuple[dict[str, int], bool]:
    """Sizes predicted closest to target seconds within 2 GB, scaling `scaled` from `base`, and
    whether the memory limit cut them short."""
    def pred(sizes):
        return predict(points, p, work(kernel, sizes))

    factor = _solve(lambda f: pred(_along(base, scaled, f)), target)
    capped = footprint(kernel, _along(base, scaled, factor)) > MEMORY_LIMIT
    if capped:
        factor = min(factor, _solve(lambda f: footprint(kernel, _along(base, scaled, f)), MEMORY_LIMIT) * 0.999)
    goal = min(target, pred(_along(base, scaled, factor))) if capped else target
    options = {s: (sorted(_options(v, factor)) if s in scaled else [v]) for s, v in base.items()}
    if math.prod(len(o) for o in options.values()) > MAX_COMBINATIONS:
        options = {s: sorted({math.floor(max(v * factor, 1)), math.ceil(max(v * factor, 1))}) if s in scaled
                   else [v] for s, v in base.items()}
    ranked = []
    for combo in itertools.product(*options.values()):
        sizes = dict(zip(options, combo))
        if not _valid(kernel, sizes) or footprint(kernel, sizes) > MEMORY_LIMIT:
            continue
        miss = abs(math.log(pred(sizes) / goal))
        # How far from an even scaling of the base: the author's proportions are kept where
        # the constraints allow.
        bend = sum(abs(math.log(sizes[s] / max(base[s] * factor, 1))) for s in scaled)
        ranked.append((miss > math.log(GOOD_ENOUGH), bend if miss <= math.log(GOOD_ENOUGH) else miss, bend,
                       sorted(sizes.items()), sizes))
    if not ranked:
        return dict(base), capped     # nothing near satisfies the constraints: keep what the author wrote
    return min(ranked)[-1], capped


def calibrate(kernel: Kernel, max_seconds: float = 60.0, measure: Callable | None = None,
              log: Callable[[str], None] = lambda _: None) -> dict:
    """Measure the current presets, propose new ones, measure the proposals. Returns
    {"measured": {preset: seconds | None}, "proposed": {preset: sizes},
     "proposed_seconds": {preset: seconds}, "predicted": {preset: bool}, "capped": {preset: bool},
     "exponent": p}."""
    measure = measure or time_reference
    started = time.monotonic()
    points: list[tuple[float, float]] = []
    seen: dict[tuple, float] = {}          # sizes already measured -> seconds
    setup = [SETUP_SECONDS_PER_BYTE]       # making the inputs: the worst rate seen on sizable ones

    def left() -> float:
        return max_seconds - (time.monotonic() - started)

    def timed(label: str, sizes: dict[str, int], expected: float | None) -> float | None:
        key = tuple(sorted(sizes.items()))
        if key in seen:
            return seen[key]
        # Skip what would not fit in memory or in the time left (a few calls, and the inputs).
        nbytes = footprint(kernel, sizes)
        if nbytes > MEMORY_LIMIT:
            log(f"{label}: skipped, its buffers exceed 2 GB")
            return None
        if expected is not None and 3 * expected + setup[0] * nbytes > left():
            log(f"{label}: skipped, predicted {expected:.3g} s and {max(left(), 0):.0f} s of the budget left")
            return None
        wall = time.monotonic()
        seconds = measure(kernel, sizes)
        if nbytes >= 2 ** 24:
            setup[0] = max(setup[0], max(time.monotonic() - wall - 3 * seconds, 0.0) / nbytes)
        points.append((work(kernel, sizes), seconds))
        seen[key] = seconds
        log(f"{label} {_flow(sizes)}: {seconds * 1e3:.3g} ms")
        return seconds

    measured: dict[str, float | None] = {}
    for preset in ("S", "M", "L"):
        sizes = kernel.presets[preset]
        expected = predict(points, fit_exponent(points), work(kernel, sizes)) if points else None
        if preset == "L" and expected is not None and expected > BAND * TARGETS["L"]:
            log(f"current L: not measured, the fit predicts {expected:.3g} s, far above its target")
            measured[preset] = None
            continue
        measured[preset] = timed(f"current {preset}", sizes, expected)
    if not points:
        raise HpcabError(f"calibrate {kernel.name}: no preset could be measured within the budget")

    varying = tuple(s for s in kernel.sizes if len({kernel.presets[p][s] for p in TARGETS}) > 1)
    scaled = varying or tuple(kernel.sizes)
    proposed, seconds, predicted, capped = {}, {}, {}, {}
    for preset, target in TARGETS.items():
        base = dict(kernel.presets[preset])
        for _ in range(3):
            p = fit_exponent(points)
            sizes, capped[preset] = propose(kernel, base, scaled, points, p, target)
            guess = predict(points, p, work(kernel, sizes))
            got = timed(f"proposed {preset}", sizes, guess)
            proposed[preset], seconds[preset], predicted[preset] = sizes, got if got else guess, got is None
            if got is None or abs(math.log(got / target)) <= math.log(GOOD_ENOUGH) or sizes == base \
                    or capped[preset]:
                break
            base = sizes           # missed: propose again, anchored on the point just measured
        earlier = list(proposed)[-2] if len(proposed) > 1 else None
        if earlier and work(kernel, proposed[preset]) < work(kernel, proposed[earlier]):
            # A preset cut at the memory limit can land a little under the one before it, which
            # reached just below the limit uncut: the presets must not shrink from S to L.
            log(f"proposed {preset}: {_flow(proposed[preset])} is less work than {earlier}'s; "
                f"{earlier}'s sizes are kept for it")
            for d in (proposed, seconds, predicted, capped):
                d[preset] = d[earlier]
    return {"measured": measured, "proposed": proposed, "proposed_seconds": seconds, "predicted": predicted,
            "capped": capped, "exponent": fit_exponent(points)}


# --- the manifest --------------------------------------------------------------------------

def _flow(sizes: dict[str, int]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in sizes.items()) + "}"


def presets_yaml(presets: dict[str, dict[str, int]]) -> str:
    return "presets:\n" + "".join(f"  {p}: {_flow(presets[p])}\n" for p in TARGETS)


_PRESET_LINE = re.compile(r"^(?P<indent>[ \t]+)(?P<name>[SML]):[ \t]*\{[^}\n]*\}(?P<rest>.*)$")


def rewrite_presets(kernel: Kernel, presets: dict[str, dict[str, int]]) -> None:
    """Replace the S, M and L lines of the manifest's presets block, keeping every other line
    (comments included) and each line's trailing comment; the result must load again."""
    path = kernel.manifest_path
    original = path.read_text()
    lines = original.splitlines(keepends=True)
    try:
        start = next(i for i, ln in enumerate(lines) if re.match(r"presets:[ \t]*(#.*)?$", ln.rstrip("\n")))
    except StopIteration:
        raise InputError(str(path), "presets", "no top-level `presets:` line to rewrite") from None
    done = set()
    for i in range(start + 1, len(lines)):
        text = lines[i].rstrip("\n")
        if text and not text[0].isspace() and not text.startswith("#"):
            break                     # the next top-level key
        m = _PRESET_LINE.match(text)
        if m and m["name"] not in done:
            lines[i] = f"{m['indent']}{m['name']}: {_flow(presets[m['name']])}{m['rest']}\n"
            done.add(m["name"])
    if done != set(TARGETS):
        raise InputError(str(path), "presets", "expected one line per preset in flow style "
                                               "(`  S: {N: 100}`); edit them by hand from the snippet above")
    path.write_text("".join(lines))
    try:
        load_kernel(kernel.directory, kernel.corpus_root)
    except InputError:
        path.write_text(original)
        raise


# --- the child process ---------------------------------------------------------------------

def run_child(kernel: Kernel, max_seconds: float) -> dict:
    """calibrate() in a child process with one thread, pinned to one CPU; its log on stderr."""
    env = dict(os.environ, **{v: "1" for v in THREAD_VARS})
    cmd = [sys.executable, "-m", "hpcab.calibrate", str(kernel.directory.resolve()), str(kernel.corpus_root),
           "--max-seconds", str(max_seconds)]
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, timeout=max_seconds * 3 + 120)
    if proc.returncode != 0:
        raise HpcabError(f"calibrate {kernel.name}: the measuring process failed (status {proc.returncode}); "
                         "its error is above")
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    a = argparse.ArgumentParser(description="calibrate one kernel (the child `hpcab calibrate` starts)")
    a.add_argument("kernel_dir")
    a.add_argument("corpus_root")
    a.add_argument("--max-seconds", type=float, default=60.0)
    args = a.parse_args(argv)
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[-1]})     # one core, as the presets' targets are stated
    try:
        kernel = load_kernel(Path(args.kernel_dir), Path(args.corpus_root))
        result = calibrate(kernel, args.max_seconds, log=lambda msg: print(msg, file=sys.stderr, flush=True))
    except HpcabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
