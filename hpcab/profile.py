"""A candidate's profile (POST /profile, `hpcab profile`, the agents' `profile` tool;
docs/agent_tools.md): where its calls spend their time, as `perf` sees it.

The candidate is built as a score builds it, with the flag set `profile` added
(toolchains/flagsets.toml: line tables, the code unchanged), and called alone on one public
case, under the same sandbox and limits as a graded run, with `perf record` sampling it
inside the sandbox (hpcab/timing/trusted/profile.py). perf samples a software clock
(cpu-clock) everywhere and, where the machine has them, the hardware counters (cycles,
instructions, cache and branch misses); only samples taken inside the candidate's calls
count. perf's file is read back by `perf script`, sandboxed too (the file was written inside
the candidate's sandbox: it is untrusted input), and summed here into what a person reads:
the hot functions, the hot lines of the candidate's own source, the split across threads,
the counters, the calls' time. A profile is not a grade: no answer is checked, no hidden case
is touched, nothing is timed for a score.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
import shutil
import statistics
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import attrs

from hpcab import sandbox as _sandbox
from hpcab.build import BUILD_DIR, BuildLimits, Candidate, build, target_kind
from hpcab.case import Case
from hpcab.errors import InputError
from hpcab.kernel import Kernel
from hpcab.timing.policy import Policy, pinned
from hpcab.timing.records import Target
from hpcab.timing.session import profile_case
from hpcab.timing.trusted.profile import OUTPUT
from hpcab.timing.untrusted.harness import build_harness
from hpcab.toolchain import Toolchains

PROFILE_FLAGSET = "profile"
PROFILED_LANGUAGES = ("c", "cpp", "fortran", "python", "pythran")     # CPU code: no GPU profiler here
PERF_ENV = "HPCAB_PERF"            # the perf binary (empty or missing: this machine has none)
FREQUENCY_HZ = 3999                # samples per second of each event (a prime-ish rate: no aliasing with loops of round periods)
SECONDS = 1.0                      # calls' time a profile gathers
MAX_CALLS = 20_000
TIMEOUT_S = 30.0                   # a profile's own wall-clock limit (load, calls), below a grade's
MAX_DATA = "64M"                   # perf record --max-size: the file perf may write
SCRIPT_BYTES = 64 << 20            # perf script's output read, at most
SCRIPT_TIMEOUT_S = 60
TOP_FUNCTIONS = 20
TOP_LINES = 25
TOP_THREADS = 16
TAIL_CHARS = 2000
HARDWARE = ("cycles", "instructions", "cache-references", "cache-misses", "branches", "branch-misses")
SAMPLED = "cpu-clock"
CANDIDATE_DSO = "candidate"

# perf script -F tid,time,event,period,ip,sym,dso: "  TID  SECONDS.NS:  PERIOD  EVENT:  IP SYM (DSO)"
_SAMPLE = re.compile(r"^\s*(?P<tid>\d+)\s+(?P<time>\d+\.\d+):\s+(?P<period>\d+)\s+(?P<event>[\w.:-]+?)(?::[ukhGHp]+)?:"
                     r"\s+(?P<ip>[0-9a-f]+)\s+(?P<sym>.*?)\s*\((?P<dso>[^()]*)\)\s*$")


def _own_output(tail: str) -> str:
    """The candidate's output, without perf's own messages (they name the judge's folders)."""
    perfs = ("[ perf record:", "Failed to read max cpus", "WARNING: ", "Lowering default frequency")
    return "\n".join(line for line in tail.splitlines() if not line.startswith(perfs))[-TAIL_CHARS:]


class ProfileUnavailable(RuntimeError):
    """This judge cannot profile (no perf, or perf cannot sample here): a 4xx, never a grade."""


def perf_path() -> str | None:
    """perf: $HPCAB_PERF when set (it must be an executable file), else `perf` on PATH."""
    env = os.environ.get(PERF_ENV)
    if env is not None:
        return env if env and os.path.isfile(env) and os.access(env, os.X_OK) else None
    return shutil.which("perf")


def _perf(args: list[str], sandbox: str, binds: list[Path] = (), writable: Path | None = None,
          timeout: float = SCRIPT_TIMEOUT_S) -> subprocess.CompletedProcess:
    """perf, sandboxed when the policy is (its input is the candidate's), its output bounded."""
    argv = [perf_path() or "perf", *args]
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C"}
    if sandbox == "bubblewrap":
        paths = [Path(p) for p in binds]
        _sandbox.ensure_readable(paths)
        bind = [_sandbox.Bind(p, p) for p in paths] + ([_sandbox.Bind(writable, writable, True)] if writable else [])
        bind += _sandbox.tool_binds([argv[0]])
        argv = _sandbox.command(argv, binds=bind, env=env, cwd="/tmp", processes=64)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, timeout=timeout,
                              env=env, start_new_session=True)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, proc.returncode, out.read(SCRIPT_BYTES).decode(errors="replace"),
                                           err.read(TAIL_CHARS * 4).decode(errors="replace"))


