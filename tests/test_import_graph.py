"""No import cycles among the modules of flowui_sandbox.

The graph is computed from the source with :mod:`ast`, not by importing anything: every module
of every package pyproject.toml lists (its folder given by ``[tool.setuptools.package-dir]``),
and every ``import a.b`` and ``from a import b`` in it, relative ones too, wherever it stands:
an import inside a function is still a dependency of the module, only a later one.

Excluded: imports under ``if TYPE_CHECKING:`` (they run under the type checker alone, never at
run time, so they cannot make an import cycle; the ``else:`` branch of such an ``if`` counts),
except in a package whose ``__init__`` defines ``__getattr__``: such a package loads its names
on first use (``importlib.import_module``, a string the graph cannot read) and imports the same
names under ``TYPE_CHECKING`` for the type checker, so those imports are its dependencies.

An import resolves to the package's module it names: ``from p import x`` is ``p.x`` when ``p.x``
is a module, else ``p`` itself (the package's ``__init__``); imports of other distributions are
left out. A cycle is a strongly connected component of more than one module, or a module that
imports itself; the test names each one with the imports that close it.

The parts are layered besides (docs/DESIGN.md): the exception tree (``sandbox/errors.py``, which
imports nothing), then ``theme``, then ``bridge``, then ``sandbox``,
then the top-level package ``flowui_sandbox`` (the public API and ``python -m``); a module
imports from its own part or a lower one, so no cycle runs through two parts either.
"""

from __future__ import annotations

import ast
import functools
import importlib
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
TOP = "flowui_sandbox"
#: The parts from the lowest up: a module may import from its own part or one before it.
LAYERS = ("flowui_sandbox.sandbox.errors", "flowui_sandbox.theme", "flowui_sandbox.bridge", "flowui_sandbox.sandbox", TOP)


def _folder(package: str) -> Path:
    """The repository folder pyproject.toml's package-dir gives an import name."""
    mapping = SETUPTOOLS["package-dir"]
    base = max((name for name in mapping if package == name or package.startswith(name + ".")), key=len)
    rest = package[len(base):].strip(".")
    return ROOT / mapping[base] / Path(*rest.split(".")) if rest else ROOT / mapping[base]


def modules() -> dict[str, Path]:
    """Every module of the distribution's packages, by import name (a package's is its __init__.py)."""
    found: dict[str, Path] = {}
    for package in SETUPTOOLS["packages"]:
        for path in sorted(_folder(package).glob("*.py")):
            found[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(node: ast.AST, lazy: bool = False) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node``, at any depth, except in an ``if TYPE_CHECKING:`` body
    (unless ``lazy``: the module loads those names on first use)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        elif isinstance(child, ast.If) and _is_type_checking(child.test) and not lazy:
            for other in child.orelse:
                if isinstance(other, ast.Import | ast.ImportFrom):
                    yield other
                else:
                    yield from _imports(other)
        else:
            yield from _imports(child)


def _targets(statement: ast.Import | ast.ImportFrom, name: str, is_package: bool, known: dict[str, Path]) -> Iterator[str]:
    """The package's modules one import statement of module ``name`` depends on."""
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            if alias.name in known:
                yield alias.name
            elif alias.name.startswith(TOP + "."):
                raise AssertionError(f"{known[name]}:{statement.lineno}: no module {alias.name}")
        return
    if statement.level:
        parts = (name if is_package else name.rpartition(".")[0]).split(".")
        parts = parts[:len(parts) - (statement.level - 1)]
        base = ".".join([*parts, statement.module] if statement.module else parts)
    else:
        base = statement.module or ""
    if base != TOP and not base.startswith(TOP + "."):
        return
    if base not in known:
        raise AssertionError(f"{known[name]}:{statement.lineno}: no module {base}")
    for alias in statement.names:
        sub = f"{base}.{alias.name}"
        yield sub if sub in known else base


@functools.cache  # parsed once per process: five tests read it, none changes it
def import_graph() -> dict[str, dict[str, int]]:
    """Each module's dependencies in the package, each with the line of its first import."""
    known = modules()
    graph: dict[str, dict[str, int]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges: dict[str, int] = {}
        lazy = path.name == "__init__.py" and any(
            isinstance(node, ast.FunctionDef) and node.name == "__getattr__" for node in tree.body)
        for statement in _imports(tree, lazy):
            for target in _targets(statement, name, path.name == "__init__.py", known):
                edges.setdefault(target, statement.lineno)
        graph[name] = edges
    return graph


def strongly_connected(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Tarjan's strongly connected components, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
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
            found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    return [c for c in strongly_connected(graph) if len(c) > 1 or c[0] in graph[c[0]]]


def _describe(component: list[str], graph: dict[str, dict[str, int]], known: dict[str, Path]) -> str:
    inside = set(component)
    edges = [f"    {known[a].relative_to(ROOT)}:{graph[a][b]} imports {b}"
             for a in component for b in sorted(graph[a]) if b in inside]
    return " <-> ".join(component) + "\n" + "\n".join(edges)


def test_the_graph_sees_the_package():
    graph = import_graph()
    assert "flowui_sandbox.sandbox.cli" in graph and "flowui_sandbox.bridge.protocol" in graph
    assert "flowui_sandbox.sandbox.errors" in graph["flowui_sandbox.sandbox.cli"]


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"d": 1}, "e": {"a": 1}}
    assert sorted(cycles(graph)) == [["a", "b", "c"], ["d"]]


def test_relative_and_function_level_imports_count_but_type_checking_ones_do_not(tmp_path):
    source = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from . import sibling\n"
        "from ..up import thing\n"
        "if TYPE_CHECKING:\n    from .typed import T\nelse:\n    from .untyped import U\n"
        "def f():\n    import flowui_sandbox.sandbox.late\n")
    known = {n: tmp_path for n in ("flowui_sandbox.sandbox.verify.here", "flowui_sandbox.sandbox.verify",
                                  "flowui_sandbox.sandbox.verify.sibling", "flowui_sandbox.sandbox.up",
                                  "flowui_sandbox.sandbox.verify.typed", "flowui_sandbox.sandbox.verify.untyped",
                                  "flowui_sandbox.sandbox.late", "flowui_sandbox.sandbox")}
    found = {t for s in _imports(source) for t in _targets(s, "flowui_sandbox.sandbox.verify.here", False, known)}
    assert found == {"flowui_sandbox.sandbox.verify.sibling", "flowui_sandbox.sandbox.up",
                     "flowui_sandbox.sandbox.verify.untyped", "flowui_sandbox.sandbox.late"}


