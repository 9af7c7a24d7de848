"""pytest fixtures for Flow UI blocks in real browsers, on top of pytest-playwright.

Registered as the ``flowui_sandbox`` pytest plugin (entry point ``pytest11``); docs/PYTEST.md
has the worked examples. pytest-playwright is the base and stays as its users know it: its
``page``, ``context``, ``browser``, ``browser_name``, ``--browser``, ``--headed``,
``--browser-channel`` and ``browser_type_launch_args`` are untouched. This plugin only adds:

* fixtures named ``flowui_*`` (each documented below):
  ``flowui_engine`` (parametrizes a test over chromium, firefox and webkit, the last being
  WebKitGTK over WebDriver when Playwright's WebKit is not installed), ``flowui_page``,
  ``flowui_server``, ``flowui_host`` (mount a block, read its bridge traffic),
  ``flowui_verify`` (run the probe catalogue against a generator), ``flowui_browsers``,
  ``flowui_probe_servers`` and ``flowui_portal``;
* the option ``--engine NAME`` (repeatable) for the ``flowui_engine`` tests; without it they
  follow pytest-playwright's ``--browser`` when given, else run on all three engines. An
  engine that is not installed skips its case locally and FAILS it when ``CI=true``;
* for pytest-playwright's own ``browser``: when Playwright's build of the requested browser
  is not installed but Debian's is (docs/ENGINES.md), the Debian executable and its launch
  flags, added to ``browser_type_launch_args`` through pytest-playwright's own fixture, and
  only where the launch arguments name no ``executable_path`` or ``channel`` of their own.

The ``flowui_*`` browsers are this project's own (one per engine for the session, driven
asynchronously on a loop in a background thread, the same code ``verify`` runs); they are not
pytest-playwright's ``browser``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ..engines import ENGINE_NAMES, Engine, Page, Session, find_engines, launch
from ..harness.portal import Portal, SyncPage
from ..harness.server import LocalServer
from . import launch_args as launch_args_plugin
from .launch_args import with_debian_browser


def in_ci() -> bool:
    """Whether this run is CI (``CI=true``): a missing engine then fails instead of skipping."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


class Browsers:
    """One running browser per engine, started on first use and closed at the end of the session."""

    def __init__(self, portal: Portal):
        self.portal = portal
        #: The engines found on this machine, by name (``flowui_sandbox.sandbox.engines.find_engines``).
        self.found = {e.name: e for e in find_engines()}
        self.sessions: dict[str, Session] = {}

    def session(self, name: str) -> Session:
        """The running browser of engine ``name`` (started now if it is not yet, or again if it is
        gone: a browser that died costs the test it died in, not every later one)."""
        if name in self.sessions and not self.portal.run(self.sessions[name].alive(), timeout=30):
            self._drop(name)
        if name not in self.sessions:
            self.sessions[name] = self.portal.run(launch(self.found[name]))
        return self.sessions[name]

    def new_page(self, name: str) -> Page:
        """A new page of engine ``name``'s browser. A browser that cannot open one is started again
        once: CI saw Playwright's driver process end on an exception of its own (Firefox over
        WebDriver BiDi) under a browser that still looked connected, and every later test fail."""
        try:
            return self.portal.run(self.session(name).new_page())
        except Exception:  # whatever the driver raised: a browser that answers opens the page below
            self._drop(name)
            return self.portal.run(self.session(name).new_page())

    def _drop(self, name: str) -> None:
        gone = self.sessions.pop(name, None)
        if gone is None:  # it never started: its launch's error is the one to see, raised again below
            return
        try:
            self.portal.run(gone.close(), timeout=30)
        except Exception:  # it is gone already: closing only tidies its driver, whatever that raises
            pass

    def close(self) -> None:
        for session in self.sessions.values():
            try:
                self.portal.run(session.close(), timeout=30)
            except Exception:  # best effort: a browser already gone raises its driver's own error; the others still close
                pass


class ProbeResults(dict[str, Any]):
    """The results of a probe run by probe id (:class:`flowui_sandbox.sandbox.verify.runner.Result` values)."""

    def unexpected(self) -> list[str]:
        """One line per probe whose outcome was not the expected one on this engine (empty: all held)."""
        return [
            f"{r.probe}: observed {r.status}: {r.reason} | {'; '.join(r.evidence[:2])}"
            for r in self.values() if r.verdict == "UNEXPECTED"
        ]