@functools.lru_cache(maxsize=None)
def _events(perf: str | None, sandbox: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """(hardware events this machine counts, those it does not, why perf cannot sample at
    all or ""), probed once per process by `perf stat` on /usr/bin/true where a profile runs."""
    if perf is None:
        named = os.environ.get(PERF_ENV)
        return (), HARDWARE, (f"{PERF_ENV}={named!r} is not an executable file, so there is no perf to profile "
                              f"with" if named is not None
                              else "perf (Linux perf) is not installed on the judge's machine")
    try:
        proc = _perf(["stat", "-x,", "-e", ",".join((SAMPLED,) + HARDWARE), "--", "/usr/bin/true"], sandbox,
                     timeout=20)
    except (OSError, subprocess.SubprocessError, _sandbox.SandboxError) as exc:
        return (), HARDWARE, f"perf could not be run: {exc}"
    counted: set[str] = set()
    for line in proc.stderr.splitlines():
        parts = line.split(",")
        if len(parts) >= 3 and not parts[0].startswith("<"):
            counted.add(parts[2].split(":")[0])
    if SAMPLED not in counted:
        last = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        return (), HARDWARE, f"perf cannot count {SAMPLED} here: {last[0]}"
    have = tuple(e for e in HARDWARE if e in counted)
    return have, tuple(e for e in HARDWARE if e not in counted), ""


def available(sandbox: str = _sandbox.AUTO) -> tuple[bool, str]:
    """(True, "") when profiles can run here; else (False, why)."""
    why = _events(perf_path(), _sandbox.resolve(sandbox))[2]
    return not why, why


class Windows:
    """The calls' windows on the monotonic clock (ns), in order and apart: whether a time
    falls inside one."""

    def __init__(self, windows: list[tuple[int, int]]):
        self.starts = [a for a, _ in windows]
        self.ends = [b for _, b in windows]

    def __contains__(self, t: int) -> bool:
        i = bisect.bisect_right(self.starts, t) - 1
        return i >= 0 and t <= self.ends[i]


def _ns(seconds: str) -> int:
    sec, _, frac = seconds.partition(".")
    return int(sec) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])


def parse_samples(text: str, windows: list[tuple[int, int]]) -> list[dict]:
    """perf script's samples inside the windows, each {tid, event, period, ip, sym, dso}."""
    out, calls = [], Windows(windows)
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if m is not None and _ns(m["time"]) in calls:
            out.append({"tid": int(m["tid"]), "event": m["event"], "period": int(m["period"]), "ip": m["ip"],
                        "sym": m["sym"] or "[unknown]", "dso": m["dso"]})
    return out


def _dso_name(dso: str, library: str) -> str:
    """The candidate's library as "candidate"; any other by its file name, never a path of
    the judge's machine."""
    if dso == library or Path(dso).name == Path(library).name:
        return CANDIDATE_DSO
    return Path(dso).name or dso


