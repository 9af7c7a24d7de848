"""The command line lives in one module: sandbox/cli.py alone knows argparse (issue 10).

Every other module of the packages (sandbox/, bridge/, theme/) exposes plain functions
that take keyword arguments; a module that imports argparse, or names it, fails here
with its file and line. The modules are parsed with ``ast``, so a comment or a string
that mentions argparse is not a use.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sandbox", "bridge", "theme")
CLI = ROOT / "sandbox" / "cli.py"


def argparse_uses(source: str) -> list[int]:
    """The lines where ``source`` imports argparse (``import``, ``from … import``,
    ``importlib.import_module`` or ``__import__`` with the name) or refers to the name."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "argparse" for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "argparse":
            lines.append(node.lineno)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "argparse":
            callee = node.func
            name = callee.attr if isinstance(callee, ast.Attribute) else callee.id if isinstance(callee, ast.Name) else ""
            if name in ("import_module", "__import__"):
                lines.append(node.lineno)
        elif isinstance(node, ast.Name) and node.id == "argparse":
            lines.append(node.lineno)
    return sorted(set(lines))


def modules() -> list[Path]:
    found = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py") if "node_modules" not in p.parts)
    assert CLI in found and len(found) > 30, "the walk must see every module of the packages"
    return found


def test_only_the_cli_module_uses_argparse():
    offenders = [f"{path.relative_to(ROOT)}:{line}" for path in modules() if path != CLI
                 for line in argparse_uses(path.read_text(encoding="utf-8"))]
    assert not offenders, f"argparse outside sandbox/cli.py (parsers belong there; pass keyword arguments): {offenders}"


def test_the_cli_module_is_where_the_parsers_are():
    assert argparse_uses(CLI.read_text(encoding="utf-8")), "sandbox/cli.py builds every parser"


@pytest.mark.parametrize("source", [
    "import argparse\n",
    "import os, argparse as ap\n",
    "from argparse import ArgumentParser\n",
    "import importlib\nimportlib.import_module('argparse')\n",
    "__import__('argparse')\n",
    "def f(args: argparse.Namespace) -> int:\n    return 0\n",
])
def test_every_form_of_use_is_found(source):
    assert argparse_uses(source)


@pytest.mark.parametrize("source", [
    "# argparse is not used here\n",
    "'''the form argparse uses for a bad option'''\n",
    "from .argparse_like import x\n",
    "import argparsers\n",
])
def test_mentions_are_not_uses(source):
    assert argparse_uses(source) == []
