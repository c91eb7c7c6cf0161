"""Case: one concrete problem (sizes, seed, visibility), its inputs and the oracle's outputs."""

from __future__ import annotations

import hashlib
import hmac
import json

import attrs
import numpy as np

from hpcab import expr
from hpcab.errors import InputError
from hpcab.kernel import Kernel

PRESETS = ("S", "M", "L")


@attrs.frozen
class Case:
    kernel_id: str
    sizes: dict[str, int]
    seed: int
    visibility: str = "public"   # public | hidden
    label: str = ""
    scored: bool = True          # False: checked for correctness only (a tiny edge shape), not in the speedup

    def describe(self) -> str:
        dims = " ".join(f"{k}={v}" for k, v in self.sizes.items())
        return f"{self.label or 'case'} [{dims}] seed={self.seed}"


def preset_case(kernel: Kernel, preset: str = "S", seed: int = 0, visibility: str = "public") -> Case:
    if preset not in kernel.presets:
        raise InputError(str(kernel.manifest_path), "presets", f"no preset {preset!r}; expected one of {PRESETS}")
    return Case(kernel.id, dict(kernel.presets[preset]), seed, visibility, preset)


def explicit_case(kernel: Kernel, sizes: dict[str, int], seed: int = 0, visibility: str = "public",
                  label: str = "custom") -> Case:
    source = f"case for {kernel.id}"
    missing = set(kernel.sizes) - set(sizes)
    extra = set(sizes) - set(kernel.sizes)
    if missing or extra:
        raise InputError(source, "sizes", f"expected exactly {', '.join(kernel.sizes)}")
    for i, c in enumerate(kernel.constraints):
        if not expr.evaluate(c, sizes):
            raise InputError(source, "sizes", f"violates the manifest's constraints[{i}] ({c})")
    return Case(kernel.id, {s: int(sizes[s]) for s in kernel.sizes}, seed, visibility, label)


def rng_for(case: Case) -> np.random.Generator:
    """Deterministic in (kernel, sizes, seed) alone, and independent across them."""
    key = json.dumps([case.kernel_id, sorted(case.sizes.items()), case.seed]).encode()
    entropy = int.from_bytes(hashlib.sha256(key).digest()[:16], "little")
    return np.random.default_rng(np.random.SeedSequence(entropy))