def _sym(sym: str) -> str:
    return re.sub(r"\+0x[0-9a-f]+$", "", sym)


def _srclines(perf_data: Path, library: Path, windows: list[tuple[int, int]], sandbox: str) -> Counter:
    """The candidate's own samples by source line (file:line), from perf's line tables."""
    proc = _perf(["script", "-i", str(perf_data), "-F", "tid,time,event,period,ip,sym,dso,srcline", "--ns",
                  "--dsos", str(library)], sandbox, binds=[perf_data.parent, library])
    lines: Counter = Counter()
    pending, calls = None, Windows(windows)
    for line in proc.stdout.splitlines():
        m = _SAMPLE.match(line)
        if m is not None:
            inside = m["event"] == SAMPLED and _ns(m["time"]) in calls
            pending = (m["ip"], m["sym"]) if inside else None
        elif pending is not None and line.strip():
            where = line.strip()
            lines[where if not where.startswith("??") else f"{_sym(pending[1]) or '?'}@0x{pending[0]}"] += 1
            pending = None
    return lines


def profile(kernel: Kernel, candidate: Candidate, toolchains: Toolchains, case: Case,
            flagset: str | None = None, policy: Policy = Policy(), seconds: float = SECONDS,
            cache_root: Path | None = None) -> dict:
    """The profile as plain data (the body of POST /profile's answer). Raises
    ProfileUnavailable where this machine cannot profile."""
    policy = pinned(attrs.evolve(policy, timeout_seconds=min(policy.timeout_seconds, TIMEOUT_S)))
    perf = perf_path()
    have, lack, why = _events(perf, policy.sandbox)
    if why:
        raise ProfileUnavailable(why)
    if candidate.language not in PROFILED_LANGUAGES:
        raise InputError("language", "", f"a {candidate.language} candidate cannot be profiled here "
                                         f"(perf samples CPU code; expected {', '.join(PROFILED_LANGUAGES)})")
    built = build(candidate, toolchains, flagset, cache_root, policy.sandbox,
                  BuildLimits(wall_seconds=policy.build_seconds), added=PROFILE_FLAGSET)
    compiler = toolchains.compiler(candidate.compiler or candidate.language)
    flags = toolchains.flagset(PROFILE_FLAGSET).by_family.get(compiler.family, ())
    doc = {"kernel": kernel.name, "ok": built.ok, "status": "build_error" if not built.ok else "",
           "message": "", "compiler": built.compiler, "compiler_version": built.compiler_version,
           "flagset": built.flagset.split("+")[0], "profile_flags": list(flags),
           "case": {"preset": case.label or "", "sizes": dict(case.sizes)},
           "diagnostics": built.diagnostics[-TAIL_CHARS * 2:] if not built.ok else "",
           "events": {"sampled": SAMPLED, "frequency_hz": FREQUENCY_HZ, "hardware": list(have),
                      "unavailable": list(lack)},
           "calls": 0, "call_seconds": None, "cpu_seconds": None, "samples": 0, "hardware": {}, "software": {},
           "software_note": ("summed over the calls; the judge stops the candidate between calls, which adds about "
                             "two context switches per call"),
           "functions": [], "lines": [], "lines_note": "", "threads": [], "stderr": ""}
    if not built.ok:
        doc["message"] = "the candidate did not compile (see diagnostics)"
        return doc
    harness = build_harness(kernel, toolchains).library if target_kind(candidate.language) == "c" else None
    out_dir = Path(tempfile.mkdtemp(prefix="hpcab-perf-"))     # the judge's: the candidate never sees it
    try:
        data = out_dir / "perf.data"
        wrap = (perf, "record", "-N", "-k", "CLOCK_MONOTONIC", "-F", str(FREQUENCY_HZ),
                "-e", ",".join((SAMPLED,) + have), "--max-size", MAX_DATA, "-o", OUTPUT, "--")
        target = Target("candidate", target_kind(candidate.language), built.library)
        run = profile_case(kernel, case, target, harness, policy, wrap, data, seconds, MAX_CALLS)
        windows = sorted(run.windows_ns)
        doc.update(status=run.status, message=run.message, stderr=_own_output(run.stderr_tail),
                   calls=run.calls)
        durations = [b - a for a, b in windows]
        if durations:
            doc["call_seconds"] = {"median": statistics.median(durations) / 1e9, "total": sum(durations) / 1e9}
        if run.cpu_ns is not None:
            doc["cpu_seconds"] = run.cpu_ns / 1e9
        doc["software"] = dict(run.counters)
        if not data.exists() or not windows:
            doc["lines_note"] = "perf wrote no samples (the candidate ended before its first call)"
            return doc
        _sandbox.ensure_readable([data])       # perf script runs as the sandbox's user
        _summarise(doc, data, built.library, windows, policy.sandbox, candidate, compiler.source_suffix)
        return doc
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def _summarise(doc: dict, data: Path, library: Path, windows: list[tuple[int, int]], sandbox: str,
               candidate: Candidate, suffix: str) -> None:
    proc = _perf(["script", "-i", str(data), "-F", "tid,time,event,period,ip,sym,dso", "--ns"], sandbox,
                 binds=[data.parent, library])
    samples = parse_samples(proc.stdout, windows)
    if proc.returncode != 0 and not samples:
        # perf's file is the candidate's to spoil (it can write it): its own profile is lost.
        doc["lines_note"] = ("perf could not read its samples back: its file was damaged while the candidate ran "
                             f"(perf script exited with status {proc.returncode})")
        return
    clock = [s for s in samples if s["event"] == SAMPLED]
    doc["samples"] = len(clock)
    totals: Counter = Counter()
    for s in samples:
        totals[s["event"]] += s["period"]
    hw = {e.replace("-", "_"): totals[e] for e in doc["events"]["hardware"]}
    if hw.get("cycles") and "instructions" in hw:
        hw["ipc"] = round(hw["instructions"] / hw["cycles"], 3)
    doc["hardware"] = hw
    doc["software"]["task_clock_ms"] = round(totals[SAMPLED] / 1e6, 3)
    if not clock:
        doc["lines_note"] = f"no {SAMPLED} sample fell inside a call (calls too short for {FREQUENCY_HZ} Hz?)"
        return
    n = len(clock)
    lib = str(library)
    by_function = Counter((_sym(s["sym"]), _dso_name(s["dso"], lib)) for s in clock)
    doc["functions"] = [{"function": f, "dso": d, "samples": c, "share": round(c / n, 4)}
                        for (f, d), c in by_function.most_common(TOP_FUNCTIONS)]
    main = min(s["tid"] for s in clock)
    by_thread = Counter(s["tid"] for s in clock)
    doc["threads"] = [{"thread": "main" if tid == main else f"thread {i}", "samples": c, "share": round(c / n, 4)}
                      for i, (tid, c) in enumerate(sorted(by_thread.items(), key=lambda kv: (kv[0] != main, -kv[1])))
                      ][:TOP_THREADS]
    own = sum(1 for s in clock if _dso_name(s["dso"], lib) == CANDIDATE_DSO)
    if candidate.language in ("python", "pythran") and target_kind(candidate.language) == "module" and not own:
        doc["lines_note"] = ("a Python candidate's own lines are interpreted or jitted code perf cannot map to "
                             "source: its hot functions are the interpreter's and its libraries'")
        return
    lines = _srclines(data, library, windows, sandbox)
    source = candidate.source.splitlines()
    names = {"candidate" + suffix, f"{BUILD_DIR}/candidate{suffix}"}
    shown, without = [], 0
    for where, c in lines.most_common():
        file, _, num = where.rpartition(":")
        entry = {"where": where, "samples": c, "share": round(c / n, 4), "source": None}
        if Path(file).name in {Path(x).name for x in names} and num.isdigit():
            entry["where"] = f"line {num}"
            entry["line"] = int(num)
            if 0 < int(num) <= len(source):
                entry["source"] = source[int(num) - 1].strip()[:200]
        elif "@0x" in where:
            without += c
        else:
            entry["where"] = f"{Path(file).name}:{num}"      # a header's or a library's line: its name only
        if len(shown) < TOP_LINES:
            shown.append(entry)
    doc["lines"] = shown
    doc["own_share"] = round(own / n, 4)
    if without:
        doc["lines_note"] = (f"{without} of the candidate's samples have no line information: shown as "
                             f"function@address (the hot instructions)")


