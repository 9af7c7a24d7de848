"""Browsers on other machines, through the engines' own remote protocols (see docs/SCALE.md).

Two kinds of endpoint:

* a **Playwright browser server** (``ws://`` or ``wss://``), as ``playwright
  launch-server --browser chromium|firefox --config cfg.json`` prints it: one
  browser, any number of pages; we connect with ``BrowserType.connect``;
* a **WebDriver endpoint** (``http://`` or ``https://``) for WebKit: a
  ``WebKitWebDriver --port=P`` (one session, so one page, at a time) or a
  Selenium Grid whose nodes relay to WebKitWebDriver (as many pages as it has slots).

Every endpoint is given as ``ENGINE[:PAGES]=URL`` (``--remote``, repeatable), e.g.
``--remote chromium=ws://10.0.0.7:3000/abc --remote webkit:4=http://grid:4444``.
A remote session is the local driver's session class with another way to start its browser:
the same pages, the same capabilities.
"""

from __future__ import annotations

import asyncio
import glob
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import OptionError
from ..files import shown_name
from .base import ENGINE_NAMES, Engine, EngineError, Session
from .discovery import WEBKIT_MINIBROWSER_GLOB, select_engines
from .playwright import PlaywrightSession
from .webdriver import PAGE_LOAD_STRATEGY, WebDriverPage, WebDriverSession, prepare_driver, quit_quietly

#: Pages open at once on one Playwright browser server (as verify's local CONCURRENCY).
PLAYWRIGHT_PAGES = 3
#: WebKitWebDriver holds one session (one MiniBrowser) at a time; a Grid URL says how many with ENGINE:PAGES.
WEBDRIVER_PAGES = 1
#: Where MiniBrowser lives on the remote machine (Debian's path unless FLOWUI_WEBKIT_BINARY says otherwise).
DEFAULT_MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
#: Seconds to reach an endpoint before it counts as down.
CONNECT_TIMEOUT = 30.0
#: Seconds a browser server has to answer a WebSocket handshake (as a WebDriver endpoint its
#: ``/status``): a port that takes connections and says nothing fails in this time, not in
#: :data:`CONNECT_TIMEOUT` (the server answers the handshake at once; the browser is up already).
ANSWER_TIMEOUT = 5.0


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


#: The most pages one endpoint may be asked to hold at once (``ENGINE:PAGES=URL``).
MAX_PAGES = 64