def poison(dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """An output buffer a correct kernel must overwrite: NaN for floats, a byte pattern for integers."""
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return np.full(shape, np.nan, dtype=dtype)
    out = np.empty(shape, dtype=dtype)
    out.view(np.uint8)[...] = 0xA5
    return out


def make_inputs(kernel: Kernel, case: Case, outputs: bool = True) -> dict[str, np.ndarray]:
    """Every array (outs poisoned; left out with outputs=False: the driver poisons each
    target's buffer itself) and every scalar (as a 0-d array of its dtype), by name."""
    ref = kernel.reference()
    source = str(kernel.reference_path)
    produced = ref.initialize(rng_for(case), **case.sizes)
    if not isinstance(produced, dict):
        raise InputError(source, "initialize", f"must return a dict of arrays and scalars, not {type(produced).__name__}")
    values: dict[str, np.ndarray] = {}
    for a in kernel.arrays:
        shape = kernel.shape_of(a, case.sizes)
        if a.intent == "out":
            if a.name in produced:
                raise InputError(source, "initialize", f"returned {a.name!r}, an out array; the judge allocates outputs")
            if outputs:
                values[a.name] = poison(a.dtype, shape)
            continue
        if a.name not in produced:
            raise InputError(source, "initialize", f"did not return array {a.name!r}")
        arr = produced[a.name]
        if not isinstance(arr, np.ndarray) or arr.dtype != np.dtype(a.dtype) or arr.shape != shape:
            got = (f"{arr.dtype} {arr.shape}" if isinstance(arr, np.ndarray) else type(arr).__name__)
            raise InputError(source, "initialize", f"{a.name!r} is {got}; the manifest says {a.dtype} {shape}")
        values[a.name] = np.ascontiguousarray(arr)
    for s in kernel.scalars:
        if s.name not in produced:
            raise InputError(source, "initialize", f"did not return scalar {s.name!r}")
        values[s.name] = np.asarray(produced[s.name], dtype=s.dtype).reshape(())
    extra = set(produced) - {a.name for a in kernel.arrays} - {s.name for s in kernel.scalars}
    if extra:
        raise InputError(source, "initialize", f"returned unknown name(s) {', '.join(sorted(extra))}")
    return values


def reference_args(kernel: Kernel, values: dict[str, np.ndarray], sizes: dict[str, int]) -> list:
    """The reference's positional arguments, in ABI order (arrays, scalars as Python numbers, sizes)."""
    return ([values[a.name] for a in kernel.arrays] + [values[s.name][()] for s in kernel.scalars]
            + [sizes[s] for s in kernel.sizes])


def collect_outputs(kernel: Kernel, values: dict[str, np.ndarray], returned, sizes: dict[str, int],
                    source: str) -> dict[str, np.ndarray]:
    """out/inout arrays, then returned values checked against the manifest's returns."""
    outs = {a.name: values[a.name] for a in kernel.arrays if a.is_output}
    if not kernel.returns:
        if returned is not None:
            raise InputError(source, kernel.name, "returned a value but the manifest declares no returns")
        return outs
    items = returned if len(kernel.returns) > 1 else (returned,)
    if not isinstance(items, tuple) or len(items) != len(kernel.returns):
        raise InputError(source, kernel.name, f"must return {len(kernel.returns)} value(s)")
    for r, v in zip(kernel.returns, items):
        arr = np.asarray(v)
        if arr.dtype != np.dtype(r.dtype):
            raise InputError(source, kernel.name, f"returned {r.name!r} as {arr.dtype}; the manifest says {r.dtype}")
        shape = kernel.shape_of(r, sizes)
        if arr.shape != shape:
            raise InputError(source, kernel.name, f"returned {r.name!r} with shape {arr.shape}; the manifest says {shape}")
        outs[r.name] = arr.reshape(shape or (1,)).copy()
    return outs


def run_oracle(kernel: Kernel, case: Case, values: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Run the NumPy reference on copies of the case's inputs; returns the expected outputs."""
    values = {k: v.copy() for k, v in (values or make_inputs(kernel, case)).items()}
    ref = kernel.reference()
    returned = ref.function(*reference_args(kernel, values, case.sizes))
    return collect_outputs(kernel, values, returned, case.sizes, str(kernel.reference_path))


def input_set_case(case: Case, index: int) -> Case:
    """The case's input set number `index`, as a case: set 0 is the case itself, every other
    index (the measuring driver's rounds, its warm-up's negative ones) a seed derived from
    it, so each round of a measurement meets inputs no earlier round had."""
    if index == 0:
        return case
    digest = hashlib.sha256(f"{case.seed}/input-set/{index}".encode()).digest()
    return attrs.evolve(case, seed=int.from_bytes(digest[:8], "little") >> 1)


def session_case(case: Case, session: int, secret: bytes | None = None) -> Case:
    """The case as its measuring session number `session` meets it: every session a seed of
    its own, so no two sessions (processes that could leave something behind) share an
    input set. With the grade's secret (hpcab.grade: fresh random bytes per grade, never in
    the candidate's reach) every session's seed, session 0's too, is an HMAC of the case under
    it: no input set a candidate is timed or checked on is a function of public data, so it
    cannot be predicted from the case's public seed. Without one (a local reproduction, the
    tests) session 0 is the case itself and the others derive from its seed."""
    if secret is not None:
        key = json.dumps([case.kernel_id, sorted(case.sizes.items()), case.seed, session]).encode()
        digest = hmac.new(secret, key, hashlib.sha256).digest()
        return attrs.evolve(case, seed=int.from_bytes(digest[:8], "little") >> 1)
    if session == 0:
        return case
    digest = hashlib.sha256(f"{case.seed}/session/{session}".encode()).digest()
    return attrs.evolve(case, seed=int.from_bytes(digest[:8], "little") >> 1)
