"""The framework optimizers: the NumPy reference itself, compiled by numba or pythran.

numba    the reference module with its kernel function wrapped in numba.njit, serial and
         with parallel=True (numba's automatic parallelisation of array expressions and
         prange); both are scored and search.best's choice is submitted (language python).
pythran  the reference module with a `#pythran export` line derived from the manifest
         (hpcab.abi.show_abi(kernel, "pythran")) and without its input initializer, which
         pythran need not compile; scored at the default flag set and at autopar (OpenMP),
         the better one submitted (language pythran).

Both need hpcab[frameworks] on the judge's machine (the judge builds and runs them) and
the corpus on the agent's (they start from the reference). They never change the
reference's arithmetic, so they are correct wherever the framework compiles it; where it
cannot, the score says build_error or error with the framework's message.
"""

from __future__ import annotations

import ast

from hpcab.agents.base import Agent, Session, Task
from hpcab.agents.search import Variant, score_all, submit_best
from hpcab.agents.translator import timing_flagsets

INITIALIZER = "initialize"          # the reference's input builder (docs/manifest.md)


def numba_source(reference: str, function: str, parallel: bool) -> str:
    return (f"{reference.rstrip()}\n\n\n"
            f"# hpcab numba optimizer: the reference above, compiled by numba.\n"
            f"import numba as _hpcab_numba  # noqa: E402\n\n"
            f"{function} = _hpcab_numba.njit(cache=False, parallel={parallel})({function})\n")


def without_initializer(reference: str) -> str:
    """The reference module without its top-level input initializer (it uses the random
    generator API, which pythran does not compile, and the kernel never calls it)."""
    tree = ast.parse(reference)
    lines = reference.splitlines(keepends=True)
    drop = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == INITIALIZER]
    for node in reversed(drop):
        start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
        del lines[start:node.end_lineno]
    return "".join(lines)


def pythran_source(reference: str, export_lines: list[str]) -> str:
    return "\n".join(export_lines) + "\n\n" + without_initializer(reference).lstrip()


def export_lines(kernel) -> list[str]:
    from hpcab.abi import show_abi
    return [line for line in show_abi(kernel, "pythran").splitlines() if line.startswith("#pythran export")]


class NumbaAgent(Agent):
    name = "numba"
    languages = ("python",)

    def solve(self, task: Task, session: Session) -> None:
        kernel = task.local_kernel()
        reference = task.doc["reference"]
        function = kernel.reference().function.__name__
        variants = [Variant("numba.njit", numba_source(reference, function, False), "python"),
                    Variant("numba.njit(parallel=True)", numba_source(reference, function, True), "python")]
        submit_best(session, score_all(session, variants), fallback=variants[0])


class PythranAgent(Agent):
    name = "pythran"
    languages = ("pythran",)

    def solve(self, task: Task, session: Session) -> None:
        kernel = task.local_kernel()
        source = pythran_source(task.doc["reference"], export_lines(kernel))
        default = timing_flagsets(task)[0]
        flagsets = [default] + (["autopar"] if "autopar" in task.doc.get("flagsets", {}) else [])
        variants = [Variant(f"pythran@{f}", source, "pythran", f) for f in dict.fromkeys(flagsets)]
        submit_best(session, score_all(session, variants), fallback=variants[0])
