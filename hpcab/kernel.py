"""Kernel: a manifest (<kernel>.yaml, schema-checked) and its NumPy reference (<kernel>_numpy.py).

The kernel's path under corpus/ is its ID: corpus/<track>/[<dwarf>/]<name>/.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import attrs
import yaml

from hpcab import expr
from hpcab.errors import InputError
from hpcab.mpi.distribution import MpiSpec, check_spec, mpi_spec

TRACKS = ("loop_level_reasoning", "scientific_computing", "machine_learning")
# The Berkeley dwarfs (Asanovic et al., "The Landscape of Parallel Computing Research", 2006).
DWARFS = (
    "dense_linear_algebra", "sparse_linear_algebra", "spectral_methods", "n_body_methods",
    "structured_grids", "unstructured_grids", "mapreduce", "combinational_logic",
    "graph_traversal", "dynamic_programming", "backtrack_branch_and_bound",
    "graphical_models", "finite_state_machines",
)
FLOAT_DTYPES = {"float32", "float64", "complex64", "complex128"}
# <name>_check.py: the kernel's independent check, run by the test suite (hpcab/refcheck.py).
CHECK_SUFFIX = "_check.py"


@attrs.frozen
class ArraySpec:
    name: str
    shape: tuple[str | int, ...]
    dtype: str
    intent: str  # in | out | inout
    sparse: dict | None = None
    description: str = ""

    @property
    def is_output(self) -> bool:
        return self.intent in ("out", "inout")


@attrs.frozen
class ScalarSpec:
    name: str
    dtype: str
    description: str = ""


@attrs.frozen
class ReturnSpec:
    """A value the reference returns; in the ABI an output buffer placed after the arrays."""
    name: str
    dtype: str
    shape: tuple[str | int, ...] = ()
    description: str = ""


@attrs.frozen
class Tolerance:
    rtol: float | None = None
    atol: float | None = None
    normwise: float | None = None
    reason: str = ""


@attrs.frozen
class Roofline:
    """Lower bounds on the work any correct implementation does (expressions over the size
    symbols): floating-point operations, and bytes moved between memory and the cores. The
    plausibility check (hpcab/roofline.py) turns them into a time no honest run can beat."""
    flops: str | int
    bytes: str | int

    def evaluate(self, sizes: dict[str, int]) -> tuple[int, int]:
        return int(expr.evaluate(self.flops, sizes)), int(expr.evaluate(self.bytes, sizes))


@attrs.frozen(eq=False)   # identity: a corpus loads each kernel once
class Kernel:
    id: str                      # track/[dwarf/]name
    name: str
    track: str
    dwarf: str | None
    directory: Path
    description: str
    provenance: str
    level: int
    sizes: tuple[str, ...]
    constraints: tuple[str, ...]
    presets: dict[str, dict[str, int]]
    ranges: dict[str, tuple[int, int]]       # per size symbol: what a hidden case may draw (inclusive)
    arrays: tuple[ArraySpec, ...]
    scalars: tuple[ScalarSpec, ...]
    returns: tuple[ReturnSpec, ...]
    workspace_bytes: str | int
    precision: str
    tolerance: Tolerance | None
    tsvc: dict | None
    scale: str | None
    tags: tuple[str, ...]
    roofline: Roofline | None = None
    mpi: "MpiSpec | None" = None     # the distributed track's block (hpcab/mpi/distribution.py)

    @property
    def corpus_root(self) -> Path:
        """The corpus folder this kernel was loaded from (its ID is the path below it)."""
        return self.directory.resolve().parents[len(self.id.split("/")) - 1]

    @property
    def manifest_path(self) -> Path:
        return self.directory / f"{self.name}.yaml"

    @property
    def reference_path(self) -> Path:
        return self.directory / f"{self.name}_numpy.py"

    @property
    def check_path(self) -> Path:
        return self.directory / f"{self.name}{CHECK_SUFFIX}"

    @property
    def outputs(self) -> tuple[str, ...]:
        """Names the oracle comparison covers: out/inout arrays, then returned values."""
        return tuple(a.name for a in self.arrays if a.is_output) + tuple(r.name for r in self.returns)

    def buffer_specs(self) -> tuple[ArraySpec, ...]:
        """Every pointer argument of the ABI, in order: arrays, then returned values as out buffers."""
        rets = tuple(ArraySpec(r.name, r.shape or (1,), r.dtype, "out", None, r.description)
                     for r in self.returns)
        return self.arrays + rets

    def shape_of(self, spec: ArraySpec | ReturnSpec, sizes: dict[str, int]) -> tuple[int, ...]:
        return tuple(int(expr.evaluate(d, sizes)) for d in spec.shape)

    def workspace_size(self, sizes: dict[str, int]) -> int:
        return int(expr.evaluate(self.workspace_bytes, sizes))

    def reference(self) -> "Reference":
        return load_reference(self)


@attrs.frozen
class Reference:
    """The loaded NumPy reference: kernel function and deterministic initializer."""
    function: Callable[..., Any]
    initialize: Callable[..., dict]
    module: ModuleType


def identify(path: Path, corpus_root: Path) -> tuple[str, str, str | None]:
    """(track, dwarf, name) from a kernel folder's place under corpus/."""
    rel = path.resolve().relative_to(corpus_root.resolve()).parts
    source = str(path)
    if len(rel) not in (2, 3):
        raise InputError(source, "path", "expected corpus/<track>/[<dwarf>/]<kernel>/")
    track, name = rel[0], rel[-1]
    dwarf = rel[1] if len(rel) == 3 else None
    if track not in TRACKS:
        raise InputError(source, "path", f"unknown track {track!r}; expected one of: {', '.join(TRACKS)}")
    if track == "scientific_computing" and dwarf is None:
        raise InputError(source, "path", "scientific_computing kernels live under a dwarf folder")
    if dwarf is not None and dwarf not in DWARFS:
        raise InputError(source, "path", f"unknown dwarf {dwarf!r}; expected one of: {', '.join(DWARFS)}")
    return track, name, dwarf


