"""Browsers on other machines, through the engines' own remote protocols, and work spread over them.

Two kinds of endpoint (see docs/SCALE.md):

* a **Playwright browser server** (``ws://`` or ``wss://``), as ``playwright
  launch-server --browser chromium|firefox --config cfg.json`` prints it: one
  browser, any number of pages; we connect with ``BrowserType.connect``;
* a **WebDriver endpoint** (``http://`` or ``https://``) for WebKit: a
  ``WebKitWebDriver --port=P`` (one session, so one page, at a time) or a
  Selenium Grid whose nodes relay to WebKitWebDriver (as many pages as it has slots).

Every endpoint is given as ``ENGINE[:PAGES]=URL`` (``--remote``, repeatable), e.g.
``--remote chromium=ws://10.0.0.7:3000/abc --remote webkit:4=http://grid:4444``.

:func:`spread` runs jobs (probes, author blocks) over every session of an engine
from one queue, each session ``pages`` jobs at a time; a session whose browser goes
away retires, and the job it held goes back to the queue for another session.

The servers that observe a block must be reachable from the remote browsers:
:func:`server_names` turns ``--bind``, ``--public-host`` and ``--canary-host`` into
the bind address and the two site names (defaults: 127.0.0.1, ``127.0.0.1`` and ``localhost``).
"""

from __future__ import annotations

import asyncio
import glob
import ipaddress
import os
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import urlsplit

from .engines import (
    ENGINE_NAMES,
    WEBKIT_MINIBROWSER_GLOB,
    Engine,
    EngineError,
    Page,
    Session,
    _PlaywrightSession,
    _quit_quietly,
    _WebDriverPage,
    _WebDriverSession,
)
from .errors import OptionError

#: Pages open at once on one Playwright browser server (as verify's local CONCURRENCY).
PLAYWRIGHT_PAGES = 3
#: WebKitWebDriver holds one session (one MiniBrowser) at a time; a Grid URL says how many with ENGINE:PAGES.
WEBDRIVER_PAGES = 1
#: Where MiniBrowser lives on the remote machine (Debian's path unless FLOWUI_WEBKIT_BINARY says otherwise).
DEFAULT_MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
#: Seconds to reach an endpoint before it counts as down.
CONNECT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Endpoint:
    """One remote browser (or Grid) for one engine."""

    engine: str
    url: str
    pages: int
    protocol: str  # playwright | webdriver

    @property
    def label(self) -> str:
        return f"{self.engine}@{self.url}"


def parse_remote(specs: list[str], flag: str = "--remote") -> list[Endpoint]:
    """``ENGINE[:PAGES]=URL`` values, every problem reported at once (OptionError, one line each)."""
    endpoints: list[Endpoint] = []
    problems: list[str] = []
    for spec in specs:
        where = f"{flag} {spec}"
        name, eq, url = spec.partition("=")
        if not eq or not url:
            problems.append(f"{where}: expected ENGINE[:PAGES]=URL, e.g. chromium=ws://127.0.0.1:3000/abc")
            continue
        engine, colon, count = name.partition(":")
        if engine not in ENGINE_NAMES:
            problems.append(f"{where}: unknown engine {engine!r}; choose from {', '.join(ENGINE_NAMES)}")
            continue
        pages = None
        if colon:
            if not count.isdigit() or not 1 <= int(count) <= 64:
                problems.append(f"{where}: PAGES must be a whole number from 1 to 64, not {count!r}")
                continue
            pages = int(count)
        parts = urlsplit(url)
        if parts.scheme in ("ws", "wss"):
            protocol = "playwright"
        elif parts.scheme in ("http", "https"):
            protocol = "webdriver"
            if engine != "webkit":
                problems.append(f"{where}: a WebDriver endpoint is supported for webkit only; give {engine} a Playwright browser server (ws://...)")
                continue
        else:
            problems.append(f"{where}: the URL must start with ws:// or wss:// (Playwright browser server) or http:// or https:// (WebDriver)")
            continue
        try:
            port = parts.port
        except ValueError:
            port = None
        if not parts.hostname or port is None:
            problems.append(f"{where}: the URL needs a host and a port")
            continue
        if any(e.url == url for e in endpoints):
            problems.append(f"{where}: the same URL is given twice")
            continue
        endpoints.append(Endpoint(engine, url, pages or (PLAYWRIGHT_PAGES if protocol == "playwright" else WEBDRIVER_PAGES), protocol))
    if problems:
        raise OptionError("\n".join(problems))
    return endpoints


