"""The layout of python/simt, checked as cmake/SimtLayers.cmake checks src/: every module
belongs to one layer, imports only from its own layer and the layers below, never in a
cycle, and only at its top level, so the import order is the dependency order
(docs/architecture.md, "The Python package"). Each failure names the file and the line.

The package's own `__init__.py` and `__main__.py` sit above every layer: they gather the
namespace and the command line. Inside a function, a module of the array library may
name the package itself (`import simt`): the array namespace it returns
(`__array_namespace__`), hands NumPy, or gives generated kernels as `simt`."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "simt"
# Compiled modules of the package: leaves of the graph (they import no Python module).
EXTENSIONS = {"simt._core"}

# (layer, the modules it holds: a dotted prefix under simt, "*" for the rest, the layers
# below it that it may import). Listed bottom up.
LAYERS = (
    ("core", ("*",), ()),
    ("array library", ("_array_api", "fft", "linalg", "random"), ("core",)),
    ("facades and engines", ("cuda", "dask", "mpi"), ("core", "array library")),
)
TOP = ("__init__", "__main__")  # the package itself: above every layer
NAMESPACE_IMPORTERS = ("array library",)  # may `import simt` inside a function


def module_name(path, root=PACKAGE):
    """simt.cuda for cuda/__init__.py, simt.cuda._jit for cuda/_jit.py, simt for
    __init__.py."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["simt"] + parts)


def modules(root=PACKAGE):
    """{dotted name: path} of every Python module of the package, subpackages included."""
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def layer_of(name):
    if name == "simt" or name == "simt.__main__":
        return "package"
    first = name.split(".")[1]
    for layer, members, _ in LAYERS:
        if first in members:
            return layer
    return LAYERS[0][0]


def imports_of(name, path, tree, known):
    """[(module imported, line, whether at the module's top level)] for each import of a
    module of `known` in `tree` (the module `name` at `path`). `from X import y` imports
    X.y where that is a module, else X."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top_level = set(map(id, tree.body))
    found = []

    def add(target, node):
        if target in EXTENSIONS:
            return
        if target not in known:
            raise AssertionError(f"{path}:{node.lineno}: imports {target}, which is not a "
                                 f"module of the package")
        found.append((target, node.lineno, id(node) in top_level))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            elif node.module == "simt" or (node.module or "").startswith("simt."):
                source = node.module
            else:
                continue
            for alias in node.names:
                target = f"{source}.{alias.name}"
                add(target if target in known or target in EXTENSIONS else source, node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "simt" or alias.name.startswith("simt."):
                    add(alias.name, node)
    return found


def import_table(root=PACKAGE):
    """{module: [(module imported, line, top level)]} over the package."""
    known = modules(root)
    return {name: imports_of(name, path, ast.parse(path.read_text(), filename=str(path)),
                             known)
            for name, path in known.items()}


def allowed(importer, target, top_level):
    """Whether module `importer` may import `target` (at its top level or not)."""
    source, wanted = layer_of(importer), layer_of(target)
    if source == "package":
        return True
    if wanted == "package":
        return not top_level and source in NAMESPACE_IMPORTERS and target == "simt"
    below = dict((layer, deps) for layer, _, deps in LAYERS)[source]
    return wanted == source or wanted in below


def layer_violations(table, root=PACKAGE):
    paths = modules(root)
    return [f"{paths[name].relative_to(root.parent)}:{line}: {name} ({layer_of(name)}) "
            f"imports {target} ({layer_of(target)})"
            for name, found in table.items() for target, line, top in found
            if not allowed(name, target, top)]


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


def dependency_graph(table):
    """{module: modules it imports}. The package's own name, imported inside a function of
    the array library, is not a dependency: the package is complete by then."""
    return {name: {t for t, _, top in found if top or t != "simt"}
            for name, found in table.items()}


def test_the_package_has_its_layers():
    table = import_table()
    layers = {layer_of(name) for name in table}
    assert layers == {"package", "core", "array library", "facades and engines"}, layers
    assert {"simt._array", "simt._kernel", "simt._array_api._namespace", "simt.fft",
            "simt.linalg._cusolver", "simt.cuda", "simt.cuda._jit", "simt.cuda.types",
            "simt.cuda.np.numpy_support", "simt.cuda.kernels.transpose"} <= set(table)
    assert ("simt._array", 6, True) in [(t, 6, top) for t, _, top in table["simt._interop"]]


def test_each_module_imports_only_its_layer_and_the_ones_below():
    violations = layer_violations(import_table())
    assert not violations, "layering broken:\n" + "\n".join(violations)


def test_modules_import_each_other_without_cycles():
    cycle = find_cycle(dependency_graph(import_table()))
    assert cycle is None, "python/simt has an import cycle: " + " -> ".join(cycle)


def test_intra_package_imports_are_at_the_top_level():
    paths = modules()
    nested = [f"{paths[name].relative_to(PACKAGE.parent)}:{line} imports {target}"
              for name, found in import_table().items() for target, line, top in found
              if not top and not (target == "simt" and layer_of(name) in NAMESPACE_IMPORTERS)]
    assert not nested, "imports inside functions or classes: " + "; ".join(nested)


# The checker itself, on a package of its own.

def _package(tmp_path, files):
    root = tmp_path / "simt"
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_checker_names_the_file_and_line_of_a_core_module_importing_a_facade(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "from . import _kernel\n",
        "_kernel.py": "import numpy\n\n\ndef f():\n    from .cuda import types\n",
        "cuda/__init__.py": "from .. import _kernel\n",
        "cuda/types.py": "",
    })
    assert layer_violations(import_table(root), root) == [
        "simt/_kernel.py:5: simt._kernel (core) imports simt.cuda.types (facades and engines)"]


def test_the_checker_reads_relative_absolute_and_package_imports(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "", "_a.py": "", "_b.py": "",
        "fft/__init__.py": "from .. import _a\nfrom .._b import x\nfrom . import _cufft\n",
        "fft/_cufft.py": "import simt._a\nfrom simt import _core\n\n\ndef f():\n    import simt\n",
    })
    table = import_table(root)
    assert table["simt.fft"] == [("simt._a", 1, True), ("simt._b", 2, True),
                                 ("simt.fft._cufft", 3, True)]
    assert table["simt.fft._cufft"] == [("simt._a", 1, True), ("simt", 6, False)]
    assert layer_violations(table, root) == []


@pytest.mark.parametrize("later, cyclic", [("from .._a import other", True),
                                           ("from .._c import other", False)])
def test_the_checker_sees_function_level_cycles(tmp_path, later, cyclic):
    root = _package(tmp_path, {
        "__init__.py": "", "_c.py": "",
        "_a.py": "from . import _core\nfrom ._b import thing\n",
        "_b.py": f"import numpy as np\n\n\ndef later():\n    {later.replace('..', '.')}\n",
    })
    cycle = find_cycle(dependency_graph(import_table(root)))
    assert (cycle == ["simt._a", "simt._b", "simt._a"]) if cyclic else cycle is None