def load_kernel(directory: Path, corpus_root: Path, check: bool = True) -> Kernel:
    """check=False: skip the schema and semantic checks, for a manifest the judge has
    already loaded and checked (a runner re-reads it, and starts faster)."""
    directory = Path(directory)
    track, name, dwarf = identify(directory, corpus_root)
    manifest_path = directory / f"{name}.yaml"
    source = str(manifest_path)
    if not manifest_path.is_file():
        raise InputError(source, "", "manifest file is missing")
    try:
        doc = yaml.safe_load(manifest_path.read_bytes().decode())
    except OSError as exc:
        raise InputError(source, "", f"cannot read the manifest: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(source, "", "not UTF-8 text; expected a YAML manifest") from None
    except yaml.YAMLError as exc:
        raise InputError(source, *_yaml_problem(exc)) from None
    if not isinstance(doc, dict):
        found = "the file is empty" if doc is None else f"found a {type(doc).__name__}"
        raise InputError(source, "", f"{found}; expected a mapping of manifest fields "
                                     "(description, provenance, level, sizes, ...: docs/manifest.md)")
    if check:
        from hpcab.schema import validate     # jsonschema is slow to import; a runner skips it
        validate(doc, "manifest", source)

    kernel = Kernel(
        id="/".join(p for p in (track, dwarf, name) if p),
        name=name, track=track, dwarf=dwarf, directory=directory,
        description=doc["description"].strip(),
        provenance=doc["provenance"].strip(),
        level=doc["level"],
        sizes=tuple(doc["sizes"]),
        constraints=tuple(doc.get("constraints", ())),
        presets={k: dict(v) for k, v in doc["presets"].items()},
        # Without ranges (a manifest written for a test), what the presets span from 1.
        ranges=({k: (int(v[0]), int(v[1])) for k, v in doc["ranges"].items()} if "ranges" in doc else
                {s: (1, max((p[s] for p in doc["presets"].values() if isinstance(p, dict) and s in p), default=1))
                 for s in doc["sizes"]}),
        arrays=tuple(ArraySpec(a["name"], tuple(a["shape"]), a["dtype"], a["intent"],
                               a.get("sparse"), a.get("description", "")) for a in doc["arrays"]),
        scalars=tuple(ScalarSpec(s["name"], s["dtype"], s.get("description", ""))
                      for s in doc.get("scalars", ())),
        returns=tuple(ReturnSpec(r["name"], r["dtype"], tuple(r.get("shape", ())),
                                 r.get("description", "")) for r in doc.get("returns", ())),
        workspace_bytes=doc.get("workspace_bytes", 0),
        precision=doc["precision"],
        tolerance=Tolerance(**doc["tolerance"]) if "tolerance" in doc else None,
        tsvc=doc.get("tsvc"),
        scale=doc.get("scale"),
        tags=tuple(doc.get("tags", ())),
        roofline=Roofline(doc["roofline"]["flops"], doc["roofline"]["bytes"]) if "roofline" in doc else None,
        mpi=mpi_spec(doc["mpi"]) if "mpi" in doc else None,
    )
    if check:
        _check_semantics(kernel, source)
    return kernel


def _yaml_problem(exc: yaml.YAMLError) -> tuple[str, str]:
    """(field, message) of a YAML syntax error on one line: PyYAML's own text spans several,
    quoting the source under a caret."""
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem, context = getattr(exc, "problem", None), getattr(exc, "context", None)
    what = (problem or str(exc).splitlines()[0]) + (f" ({context})" if problem and context else "")
    return where, f"not valid YAML: {what}"


# Names a parameter cannot take: generated C and candidates include complex.h, math.h and
# stdint.h, whose macros would replace it (a size named I broke the build), and C's keywords.
C_HEADER_MACROS = frozenset({"I", "complex", "imaginary", "NAN", "INFINITY", "HUGE_VAL", "EOF", "NULL",
                             "bool", "true", "false"})
C_KEYWORDS = frozenset({"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
                        "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
                        "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
                        "switch", "typedef", "union", "unsigned", "void", "volatile", "while"})


def _check_semantics(k: Kernel, source: str) -> None:
    """What a schema cannot say: names, symbols, presets, per-track fields."""
    seen: dict[str, str] = {}
    groups = [("sizes", [(i, s) for i, s in enumerate(k.sizes)]),
              ("arrays", [(i, a.name) for i, a in enumerate(k.arrays)]),
              ("scalars", [(i, s.name) for i, s in enumerate(k.scalars)]),
              ("returns", [(i, r.name) for i, r in enumerate(k.returns)])]
    for group, items in groups:
        for i, nm in items:
            field = f"{group}[{i}]" if group == "sizes" else f"{group}[{i}].name"
            # Case-insensitive: the same ABI must be expressible in Fortran.
            if nm.lower() in seen:
                raise InputError(source, field, f"name {nm!r} clashes with {seen[nm.lower()]} (names must differ "
                                                "ignoring case: Fortran does not tell 'w' from 'W')")
            if nm.lower() in ("workspace", "workspace_size", k.name.lower()):
                raise InputError(source, field, f"name {nm!r} is reserved")
            if nm in C_HEADER_MACROS or nm in C_KEYWORDS:
                raise InputError(source, field, f"name {nm!r} is a C keyword or a macro of the C headers the "
                                                "ABI includes (complex.h's I, math.h's NAN, ...): choose another")
            seen[nm.lower()] = f"{group}[{i}] ({nm})"

    known = set(k.sizes)

    probe = {s: 3 for s in k.sizes}   # any values: evaluating once finds unsupported constructs

    def check_expr(text, field):
        try:
            unknown = expr.symbols(text) - known
            if not unknown:
                expr.evaluate(text, probe)
        except expr.ExprError as exc:
            raise InputError(source, field, str(exc)) from None
        except ArithmeticError:
            pass   # e.g. a division by a symbol that happens to be 0 in the probe
        if unknown:
            raise InputError(source, field, f"uses {', '.join(sorted(unknown))}, which is not a size symbol "
                                            f"(declared: {', '.join(k.sizes)})")

    for i, a in enumerate(k.arrays):
        for d, dim in enumerate(a.shape):
            check_expr(dim, f"arrays[{i}].shape[{d}]")
    for i, r in enumerate(k.returns):
        for d, dim in enumerate(r.shape):
            check_expr(dim, f"returns[{i}].shape[{d}]")
    for i, c in enumerate(k.constraints):
        check_expr(c, f"constraints[{i}]")
    check_expr(k.workspace_bytes, "workspace_bytes")
    if k.mpi is not None:
        check_spec(k, source)
    if k.roofline is not None:
        check_expr(k.roofline.flops, "roofline.flops")
        check_expr(k.roofline.bytes, "roofline.bytes")

    for s, (low, high) in k.ranges.items():
        if s not in known:
            raise InputError(source, f"ranges.{s}", f"{s!r} is not a size symbol (declared: {', '.join(k.sizes)})")
        if low > high:
            raise InputError(source, f"ranges.{s}", f"[{low}, {high}]: low must not exceed high")
    missing = [s for s in k.sizes if s not in k.ranges]
    if missing:
        raise InputError(source, "ranges", f"no range for size symbol(s) {', '.join(missing)}; "
                                           "expected [low, high] for each (docs/manifest.md)")
    for preset, sizes in k.presets.items():
        field = f"presets.{preset}"
        outside = [f"{s}={v} outside ranges.{s} {list(k.ranges[s])}" for s, v in sizes.items()
                   if s in k.ranges and not k.ranges[s][0] <= v <= k.ranges[s][1]]
        if outside:
            raise InputError(source, field, "; ".join(outside))
        missing, extra = known - set(sizes), set(sizes) - known
        if missing:
            raise InputError(source, field, f"missing size symbol(s) {', '.join(sorted(missing))}")
        if extra:
            raise InputError(source, field, f"unknown size symbol(s) {', '.join(sorted(extra))}; "
                                            f"declared: {', '.join(k.sizes)}")
        def at_preset(text, field=field, sizes=sizes):
            try:
                return expr.evaluate(text, sizes)
            except (expr.ExprError, ArithmeticError) as exc:     # e.g. a division by a size set to 0
                raise InputError(source, field, f"cannot evaluate {text!r} at this preset: {exc}") from None

        for i, c in enumerate(k.constraints):
            if not at_preset(c):
                raise InputError(source, field, f"violates constraints[{i}] ({c})")
        for a in k.buffer_specs():
            for d, dim in enumerate(a.shape):
                if at_preset(dim) < 0:
                    raise InputError(source, field, f"gives {a.name} a negative extent (dimension {d}: {dim})")
        if k.roofline is not None:
            for what in ("flops", "bytes"):
                value = at_preset(getattr(k.roofline, what))
                if isinstance(value, bool) or value < 0:
                    raise InputError(source, field, f"gives roofline.{what} the value {value!r}; "
                                                    "expected a non-negative integer")

    if not any(a.is_output for a in k.arrays) and not k.returns:
        raise InputError(source, "arrays", "no output: at least one array must be out/inout, or a value returned")

    out_dtypes = {a.dtype for a in k.arrays if a.is_output} | {r.dtype for r in k.returns}
    if k.precision == "exact" and out_dtypes & FLOAT_DTYPES:
        raise InputError(source, "precision", "'exact' but an output is floating point; "
                                              "expected float64 or float32")
    if k.precision != "exact" and not out_dtypes & FLOAT_DTYPES:
        raise InputError(source, "precision", f"{k.precision!r} but every output is integer or boolean; "
                                              "expected 'exact'")

    if k.track == "loop_level_reasoning" and k.tsvc is None:
        raise InputError(source, "tsvc", "loop_level_reasoning kernels must declare tsvc.category and "
                                         "tsvc.optimization")
    if k.track != "loop_level_reasoning" and k.tsvc is not None:
        raise InputError(source, "tsvc", "only loop_level_reasoning kernels carry tsvc")
    if k.track == "scientific_computing" and k.scale is None:
        raise InputError(source, "scale", "scientific_computing kernels must declare scale (core, socket or node)")
    if k.track != "scientific_computing" and k.scale is not None:
        raise InputError(source, "scale", "only scientific_computing kernels carry scale")


def import_file(path: Path, name: str, what: str) -> ModuleType:
    """A corpus file (a reference, a check) imported by path as module `name`; an import that
    fails is an InputError naming the file and `what` it is."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise InputError(str(path), "", f"cannot import {what}: {type(exc).__name__}: {exc}") from None
    return module


@functools.lru_cache(maxsize=None)
def _import(path: Path) -> ModuleType:
    name = "hpcab_reference_" + "_".join(path.with_suffix("").parts[-4:]).replace("-", "_")
    return import_file(path, name, "the reference")


def load_reference(k: Kernel) -> Reference:
    path = k.reference_path
    source = str(path)
    if not path.is_file():
        raise InputError(source, "", "reference file is missing")
    module = _import(path.resolve())
    fn = getattr(module, k.name, None)
    if not callable(fn):
        raise InputError(source, k.name, f"the reference must define a function named {k.name!r}")
    init = getattr(module, "initialize", None)
    if not callable(init):
        raise InputError(source, "initialize", "the reference must define initialize(rng, <size symbols>)")
    expected = [a.name for a in k.arrays] + [s.name for s in k.scalars] + list(k.sizes)
    got = list(inspect.signature(fn).parameters)
    if got != expected:
        raise InputError(source, k.name, f"parameters are ({', '.join(got)}); expected ({', '.join(expected)}) "
                                         "— arrays, scalars, then size symbols, in manifest order")
    init_expected = ["rng"] + list(k.sizes)
    init_got = list(inspect.signature(init).parameters)
    if init_got != init_expected:
        raise InputError(source, "initialize", f"parameters are ({', '.join(init_got)}); "
                                               f"expected ({', '.join(init_expected)})")
    return Reference(fn, init, module)