# ----------------------------------------------------------------------------- options


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("flowui", "Flow UI sandbox (flowui_* fixtures)")
    group.addoption(
        "--engine", action="append", choices=ENGINE_NAMES,
        help="run the flowui_engine tests on this engine only (repeatable); default: pytest-playwright's "
             "--browser when given, else chromium, firefox and webkit (WebKitGTK when Playwright's WebKit is missing)",
    )


def selected_engines(config: pytest.Config) -> list[str]:
    """The engines the ``flowui_engine`` tests run on: ``--engine``, else ``--browser``, else all three."""
    names = config.getoption("engine", None) or config.getoption("browser", None) or list(ENGINE_NAMES)
    return list(dict.fromkeys(names))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "flowui_engine" in metafunc.fixturenames:
        names = selected_engines(metafunc.config)
        metafunc.parametrize("flowui_engine", names, indirect=True, ids=names)


# ----------------------------------------------------- pytest-playwright's own browser


LAUNCH_ARGS_PLUGIN = "flowui-debian-launch-args"


def _pytest_playwright_loaded(config: pytest.Config) -> bool:
    module = sys.modules.get("pytest_playwright.pytest_playwright")
    return module is not None and config.pluginmanager.is_registered(module)


def pytest_configure(config: pytest.Config) -> None:
    # Every plugin (entry points, -p) is registered by now: registered here, the fixture of
    # sandbox.pytest_launch_args comes after pytest-playwright's and receives its value
    # (a conftest's override comes after both and still wins).
    if _pytest_playwright_loaded(config) and not config.pluginmanager.has_plugin(LAUNCH_ARGS_PLUGIN):
        config.pluginmanager.register(launch_args_plugin, LAUNCH_ARGS_PLUGIN)


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def flowui_portal() -> Iterator[Portal]:
    """The asyncio loop (in a background thread) the flowui browsers and servers run on.

    ``flowui_portal.run(coro, timeout=180)`` runs a coroutine there and returns its result;
    use it to start your own :class:`flowui_sandbox.sandbox.harness.server.LocalServer` or call the async API of
    ``flowui_sandbox.sandbox.engines`` and ``flowui_sandbox.sandbox.verify``.
    """
    p = Portal()
    yield p
    p.close()


@pytest.fixture(scope="session")
def flowui_browsers(flowui_portal: Portal) -> Iterator[Browsers]:
    """The session's browsers, one per engine (:class:`Browsers`): ``.found`` are the engines on
    this machine, ``.session(name)`` the running browser of one (a :class:`flowui_sandbox.sandbox.engines.Session`).
    Prefer ``flowui_page``; this is for driving a whole session, e.g. ``flowui_sandbox.sandbox.verify``'s runner."""
    browsers = Browsers(flowui_portal)
    yield browsers
    browsers.close()


@pytest.fixture
def flowui_engine(request: pytest.FixtureRequest, flowui_browsers: Browsers) -> Engine:
    """The engine (:class:`flowui_sandbox.sandbox.engines.Engine`) this test case runs on.

    A test that uses it (directly or through ``flowui_page``, ``flowui_host``, ``flowui_verify``)
    runs once per engine: chromium, firefox and webkit, narrowed by ``--engine`` (or else by
    pytest-playwright's ``--browser``). An engine not installed here skips its case, and fails
    it when ``CI=true``.
    """
    name = getattr(request, "param", None)
    if name is None:
        raise pytest.UsageError("flowui_engine is parametrized by the flowui_sandbox plugin; do not call it directly")
    if name not in flowui_browsers.found:
        message = f"engine {name!r} is not installed (run `make setup`, see docs/ENGINES.md)"
        if in_ci():
            pytest.fail(f"{message}; with CI=true every engine is required")
        pytest.skip(message)
    return flowui_browsers.found[name]


