"""The suite's tiers and its hypothesis profiles.

Tiers, as markers given by where a test lives:

* ``unit``: ``tests/`` outside ``tests/browser/``: no browser, seconds (``make test-fast``); a
  unit test that starts a browser session in its process fails (:func:`no_browser_in_the_unit_tier`);
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
E2E_FILES = {"test_wheel.py", "test_remote.py", "test_review_remote.py", "test_review_remote_command.py"}


def tier(path: Path) -> str:
    if BROWSER_DIR not in path.parents:
        return "unit"
    return "e2e" if path.name in E2E_FILES else "browser"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``-m unit`` selects nothing in tests/browser/, so its modules are not even imported (about
    3 s of each worker's start)."""
    if config.getoption("markexpr", "") == "unit" and BROWSER_DIR in (collection_path, *collection_path.parents):
        return True
    return None


#: The browser files that take longest on the light tier's workers, longest first (seconds each
#: took there, 4 workers on 2 cores): 280, 170, 153, 123, 83, 68, 54, 44, 44, 36. They are handed out
#: first (``--dist loadfile --no-loadscope-reorder``); the others follow in collection order. xdist's own
#: order (most tests first) started the remote review, three tests of 35 s, last: the tier's last
#: 100 s ran on about one core.
SLOWEST_FIRST = ["test_editor.py", "test_remote.py", "test_bridge.py", "test_review_remote.py", "test_verify_generator.py",
                 "test_review_remote_command.py", "test_cli_review.py", "test_engines.py", "test_pytest_plugin.py",
                 "test_wire_live.py"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(tier(Path(item.path)))
    rank = {name: k for k, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(Path(item.path).name, len(rank)) if BROWSER_DIR in Path(item.path).parents else len(rank))


class BrowserInUnitTier(AssertionError):
    """A unit-tier test started a browser: it belongs in tests/browser/."""


@pytest.fixture(autouse=True)
def no_browser_in_the_unit_tier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The unit tier runs without a browser: a driver session launched by a unit
    test's own process fails it (a review on demand of the editor's API once ran Chromium here)."""
    if request.node.get_closest_marker("unit") is None:
        return
    from flowui_sandbox.sandbox.engines.playwright import PlaywrightSession
    from flowui_sandbox.sandbox.engines.webdriver import WebDriverSession

    async def refuse(cls, engine, **_):
        raise BrowserInUnitTier(f"{request.node.nodeid} started {engine.name}: a test with a browser belongs in tests/browser/")

    for session in (PlaywrightSession, WebDriverSession):
        monkeypatch.setattr(session, "start", classmethod(refuse))
