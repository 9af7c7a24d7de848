"""`flowui-sandbox generate`: every derived file, written from its one source, and the staleness check.

The derived files are:

* from :mod:`flowui_sandbox.sandbox.derived.contract`: ``bridge/contract.js``, the ``@generated-constants`` block of
  ``bridge/flow-ui-runtime.js`` and ``bridge/protocol.schema.json``;
* from :mod:`flowui_sandbox.sandbox.derived.goldens`: the golden block documents of ``fixtures/srcdoc/``;
* from :mod:`flowui_sandbox.sandbox.review.docs`: ``sandbox/review/report.schema.json`` and the rule table
  of ``docs/REVIEW.md`` (from ``sandbox/review/rules.toml``).

``generate`` rewrites the stale ones; ``generate --check`` exits 1 naming them, and
``tests/test_generated.py`` fails the same way. ``make generate`` runs it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from flowui_sandbox.bridge import BRIDGE_DIR

from ..errors import OptionError
from ..files import write_output

COMMAND = "flowui-sandbox generate"

#: The modules that derive files; each has ``outputs() -> {path: text}``.
SOURCES: tuple[str, ...] = ("flowui_sandbox.sandbox.derived.contract", "flowui_sandbox.sandbox.derived.goldens", "flowui_sandbox.sandbox.review.docs")

ROOT = BRIDGE_DIR.parent


def outputs() -> dict[Path, str]:
    """Every derived file and the text it must hold."""
    import importlib

    if not (ROOT / "pyproject.toml").is_file():  # installed: the derived files shipped already generated
        raise OptionError(f"derived files are regenerated in a checkout of the repository, not in an installed "
                          f"package ({ROOT})")

    result: dict[Path, str] = {}
    for name in SOURCES:
        make: Callable[[], dict[Path, str]] = importlib.import_module(name).outputs
        result.update(make())
    return result


def _current(path: Path, text: str) -> bool:
    # newline="" keeps CR as written: goldens are compared byte for byte.
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read() == text
    except FileNotFoundError:
        return False


def stale() -> list[Path]:
    return [path for path, text in outputs().items() if not _current(path, text)]


def write() -> list[Path]:
    """Write the stale files; return them."""
    changed = []
    for path, text in outputs().items():
        if not _current(path, text):
            write_output(path, text)  # a file that cannot be written is one located line
            changed.append(path)
    return changed


def relative(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def generate(*, check: bool = False) -> int:
    """What ``generate`` does: write the stale derived files, naming each; with ``check``,
    write nothing and return 1 naming the stale ones (0 when none is)."""
    if check:
        old = stale()
        if old:
            print(f"stale: {', '.join(relative(p) for p in old)}; run `{COMMAND}`", file=sys.stderr)
            return 1
        print("generated files are up to date")
        return 0
    changed = write()
    for path in changed:
        print(f"wrote {relative(path)}")
    if not changed:
        print("generated files are up to date")
    return 0
