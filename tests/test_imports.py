"""No import circles in hpcab/.

The graph is built from the source (ast), not by importing: every import statement counts,
at module level, inside a function and under `if TYPE_CHECKING:` alike. A circle is a
layering fault whether or not Python happens to survive it at run time: an import moved
into a function or behind TYPE_CHECKING hides a circle, it does not remove it. The fix is
to put the shared thing in a module below both.

Edges: `import a.b.c` is an edge to a.b.c (the longest part of it that is a module of the
package); `from a.b import c` is an edge to a.b.c when that is a module, else to a.b;
relative imports are resolved against the importing module's package. An import of a.b.c
is not an edge to its parent packages a.b and a (though Python runs their __init__ first):
otherwise every package whose __init__ imports its own submodules would be a circle.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "hpcab"


def module_files(package: Path) -> dict[str, Path]:
    """Module name -> file, for every .py file of the package (package: its folder)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute name a `from ... import` names."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(package: Path) -> tuple[dict[str, set[str]], dict[tuple[str, str], str]]:
    """(module -> the package's modules it imports, (importer, imported) -> where: path:line
    of the first such import). Imports of anything outside the package are left out."""
    files = module_files(package)
    graph: dict[str, set[str]] = {name: set() for name in files}
    where: dict[tuple[str, str], str] = {}

    def known(name: str) -> str | None:
        """The longest prefix of name that is a module of the package."""
        parts = name.split(".")
        while parts:
            if ".".join(parts) in files:
                return ".".join(parts)
            parts.pop()
        return None

    for module, path in files.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [known(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(module, is_package, node)
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    targets.append(sub if sub in files else known(source))
            for target in targets:
                if target is None or target == module:
                    continue
                graph[module].add(target)
                where.setdefault((module, target), f"{path.relative_to(package.parent)}:{node.lineno}")
    return graph, where


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """For each module in a strongly connected component, the shortest circle through it
    (modules in import order, starting at its first module by name), without repeats."""
    out: list[list[str]] = []
    for component in strongly_connected(graph):
        members = set(component)
        for start in component:
            # Breadth first from start to a module that imports it, inside the component.
            previous: dict[str, str | None] = {start: None}
            queue = deque([start])
            while queue:
                end = queue.popleft()
                if start in graph[end]:
                    break
                for w in sorted(graph[end] & members):
                    if w not in previous:
                        previous[w] = end
                        queue.append(w)
            path = [end]
            while previous[path[-1]] is not None:
                path.append(previous[path[-1]])
            path.reverse()
            first = path.index(min(path))
            cycle = path[first:] + path[:first]
            if cycle not in out:
                out.append(cycle)
    return out


def describe(cycle: list[str], where: dict[tuple[str, str], str]) -> str:
    steps = list(zip(cycle, cycle[1:] + cycle[:1]))
    return " -> ".join(cycle + cycle[:1]) + "  (" + ", ".join(where[step] for step in steps) + ")"


def test_no_import_circles():
    graph, where = import_graph(PACKAGE)
    found = circles(graph)
    assert not found, ("import circles in hpcab/ (every import counts, inside functions too); move the shared "
                       "thing into a module below both:\n  " + "\n  ".join(describe(c, where) for c in found))


def test_graph_builder_on_a_synthetic_package(tmp_path):
    """A circle closed by an import inside a function is found; relative and `from x import
    name` imports resolve; a package's __init__ importing its submodules is no circle."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from pkg import a\nfrom pkg.sub import c\n",
        "a.py": "import pkg.b\n",
        # The circle's closing edge is inside a function; d is imported as a name of sub.
        "b.py": "def f():\n    from pkg.a import thing\n    from pkg.sub import d\n",
        "sub/__init__.py": "from . import c\nfrom .c import helper\n",
        "sub/c.py": "import os\nfrom ..b import f\n",
        "sub/d.py": "import pkg.sub.c as c\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    graph, where = import_graph(pkg)
    assert graph == {
        "pkg": {"pkg.a", "pkg.sub.c"},
        "pkg.a": {"pkg.b"},
        "pkg.b": {"pkg.a", "pkg.sub.d"},
        "pkg.sub": {"pkg.sub.c"},
        "pkg.sub.c": {"pkg.b"},
        "pkg.sub.d": {"pkg.sub.c"},
    }
    assert where[("pkg.b", "pkg.a")] == "pkg/b.py:2"
    # pkg.a imports pkg.b, which runs pkg/__init__ first: not counted, so pkg is in no circle.
    assert strongly_connected(graph) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.sub.d"]]
    assert circles(graph) == [["pkg.a", "pkg.b"], ["pkg.b", "pkg.sub.d", "pkg.sub.c"]]
    assert describe(["pkg.a", "pkg.b"], where) == "pkg.a -> pkg.b -> pkg.a  (pkg/a.py:1, pkg/b.py:2)"
