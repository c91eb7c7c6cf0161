"""The text the LLM agent's model reads: the prompt, assembled from fragments
(hpcab/agents/prompts/*.md, string.Template, docs/prompts.md), and the judge's grade
documents summarised for it."""

from __future__ import annotations

import string
from importlib import resources
from pathlib import Path
from typing import Any

from hpcab.agents.base import Session
from hpcab.errors import InputError
from hpcab.hints import hints_text

LANGUAGES = {"c": ("C", ".c"), "cpp": ("C++", ".cpp"), "fortran": ("Fortran", ".f90")}
FRAGMENTS = ("system.md", "abi.md", "lang_c.md", "lang_cpp.md", "lang_fortran.md", "tools.md", "skills.md", "task.md",
             "nudge.md")


FRAGMENTS += ("tool_score.md", "tool_compile.md", "tool_profile.md", "tool_submit.md", "hints.md")
JUDGE_TOOLS = ("score", "compile", "profile", "submit")     # each described by its fragment tool_<name>.md
DEFAULT_VARIANT = "default"


def variants() -> list[str]:
    """The packaged prompt variants: hpcab/agents/prompts/variants/<name>/, beside the default."""
    root = resources.files("hpcab.agents").joinpath("prompts", "variants")
    return [DEFAULT_VARIANT] + sorted(p.name for p in root.iterdir() if p.is_dir())


def fragment(name: str, prompts_dir: str | Path | None = None, variant: str = DEFAULT_VARIANT) -> str:
    """A prompt fragment's text: prompts_dir's file of that name if there is one, else the
    variant's, else the packaged default."""
    if prompts_dir and (Path(prompts_dir) / name).is_file():
        return (Path(prompts_dir) / name).read_text()
    packaged = resources.files("hpcab.agents").joinpath("prompts")
    if variant != DEFAULT_VARIANT and packaged.joinpath("variants", variant, name).is_file():
        return packaged.joinpath("variants", variant, name).read_text()
    return packaged.joinpath(name).read_text()


def render(name: str, fields: dict, prompts_dir: str | Path | None = None, variant: str = DEFAULT_VARIANT) -> str:
    try:
        return string.Template(fragment(name, prompts_dir, variant)).substitute(fields).strip()
    except KeyError as exc:
        raise InputError(f"prompt fragment {name}", str(exc.args[0]),
                         f"unknown field; the fields are {', '.join(sorted(fields))} (write $$ for a $)") from None
    except ValueError as exc:
        raise InputError(f"prompt fragment {name}", "", f"{exc} (write $$ for a $)") from None