def by_engine(endpoints: list[Endpoint]) -> dict[str, list[Endpoint]]:
    out: dict[str, list[Endpoint]] = {}
    for e in endpoints:
        out.setdefault(e.engine, []).append(e)
    return out


def minibrowser_path() -> str:
    """MiniBrowser's path on the WebDriver machine: FLOWUI_WEBKIT_BINARY, else this machine's, else Debian's."""
    if os.environ.get("FLOWUI_WEBKIT_BINARY"):
        return os.environ["FLOWUI_WEBKIT_BINARY"]
    found = sorted(glob.glob(WEBKIT_MINIBROWSER_GLOB))
    return found[-1] if found else DEFAULT_MINIBROWSER


def remote_engine(name: str, endpoints: list[Endpoint]) -> Engine:
    """The :class:`Engine` a remote endpoint stands for (``origin="remote"``)."""
    protocol = endpoints[0].protocol
    if any(e.protocol != protocol for e in endpoints):
        raise OptionError(f"--remote {name}=...: mixes Playwright servers and WebDriver endpoints; give one kind per engine")
    if protocol == "playwright":
        return Engine(name, "playwright", None, "remote")
    return Engine(name, "webdriver", minibrowser_path(), "remote")


def plan(names: list[str] | None, endpoints: list[Endpoint]) -> tuple[list[Engine], dict[str, list[Endpoint]]]:
    """The engines to run and the remote endpoints of each.

    Without ``names``: the engines given remote endpoints, or (none given) every engine
    found here. An engine named with no endpoint runs on this machine.
    """
    from .engines import select_engines

    remote = by_engine(endpoints)
    wanted = names or ([n for n in ENGINE_NAMES if n in remote] if remote else None)
    if wanted:
        unknown = [n for n in wanted if n not in ENGINE_NAMES]
        if unknown:
            raise OptionError(f"--engine: unknown engine {unknown[0]!r}; choose from {', '.join(ENGINE_NAMES)}")
        unused = [n for n in remote if n not in wanted]
        if unused:
            raise OptionError(f"--remote {unused[0]}=...: {unused[0]} is not among the --engine given")
    local = [n for n in wanted if n not in remote] if wanted else None
    try:
        found = select_engines(local) if local or not wanted else []
    except EngineError as exc:
        raise OptionError(str(exc)) from None
    engines = {e.name: e for e in found}
    for name, given in remote.items():
        engines[name] = remote_engine(name, given)
    return [engines[n] for n in ENGINE_NAMES if n in engines], remote


# --------------------------------------------------------------------------- sessions


class RemotePlaywrightSession(_PlaywrightSession):
    """A browser of a Playwright browser server; closing it disconnects and leaves the server's browser running."""

    def __init__(self, engine: Engine, manager: Any, playwright: Any, browser: Any, endpoint: Endpoint):
        super().__init__(engine, manager, playwright, browser)
        self.endpoint = endpoint

    async def alive(self) -> bool:
        return self.browser.is_connected()


class _RemoteWebDriverPage(_WebDriverPage):
    async def abandon(self) -> None:
        """A hung window: its session is deleted at the endpoint (which ends its MiniBrowser), no
        process here to kill; a session that does not answer is left to the endpoint."""
        if self.raw in self._session._all:
            self._session._all.remove(self.raw)
        try:
            await asyncio.wait_for(asyncio.to_thread(_quit_quietly, self.raw), 30)
        except TimeoutError:
            pass


