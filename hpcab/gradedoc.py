"""The grade as a JSON document (schemas/grade.schema.json) and its printed form.

One document for every way a grade reaches a person or a program: `hpcab grade --json`,
the judge's answers (POST /score, POST /submit, GET /grades/<id>) and `hpcab submit`,
which prints it exactly as `hpcab grade` does.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab.measure import geometric_mean_speedup, speedup_json

HIDDEN = "hidden"


def grade_document(g, kind: str = "local", agent: str | None = None, redact_hidden: bool = False,
                   durations: dict[str, float] | None = None) -> dict:
    """A hpcab.grade.Grade as the grade document. redact_hidden: what an agent is shown: a
    hidden case keeps its label, visibility and status (and a fixed message per kind of
    failure), nothing else; the grade's message, baseline_error and durations carry
    nothing of it either (docs/judge_api.md, "What an agent is told of a hidden case").
    The judge's database keeps the full grade (hpcab.record.finish_submission)."""
    cases = [_case_document(c, redact_hidden) for c in g.cases]
    over_numpy, over_baseline = _public_speedups(g) if redact_hidden else (g.speedup_numpy, g.speedup_baseline)
    message = g.message
    if redact_hidden and g.status != "build_error":     # rebuilt from the redacted cases
        message = "; ".join(f"{c['label']}: {c['message']}" for c in cases if c["message"])
    doc = {
        "id": g.id, "kind": kind, "created_at": g.created_at, "kernel": g.kernel_id, "status": g.status,
        "correct": g.correct, "message": message, "language": g.candidate.language,
        "compiler": g.build.compiler, "compiler_version": g.build.compiler_version, "flagset": g.build.flagset,
        "compilers": dict(g.compilers), "compiler_warnings": list(g.compiler_warnings),
        "flagset_overridden": list(g.build.overrides),
        "label": g.candidate.label, "build_cached": g.build.cached, "build_diagnostics": g.build.diagnostics,
        "speedup_vs_numpy": speedup_json(over_numpy),
        "baseline": g.baseline, "baseline_origin": g.baseline_origin or None,
        "baseline_error": _baseline_error(g, redact_hidden),
        "speedup_vs_baseline": speedup_json(over_baseline),
        "policy": {"threads": g.policy.threads, "cpus": list(g.policy.cpus) if g.policy.cpus else None,
                   "sandbox": g.policy.sandbox},
        "environment_id": g.environment["id"],
        "image_digest": g.environment["image_digest"],
        "cases": cases,
    }
    if g.mpi is not None:           # a distributed grade (docs/mpi.md)
        doc["mpi"] = dict(g.mpi)
    if agent is not None:
        doc["agent"] = agent
    own = _agent_durations(g) if redact_hidden else g.durations
    doc["durations"] = {k: round(v, 6) for k, v in {**own, **(durations or {})}.items()}
    return doc


def _public_speedups(g) -> tuple:
    """The grade's speedups as an agent is shown them: over its public scored cases alone. The
    grade's own (public and hidden cases), which the judge's database and the leaderboard
    keep, would give away the hidden cases' with the public ones shown beside them."""
    if not any(c.case.visibility == HIDDEN for c in g.cases) or g.speedup_numpy is None:
        return g.speedup_numpy, g.speedup_baseline
    public = [c for c in g.cases if c.case.visibility != HIDDEN and c.case.scored]
    numpy = geometric_mean_speedup([c.speedup_numpy for c in public]) if all(c.speedup_numpy for c in public) else None
    base = (geometric_mean_speedup([c.speedup_baseline for c in public])
            if g.speedup_baseline is not None and all(c.speedup_baseline for c in public) else None)
    return numpy, base


# The grade's own durations an agent is shown when it has hidden cases: those that do not
# depend on the cases, and slot_wait, timed, candidate_timed and each driver_<part> summed
# over its public cases only (a hidden case's timed seconds would time it: the edge shape
# is not scored, so nothing else does). "cases" (the wall time of every case) is left out;
# the judge adds "judge_total", which tells the agent no more than its own clock around
# the request.
CASE_FREE_DURATIONS = ("build", "prepare", "finish", "public_cases")
DRIVER_PREFIX = "driver_"