def prompt_fields(doc: dict, session: Session | None, cfg: dict) -> dict:
    """The named fields every fragment may use (docs/prompts.md lists them)."""
    language = cfg["language"]
    language_name, ext = LANGUAGES[language]
    tol = doc.get("tolerance")
    tolerance = "exact (bitwise equal)" if not tol else ", ".join(f"{k} {v:g}" for k, v in tol.items() if v is not None)
    cases = [f"- {c.get('label')}: " + ", ".join(f"{k}={v}" for k, v in (c.get("sizes") or {}).items())
             + f" (seed {c.get('seed')})" for c in doc.get("public_cases") or []]
    flagsets = [f"- `{k}`: {v}" for k, v in (doc.get("flagsets") or {}).items()]
    left = session.remaining() if session is not None else {}
    judge_budget = doc.get("budget") or {}
    budget = [f"- submissions: {_left(left.get('submissions'), judge_budget, 'submissions')}",
              f"- scores: {_left(left.get('scores'), judge_budget, 'scores')}",
              *([f"- profiles: {_left(left.get('profiles'), judge_budget, 'profiles')}"]
                if "profile" in (cfg.get("tool_names") or JUDGE_TOOLS) else []),
              f"- model turns: {cfg['max_turns']}"]
    if left.get("tokens") is not None:
        budget.append(f"- tokens (prompt + completion, all turns): {left['tokens']}")
    if left.get("wall_seconds") is not None:
        budget.append(f"- wall time: {left['wall_seconds']:.0f} s")
    submit_rule = ("After a correct submission you may go on improving while submissions remain; "
                   "the judge records every one." if cfg.get("keep_going")
                   else "A correct submission ends the task; after a wrong one you may try again while "
                        "submissions remain.")
    return {
        "kernel": doc.get("kernel", ""), "name": doc.get("name", ""), "track": doc.get("track", ""),
        "description": doc.get("description") or "", "goal": doc.get("goal") or "",
        "language": language, "language_name": language_name, "file_name": f"{doc.get('name', 'kernel')}{ext}",
        "prototype": (doc.get("prototype") or "").rstrip(), "reference_file": doc.get("reference_file") or "",
        "reference": (doc.get("reference") or "").rstrip(), "public_cases": "\n".join(cases) or "(none)",
        "hidden_cases": str(doc.get("hidden_cases", "?")), "precision": str(doc.get("precision") or "?"),
        "tolerance": tolerance, "baseline": str(doc.get("baseline") or "?"), "threads": str(doc.get("threads") or 1),
        "flagsets": "\n".join(flagsets) or "(none)", "default_flagset": str(doc.get("default_flagset") or "opt"),
        "budget": "\n".join(budget), "max_turns": str(cfg["max_turns"]),
        "max_file_kib": str(cfg["max_file_bytes"] // 1024), "submit_rule": submit_rule,
        "fallback_rule": ("If the task ends without a submission, the best file that scored correct is "
                          "submitted for you." if cfg.get("submit_best", True) else
                          "If the task ends without a submission, nothing is submitted."),
    }


def _left(ours: int | None, judge: dict, what: str) -> str:
    limit, used = judge.get(what), judge.get(f"{what}_used") or 0
    theirs = None if limit is None else limit - used
    values = [v for v in (ours, theirs) if v is not None]
    return "unlimited" if not values else str(max(min(values), 0))


def render_prompts(doc: dict, session: Session | None, cfg: dict,
                   skills: list[dict] | None = None) -> tuple[str, str, str]:
    """(system prompt, first user message = the task, nudge) for the chosen language; with
    skills (each a name and a description), skills.md lists them after the tools."""
    fields = prompt_fields(doc, session, cfg)
    fields["skills"] = "\n".join(f"- `{s['name']}`: {s['description']}" for s in skills or []) or "(none)"
    d, variant = cfg.get("prompts_dir") or None, cfg.get("prompt") or DEFAULT_VARIANT
    tools = cfg.get("tool_names") or JUDGE_TOOLS
    fields["judge_tools"] = "\n".join(render(f"tool_{t}.md", fields, d, variant) for t in JUDGE_TOOLS if t in tools)
    fields["hints"] = hints_text(doc.get("hints") or [], cfg.get("hints", 0))
    system = "\n\n".join(render(n, fields, d, variant) for n in
                         ("system.md", "abi.md", f"lang_{cfg['language']}.md", "tools.md")
                         + (("skills.md",) if skills else ()))
    task = render("task.md", fields, d, variant)
    if fields["hints"]:
        task += "\n\n" + render("hints.md", fields, d, variant)
    return system, task, render("nudge.md", fields, d, variant)


# ---- grades, for the model -----------------------------------------------------------

def prompt_name(doc: dict, cfg: dict) -> str:
    return f"{doc.get('name', 'kernel')}{LANGUAGES[cfg['language']][1]}"


def _ratio(s: Any) -> str:
    if not isinstance(s, dict) or s.get("value") is None:
        return "n/a"
    ci = s.get("ci95") or [None, None]
    tail = f" (95% CI {ci[0]:.3g}-{ci[1]:.3g})" if None not in ci else ""
    return f"{s['value']:.3g}x{tail}"


def summarize_grade(doc: dict, session: Session | None = None, max_cases: int = 20) -> str:
    """The judge's grade document, compacted for the model."""
    lines = [f"{doc.get('kind', 'grade')} of {doc.get('label')}: status {doc.get('status')}, "
             f"correct: {str(bool(doc.get('correct'))).lower()} "
             f"(language {doc.get('language')}, compiler {doc.get('compiler')} {doc.get('compiler_version') or ''}, "
             f"flag set {doc.get('flagset')})"]
    if doc.get("correct"):
        lines.append(f"speedup vs baseline {doc.get('baseline')}: {_ratio(doc.get('speedup_vs_baseline'))}; "
                     f"vs NumPy: {_ratio(doc.get('speedup_vs_numpy'))}")
    cases = doc.get("cases") or []
    if doc.get("message") and not any(c.get("message") for c in cases):    # else the cases say it
        lines.append("message: " + str(doc["message"])[:1000])
    if cases:
        lines.append("cases:")
    for c in cases[:max_cases]:
        sizes = " ".join(f"{k}={v}" for k, v in (c.get("sizes") or {}).items()) or "sizes hidden"
        line = f"  {c.get('label')} ({c.get('visibility')}, {sizes}): {c.get('status')}"
        if c.get("median_ns"):
            line += f", median {c['median_ns'] / 1e6:.4g} ms"
        if c.get("speedup_vs_baseline"):
            line += f", speedup vs baseline {_ratio(c['speedup_vs_baseline'])}"
        if c.get("message"):
            line += f"\n    {str(c['message'])[:600]}"
        lines.append(line)
    if len(cases) > max_cases:
        lines.append(f"  ... and {len(cases) - max_cases} more case(s)")
    diag = doc.get("build_diagnostics") or ""
    if diag:
        lines.append("build diagnostics" + (" (last 3000 characters)" if len(diag) > 3000 else "") + ":")
        lines.append(diag[-3000:].rstrip())
    if doc.get("baseline_error"):
        lines.append(f"(judge-side baseline problem, not yours: {str(doc['baseline_error'])[:300]})")
    if session is not None:
        left = session.remaining()
        lines.append("budget left: " + ", ".join(
            f"{k.replace('_', ' ')} {'unlimited' if v is None else (f'{v:.0f}' if isinstance(v, float) else v)}"
            for k, v in left.items()))
    return "\n".join(lines)
