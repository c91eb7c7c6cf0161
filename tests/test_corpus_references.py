"""Every corpus reference against its independent check, and the checks' coverage.

Each kernel folder holds `<name>_check.py` (hpcab/refcheck.py says what it exports): an
independent computation compared with the reference at small sizes and several seeds, and the
judge's check shown to pass that honest result while zeros and a constant fail. This file
finds them; it names no kernel. A kernel without a check fails `test_every_kernel_has_an_
independent_check`, by name.
"""

from __future__ import annotations

import pytest

from hpcab.corpus import load_corpus
from hpcab.refcheck import checks_in, coverage_problems, expand, load_check_module

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


# Determinism, fully written outputs and zeros / a constant / another seed's answer failing at
# preset S are the corpus gate's (hpcab/gate.py, tests/test_corpus_gate.py), not repeated here.