def _agent_durations(g) -> dict[str, float]:
    if not any(c.case.visibility == HIDDEN for c in g.cases):
        return dict(g.durations)
    from hpcab.grade import CANDIDATE
    public = [c for c in g.cases if c.case.visibility != HIDDEN]
    totals = {"slot_wait": sum(c.slot_wait_seconds for c in public),
              "timed": sum(float(s.sum()) for c in public for s in c.samples_ns.values()) / 1e9,
              "candidate_timed": sum(float(c.samples_ns[CANDIDATE].sum()) for c in public
                                     if CANDIDATE in c.samples_ns) / 1e9}
    for key in g.durations:     # driver_<part>: the sum of each case's measuring driver's <part>
        if key.startswith(DRIVER_PREFIX):
            totals[key] = sum(c.diagnostics.durations.get(key[len(DRIVER_PREFIX):], 0.0) for c in public)
    return {k: totals.get(k, v) for k, v in g.durations.items()
            if k in CASE_FREE_DURATIONS or k in totals}


HIDDEN_BASELINE_ERROR = "the baseline was not timed on this hidden case"


def _baseline_error(g, redact_hidden: bool) -> str | None:
    """The grade's baseline_error: its hidden cases' parts (which can quote values of a
    hidden case) replaced by HIDDEN_BASELINE_ERROR when redacted."""
    if not redact_hidden or not g.baseline_error or not any(
            c.case.visibility == HIDDEN and c.baseline_error for c in g.cases):
        return g.baseline_error
    part = lambda c: f"{c.case.label or c.case.describe()}: {c.baseline_error}"   # as hpcab.grade.grade joins them
    tail = "; ".join(part(c) for c in g.cases if c.baseline_error)
    head = ""               # the baseline's own preparation error, before the cases' parts
    if g.baseline_error.endswith(tail):
        head = g.baseline_error[:-len(tail)].removesuffix("; ")
    parts = [head] if head else []
    parts += [f"{c.case.label}: {HIDDEN_BASELINE_ERROR}" if c.case.visibility == HIDDEN else part(c)
              for c in g.cases if c.baseline_error]
    return "; ".join(parts)


# What an agent is told about a hidden case that failed: the kind of failure, never the
# details (a message can carry values, indices or the candidate's own output, which would
# let it read a hidden input back).
HIDDEN_MESSAGES = {
    "incorrect": "a wrong answer on this hidden case",
    "crashed": "the candidate crashed on this hidden case",
    "timeout": "the candidate ran past the time limit on this hidden case",
    "error": "the candidate failed on this hidden case",
    "implausible": "implausibly fast on this hidden case (not scored until reviewed)",
}


HIDDEN_SHOWN = ("label", "visibility", "status", "message")    # of a hidden case, to an agent


def _case_document(c, redact_hidden: bool) -> dict:
    secret = redact_hidden and c.case.visibility == HIDDEN
    message = HIDDEN_MESSAGES.get(c.status, "") if secret and c.message else c.message
    doc = {
        "label": c.case.label, "visibility": c.case.visibility,
        "sizes": None if secret else c.case.sizes, "seed": None if secret else c.case.seed,
        "status": c.status, "message": message,
        "max_abs_err": c.check.max_abs_err if c.check else None,
        "max_rel_err": c.check.max_rel_err if c.check else None,
        "normwise_err": c.check.normwise_err if c.check else None,
        "median_ns": c.timing.median_ns if c.timing else None,
        "ci95_ns": [c.timing.ci_low_ns, c.timing.ci_high_ns] if c.timing else None,
        "samples": c.timing.n if c.timing else 0,
        "numpy_median_ns": c.numpy_timing.median_ns if c.numpy_timing else None,
        "speedup_vs_numpy": speedup_json(c.speedup_numpy),
        "baseline_median_ns": c.baseline_timing.median_ns if c.baseline_timing else None,
        "speedup_vs_baseline": speedup_json(c.speedup_baseline),
        "baseline_error": c.baseline_error,
        # How it was measured (docs/measurement_statistics.md): the timer's round trips
        # (subtracted from the samples), how the candidate was frozen between calls.
        **{k: getattr(c.diagnostics, k) for k in ("timer_overhead_ns", "timer_overhead_c_ns", "freezer")},
        "sessions": c.sessions,
    }
    if c.rank_samples_ns is not None and len(c.rank_samples_ns):
        # Each rank's median time of the timed calls (the slowest rank's is the call's time).
        import numpy as np
        doc["rank_median_ns"] = [float(x) for x in np.median(c.rank_samples_ns, axis=0)]
    if secret:
        # Its label, visibility and status only: an error magnitude, a time or a speedup of a
        # hidden case is a channel the candidate can write into (an error of NI*1e6+NJ*1e3+NK,
        # a sleep of NI µs), and so is the baseline's error text. Every other field is null.
        doc = {k: (v if k in HIDDEN_SHOWN else None) for k, v in doc.items()}
        doc.update(samples=0, baseline_error=HIDDEN_BASELINE_ERROR if c.baseline_error else None)
    return doc