class RemoteWebDriverSession(_WebDriverSession):
    """MiniBrowser windows made by a remote WebDriver endpoint, pooled as the local ones."""

    def __init__(self, engine: Engine, endpoint: Endpoint):
        super().__init__(engine)
        self.endpoint = endpoint

    def _start(self, proxy: str | None = None):
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options

        options = Options()
        options.binary_location = self.engine.executable or minibrowser_path()
        options.add_argument("--automation")
        if proxy:
            # MiniBrowser's own flags: WebKitGTK's browser takes no proxy from WebDriver's proxy
            # capability (measured: nothing reached the proxy), nor can the environment of a
            # WebKitWebDriver someone else started be set from here.
            options.add_argument(f"--proxy={proxy}")
            options.add_argument("--ignore-host=127.0.0.1,localhost")
        options.accept_insecure_certs = True
        try:
            return webdriver.Remote(command_executor=self.endpoint.url, options=options)
        except Exception as exc:
            raise EngineError(f"webkit: {self.endpoint.url}: no session ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from exc

    async def new_page(self, *, proxy: str | None = None, options: dict[str, Any] | None = None) -> Page:
        """A MiniBrowser window of the endpoint; ``proxy`` must be an address the remote machine
        reaches. ``options``: ``window`` (width, height) is applied; ``env`` cannot be (the
        remote browser's environment is its machine's)."""
        idle = [d for d in self._idle if getattr(d, "flowui_proxy", None) == proxy]
        for other in [d for d in self._idle if d not in idle]:
            # A window started with another proxy is of no more use, and the endpoint's sessions are few
            # (WebKitWebDriver holds one): it ends before a new one starts.
            self._idle.remove(other)
            self._all.remove(other)
            await asyncio.to_thread(_quit_quietly, other)
        if idle:
            driver = idle[-1]
            self._idle.remove(driver)
        else:
            driver = await asyncio.to_thread(self._start, proxy)
            driver.flowui_proxy = proxy
            self._all.append(driver)
        window = (options or {}).get("window")
        if window:
            await asyncio.to_thread(driver.set_window_size, *window)
        page = _RemoteWebDriverPage(self.engine, driver)
        page._session = self
        return page

    async def alive(self) -> bool:
        def status() -> bool:
            try:
                with urllib.request.urlopen(self.endpoint.url.rstrip("/") + "/status", timeout=5) as response:
                    return response.status == 200
            except (urllib.error.URLError, OSError, ValueError):
                return False

        return await asyncio.to_thread(status)

    async def close(self) -> None:
        for driver in self._all:
            await asyncio.to_thread(_quit_quietly, driver)
        self._all.clear()
        self._idle.clear()


async def connect(engine: Engine, endpoint: Endpoint) -> Session:
    """A session on ``endpoint`` (EngineError when it cannot be reached)."""
    if endpoint.protocol == "webdriver":
        session = RemoteWebDriverSession(engine, endpoint)
        if not await session.alive():
            raise EngineError(f"{engine.name}: {endpoint.url}: the WebDriver endpoint does not answer /status")
        return session
    from playwright.async_api import async_playwright

    manager = async_playwright()
    pw = await manager.__aenter__()
    try:
        browser = await getattr(pw, engine.name).connect(endpoint.url, timeout=CONNECT_TIMEOUT * 1000)
    except Exception as exc:
        await manager.__aexit__(None, None, None)
        raise EngineError(f"{engine.name}: {endpoint.url}: could not connect ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from exc
    return RemotePlaywrightSession(engine, manager, pw, browser, endpoint)


async def connect_all(engine: Engine, endpoints: list[Endpoint]) -> tuple[list[Worker], list[dict[str, str]]]:
    """A worker per endpoint that answered, and ``{"url", "error"}`` for each that did not."""
    connected = await asyncio.gather(*(connect(engine, e) for e in endpoints), return_exceptions=True)
    workers: list[Worker] = [Worker(c, e.pages, e.url) for e, c in zip(endpoints, connected) if not isinstance(c, BaseException)]
    errors = [{"url": e.url, "error": str(c)} for e, c in zip(endpoints, connected) if isinstance(c, BaseException)]
    return workers, errors


async def close_all(workers: list[Worker]) -> None:
    for worker in workers:
        try:
            await asyncio.wait_for(worker.session.close(), 30)
        except Exception:  # best effort: a browser already gone raises its driver's own error; the others still close
            pass


# --------------------------------------------------------------------------- spreading


class SessionLost(Exception):
    """The browser behind a session went away while it held a job."""


J = TypeVar("J")
R = TypeVar("R")


@dataclass
class Worker(Generic[J]):
    """One session and how many jobs it takes at once."""

    session: Session
    pages: int
    label: str
    lost: str = ""  # why it retired
    done: int = 0


@dataclass
class _Item(Generic[J]):
    index: int
    job: J
    lost_on: list[str] = field(default_factory=list)


async def spread(workers: list[Worker], jobs: list[J], run: Callable[[Worker, J], Awaitable[R]],
                 failed: Callable[[J, str], R], *, retries: int = 1) -> list[R]:
    """``run(worker, job)`` for every job, each worker ``pages`` at a time, all pulling from one queue.

    ``run`` raises :class:`SessionLost` when the worker's browser went away: the worker
    retires and the job goes back to the queue for another worker, ``retries`` times at
    most; then (or when no worker is left) ``failed(job, why)`` stands for its result.
    Results come back in the order of ``jobs``.
    """
    queue: list[_Item[J]] = [_Item(i, job) for i, job in enumerate(jobs)]
    results: dict[int, R] = {}
    wake = asyncio.Event()

    def active() -> list[Worker]:
        return [w for w in workers if not w.lost]

    async def lane(worker: Worker) -> None:
        while len(results) < len(jobs) and not worker.lost:
            if not queue:
                wake.clear()
                # Work may come back from a lane whose browser was lost: wait for it, or for the end.
                try:
                    await asyncio.wait_for(wake.wait(), 0.2)
                except TimeoutError:
                    pass
                continue
            item = queue.pop(0)
            try:
                results[item.index] = await run(worker, item.job)
                worker.done += 1
            except SessionLost as exc:
                worker.lost = worker.lost or (str(exc) or "the browser went away")
                item.lost_on.append(worker.label)
                if len(item.lost_on) > retries or not active():
                    results[item.index] = failed(item.job, f"lost with its browser on {', '.join(item.lost_on)}")
                else:
                    queue.insert(0, item)
            wake.set()

    async def drain() -> None:
        # Every worker lost: what is left fails, so the run ends with a result per job.
        while len(results) < len(jobs):
            if not active():
                for item in queue:
                    results[item.index] = failed(item.job, "every browser of this engine was lost: " + "; ".join(f"{w.label}: {w.lost}" for w in workers))
                queue.clear()
                return
            await asyncio.sleep(0.2)

    await asyncio.gather(drain(), *(lane(w) for w in workers for _ in range(w.pages)))
    return [results[i] for i in range(len(jobs))]


# ------------------------------------------------- the observing servers' names


@dataclass(frozen=True)
class ServerNames:
    bind: str
    host: str  # the host origins' name in URLs
    canary: str  # the canary's: another site


def _is_loopback(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def server_names(bind: str = "127.0.0.1", public_host: str | None = None, canary_host: str | None = None, *,
                 canary: bool = True) -> ServerNames:
    """The bind address and the two site names, checked (OptionError naming the option).
    ``canary=False``: no canary site is served (review's proxy), so none is asked for."""
    problems = []
    try:
        address = ipaddress.ip_address(bind)
    except ValueError:
        raise OptionError(f"--bind {bind}: not an IP address (give the address of an interface, or 0.0.0.0)") from None
    if address.version != 4:
        problems.append(f"--bind {bind}: only IPv4 addresses are supported")
    host = public_host or ("127.0.0.1" if address.is_unspecified else bind)
    if address.is_unspecified and not public_host:
        problems.append(f"--bind {bind}: give --public-host NAME, the name or address the remote browsers reach this machine by")
    canary_name = canary_host or "localhost"
    if not canary:
        pass
    elif not canary_host and not address.is_unspecified and bind != "127.0.0.1":
        problems.append(f"--bind {bind}: give --canary-host NAME, a name of that address on another site than {host} "
                        "(localhost is 127.0.0.1)")
    elif not _is_loopback(host) and not canary_host:
        problems.append(f"--public-host {host}: give --canary-host NAME too, another name of this machine on another site "
                        "(e.g. the address for --public-host and a DNS name for --canary-host)")
    if canary and canary_name == host:
        problems.append(f"--canary-host {canary}: must differ from --public-host (the canary stands for another site)")
    if problems:
        raise OptionError("\n".join(problems))
    return ServerNames(bind, host, canary_name)


__all__ = [
    "Endpoint", "parse_remote", "by_engine", "plan", "remote_engine", "connect", "connect_all", "close_all", "RemotePlaywrightSession",
    "RemoteWebDriverSession", "SessionLost", "Worker", "spread", "server_names", "ServerNames",
]