@pytest.fixture
def flowui_page(flowui_engine: Engine, flowui_browsers: Browsers, flowui_portal: Portal) -> Iterator[SyncPage]:
    """A fresh page (tab) of ``flowui_engine``'s browser, closed after the test (:class:`SyncPage`).

    ``goto(url)``, ``evaluate(script, arg, frame=None)``, ``wait_for(script, arg, frame=None)``
    and ``click(selector, frame=None)``, identical on every driver; ``script`` is a JavaScript
    function expression such as ``"(arg) => document.title"``, ``frame`` a CSS selector of an iframe.
    """
    async_page = flowui_browsers.new_page(flowui_engine.name)
    yield SyncPage(flowui_portal, async_page)
    flowui_portal.run(async_page.close(), timeout=30)


@pytest.fixture(scope="session")
def flowui_server(flowui_portal: Portal) -> Iterator[LocalServer]:
    """A :class:`flowui_sandbox.sandbox.harness.server.LocalServer` on 127.0.0.1 for the session.

    It serves the bridge's files under ``/bridge/`` (the host module), pages you register with
    ``add_page(html, headers=...)`` (which returns their URL), and records every request to
    ``/log/…`` (``logged(contains)``), for seeing what a block tried to load.
    """
    srv = flowui_portal.run(LocalServer().start())
    yield srv
    flowui_portal.run(srv.stop())


@pytest.fixture
def flowui_host(flowui_page: SyncPage, flowui_server: LocalServer):
    """A host page on ``flowui_page`` that mounts blocks with the real ``bridge/flow-ui-host.js``.

    ``flowui_host.mount(source, block_id=, state=, theme=, fields=, srcdoc=, answers=)`` returns a
    :class:`flowui_sandbox.sandbox.plugin.block_host.MountedBlock`: ``evaluate``/``wait_for``/``click`` inside the
    block, ``set_state``/``patch``/``set_theme`` from the host, and its bridge traffic
    (``actions``, ``values``, ``urls``, ``log``, ``codes()``, ``wait_for_traffic(kind)``).
    """
    from .block_host import BlockHost

    return BlockHost(flowui_page, flowui_server)


@pytest.fixture(scope="session")
def flowui_probe_servers(flowui_portal: Portal):
    """The four origins a probe run needs (:class:`flowui_sandbox.sandbox.verify.servers.Servers`), for the session."""
    from ..verify.servers import Servers

    servers = flowui_portal.run(Servers().start())
    yield servers
    flowui_portal.run(servers.stop())


@pytest.fixture
def flowui_verify(flowui_engine: Engine, flowui_browsers: Browsers, flowui_portal: Portal, flowui_probe_servers) -> Callable[..., ProbeResults]:
    """Run the probe catalogue (``fixtures/probes``) on ``flowui_engine``, as ``flowui-sandbox verify`` does.

    ``flowui_verify(generator=None, protocol="source", probes=None, timeout=1500)`` returns a
    :class:`ProbeResults` (probe id to result, ``.unexpected()`` lists what did not hold).
    ``generator`` is a command (a string, run as ``verify --generator`` runs it; ``protocol``
    ``"json"`` hands it fields, state and theme, docs/GENERATORS.md), a
    :class:`flowui_sandbox.sandbox.verify.runner.Generator`, or ``None`` for this project's generator.
    ``probes`` narrows the run to those probe ids (an unknown id is an error).
    """
    from ..verify.probes import load_catalogue
    from ..verify.runner import CommandGenerator, Generator, run_engine

    def run(generator: str | Generator | None = None, *, protocol: str = "source",
            probes: list[str] | None = None, timeout: float = 1500) -> ProbeResults:
        if generator is None:
            generator = Generator()
        elif isinstance(generator, str):
            generator = CommandGenerator(generator, protocol)
        if isinstance(generator, CommandGenerator):
            generator.preflight()
        catalogue = load_catalogue()
        if probes is not None:
            unknown = sorted(set(probes) - {p.id for p in catalogue})
            if unknown:
                raise ValueError(f"no such probe: {', '.join(unknown)}")
            catalogue = [p for p in catalogue if p.id in probes]
        session = flowui_browsers.session(flowui_engine.name)
        results = flowui_portal.run(run_engine(session, catalogue, flowui_probe_servers, generator), timeout=timeout)
        return ProbeResults((r.probe, r) for r in results)

    return run


__all__ = [
    "Browsers", "Portal", "ProbeResults", "SyncPage",
    "in_ci", "selected_engines", "with_debian_browser",
]
