"""A real aiohttp server on 127.0.0.1 for pages that the browser tests and `verify` load.

It serves:

* ``/bridge/<path>``: the bridge's JavaScript and JSON files (the host module and its bridge/host/ modules);
* ``/p/<id>``: pages registered with :meth:`LocalServer.add_page`, with their own headers;
* ``/log/<anything>``: any method; the request is recorded (method, path, query,
  headers, cookies, body) and answered with a 1x1 GIF, CSS, JS or JSON as the
  path's extension says, so it can stand in for any resource a probe tries to load;
* ``/hang/<anything>``: recorded like ``/log/``, then never answered (until the server stops),
  e.g. an image that keeps a document's ``load`` event from firing.

Free ports are chosen by the OS at start. Nothing listens beyond 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import ssl
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from ..data import EXAMPLES_DIR

if TYPE_CHECKING:  # pragma: no cover
    import trustme

BRIDGE_DIR = Path(__file__).resolve().parents[2] / "bridge"

_GIF = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")
_BODIES = {
    ".gif": (_GIF, "image/gif"),
    ".png": (_GIF, "image/gif"),
    ".css": (b"/* logged */", "text/css"),
    ".js": (b"/* logged */", "text/javascript"),
    ".json": (b"{}", "application/json"),
    ".html": (b"<!doctype html><title>logged</title>", "text/html"),
}


#: The longest request line and header line the servers read (a URL of a browser's maximum, 2 MiB, and then some).
MAX_LINE = 4 * 1024 * 1024

@dataclass
class LoggedRequest:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    cookies: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.time)


class LocalServer:
    """An aiohttp server on 127.0.0.1; ``await start()``, then use :attr:`base_url`."""

    def __init__(self, *, ssl_context: ssl.SSLContext | None = None, host: str = "127.0.0.1", public_host: str | None = None):
        self.host = host
        #: The name browsers use in URLs (e.g. ``localhost`` for a second site); the socket binds ``host``.
        self.public_host = public_host or host
        self.ssl_context = ssl_context
        self.app = web.Application(client_max_size=8 * 1024 * 1024)
        self.pages: dict[str, tuple[bytes, dict[str, str]]] = {}
        self.requests: list[LoggedRequest] = []
        self._ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self.port: int | None = None
        self.app.router.add_get("/p/{id}", self._page)
        self.app.router.add_route("*", "/log/{tail:.*}", self._log)
        self.app.router.add_route("*", "/hang/{tail:.*}", self._hang)
        self._closing = asyncio.Event()
        self.app.router.add_static("/bridge/", BRIDGE_DIR, show_index=False)
        self.app.router.add_static("/examples/", EXAMPLES_DIR, show_index=False)

    @property
    def base_url(self) -> str:
        scheme = "https" if self.ssl_context else "http"
        return f"{scheme}://{self.public_host}:{self.port}"

    async def start(self) -> LocalServer:
        # A request line or header as long as a browser sends (Chromium takes 2 MiB URLs): aiohttp's
        # 8190-byte default answered 400 before the request was logged, so a block hid a request
        # behind a long URL.
        self._runner = web.AppRunner(self.app, access_log=None, max_line_size=MAX_LINE, max_field_size=MAX_LINE)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0, ssl_context=self.ssl_context)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        self._closing.set()  # hanging requests end now, so cleanup does not wait for them
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def add_page(self, html: str | bytes, *, headers: dict[str, str] | None = None, name: str | None = None) -> str:
        """Serve ``html`` at a new URL (returned); ``headers`` are sent with it (e.g. a CSP)."""
        key = name or f"{next(self._ids)}"
        body = html.encode("utf-8") if isinstance(html, str) else html
        self.pages[key] = (body, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", **(headers or {})})
        return f"{self.base_url}/p/{key}"

    def logged(self, contains: str = "") -> list[LoggedRequest]:
        """Logged requests whose path or query contains ``contains``."""
        return [r for r in self.requests if contains in r.path or contains in r.query]

    async def _page(self, request: web.Request) -> web.Response:
        entry = self.pages.get(request.match_info["id"])
        if entry is None:
            return web.Response(status=404, text="no such page")
        body, headers = entry
        return web.Response(body=body, headers=headers)

    def _record(self, request: web.Request, body: bytes) -> None:
        self.requests.append(
            LoggedRequest(request.method, request.path, request.query_string, dict(request.headers), dict(request.cookies), body)
        )

    async def _log(self, request: web.Request) -> web.StreamResponse:
        self._record(request, await request.read())
        suffix = Path(request.path).suffix
        payload, ctype = _BODIES.get(suffix, (b"", "text/plain"))
        return web.Response(body=payload, content_type=ctype, headers={"Access-Control-Allow-Origin": "*"})


    async def _hang(self, request: web.Request) -> web.StreamResponse:
        self._record(request, await request.read())
        try:
            await asyncio.wait_for(self._closing.wait(), 600)
        except TimeoutError:
            pass
        return web.Response(status=504, text="hung")


def tls_context(*hosts: str) -> tuple[trustme.CA, ssl.SSLContext]:
    """A CA made at run time (trustme) and a server context with a leaf for ``hosts``
    (default 127.0.0.1): HTTPS on 127.0.0.1 without touching the system's trust store."""
    import trustme

    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*(hosts or ("127.0.0.1",))).configure_cert(context)
    return ca, context


async def wait_until(predicate, timeout: float = 5, interval: float = 0.05) -> bool:
    """Poll ``predicate()`` until it is truthy or ``timeout`` passes; return the last result."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if value or loop.time() >= deadline:
            return bool(value)
        await asyncio.sleep(interval)


__all__ = ["LocalServer", "LoggedRequest", "tls_context", "wait_until"]
