"""Optimizers: the Agent API (base.py), the agents that ship with hpcab, and the runner
behind `hpcab agent` (runner.py). See docs/writing_an_agent.md.

    numba       the NumPy reference jitted by numba (serial and parallel), the better one submitted
    pythran     the NumPy reference compiled by pythran
    translator  the translator's C and Fortran under each flag set, the fastest one submitted
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
    "autotune": "hpcab.agents.autotune:AutotuneAgent",
    "replay": "hpcab.agents.replay:ReplayAgent",
    "llm": "hpcab.agents.llm:LLMAgent",
}


def agent_class(name: str) -> type[Agent]:
    """The Agent class registered under name, or a "module:Class" path of one's own."""
    target = AGENTS.get(name, name if ":" in name else None)
    if target is None:
        raise InputError("agent", "name", f"unknown agent {name!r}; expected one of {', '.join(AGENTS)} "
                                          f"or module:Class")
    module, _, cls = target.partition(":")
    try:
        found = getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as exc:
        raise InputError("agent", "name", f"cannot load agent {target!r}: {exc}") from None
    if not (isinstance(found, type) and issubclass(found, Agent)):
        raise InputError("agent", "name", f"{target!r} is not a subclass of hpcab.agents.Agent")
    return found


__all__ = ["AGENTS", "Agent", "Budget", "BudgetExhausted", "ModelCall", "Session", "Task", "agent_class"]