# ---- printing ----------------------------------------------------------------------

def fmt_time(ns: float | None) -> str:
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.0f} ns"


def _verdict(sp: dict) -> str:
    from hpcab.measure import verdict
    return sp.get("verdict") or verdict(*sp["ci95"])       # (documents of older judges lack it)


def fmt_speedup(sp: dict | None, sep: str = " ") -> str:
    """1.52× [1.31, 1.77] faster: the value, its 95 % interval and the gate's verdict (sep
    "\n" in a table's cell: the verdict on a line of its own, the columns kept narrow)."""
    return f"{sp['value']:.2f}× [{sp['ci95'][0]:.2f}, {sp['ci95'][1]:.2f}]{sep}{_verdict(sp)}" if sp else "-"


def plain_speedup(sp: dict, what: str) -> str:
    """The speedup in words, gated on its interval: faster or slower only when the interval
    says so (hpcab.measure.verdict)."""
    from hpcab.measure import FASTER, SLOWER
    v = _verdict(sp)
    if v == FASTER:
        return f"{sp['value']:.2f}× faster than {what}"
    if v == SLOWER:
        return f"{1 / sp['value']:.2f}× slower than {what}"
    return f"no measurable difference from {what}"


def print_baseline_error(name: str, error: str, out: Console) -> None:
    out.print(f"[yellow]baseline {name} not timed[/yellow] (a judge-side problem; the grade stands without it):",
              highlight=False)
    out.print(error.strip(), markup=False, highlight=False)


def _describe_case(c: dict) -> str:
    if c["sizes"] is None:
        return f"{c['label'] or 'case'} [hidden]"
    dims = " ".join(f"{k}={v}" for k, v in c["sizes"].items())
    return f"{c['label'] or 'case'} [{dims}] seed={c['seed']}"


