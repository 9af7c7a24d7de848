"""The suite's tiers and its hypothesis profiles.

Tiers, as markers given by where a test lives:

* ``unit``: ``tests/`` outside ``tests/browser/``: no browser, seconds (``make test-fast``);
* ``browser``: ``tests/browser/``: real Chromium, Firefox and WebKit;
* ``e2e``: whole installs and remote browsers (the wheel, the browser servers).

``pytest -m unit`` runs one tier; ``make test`` runs them in that order, so a broken unit fails
in seconds.

Hypothesis profiles for every property test of the suite:

* ``ci`` (the default, what ``make test`` and CI run): ``derandomize=True`` and no example
  database, so each test draws the same examples on every machine and every run; a red run is
  reproduced by running the same command again, and a green one stays green until the code
  changes. Each test keeps its own example count (``max(N, settings.default.max_examples)``).
* ``random``: the same tests with a fresh seed each run (``--hypothesis-seed=N`` picks one;
  a failure prints the seed and the example), still without a database, so one machine's
  history does not change what it runs.
* ``long``: ``random`` with 3,000 examples for every test (``--hypothesis-profile=long
  --timeout=0``: pytest-timeout's 300 s a test is too short for it under load): the deeper
  search to run now and then, not in CI.

``--hypothesis-profile=NAME`` chooses one (the hypothesis pytest plugin loads it after this
file registers them), as does the environment variable ``FLOWUI_HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("random", database=None, deadline=None, print_blob=True)
settings.register_profile("long", settings.get_profile("random"), max_examples=3000)
settings.load_profile(os.environ.get("FLOWUI_HYPOTHESIS_PROFILE", "ci"))

BROWSER_DIR = Path(__file__).parent / "browser"
E2E_FILES = {"test_wheel.py", "test_remote.py", "test_review_remote.py"}


def tier(path: Path) -> str:
    if BROWSER_DIR not in path.parents:
        return "unit"
    return "e2e" if path.name in E2E_FILES else "browser"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(tier(Path(item.path)))
