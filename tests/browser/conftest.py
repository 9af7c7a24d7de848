"""Fixtures shared by the browser tests of remote browsers (verify's and review's)."""

from __future__ import annotations

import pytest

from flowui_sandbox.sandbox.harness.browser_server import start_many


@pytest.fixture
def two_servers(flowui_engine):
    """Two local browser servers of the test's engine, stopped after the test."""
    servers = start_many([flowui_engine.name, flowui_engine.name])
    yield servers
    for server in servers:
        server.stop()
