"""pytest fixtures for driving real browsers against real local servers.

Registered as the ``flowui_sandbox`` pytest plugin (entry point ``pytest11``).

* ``engine``: parametrizes a test over chromium, firefox and webkit. An engine
  that is not installed skips its case locally and FAILS it when ``CI=true``
  (a missing browser must not pass CI silently). ``--engine NAME`` (repeatable)
  restricts the run.
* ``page``: a fresh page (tab) of that engine; sync methods ``goto``,
  ``evaluate``, ``wait_for``, ``click`` (see :class:`sandbox.engines.Page`).
* ``server``: a :class:`sandbox.server.LocalServer` on 127.0.0.1 for the session.
* ``portal``: the event loop (in a background thread) the browsers and servers
  run on; ``portal.run(coro)`` runs a coroutine there and returns its result.

One browser per engine is started for the whole session and shared.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from .engines import ENGINE_NAMES, Engine, Page, Session, find_engines, launch
from .server import LocalServer


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


class Portal:
    """An asyncio loop in a daemon thread; sync code hands it coroutines."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="flowui-portal", daemon=True)
        self._thread.start()

    def run(self, coro, timeout: float = 180) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


class SyncPage:
    """A :class:`sandbox.engines.Page` with blocking methods, for tests."""

    def __init__(self, portal: Portal, page: Page):
        self._portal = portal
        self.async_page = page
        self.engine: Engine = page.engine

    @property
    def name(self) -> str:
        return self.engine.name

    def goto(self, url: str, timeout: float = 15) -> None:
        self._portal.run(self.async_page.goto(url, timeout))

    def evaluate(self, script: str, arg: Any = None, *, frame: str | None = None, timeout: float = 10) -> Any:
        return self._portal.run(self.async_page.evaluate(script, arg, frame=frame, timeout=timeout))

    def wait_for(self, script: str, arg: Any = None, *, frame: str | None = None, timeout: float = 10) -> Any:
        return self._portal.run(self.async_page.wait_for(script, arg, frame=frame, timeout=timeout))

    def click(self, selector: str, *, frame: str | None = None, timeout: float = 10) -> None:
        self._portal.run(self.async_page.click(selector, frame=frame, timeout=timeout))


class _Browsers:
    """One running browser per engine, started on first use."""

    def __init__(self, portal: Portal):
        self.portal = portal
        self.found = {e.name: e for e in find_engines()}
        self.sessions: dict[str, Session] = {}

    def session(self, name: str) -> Session:
        if name not in self.sessions:
            self.sessions[name] = self.portal.run(launch(self.found[name]))
        return self.sessions[name]

    def close(self) -> None:
        for session in self.sessions.values():
            try:
                self.portal.run(session.close(), timeout=30)
            except Exception:
                pass


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--engine", action="append", choices=ENGINE_NAMES, help="run browser tests on this engine only (repeatable)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "engine" in metafunc.fixturenames:
        names = metafunc.config.getoption("engine") or list(ENGINE_NAMES)
        metafunc.parametrize("engine", names, indirect=True, ids=names)


@pytest.fixture(scope="session")
def portal():
    p = Portal()
    yield p
    p.close()


@pytest.fixture(scope="session")
def _browsers(portal: Portal):
    browsers = _Browsers(portal)
    yield browsers
    browsers.close()


@pytest.fixture
def engine(request: pytest.FixtureRequest, _browsers: _Browsers) -> Engine:
    name = request.param
    if name not in _browsers.found:
        message = f"engine {name!r} is not installed (run `make setup`)"
        if in_ci():
            pytest.fail(f"{message}; with CI=true every engine is required")
        pytest.skip(message)
    return _browsers.found[name]


@pytest.fixture
def page(engine: Engine, _browsers: _Browsers, portal: Portal):
    session = _browsers.session(engine.name)
    async_page = portal.run(session.new_page())
    yield SyncPage(portal, async_page)
    portal.run(async_page.close(), timeout=30)


@pytest.fixture(scope="session")
def server(portal: Portal) -> Iterator[LocalServer]:
    srv = portal.run(LocalServer().start())
    yield srv
    portal.run(srv.stop())
