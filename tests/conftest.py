"""The suite's tiers, as markers given by where a test lives (docs/DESIGN.md, "Tests"):

* ``unit``: ``tests/`` outside ``tests/browser/``: no browser, seconds (``make test-fast``);
* ``browser``: ``tests/browser/``: real Chromium, Firefox and WebKit;
* ``e2e``: whole installs and remote browsers (the wheel, the browser servers).

``pytest -m unit`` runs one tier; ``make test`` runs them in that order, so a broken unit fails
in seconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

BROWSER_DIR = Path(__file__).parent / "browser"
E2E_FILES = {"test_wheel.py", "test_remote.py"}


def tier(path: Path) -> str:
    if BROWSER_DIR not in path.parents:
        return "unit"
    return "e2e" if path.name in E2E_FILES else "browser"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(tier(Path(item.path)))
