"""The compiler's report on a candidate (POST /compile, `hpcab compile`, the agents' `compile`
tool; docs/agent_tools.md): the build a score would make, with the flag set `report` added
(toolchains/flagsets.toml: the compiler's own remarks on which loops it vectorised or
unrolled and which it refused, and why), those remarks on the candidate's own file as
records, the other diagnostics as text, and on request objdump's disassembly of the kernel's
symbol. Nothing of the candidate runs: it is compiled like any build (sandboxed, limited)
and its product only read, by objdump in the same sandbox.
"""

from __future__ import annotations

import re
from pathlib import Path

from hpcab import sandbox as _sandbox
from hpcab.build import BUILD_DIR, Build, BuildLimits, Candidate, build, disassemble
from hpcab.kernel import Kernel
from hpcab.toolchain import Toolchains

REPORT_FLAGSET = "report"
MAX_REMARKS = 400          # a report's remarks beyond these are counted, not listed
# file:line[:column]: kind: text. GCC and gfortran say optimized / missed / note; clang says
# remark, and which pass in brackets ([-Rpass=...], [-Rpass-missed=...], [-Rpass-analysis=...]).
_REMARK = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:(?P<column>\d+):)?\s*"
                     r"(?P<kind>optimized|missed|note|remark):\s*(?P<text>.*)$")
_CLANG_PASS = {"-Rpass=": "optimized", "-Rpass-missed=": "missed", "-Rpass-analysis=": "analysis"}


def parse_remarks(diagnostics: str, files: set[str]) -> tuple[list[dict], str]:
    """The optimisation remarks on the candidate's own file (files: the names it goes by in
    the diagnostics), in order, each {line, column, kind, text}; and every other line."""
    remarks, rest = [], []
    for line in diagnostics.splitlines():
        m = _REMARK.match(line)
        if m is None or Path(m["file"]).name not in files and m["file"] not in files:
            if m is None:
                rest.append(line)
            continue                      # a remark on a header or another file: not the candidate's
        kind, text = m["kind"], m["text"].strip()
        if kind == "remark":              # clang: the pass's flag names the kind
            kind = next((k for flag, k in _CLANG_PASS.items() if f"[{flag}" in text), "note")
            text = re.sub(r"\s*\[-R[\w-]+=[^\]]*\]$", "", text)
        remarks.append({"line": int(m["line"]), "column": int(m["column"]) if m["column"] else None,
                        "kind": kind, "text": text})
    return remarks, "\n".join(rest).strip()


def compile_report(kernel: Kernel, candidate: Candidate, toolchains: Toolchains, flagset: str | None = None,
                   want_disassembly: bool = False, sandbox: str = _sandbox.AUTO,
                   limits: BuildLimits = BuildLimits(), cache_root: Path | None = None) -> dict:
    """The report as plain data (the body of POST /compile's answer)."""
    built: Build = build(candidate, toolchains, flagset, cache_root, sandbox, limits, added=REPORT_FLAGSET)
    compiler = toolchains.compiler(candidate.compiler or candidate.language)
    source_name = "candidate" + compiler.source_suffix
    files = {n for n in (candidate.label, source_name, f"{BUILD_DIR}/{source_name}") if n}
    remarks, other = parse_remarks(built.diagnostics, files)
    flags = toolchains.flagset(REPORT_FLAGSET).by_family.get(compiler.family, ())
    doc = {
        "kernel": kernel.name, "ok": built.ok, "compiler": built.compiler, "compiler_version": built.compiler_version,
        "flagset": built.flagset.split("+")[0], "report_flags": list(flags), "command": list(built.command),
        "remarks": remarks[:MAX_REMARKS], "remarks_left_out": max(len(remarks) - MAX_REMARKS, 0),
        "counts": {k: sum(r["kind"] == k for r in remarks) for k in ("optimized", "missed", "analysis", "note")},
        "diagnostics": other,
        "note": "" if flags else (f"{built.compiler} gives no optimisation report here (toolchains/flagsets.toml, "
                                  f"flag set {REPORT_FLAGSET!r}); its diagnostics are all there is"),
        "disassembly": None,
    }
    if want_disassembly:
        if not built.ok:
            doc["disassembly"] = "the candidate did not compile: nothing to disassemble"
        elif compiler.runs_in_python:
            doc["disassembly"] = f"a {candidate.language} candidate has no machine code of its own to disassemble"
        else:
            doc["disassembly"] = disassemble(built.library, kernel.name, sandbox, limits)
    return doc


def report_summary(doc: dict, label: str) -> str:
    """One line: whether it compiled, the remarks' counts, the first loop not vectorised."""
    counts = ", ".join(f"{n} {k}" for k, n in doc["counts"].items() if n) or "no remarks"
    missed = next((r for r in doc["remarks"] if r["kind"] == "missed"), None)
    first = f"; first missed: line {missed['line']}: {missed['text']}" if missed else ""
    state = "compiled" if doc["ok"] else "did NOT compile (errors in diagnostics)"
    return f"compile of {label} ({doc['kernel']}): {state} with {doc['compiler']} {doc['compiler_version']}; {counts}{first}"


def report_text(doc: dict, label: str, remarks_limit: int | None = None) -> str:
    """The report as plain text, as a person (or a model) reads it: the build, the remarks by
    line, the diagnostics, and the disassembly if asked for."""
    lines = [f"{doc['kernel']}: {label} {'compiled' if doc['ok'] else 'did NOT compile'} with {doc['compiler']} "
             f"{doc['compiler_version']}, flag set {doc['flagset']} (report flags: "
             f"{' '.join(doc['report_flags']) or 'none'})"]
    counts = ", ".join(f"{n} {k}" for k, n in doc["counts"].items() if n)
    lines.append(f"remarks on {label}: {counts or 'none'}")
    shown = doc["remarks"] if remarks_limit is None else doc["remarks"][:remarks_limit]
    for r in shown:
        where = f"{r['line']}:{r['column']}" if r["column"] else str(r["line"])
        lines.append(f"  {label}:{where}: {r['kind']}: {r['text']}")
    left = len(doc["remarks"]) - len(shown) + doc["remarks_left_out"]
    if left:
        lines.append(f"  ... {left} more remark(s)")
    if doc["note"]:
        lines.append(doc["note"])
    if doc["diagnostics"]:
        lines += ["diagnostics:", doc["diagnostics"]]
    if doc["disassembly"]:
        lines += ["disassembly:", doc["disassembly"].rstrip()]
    return "\n".join(lines)