def _shown(text: str, limit: int = 80) -> str:
    """A user's value in a one-line message: control characters escaped, at most ``limit`` characters."""
    text = shown_name(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_remote(specs: list[str], flag: str = "--remote") -> list[Endpoint]:
    """``ENGINE[:PAGES]=URL`` values, every problem reported at once (OptionError, one line each)."""
    endpoints: list[Endpoint] = []
    problems: list[str] = []
    for spec in specs:
        where = f"{flag} {_shown(spec)}"
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
            # isascii: "²" is a digit to str.isdigit but not to int; the length check keeps
            # int() from 5,000 digits (a ValueError beyond 4,300) and the message short
            if not (count.isascii() and count.isdigit() and len(count) <= len(str(MAX_PAGES))
                    and 1 <= int(count) <= MAX_PAGES):
                problems.append(f"{where}: PAGES must be a whole number from 1 to {MAX_PAGES}, not {_shown(count)!r}")
                continue
            pages = int(count)
        try:
            parts = urlsplit(url)
        except ValueError as exc:  # e.g. "Invalid IPv6 URL" for ws://[::1/x
            problems.append(f"{where}: not a URL ({exc})")
            continue
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


class RemotePlaywrightSession(PlaywrightSession):
    """A browser of a Playwright browser server; closing it disconnects and leaves the server's browser running."""

    def __init__(self, engine: Engine, manager: Any, playwright: Any, browser: Any, endpoint: Endpoint):
        super().__init__(engine, manager, playwright, browser)
        self.endpoint = endpoint


class RemoteWebDriverPage(WebDriverPage):
    async def abandon(self) -> None:
        """A hung window: its session is deleted at the endpoint (which ends its MiniBrowser), no
        process here to kill; a session that does not answer is left to the endpoint."""
        if self.raw in self._session._all:
            self._session._all.remove(self.raw)
        try:
            await asyncio.wait_for(asyncio.to_thread(quit_quietly, self.raw), 30)
        except TimeoutError:
            pass


class RemoteWebDriverSession(WebDriverSession):
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
        options.page_load_strategy = PAGE_LOAD_STRATEGY
        if proxy:
            # MiniBrowser's own flags: WebKitGTK's browser takes no proxy from WebDriver's proxy
            # capability (measured: nothing reached the proxy), nor can the environment of a
            # WebKitWebDriver someone else started be set from here.
            options.add_argument(f"--proxy={proxy}")  # loopback too: nothing is spared
        options.accept_insecure_certs = True
        try:
            return prepare_driver(webdriver.Remote(command_executor=self.endpoint.url, options=options))
        except Exception as exc:
            raise EngineError(f"webkit: {self.endpoint.url}: no session ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from exc

    # A MiniBrowser window of the endpoint: the local pool's, with ``proxy`` an address the remote
    # machine reaches; ``options["window"]`` is applied, ``env`` cannot be (the remote browser's
    # environment is its machine's).
    page_class = RemoteWebDriverPage

    def _environment(self, options: dict[str, Any] | None) -> dict[str, str]:
        return {}

    def _start_window(self, proxy: str | None, env: dict[str, str]) -> Any:
        return self._start(proxy)

    async def _unmatched(self, drivers: list[Any]) -> None:
        # A window started with another proxy is of no more use, and the endpoint's sessions are few
        # (WebKitWebDriver holds one): it ends before a new one starts.
        for other in drivers:
            self._idle.remove(other)
            self._all.remove(other)
            await asyncio.to_thread(quit_quietly, other)

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
            await asyncio.to_thread(quit_quietly, driver)
        self._all.clear()
        self._idle.clear()


async def connect(engine: Engine, endpoint: Endpoint) -> Session:
    """A session on ``endpoint`` (EngineError when it cannot be reached)."""
    if endpoint.protocol == "webdriver":
        session = RemoteWebDriverSession(engine, endpoint)
        if not await session.alive():
            raise EngineError(f"{engine.name}: {endpoint.url}: the WebDriver endpoint does not answer /status")
        return session
    if not await asyncio.to_thread(handshake_answered, endpoint.url):
        raise EngineError(f"{engine.name}: {endpoint.url}: the browser server does not answer a WebSocket handshake "
                          f"within {ANSWER_TIMEOUT:g} s")
    from playwright.async_api import async_playwright

    manager = async_playwright()
    pw = await manager.__aenter__()
    try:
        browser = await getattr(pw, engine.name).connect(endpoint.url, timeout=CONNECT_TIMEOUT * 1000)
    except Exception as exc:
        await manager.__aexit__(None, None, None)
        raise EngineError(f"{engine.name}: {endpoint.url}: could not connect ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from exc
    return RemotePlaywrightSession(engine, manager, pw, browser, endpoint)


def handshake_answered(url: str, timeout: float = ANSWER_TIMEOUT) -> bool:
    """Whether the server of a ``ws://`` or ``wss://`` URL says anything to a WebSocket opening
    handshake within ``timeout``. Only silence is False: a refused connection, a TLS or HTTP
    answer of any kind is left for the Playwright client to report in its own words."""
    import socket
    import ssl

    parts = urlsplit(url)
    host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "wss" else 80)
    request = (f"GET {parts.path or '/'}{'?' + parts.query if parts.query else ''} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
               "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: Zmxvd3VpLXNhbmRib3ghIQ==\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n").encode()
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw:
            conn = ssl.create_default_context().wrap_socket(raw, server_hostname=host) if parts.scheme == "wss" else raw
            conn.sendall(request)
            conn.recv(1)
            return True
    except TimeoutError:
        return False
    except (OSError, ssl.SSLError):  # refused, reset, unresolvable, a certificate: the client's error says it better
        return True


__all__ = ["Endpoint", "parse_remote", "by_engine", "plan", "remote_engine", "connect", "RemotePlaywrightSession",
           "RemoteWebDriverSession", "PLAYWRIGHT_PAGES", "WEBDRIVER_PAGES", "CONNECT_TIMEOUT", "ANSWER_TIMEOUT",
           "handshake_answered"]
