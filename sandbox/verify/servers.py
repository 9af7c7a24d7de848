"""The servers `verify` runs the probes against: on 127.0.0.1, free ports, started and stopped by the harness.

(For browsers on other machines the sockets bind another address and the URLs use other
names: ``Servers(bind, host_name, canary_name)``, docs/SCALE.md.)

* **host** (``https://127.0.0.1:P`` and ``http://127.0.0.1:Q``): serves the host pages
  (``/host/<key>``, which also set the host's cookies), the bridge files, and the
  host's API (``/api/...``) that logs every request with the cookies it carried.
* **canary** (``https://localhost:R`` and ``http://localhost:S``): stands for the
  attacker's server, on another *site* than the host (``localhost`` vs
  ``127.0.0.1``), so host cookies never reach it by themselves. It logs every
  request (``/log/...``, ``/dl/...`` answers as an attachment) and serves pages.
* **taps**, made per probe run: a raw TCP listener (a preconnect shows up as a bare
  connection with no HTTP request) and a UDP socket (WebRTC STUN, WebTransport/QUIC),
  each on its own port so a connection is attributed to exactly one probe run.

The certificates are made at run time with trustme (one CA, one leaf for
``127.0.0.1`` and ``localhost``). Playwright's browsers are launched with
``ignore_https_errors``; WebKitGTK over WebDriver needs the ``acceptInsecureCerts``
capability (see docs/THREATS.md, "Harness").
"""

from __future__ import annotations

import asyncio
import ssl
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from ..harness.server import LocalServer, LoggedRequest, tls_context

#: The host's cookies: name -> (SameSite, HttpOnly). ``None`` needs ``Secure``, so HTTPS only.
HOST_COOKIES = {
    "fs_none": ("None", False),
    "fs_none_httponly": ("None", True),
    "fs_lax": ("Lax", False),
    "fs_lax_httponly": ("Lax", True),
    "fs_strict": ("Strict", False),
    "fs_strict_httponly": ("Strict", True),
}


def cookie_value(name: str, token: str) -> str:
    """The secret a host cookie holds during one probe run (unique, so a leak names its run)."""
    return f"{name.replace('_', '-')}-{token}"


class Origin(LocalServer):
    """A :class:`LocalServer` that is one origin of the harness: host pages with cookies, an API, downloads.

    ``public_host`` is the name browsers use in URLs (``localhost`` for the canary);
    the socket is bound to ``bind`` (127.0.0.1 unless remote browsers must reach it, docs/SCALE.md).
    """

    def __init__(self, label: str, *, ssl_context: ssl.SSLContext | None = None, public_host: str = "127.0.0.1", bind: str = "127.0.0.1"):
        super().__init__(ssl_context=ssl_context, host=bind, public_host=public_host)
        self.label = label
        self.cookie_tokens: set[str] = set()  # host pages (by token) that set the host cookies
        self.app.router.add_get("/host/{id}", self._host_page)
        self.app.router.add_get("/host/{id}/{tail:.*}", self._host_page)  # a path after the key (a secret)
        self.app.router.add_get("/cookies/{id}", self._cookies)
        self.app.router.add_route("*", "/api/{tail:.*}", self._api)
        self.app.router.add_route("*", "/dl/{tail:.*}", self._download)

    def add_host_page(self, html: str, *, token: str, headers: dict[str, str] | None = None) -> str:
        """Serve a host page that also sets the host cookies (values made from ``token``)."""
        url = self.add_page(html, headers=headers, name=token)
        self.cookie_tokens.add(token)
        return url.replace("/p/", "/host/", 1)

    def add_cookies(self, token: str) -> str:
        """A URL that sets the host cookies of run ``token`` (what its host page would set), for a kept host page."""
        self.cookie_tokens.add(token)
        return f"{self.base_url}/cookies/{token}"

    def forget(self, token: str) -> None:
        self.pages.pop(token, None)
        self.cookie_tokens.discard(token)

    async def _host_page(self, request: web.Request) -> web.Response:
        response = await self._page(request)
        self._set_cookies(response, request.match_info["id"])
        return response

    async def _cookies(self, request: web.Request) -> web.Response:
        response = web.Response(status=204, headers={"Cache-Control": "no-store"})
        self._set_cookies(response, request.match_info["id"])
        return response

    def _set_cookies(self, response: web.Response, key: str) -> None:
        if key in self.cookie_tokens:
            for name, (samesite, httponly) in HOST_COOKIES.items():
                if samesite == "None" and not self.ssl_context:
                    continue  # browsers refuse SameSite=None without Secure
                response.set_cookie(
                    name, cookie_value(name, key), path="/", samesite=samesite,
                    httponly=httponly, secure=bool(self.ssl_context),
                )

    async def _api(self, request: web.Request) -> web.Response:
        # A realistic API: JSON with a secret, no CORS headers (a cross-origin reader gets nothing).
        self._record(request, await request.read())
        return web.json_response({"secret": "api-secret", "cookies": sorted(request.cookies)})

    async def _download(self, request: web.Request) -> web.Response:
        self._record(request, await request.read())
        return web.Response(
            body=b"flowui verify download\n", content_type="application/octet-stream",
            headers={"Content-Disposition": 'attachment; filename="flowui-probe.bin"', "Access-Control-Allow-Origin": "*"},
        )