def print_grade(doc: dict, out: Console, recorded_in: str | None = None) -> None:
    """The grade as tables and a verdict line, from its document."""
    if doc["status"] == "build_error":
        out.print(f"[bold red]BUILD ERROR[/bold red] {doc['kernel']} ({doc['compiler']}, flags {doc['flagset']})")
        out.print(doc["build_diagnostics"].strip() or "(no diagnostics)", markup=False, highlight=False)
        _print_footer(doc, out, recorded_in)
        return
    if doc["status"] == "interrupted":
        out.print(f"[bold red]INTERRUPTED[/bold red] {doc['kernel']}: {escape(doc['message'])}", highlight=False)
        _print_footer(doc, out, recorded_in)
        return
    baseline = doc["baseline"]
    table = Table(title=escape(f"{doc['kernel']} — {doc['label'] or doc['language']} "
                               f"({doc['compiler']} {doc['compiler_version']}, flags {doc['flagset']}"
                               f"{', cached build' if doc['build_cached'] else ''})"))
    # The numpy baseline (machine_learning) is the NumPy column itself.
    own = baseline is not None and baseline != "numpy"
    cols = ["case", "result", "max abs err", "max rel err", "time (median, 95% CI)", "numpy"]
    cols += [baseline] if own else []
    cols += ["speedup vs numpy"] + ([f"speedup vs {baseline}"] if own else [])
    for col in cols:
        table.add_column(col, no_wrap=col.startswith(("time", "speedup")))
    if baseline:
        table.caption = (f"baseline of the track: {baseline}"
                         + (f" ({escape(doc['baseline_origin'])})" if doc["baseline_origin"] else ""))
    for c in doc["cases"]:
        ok = c["status"] == "ok"
        colour = "green" if ok else "red"
        timing = (f"{fmt_time(c['median_ns'])} [{fmt_time(c['ci95_ns'][0])}, {fmt_time(c['ci95_ns'][1])}]"
                  if c["median_ns"] is not None else "-")
        row = [escape(_describe_case(c)), f"[{colour}]{'correct' if ok else c['status']}[/{colour}]",
               f"{c['max_abs_err']:.2e}" if c["max_abs_err"] is not None else "-",
               f"{c['max_rel_err']:.2e}" if c["max_rel_err"] is not None else "-",
               timing, fmt_time(c["numpy_median_ns"])]
        if own:
            row.append(fmt_time(c["baseline_median_ns"]))
        row.append(fmt_speedup(c["speedup_vs_numpy"], "\n"))
        if own:
            row.append(fmt_speedup(c["speedup_vs_baseline"], "\n"))
        table.add_row(*row)
    out.print(table)
    if doc.get("flagset_overridden"):       # (absent from documents of older judges)
        out.print(f"[yellow]the source overrides the flag set {escape(doc['flagset'])}:[/yellow] "
                  + escape("; ".join(doc["flagset_overridden"])), markup=True, highlight=False)
    if doc.get("mpi"):
        m = doc["mpi"]
        out.print(f"{m['ranks']} MPI ranks under {m['launcher']}; distribution "
                  + " ".join(f"{a}={d}" for a, d in m["distribution"].items()), highlight=False, soft_wrap=True)
        for c in doc["cases"]:
            if c.get("rank_median_ns"):
                out.print(f"  {escape(c['label'])}: per-rank median " + ", ".join(
                    f"rank {r} {fmt_time(ns)}" for r, ns in enumerate(c["rank_median_ns"])), highlight=False,
                    soft_wrap=True)
    for c in doc["cases"]:
        if c["message"]:        # an ok case's message is a note (timed on new sets only), not a failure
            colour = "yellow" if c["status"] == "ok" else "red"
            out.print(f"[{colour}]{escape(c['label'])}:[/{colour}] {escape(c['message'])}", markup=True,
                      highlight=False, soft_wrap=True)
    if doc["baseline_error"]:
        print_baseline_error(baseline, doc["baseline_error"], out)
    if doc["correct"]:
        sp, sb = doc["speedup_vs_numpy"], doc["speedup_vs_baseline"]
        sessions = f", {sp['sessions']} sessions" if sp.get("sessions", 1) > 1 else ""
        line = (f"[bold green]CORRECT[/bold green] on {len(doc['cases'])} case(s) — speedup {sp['value']:.2f}× over "
                f"the NumPy reference (95% CI {sp['ci95'][0]:.2f}–{sp['ci95'][1]:.2f}{sessions}): "
                f"{plain_speedup(sp, 'NumPy')}")
        if baseline == "numpy":
            line += "; NumPy is this track's baseline"
        elif baseline and sb:
            line += (f"; {sb['value']:.2f}× over the {baseline} baseline "
                     f"(95% CI {sb['ci95'][0]:.2f}–{sb['ci95'][1]:.2f}): {plain_speedup(sb, baseline)}")
        elif baseline:
            line += f"; no speedup over the {baseline} baseline (not timed, see above)"
        out.print(line, highlight=False, soft_wrap=True)      # one line, however narrow a pipe's console
    else:
        out.print(f"[bold red]{doc['status'].upper()}[/bold red]")
    _print_footer(doc, out, recorded_in)


def _print_footer(doc: dict, out: Console, recorded_in: str | None) -> None:
    for warning in doc.get("compiler_warnings") or ():
        out.print(f"[bold yellow]warning:[/bold yellow] {escape(warning)}", highlight=False, soft_wrap=True)
    if doc["kind"] == "score":
        out.print(f"score {doc['id']} (public cases only; not recorded)", highlight=False, soft_wrap=True)
    elif recorded_in:
        out.print(f"grade {doc['id']} recorded in {recorded_in}", highlight=False, soft_wrap=True)
    else:
        out.print(f"grade {doc['id']} (not recorded: pass --db FILE)", highlight=False, soft_wrap=True)
