"""Every corpus reference against its independent check, and the checks' coverage.

Each kernel folder holds `<name>_check.py` (hpcab/refcheck.py says what it exports): an
independent computation compared with the reference at small sizes and several seeds, and the
judge's check shown to pass that honest result while zeros and a constant fail. This file
finds them; it names no kernel. A kernel without a check fails `test_every_kernel_has_an_
independent_check`, by name.
"""

from __future__ import annotations

import numpy as np
import pytest

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.corpus import load_corpus
from hpcab.refcheck import checks_in, coverage_problems, expand, judged, load_check_module

CORPUS = load_corpus()


def _runs():
    """(kernel, check, kwargs) for every run of every check in the corpus, with a test id."""
    params = []
    for k in CORPUS.kernels:
        try:
            module = load_check_module(k)
        except Exception:
            continue     # reported, by name, by the coverage test
        if module is None or getattr(module, "STUB", False):
            continue
        for check in checks_in(module):
            for label, kwargs in expand(check):
                params.append(pytest.param(k, check, kwargs, id=f"{k.name}::{label}"))
    return params


@pytest.mark.parametrize("kernel,check,kwargs", _runs())
def test_independent_check(kernel, check, kwargs):
    check(kernel, **kwargs)


def test_every_kernel_has_an_independent_check():
    problems = coverage_problems(CORPUS.kernels, CORPUS.root)
    assert not problems, (f"{len(problems)} kernel(s) without a usable independent check "
                          "(docs/adding_a_kernel.md):\n  " + "\n  ".join(problems))


@pytest.mark.parametrize("kernel", CORPUS.kernels, ids=[k.name for k in CORPUS.kernels])
def test_preset_s_deterministic_fully_written_and_discriminating(kernel):
    k = kernel
    case = explicit_case(k, dict(k.presets["S"]), 3)
    first, second = make_inputs(k, case), make_inputs(k, case)
    assert first.keys() == second.keys()
    for n in first:
        np.testing.assert_array_equal(first[n], second[n])
    out = run_oracle(k, case, first)
    for n, o in out.items():
        if o.dtype.kind in "fc":
            assert np.all(np.isfinite(o)), f"{k.name}: output {n} not fully written, or not finite"
    # Zeros, the best constant and the answer for another draw of the inputs all fail.
    assert not judged(k, out, {n: np.zeros_like(o) for n, o in out.items()})
    if all(o.size > 1 for o in out.values()):
        assert not judged(k, out, {n: np.full_like(o, o.astype(np.complex128).mean().real if o.dtype.kind != "c"
                                                   else o.mean()) for n, o in out.items()})
    other = run_oracle(k, explicit_case(k, dict(k.presets["S"]), 4))
    assert not judged(k, out, other)