def profile_text(doc: dict, label: str, limit: int | None = None) -> str:
    """The profile as plain text, as a person (or a model) reads it: the run, the hot
    functions, the hot lines of the candidate's source, the threads, the counters."""
    case = doc["case"]
    sizes = " ".join(f"{k}={v}" for k, v in case["sizes"].items())
    head = (f"{doc['kernel']}: profile of {label} ({doc['compiler']} {doc['compiler_version']}, flag set "
            f"{doc['flagset']} + {' '.join(doc['profile_flags']) or 'nothing'}) on public case {case['preset']} "
            f"[{sizes}]")
    lines = [head]
    if not doc["ok"]:
        return "\n".join(lines + ["the candidate did NOT compile:", doc["diagnostics"]])
    calls = doc["call_seconds"]
    timing = (f"{doc['calls']} call(s), median {calls['median'] * 1e3:.4g} ms, {calls['total']:.3g} s in calls"
              if calls else "no call completed")
    lines.append(f"status: {doc['status']}{': ' + doc['message'] if doc['message'] else ''}; {timing}")
    ev = doc["events"]
    lines.append(f"sampled {ev['sampled']} at {ev['frequency_hz']} Hz: {doc['samples']} samples inside calls; "
                 f"hardware counters: {', '.join(ev['hardware']) or 'none on this machine'}"
                 + (f" (not available: {', '.join(ev['unavailable'])})" if ev["unavailable"] else ""))
    if doc["hardware"]:
        lines.append("hardware: " + ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}"
                                              for k, v in doc["hardware"].items()))
    if doc["software"]:
        lines.append("software: " + ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}"
                                              for k, v in doc["software"].items()))
    n = limit or TOP_FUNCTIONS
    if doc["functions"]:
        lines.append("hot functions (share of samples):")
        lines += [f"  {f['share'] * 100:5.1f}%  {f['function']}  [{f['dso']}]" for f in doc["functions"][:n]]
    if doc["lines"]:
        lines.append(f"hot lines of {label}:")
        lines += [f"  {e['share'] * 100:5.1f}%  {e['where']}" + (f": {e['source']}" if e.get("source") else "")
                  for e in doc["lines"][:n]]
    if len(doc["threads"]) > 1:
        lines.append("threads: " + ", ".join(f"{t['thread']} {t['share'] * 100:.1f}%" for t in doc["threads"]))
    if doc["lines_note"]:
        lines.append(doc["lines_note"])
    if doc["stderr"]:
        lines += ["the candidate's output:", doc["stderr"]]
    return "\n".join(lines)


def profile_summary(doc: dict, label: str) -> str:
    """One line: the outcome and the hottest function and line."""
    if not doc["ok"]:
        return f"profile of {label} ({doc['kernel']}): did NOT compile"
    top = doc["functions"][0] if doc["functions"] else None
    line = doc["lines"][0] if doc["lines"] else None
    parts = [f"profile of {label} ({doc['kernel']}): {doc['status']}, {doc['calls']} call(s), {doc['samples']} samples"]
    if top:
        parts.append(f"hottest function {top['function']} {top['share'] * 100:.0f}%")
    if line:
        parts.append(f"hottest line {line['where']} {line['share'] * 100:.0f}%")
    return "; ".join(parts)
