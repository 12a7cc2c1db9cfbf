"""The layout of python/simt: its modules import each other without cycles, and
only at their top level, so the import order is the dependency order and no
module needs a function-level import to dodge a cycle."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "simt"
# Compiled modules of the package: leaves of the graph (they import no Python module of it).
EXTENSIONS = {"_core"}


def _modules():
    return {path.stem: path for path in sorted(PACKAGE.glob("*.py"))}


def intra_package_imports(tree, modules):
    """[(module imported, import node, whether the node is at the module's top level)]
    for each import of one of `modules` (the package itself is "__init__") in `tree`,
    top-level and inside functions or classes alike."""
    top_level = set(map(id, tree.body))
    found = []

    def add(target, node):
        if target in modules:
            found.append((target, node, id(node) in top_level))

    def package_names(node, names):
        # `from . import a, b` / `from simt import a`: a submodule where one has that name,
        # else a name the package's __init__ defines.
        for alias in names:
            if alias.name in EXTENSIONS:
                continue
            add(alias.name if alias.name in modules else "__init__", node)

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level > 1:
                raise AssertionError(f"line {node.lineno}: simt is one flat package")
            if node.level == 1:
                module = node.module
            elif node.module == "simt" or (node.module or "").startswith("simt."):
                module = node.module[len("simt."):] if "." in node.module else None
            else:
                continue
            if module is None:
                package_names(node, node.names)
            else:
                add(module.split(".")[0], node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "simt":
                    add(parts[1] if len(parts) > 1 else "__init__", node)
    return found


def import_graph():
    """{module: {modules it imports}} over python/simt/*.py."""
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        graph[name] = {target for target, _, _ in intra_package_imports(tree, modules)}
    return graph


def find_cycle(graph):
    """A list of modules [a, b, ..., a] forming an import cycle, or None."""
    state = {}  # name -> "open" while on the DFS stack, "done" after
    stack = []

    def visit(name):
        state[name] = "open"
        stack.append(name)
        for target in sorted(graph.get(name, ())):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[name] = "done"
        return None

    for name in sorted(graph):
        if name not in state:
            cycle = visit(name)
            if cycle:
                return cycle
    return None


def test_the_package_has_modules():
    graph = import_graph()
    assert {"__init__", "_array", "_interop", "_kernel", "_resolve"} <= set(graph)
    assert "_array" in graph["_interop"] and "_resolve" in graph["_kernel"]


def test_modules_import_each_other_without_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "python/simt has an import cycle: " + " -> ".join(cycle)


def test_intra_package_imports_are_at_the_top_level():
    modules = _modules()
    nested = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        nested += [f"{name}.py:{node.lineno} imports {target}"
                   for target, node, top in intra_package_imports(tree, modules) if not top]
    assert not nested, "imports inside functions or classes: " + "; ".join(nested)


# The checker itself: it must see cycles through function-level imports, the
# kind a module uses to dodge one at import time.
_A = """
from . import _core
from ._b import thing
"""
_B = """
import numpy as np

def later():
    from ._a import other
    return other
"""


@pytest.mark.parametrize("b_source, cyclic", [(_B, True), (_B.replace("._a", "._c"), False)])
def test_the_checker_sees_function_level_cycles(b_source, cyclic):
    modules = {"_a": None, "_b": None, "_c": None}
    graph = {"_a": {t for t, _, _ in intra_package_imports(ast.parse(_A), modules)},
             "_b": {t for t, _, _ in intra_package_imports(ast.parse(b_source), modules)},
             "_c": set()}
    assert graph["_a"] == {"_b"}
    assert (find_cycle(graph) == ["_a", "_b", "_a"]) if cyclic else find_cycle(graph) is None


def test_the_checker_reads_absolute_and_package_imports():
    modules = {"__init__": None, "_a": None, "_b": None}
    tree = ast.parse("import simt\nfrom simt import _a, __version__\nfrom simt._b import x\n"
                     "def f():\n    import simt._a\n")
    found = [(t, top) for t, _, top in intra_package_imports(tree, modules)]
    assert found == [("__init__", True), ("_a", True), ("__init__", True), ("_b", True),
                     ("_a", False)]
