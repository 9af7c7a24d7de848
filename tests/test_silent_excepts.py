"""Every handler that swallows everything says why.

A handler of ``Exception``, ``BaseException`` or a bare ``except:`` whose body does nothing
(``pass``, ``continue``, ``...``, or a ``return`` of a constant) hides any error at all, a bug
included. Each one either names the exceptions that can really occur there, or carries a
comment (on the ``except`` line or in its body) saying why everything is swallowed. The source
is read with :mod:`ast` and its comments with :mod:`tokenize`.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("sandbox", "bridge", "theme")
BROAD = {"Exception", "BaseException"}
#: Files whose silent handlers are counted here, not yet each justified: at most this many.
PENDING: dict[str, int] = {}


def _broad(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return handler.type is None or any(isinstance(k, ast.Name) and k.id in BROAD for k in kinds)


def _silent(handler: ast.ExceptHandler) -> bool:
    def nothing(statement: ast.stmt) -> bool:
        if isinstance(statement, ast.Pass | ast.Continue):
            return True
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            return True
        return isinstance(statement, ast.Return) and (statement.value is None or isinstance(statement.value, ast.Constant))

    return all(nothing(s) for s in handler.body)


def silent_handlers(source: str) -> list[tuple[int, bool]]:
    """Each silent broad handler of ``source``: its line and whether a comment justifies it."""
    comments = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.COMMENT}
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ExceptHandler) and _broad(node) and _silent(node):
            end = node.end_lineno or node.lineno
            found.append((node.lineno, any(line in comments for line in range(node.lineno, end + 1))))
    return sorted(found)


def python_files() -> list[Path]:
    return sorted(p for part in PARTS for p in (ROOT / part).rglob("*.py") if "node_modules" not in p.parts)


def test_the_finder():
    source = (
        "try:\n    a()\nexcept Exception:\n    pass\n"
        "try:\n    a()\nexcept (OSError, BaseException):  # the reason\n    pass\n"
        "try:\n    a()\nexcept:\n    # the reason\n    return None\n"
        "try:\n    a()\nexcept OSError:\n    pass\n"
        "try:\n    a()\nexcept Exception as exc:\n    log(exc)\n"
    )
    assert silent_handlers(source) == [(3, False), (7, True), (11, True)]


def test_every_silent_broad_handler_says_why():
    bare, over = [], []
    for path in python_files():
        rel = path.relative_to(ROOT).as_posix()
        unjustified = [line for line, why in silent_handlers(path.read_text(encoding="utf-8")) if not why]
        if rel in PENDING:
            if len(unjustified) > PENDING[rel]:
                over.append(f"{rel}: {len(unjustified)} silent handlers without a reason, at most {PENDING[rel]}")
        else:
            bare += [f"{rel}:{line}: `except Exception` that does nothing: narrow it, or say why in a comment" for line in unjustified]
    assert not bare + over, "\n".join(bare + over)