def test_no_import_cycles():
    graph = import_graph()
    known = modules()
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(_describe(c, graph, known) for c in found)


def layer(module: str) -> int:
    return next(i for i, part in enumerate(LAYERS) if module == part or module.startswith(part + "."))


def test_the_parts_are_layered():
    graph = import_graph()
    known = modules()
    upward = [f"{known[a].relative_to(ROOT)}:{line}: {a} imports {b}, a part above it"
              for a in sorted(graph) for b, line in sorted(graph[a].items()) if layer(b) > layer(a)]
    assert not upward, "imports against the layers " + " < ".join(LAYERS) + ":\n" + "\n".join(upward)


def test_verify_and_review_share_the_harness_not_each_other():
    """Both drive browsers through the engines and the harness; neither reaches into the other
    (review once took its page slot and watch from verify's runner)."""
    graph = import_graph()
    sides = ("flowui_sandbox.sandbox.verify", "flowui_sandbox.sandbox.review")
    across = [f"{a} imports {b}" for a in sorted(graph) for b in graph[a]
              for mine, other in (sides, sides[::-1]) if a.startswith(mine + ".") or a == mine
              if b == other or b.startswith(other + ".")]
    assert not across, "\n".join(across)


def test_a_lazy_package_s_type_checking_imports_are_its_dependencies(tmp_path):
    source = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .base import Page\n"
        "def __getattr__(name):\n    ...\n")
    assert [s.module for s in _imports(source, lazy=True)] == ["typing", "base"]
    assert [s.module for s in _imports(source)] == ["typing"]
    graph = import_graph()
    assert "flowui_sandbox.sandbox.engines.discovery" in graph["flowui_sandbox.sandbox.engines"]
    assert "flowui_sandbox.sandbox.review.catalogue" in graph["flowui_sandbox.sandbox.review"]


@pytest.mark.parametrize("package", ["flowui_sandbox.sandbox.engines", "flowui_sandbox.sandbox.review"])
def test_every_name_a_lazy_package_exports_loads(package):
    module = importlib.import_module(package)
    assert set(module.__all__) == set(module._LAZY)
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_the_command_line_builds_its_options_without_drivers_or_models():
    """``flowui-sandbox --help`` and a bad file answer in a fraction of a second: building the
    parser loads neither asyncio and the browser drivers nor pydantic and the rule catalogue."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom flowui_sandbox.sandbox.cli import build_parser\nbuild_parser()\n"
         "print(sorted(m for m in ('asyncio', 'pydantic', 'playwright', 'selenium') if m in sys.modules))"],
        capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr
