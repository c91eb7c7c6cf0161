"""Optimizers: the Agent API (base.py), the agents that ship with hpcab, and the runner
behind `hpcab agent` (runner.py). See docs/writing_an_agent.md.

    numba       the NumPy reference jitted by numba (serial and parallel), the better one submitted
    pythran     the NumPy reference compiled by pythran
    translator  the translator's C and Fortran under each flag set, the fastest one submitted
    noop        the control: the translator's C at the default flag set, submitted unchanged, no score
    autotune    a search over translator variants x flag sets x thread counts with /score
    replay      the files of a folder, as they are: the human optimizer, or a past campaign again
    llm         a tool-calling model (OpenAI-compatible or Anthropic API) that writes the code
"""

from __future__ import annotations

import importlib

from hpcab.agents.base import Agent, Budget, BudgetExhausted, ModelCall, Session, Task
from hpcab.errors import InputError

# name -> "module:class", imported when asked for (the llm agent's imports are not the others')
AGENTS = {
    "numba": "hpcab.agents.frameworks:NumbaAgent",
    "pythran": "hpcab.agents.frameworks:PythranAgent",
    "translator": "hpcab.agents.translator:TranslatorAgent",
    "noop": "hpcab.agents.translator:NoopAgent",
    "autotune": "hpcab.agents.autotune:AutotuneAgent",
    "replay": "hpcab.agents.replay:ReplayAgent",
    "llm": "hpcab.agents.llm:LLMAgent",
}


def agent_class(name: str) -> type[Agent]:
    """The Agent class registered under name, or one's own: "module:Class" (an importable
    module) or "path/to/file.py:Class" (a file, loaded by its path)."""
    target = AGENTS.get(name, name if ":" in name else None)
    if target is None and name.endswith(".py"):
        raise InputError("agent", "name", f"{name!r} names a file but no class; expected {name}:ClassName")
    if target is None:
        raise InputError("agent", "name", f"unknown agent {name!r}; expected one of {', '.join(AGENTS)}, "
                                          f"module:Class or path/to/file.py:Class")
    where, _, cls = target.rpartition(":")
    if where.endswith(".py") or "/" in where:
        module, source = _module_from_file(where), where
    else:
        try:
            module, source = importlib.import_module(where), where
        except ImportError as exc:
            raise InputError("agent", "name", f"cannot load agent {target!r}: {exc}") from None
    found = getattr(module, cls, None)
    if found is None:
        raise InputError(source, cls, f"no such class in it{_classes_hint(module, cls)}")
    if not (isinstance(found, type) and issubclass(found, Agent)):
        raise InputError(source, cls, f"not an optimizer: {_what(found)}, not a subclass of hpcab.agents.Agent")
    return found


def _module_from_file(path: str):
    """Import a Python file by its path, under a module name of its own (two files of the
    same name do not replace each other); its import error as one line, file:line first."""
    import hashlib
    import importlib.util
    import sys
    from pathlib import Path

    file = Path(path)
    if not file.is_file():
        raise InputError(path, "", ("no such file" if not file.exists() else "not a file")
                         + " (the agent, given as path/to/file.py:Class)")
    resolved = file.resolve()
    module_name = f"hpcab_agent_file_{resolved.stem}_{hashlib.sha1(str(resolved).encode()).hexdigest()[:10]}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, resolved)
    if spec is None or spec.loader is None:
        raise InputError(path, "", "cannot be imported as a Python module (expected a .py file)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module      # a class defined in it can find its own module (attrs, pickle)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise InputError(f"{path}:{_failing_line(exc, resolved)}", "",
                         f"the file fails to import: {type(exc).__name__}: {_one_line(exc)}") from None
    return module


def _failing_line(exc: BaseException, file) -> int | str:
    """The line of file where the import failed: a syntax error's own, else the deepest
    frame of the traceback inside the file."""
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        return exc.lineno
    line: int | str = "?"
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == str(file):
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _one_line(exc: BaseException) -> str:
    text = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)
    return " ".join(text.split()) or "(no message)"


def _classes_hint(module, wanted: str) -> str:
    """"; it defines A, B (did you mean A?)": the classes defined in the module itself."""
    import inspect

    from hpcab.errors import closest
    defined = [n for n, v in vars(module).items()
               if inspect.isclass(v) and getattr(v, "__module__", None) == module.__name__]
    if not defined:
        return "; it defines no class"
    hint = f"; it defines {', '.join(sorted(defined))}"
    close = closest(wanted, defined, cutoff=0.5)
    return hint + (f" (did you mean {close}?)" if close else "")


def _what(obj) -> str:
    if isinstance(obj, type):
        bases = ", ".join(b.__name__ for b in obj.__mro__[1:-1]) or "object"
        return f"a class (based on {bases})"
    return f"a value of type {type(obj).__name__}"


__all__ = ["AGENTS", "Agent", "Budget", "BudgetExhausted", "ModelCall", "Session", "Task", "agent_class"]