@dataclass
class TapEvent:
    kind: str  # "tcp" | "udp"
    peer: str
    data: bytes
    at: float = field(default_factory=time.time)


class Taps:
    """A raw TCP listener and a UDP socket on fresh ports, for one probe run."""

    def __init__(self, bind: str = "127.0.0.1") -> None:
        self.bind = bind
        self.events: list[TapEvent] = []
        self.tcp_port: int | None = None
        self.udp_port: int | None = None
        self._server: asyncio.base_events.Server | None = None
        self._udp: asyncio.DatagramTransport | None = None

    async def start(self) -> Taps:
        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            peer = str(writer.get_extra_info("peername"))
            try:
                data = await asyncio.wait_for(reader.read(512), 1.0)
            except (TimeoutError, ConnectionError):
                data = b""
            self.events.append(TapEvent("tcp", peer, data))
            writer.close()

        self._server = await asyncio.start_server(on_connect, self.bind, 0)
        self.tcp_port = self._server.sockets[0].getsockname()[1]
        taps = self

        class _Udp(asyncio.DatagramProtocol):
            def datagram_received(self, data: bytes, addr) -> None:
                taps.events.append(TapEvent("udp", str(addr), data[:512]))

        loop = asyncio.get_running_loop()
        self._udp, _ = await loop.create_datagram_endpoint(_Udp, local_addr=(self.bind, 0))
        self.udp_port = self._udp.get_extra_info("sockname")[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._udp is not None:
            self._udp.close()
            self._udp = None


class Servers:
    """The four origins of a verify run; ``async with Servers() as s:``.

    By default everything is on 127.0.0.1: the host is ``127.0.0.1``, the canary
    ``localhost`` (another site). For browsers on other machines (docs/SCALE.md) the
    sockets bind ``bind`` and the URLs name ``host_name`` and ``canary_name``, which the
    certificate covers.
    """

    def __init__(self, bind: str = "127.0.0.1", host_name: str = "127.0.0.1", canary_name: str = "localhost") -> None:
        self.bind = bind
        self.ca, context = tls_context(host_name, canary_name)
        self._tmp = tempfile.TemporaryDirectory(prefix="flowui-verify-")
        #: The run's CA certificate (PEM), for a browser that must trust it instead of ignoring errors.
        self.ca_file = Path(self._tmp.name) / "flowui-verify-ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        self.host = Origin("host", ssl_context=context, public_host=host_name, bind=bind)
        self.host_http = Origin("host_http", public_host=host_name, bind=bind)
        self.canary = Origin("canary", ssl_context=context, public_host=canary_name, bind=bind)
        self.canary_http = Origin("canary_http", public_host=canary_name, bind=bind)

    @property
    def origins(self) -> tuple[Origin, ...]:
        return (self.host, self.host_http, self.canary, self.canary_http)

    async def start(self) -> Servers:
        for origin in self.origins:
            await origin.start()
        return self

    async def stop(self) -> None:
        for origin in self.origins:
            await origin.stop()
        self._tmp.cleanup()

    async def __aenter__(self) -> Servers:
        return await self.start()

    async def __aexit__(self, *exc) -> None:
        await self.stop()

    def requests_for(self, token: str) -> list[tuple[str, LoggedRequest]]:
        """Every request any origin logged whose path, query, headers or body mention ``token``
        (host page loads excluded), labelled with the origin."""
        found = []
        for origin in self.origins:
            for r in origin.requests:
                if token in r.path or token in r.query or token in r.body.decode("utf-8", "replace"):
                    found.append((origin.label, r))
        return found


__all__ = ["Servers", "Origin", "Taps", "TapEvent", "HOST_COOKIES", "cookie_value"]
