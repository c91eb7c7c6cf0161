"""`hpcab translate --report`: how fast the translator's code is, kernel by kernel.

For each kernel, the generated C (flag set opt), the generated Fortran (opt) and the
generated C with the autopar flag set (the scientific_computing baseline) are each graded
against the NumPy reference by hpcab.grade.grade, the one pipeline; a variant that does
not translate, build or validate shows its status instead of a time and is left out of
the per-track geometric means.
"""

from __future__ import annotations

from typing import Callable

import attrs

from hpcab.build import Candidate
from hpcab.case import preset_case
from hpcab.errors import HpcabError
from hpcab.grade import grade
from hpcab.measure import geometric_mean_speedup
from hpcab.kernel import DWARFS, TRACKS, Kernel
from hpcab.measure import Speedup
from hpcab.timing.policy import Policy
from hpcab.toolchain import Toolchains

# (column, language, flag set)
VARIANTS: tuple[tuple[str, str, str], ...] = (
    ("c", "c", "opt"),
    ("fortran", "fortran", "opt"),
    ("c-autopar", "c", "autopar"),
)
COLUMN_TITLES = {"c": "C", "fortran": "Fortran", "c-autopar": "C autopar"}


@attrs.frozen
class Entry:
    """One variant of one kernel: its time and speedup over NumPy, or why there is none."""
    status: str                    # ok | untranslatable | no translator | translator error | build_error | incorrect | ...
    time_ns: float | None = None
    numpy_ns: float | None = None
    speedup: Speedup | None = None
    hand_written: bool = False
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@attrs.frozen
class Row:
    kernel_id: str
    name: str
    track: str
    entries: dict[str, Entry]      # keyed by VARIANTS' column
    dwarf: str | None = None

    @property
    def numpy_ns(self) -> float | None:
        return next((e.numpy_ns for e in self.entries.values() if e.numpy_ns is not None), None)


@attrs.frozen
class Report:
    preset: str
    policy: Policy
    rows: tuple[Row, ...]

    def track_means(self) -> dict[str, dict[str, tuple[Speedup | None, int]]]:
        """Per track and variant: the geometric mean speedup over NumPy and how many kernels it covers."""
        return self._means(lambda r: r.track, TRACKS)

    def dwarf_means(self) -> dict[str, dict[str, tuple[Speedup | None, int]]]:
        """The same per Berkeley dwarf, over the kernels that have one (scientific_computing's)."""
        return self._means(lambda r: r.dwarf, DWARFS)

    def _means(self, group: Callable[[Row], str | None], order) -> dict[str, dict[str, tuple[Speedup | None, int]]]:
        means: dict[str, dict[str, tuple[Speedup | None, int]]] = {}
        for name in order:
            rows = [r for r in self.rows if group(r) == name]
            if not rows:
                continue
            means[name] = {}
            for column, _, _ in VARIANTS:
                parts = [r.entries[column].speedup for r in rows if r.entries[column].ok]
                means[name][column] = (geometric_mean_speedup(parts), len(parts))
        return means


def grade_translation(kernel: Kernel, language: str, flagset: str, preset: str, toolchains: Toolchains,
                      policy: Policy) -> Entry:
    """Translate, then grade the translation against NumPy (no baseline) on one preset."""
    from hpcab.translate import TranslateError, translate
    if preset not in kernel.presets:
        return Entry(f"no preset {preset}")
    try:
        t = translate(kernel, language, flagset)
    except TranslateError as exc:
        return Entry("untranslatable", message=str(exc))
    except (ImportError, NotImplementedError) as exc:
        return Entry("no translator", message=f"{type(exc).__name__}: {exc}")
    except Exception as exc:   # a translator bug: shown in the row, the report goes on
        return Entry("translator error", message=f"{type(exc).__name__}: {exc}")
    label = f"{'hand-written' if t.hand_written else 'generated'} {language} ({flagset})"
    try:
        g = grade(kernel, Candidate(t.source, language, label=label), [preset_case(kernel, preset)],
                  toolchains, flagset, policy, baseline=False)
    except HpcabError as exc:
        return Entry("error", message=str(exc), hand_written=t.hand_written)
    case = g.cases[0] if g.cases else None
    numpy_ns = case.numpy_timing.median_ns if case and case.numpy_timing else None
    if not g.correct:
        message = g.build.diagnostics.strip() if g.status == "build_error" else g.message
        return Entry(g.status, None, numpy_ns, None, t.hand_written, message)
    return Entry("ok", case.timing.median_ns, numpy_ns, g.speedup_numpy, t.hand_written)


def run_report(kernels: tuple[Kernel, ...] | list[Kernel], toolchains: Toolchains, preset: str = "M",
               policy: Policy = Policy(threads=2),
               progress: Callable[[str], None] | None = None,
               finished: Callable[[Row], None] | None = None) -> Report:
    """Grade every variant of every kernel; progress(description) is called before each
    grade, finished(row) after each kernel's last."""
    say = progress or (lambda _msg: None)
    rows = []
    for k in kernels:
        entries = {}
        for column, language, flagset in VARIANTS:
            say(f"{k.name}: {column}")
            entries[column] = grade_translation(k, language, flagset, preset, toolchains, policy)
        rows.append(Row(k.id, k.name, k.track, entries, k.dwarf))
        if finished is not None:
            finished(rows[-1])
    return Report(preset, policy, tuple(rows))


def progress_line(done: int, total: int, row: Row, elapsed: float) -> str:
    """One finished kernel as a line, for a pipe or a log where no live bar is drawn:
    `[3/19] gemm: C 2.10×  Fortran 1.90×  C autopar 3.02×  (41 s elapsed)`; a variant
    without a time shows its status."""
    parts = []
    for column, _, _ in VARIANTS:
        e = row.entries[column]
        shown = f"{e.speedup.value:.2f}×" if e.ok and e.speedup else e.status
        parts.append(f"{COLUMN_TITLES[column]} {shown}")
    return f"[{done}/{total}] {row.name}: {'  '.join(parts)}  ({elapsed:.0f} s elapsed)"


def report_summary(report: Report) -> dict:
    """The report as plain data (for --json)."""
    def entry(e: Entry) -> dict:
        return {"status": e.status, "median_ns": e.time_ns, "numpy_median_ns": e.numpy_ns,
                "hand_written": e.hand_written, "message": e.message,
                "speedup_vs_numpy": None if e.speedup is None else
                {"value": e.speedup.value, "ci95": [e.speedup.ci_low, e.speedup.ci_high]}}
    return {
        "preset": report.preset, "threads": report.policy.threads,
        "kernels": [{"kernel": r.kernel_id, "track": r.track, "dwarf": r.dwarf, "numpy_median_ns": r.numpy_ns,
                     **{c: entry(e) for c, e in r.entries.items()}} for r in report.rows],
        "tracks": _means(report.track_means()),
        "dwarfs": _means(report.dwarf_means()),
    }


def _means(means: dict) -> dict:
    return {name: {c: {"geomean_speedup_vs_numpy": sp.value if sp else None, "kernels": n}
                   for c, (sp, n) in cols.items()}
            for name, cols in means.items()}
