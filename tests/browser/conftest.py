"""Fixtures shared by the browser tests of remote browsers (verify's and review's), and the hook
that fails a skipped browser test under ``CI=true`` (tests/browser/ci_skips.py)."""

from __future__ import annotations

import pytest
from ci_skips import pytest_runtest_makereport  # noqa: F401  (a hook: pytest finds it here)

from flowui_sandbox.sandbox.harness.browser_server import start_many


@pytest.fixture
def browser_servers():
    """Starts local browser servers, ``browser_servers(["chromium", "webkit"])``; all stopped after the test."""
    started = []

    def start(engines: list[str]):
        servers = start_many(engines)
        started.extend(servers)
        return servers

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def two_servers(flowui_engine, browser_servers):
    """Two local browser servers of the test's engine, stopped after the test."""
    return browser_servers([flowui_engine.name, flowui_engine.name])
