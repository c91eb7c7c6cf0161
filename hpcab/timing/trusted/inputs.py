"""The input sets of a measuring session, on the trusted side: made from (the case, an
index), the case's seed itself a secret of the grade's (hpcab.case.session_case), so no
candidate can know a set before its call."""

from __future__ import annotations

import time

import numpy as np

from hpcab.case import Case, input_set_case, make_inputs


class InputSets:
    """Input sets generated from (the case, an index), each kept with its expected outputs
    while memory allows (for the rounds that must repeat a set). Sets are made ahead while
    the runners load (prefill: the driver would only wait), else on demand."""

    def __init__(self, kernel, case: Case, budget_bytes: int):
        self.kernel, self.case = kernel, case
        self.inputs = [a.name for a in kernel.arrays if a.intent != "out"] + [s.name for s in kernel.scalars]
        self.budget = budget_bytes
        self.kept: dict[int, tuple[dict, dict]] = {}       # index → (values, expected outputs)
        self.kept_bytes = 0
        self.ahead: dict[int, dict] = {}                   # index → values, made during the load
        self.ahead_bytes = 0
        self.generated = 0
        self.seconds = 0.0          # generating on demand, between calls
        self.ahead_seconds = 0.0    # generating while the runners loaded

    def _generate(self, index: int) -> dict[str, np.ndarray]:
        values = make_inputs(self.kernel, input_set_case(self.case, index), outputs=False)
        self.generated += 1
        return {n: values[n] for n in self.inputs}

    def make(self, index: int) -> dict[str, np.ndarray]:
        if index in self.ahead:
            values = self.ahead.pop(index)
            self.ahead_bytes -= sum(v.nbytes for v in values.values())
            return values
        started = time.perf_counter()
        values = self._generate(index)
        self.seconds += time.perf_counter() - started
        return values

    def prefill(self, first: int, done, deadline: float) -> None:
        """Make sets first, first + 1, ... until done() (the runners have loaded), the
        deadline, or half the memory budget (the other half keeps sets to repeat)."""
        index = first
        while not done() and time.monotonic() < deadline:
            started = time.perf_counter()
            values = self._generate(index)
            self.ahead_seconds += time.perf_counter() - started
            size = sum(v.nbytes for v in values.values())
            if self.ahead_bytes + size > self.budget // 2:
                break
            self.ahead[index] = values
            self.ahead_bytes += size
            index += 1

    def keep(self, index: int, values: dict, expected: dict) -> None:
        size = sum(v.nbytes for v in values.values()) + sum(v.nbytes for v in expected.values())
        if self.kept_bytes + self.ahead_bytes + size <= self.budget:
            self.kept[index] = (values, expected)
            self.kept_bytes += size
