"""Independent checks of the corpus's references: the helpers a kernel's `<name>_check.py` uses,
and how the test suite finds and runs them (tests/test_corpus_references.py).

Every kernel folder holds `<name>_check.py` beside `<name>_numpy.py`. It computes the kernel's
answer a different way (explicit loops, scipy, `math.fsum`, `binascii`, a closed form, a known
test vector) at small sizes and compares it with the reference, and it shows that the judge's
check treats that independent answer as an honest candidate would be treated while zeros and
a constant fail. The convention, kept minimal:

- every module-level function whose name starts with `check_` is a check; it takes the
  `Kernel` (loaded from whichever corpus holds the folder) as its first argument;
- `@each(seed=(0, 1, 2))` (any keyword, any number of them) runs it once per value, or per
  combination of values, passing them as keyword arguments;
- `STUB = True` marks the file `hpcab new-kernel` wrote, which the suite refuses until the
  author replaces it.

The check file is the test suite's and the kernel author's: no agent is handed it (the judge's
task gives an agent the reference's text only), and the corpus hash leaves it out, since it
changes no grade.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.check import check_outputs
from hpcab.corpus import kernel_dirs
from hpcab.errors import InputError
from hpcab.kernel import CHECK_SUFFIX, Kernel, import_file

# The seeds a check compares on when it has no reason to pick others.
SEEDS = (0, 1, 2)
CHECK_PREFIX = "check_"


# --- what a check file uses ----------------------------------------------------------------

def assert_close(kernel: Kernel, got, expected) -> None:
    """got within the kernel's own band of expected (its precision's, with the manifest's
    override): rtol, and atol relative to expected's largest magnitude, as the judge reads
    them; numpy's assert_allclose, whose message shows where it is not."""
    from hpcab.check import tolerance_for
    tol = tolerance_for(kernel)
    expected = np.asarray(expected)
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    np.testing.assert_allclose(got, expected, rtol=tol.rtol, atol=tol.atol * scale)


def jax_numpy():
    """(jax, jax.numpy) for the machine_learning track's checks, on the CPU with float64
    enabled: a check computes JAX's operator (jax.nn, jax.lax.conv_general_dilated,
    reduce_window, ...) in float64 from the kernel's float32 inputs, an independent answer
    from a library this field trusts. jax[cpu] comes with the dev extra."""
    import os
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    return jax, jnp


def run(kernel: Kernel, sizes: dict[str, int], seed: int = 0) -> tuple[dict, dict]:
    """The case's inputs (out arrays poisoned) and the reference's outputs, at explicit sizes."""
    case = explicit_case(kernel, sizes, seed)
    inputs = make_inputs(kernel, case)
    return inputs, run_oracle(kernel, case, inputs)


def verdict(kernel: Kernel, outputs: dict[str, np.ndarray], candidate: dict[str, np.ndarray]):
    """The judge's check of a candidate's outputs (cast to the reference's dtypes and shapes)
    against the oracle's outputs."""
    got = {n: np.asarray(candidate[n]).astype(outputs[n].dtype).reshape(outputs[n].shape) for n in outputs}
    return check_outputs(kernel, got, outputs)


def judged(kernel: Kernel, outputs: dict[str, np.ndarray], candidate: dict[str, np.ndarray]) -> bool:
    """Whether the judge would call the candidate's outputs correct."""
    return verdict(kernel, outputs, candidate).correct


def assert_judged_like_an_oracle(kernel: Kernel, outputs: dict[str, np.ndarray],
                                 independent: dict[str, np.ndarray]) -> None:
    """The independent result passes the judge's check; all zeros fail it, and so does the
    mean of each output written everywhere (when every output has more than one element)."""
    honest = verdict(kernel, outputs, independent)
    assert honest.correct, f"{kernel.name}: the independent result fails the judge's check: {honest.message}"
    zeros = {n: np.zeros_like(o) for n, o in outputs.items()}
    assert not judged(kernel, outputs, zeros), f"{kernel.name}: all zeros pass the judge's check"
    if all(o.size > 1 for o in outputs.values()):
        wide = {n: np.complex128 if o.dtype.kind == "c" else np.float64 for n, o in outputs.items()}
        mean = {n: np.full_like(o, o.astype(wide[n]).mean().astype(o.dtype)) for n, o in outputs.items()}
        assert not judged(kernel, outputs, mean), f"{kernel.name}: a constant (the mean) passes the judge's check"


def each(**values) -> Callable:
    """Run the decorated check once for every combination of the given values, passed as
    keyword arguments: `@each(seed=SEEDS)`, `@each(n=[1, 2, 17, 64])`."""
    for name, options in values.items():
        if isinstance(options, (str, bytes)) or not hasattr(options, "__iter__"):
            raise TypeError(f"each({name}=...): expected a list of values")

    def mark(fn: Callable) -> Callable:
        fn.hpcab_each = {name: tuple(options) for name, options in values.items()}
        return fn
    return mark


# --- how the suite finds and runs them -----------------------------------------------------

def load_check_module(kernel: Kernel):
    """The kernel's check file, imported; None when there is none."""
    path = kernel.check_path
    if not path.is_file():
        return None
    return import_file(path, "hpcab_check_" + kernel.id.replace("/", "__"), "the check")


def checks_in(module) -> list[Callable]:
    """The module's check functions, in the order the file defines them."""
    found = [f for n, f in vars(module).items()
             if n.startswith(CHECK_PREFIX) and callable(f) and getattr(f, "__module__", None) == module.__name__]
    return sorted(found, key=lambda f: f.__code__.co_firstlineno)


def expand(check: Callable) -> Iterator[tuple[str, dict]]:
    """(label, keyword arguments) for each run of a check: one per combination of its @each values."""
    grid = getattr(check, "hpcab_each", {})
    for combo in itertools.product(*grid.values()):
        kwargs = dict(zip(grid, combo))
        label = ",".join(f"{k}={v}" for k, v in kwargs.items())
        yield (f"{check.__name__}[{label}]" if label else check.__name__), kwargs


def coverage_problems(kernels, corpus_root: Path) -> list[str]:
    """One sentence per kernel without a usable independent check (no file, no check
    functions, the scaffold's unedited stub), and per check file that belongs to no kernel."""
    problems = []
    for k in kernels:
        try:
            module = load_check_module(k)
        except InputError as exc:
            problems.append(f"{k.name}: {exc}")
            continue
        if module is None:
            problems.append(f"{k.name}: no independent check ({k.check_path.name} is missing)")
        elif getattr(module, "STUB", False):
            problems.append(f"{k.name}: {k.check_path.name} is the unedited stub `hpcab new-kernel` wrote; "
                            "replace it with a real independent check and delete STUB = True")
        elif not checks_in(module):
            problems.append(f"{k.name}: {k.check_path.name} defines no {CHECK_PREFIX}* function")
    # A folder holding <folder>.yaml is a kernel's even when its manifest does not load.
    owned = {(d / f"{d.name}{CHECK_SUFFIX}").resolve() for d in kernel_dirs(Path(corpus_root))}
    for path in sorted(Path(corpus_root).rglob(f"*{CHECK_SUFFIX}")):
        if path.resolve() not in owned:
            problems.append(f"{path.relative_to(corpus_root)}: a check file in a folder that is no kernel "
                            f"(expected <folder>/<folder>{CHECK_SUFFIX} beside <folder>.yaml)")
    return problems
