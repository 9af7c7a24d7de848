"""Every request of a reviewed page, to any host, ends on 127.0.0.1 and is logged.

The browsers are told to use an HTTP proxy (:class:`Tap`) for everything, loopback addresses
included (a block's request to ``https://127.0.0.1:8443/`` is logged like any other): the drivers
switch off each engine's own loopback bypass (:meth:`flowui_sandbox.sandbox.engines.Session.new_page`).
The proxy never connects out:

* ``CONNECT host:port`` (every https URL) is answered ``200`` and the tunnel is spliced
  to a local HTTPS catch-all server; the browser's TLS handshake meets that server's
  run-time certificate, accepted because the harness runs the browsers with
  ``ignore_https_errors`` / ``acceptInsecureCerts`` (as verify does). The host name is
  recorded from the CONNECT line even when no request follows (a preconnect).
* ``GET http://host/path`` (plain http, absolute form) is spliced to a local HTTP
  catch-all server, which reads the absolute form like any request.

The catch-all servers are :class:`flowui_sandbox.sandbox.harness.server.LocalServer` with one route that
logs every method and path and answers by the path's extension: an image (:func:`image`) of a
plausible size, not always 1x1 (a block that checks the size of an image it knows must not learn it
is reviewed), empty CSS, JS, JSON; never cacheable, so a run of the differential review with the
same data sends what the first sent. One Tap per page slot: a request is charged to the block the
slot runs when the proxy logs it. A block's log stays open until the slot's next block starts
(:meth:`Tap.mark`), and the harness starts the next block only once the proxy has settled
(:meth:`Tap.fence`): what the last block sent as its frame was destroyed is logged by then, and is
its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import secrets
import ssl
import struct
import time
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from aiohttp import web

from ...harness.server import MAX_LINE, LocalServer

#: Requests kept per block; a flood beyond this is counted, not stored.
MAX_KEPT = 2000
#: More requests than this from one block is a flood (the judge's finding; which of a flood's
#: requests reach the proxy before the review ends is the network's race, :mod:`.differential`).
FLOOD = 200


def flooded(requests: int, dropped: int) -> bool:
    """Whether a review's requests, those logged (``requests``) and those only counted (``dropped``), are a flood."""
    return requests + dropped > FLOOD


@dataclass(frozen=True, slots=True)
class Seen:
    """One request the page sent out, as the proxy logged it (frozen: its headers a read-only mapping)."""

    scheme: str
    host: str
    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    body: bytes = b""
    at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if not isinstance(self.headers, MappingProxyType):
            object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.host}{self.path}" + (f"?{self.query}" if self.query else "")


class _CatchAll(LocalServer):
    """A LocalServer whose only route logs everything (not /p/ or /bridge/: those paths exist on other hosts too)."""

    def __init__(self, tap: Tap, *, ssl_context: ssl.SSLContext | None = None):
        super().__init__(ssl_context=ssl_context)
        self.tap = tap
        self.scheme = "https" if ssl_context else "http"
        self.app = web.Application(client_max_size=8 * 1024 * 1024)
        self.app.router.add_route("*", "/{tail:.*}", self._serve)

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        with self.tap.handling():
            return await self._catch(request)

    async def _catch(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        host = request.headers.get("Host", request.url.host or "")
        self.tap.add(Seen(self.scheme, host, request.method, request.path, request.query_string, dict(request.headers), body))
        return _answer(request, await self._log(request))  # LocalServer's answer by extension (and its own record)


class HostServer(LocalServer):
    """The slot's own host origin (https://127.0.0.1:P, reached as ``https://NAME/`` through the
    proxy when the tap has a name: :attr:`Tap.name`): host pages and the bridge files, and a
    catch-all that logs what the block requests from the host itself (a relative URL)."""

    def __init__(self, tap: Tap, ssl_context: ssl.SSLContext):
        super().__init__(ssl_context=ssl_context)
        self.tap = tap
        # The host page's heartbeat (:attr:`Tap.beat_url`): no request of the block's, never logged.
        self.app.router.add_route("GET", f"/beat/{tap.beat_key}", self._beat)
        self.app.router.add_route("*", "/{tail:.*}", self._serve)

    async def _beat(self, request: web.Request) -> web.StreamResponse:
        self.tap.beat = time.monotonic()
        return web.Response(status=204, headers={"Cache-Control": "no-store", "Access-Control-Allow-Origin": "*"})

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        with self.tap.handling():
            return await self._catch(request)

    async def _catch(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        self.tap.add(Seen("https", HOST_ORIGIN, request.method, request.path, request.query_string, dict(request.headers), body))
        return _answer(request, await self._log(request))


_IMAGE = (".gif", ".png", ".jpg", ".jpeg", ".webp", ".avif", ".bmp", ".ico", ".svg")
#: Sizes an image answer takes when its URL names none (a pixel, icons, logos, banners, photos).
_SIZES = ((1, 1), (16, 16), (32, 32), (88, 31), (120, 40), (200, 60), (300, 250), (640, 360), (800, 600))
# Data, not code: a size named in a URL (w=200&h=50, /200x50/).
_SIZE_IN_URL = re.compile(r"(?:\b|_)(\d{1,4})x(\d{1,4})(?:\b|_)")
_W = re.compile(r"(?:^|[?&])(?:w|width)=(\d{1,4})")
_H = re.compile(r"(?:^|[?&])(?:h|height)=(\d{1,4})")


def image_size(path: str, query: str) -> tuple[int, int]:
    """The size an image answer has: the one the URL names, else one of :data:`_SIZES` chosen by the path."""
    m = _SIZE_IN_URL.search(path)
    if m:
        return max(1, min(int(m[1]), 2000)), max(1, min(int(m[2]), 2000))
    w, h = _W.search(query), _H.search(query)
    if w or h:
        width = int(w[1]) if w else int(h[1])  # type: ignore[index]
        height = int(h[1]) if h else width
        return max(1, min(width, 2000)), max(1, min(height, 2000))
    pick = hashlib.sha256(path.encode()).digest()[0] % (len(_SIZES) - 1)
    return _SIZES[pick + 1]  # a path alone is an asset: not a pixel


def image(width: int, height: int, seed: bytes = b"") -> bytes:
    """A PNG of one colour, ``width`` x ``height``."""
    colour = bytes(hashlib.sha256(seed).digest()[:3])

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\0" + colour * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def _answer(request: web.Request, answer: web.StreamResponse) -> web.StreamResponse:
    """An image of a plausible size for an image request; nothing the browser may cache."""
    path = request.path.lower()
    wants_image = request.headers.get("Sec-Fetch-Dest") == "image" or request.headers.get("Accept", "").startswith("image/")
    if (path.endswith(_IMAGE) and not path.endswith(".svg")) or (wants_image and not path.endswith(".svg")):
        width, height = image_size(request.path, request.query_string)
        answer = web.Response(body=image(width, height, request.path.encode()), content_type="image/png",
                              headers={"Access-Control-Allow-Origin": "*"})
    answer.headers["Cache-Control"] = "no-store"
    return answer


#: How the host's own origin is named in findings (its port changes every run).
HOST_ORIGIN = "(the host's own origin)"


class Tap:
    """A logging proxy and its two catch-all servers; ``await start()``, then ``proxy_url``."""

    def __init__(self, ssl_context: ssl.SSLContext, name: str = "", *, bind: str = "127.0.0.1", public_host: str = ""):
        #: The host name the slot's host page is served under (``https://NAME/``): a tunnel to it goes
        #: to the host server, not the catch-all, and is no request of the block's. Empty: 127.0.0.1.
        self.name = name
        #: Where the proxy listens, and the name the browsers reach it by (remote browsers: docs/REVIEW-BROWSER.md);
        #: the servers behind it stay on 127.0.0.1, reached through it only.
        self.bind = bind
        self.public_host = public_host or ("127.0.0.1" if bind == "0.0.0.0" else bind)
        #: The host page's heartbeat: a path only the host page knows, and when it last came
        #: (time.monotonic()); the block's frame cannot read the host page's script.
        self.beat_key = secrets.token_hex(12)
        self.beat = -float("inf")
        self.https = _CatchAll(self, ssl_context=ssl_context)
        self.host = HostServer(self, ssl_context)
        self.http = _CatchAll(self)
        self.seen: list[Seen] = []
        self.dropped = 0
        self.tunnels: list[str] = []  # CONNECT targets (host:port)
        self.last = -float("inf")  # time.monotonic() of the last request or tunnel
        #: time.monotonic() of the last byte through any connection, connection opened, or request answered.
        self.active = -float("inf")
        #: Connections not yet spliced to a server; the number of requests being handled.
        self.opening: set[asyncio.StreamWriter] = set()
        self.busy = 0
        self._clients: set[asyncio.StreamWriter] = set()  # the browser's connections, open
        self.port: int | None = None
        self._server: asyncio.base_events.Server | None = None
        self._pipes: set[asyncio.Task] = set()

    @property
    def proxy_url(self) -> str:
        return f"http://{self.public_host}:{self.port}"

    @property
    def beat_url(self) -> str:
        """The heartbeat's URL on the host server, as the host page reaches it (its own origin, through the proxy)."""
        return self.page_url(f"{self.host.base_url}/beat/{self.beat_key}")

    def page_url(self, url: str) -> str:
        """``url`` (one of the host server's, ``https://127.0.0.1:P/...``) under :attr:`name`."""
        if not self.name:
            return url
        return f"https://{self.name}" + url[len(self.host.base_url):]

    def add(self, seen: Seen) -> None:
        self.last = time.monotonic()
        if len(self.seen) >= MAX_KEPT:
            self.dropped += 1
            return
        self.seen.append(seen)

    def mark(self) -> tuple[int, int, int]:
        """Start the next block's log; :meth:`since` reads it. The last block's log is closed (a
        slot runs one block at a time): :data:`MAX_KEPT` is per block, not per slot. Every
        connection still open is closed (after :meth:`fence` they are idle): each of the block's
        requests comes on a connection opened during its review, none on one the last block's
        requests went over, and its first request to a host opens a tunnel it is charged with."""
        for writer in list(self._clients):
            writer.close()
        self.seen, self.tunnels, self.dropped = [], [], 0
        return 0, 0, 0

    def quiet_for(self) -> float:
        """Seconds since the last request or tunnel (infinite when none came)."""
        return time.monotonic() - self.last

    def since(self, mark: tuple[int, int, int]) -> tuple[list[Seen], list[str], int]:
        """The block's log since ``mark``: its requests and tunnels are the live lists, so what the
        proxy logs until the next :meth:`mark` (or until it stops, a proxy that is let go with its
        page) is still the block's; the count of requests not kept is as of now."""
        if mark[:2] == (0, 0):
            return self.seen, self.tunnels, self.dropped - mark[2]
        return self.seen[mark[0]:], self.tunnels[mark[1]:], self.dropped - mark[2]

    @contextlib.contextmanager
    def handling(self) -> Iterator[None]:
        """A request being handled: the proxy is not settled until it is logged and answered."""
        self.busy += 1
        self.active = time.monotonic()
        try:
            yield
        finally:
            self.busy -= 1
            self.active = time.monotonic()

    def settled(self, idle: float) -> bool:
        """No connection being opened, no request being handled, and nothing through any
        connection (a byte, a new connection) for ``idle`` seconds."""
        return not self.opening and not self.busy and time.monotonic() - self.active >= idle

    async def fence(self, idle: float, bound: float) -> bool:
        """Wait until the proxy has :meth:`settled` for ``idle`` s, at most ``bound`` s; whether it did.

        After a block's frame is destroyed, what the block sent just before is still on its way
        (in the browser's network stack, a tunnel being opened, a request being logged); once the
        proxy has settled it is logged, in the block's log, and the next block can start."""
        end = time.monotonic() + bound
        while not self.settled(idle):
            if time.monotonic() >= end:
                return False
            await asyncio.sleep(min(idle, 0.02))
        return True

    async def start(self) -> Tap:
        await self.https.start()
        await self.http.start()
        await self.host.start()
        # A request's head as long as a browser sends (a 2 MiB URL): the stream's 64 KiB default
        # would drop it unlogged.
        self._server = await asyncio.start_server(self._client, self.bind, 0, limit=MAX_LINE + 65536)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._pipes):
            task.cancel()
        await self.https.stop()
        await self.http.stop()
        await self.host.stop()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.active = time.monotonic()
        self._clients.add(writer)
        hosts = False
        try:
            hosts = await self._open(reader, writer)
        finally:
            self._clients.discard(writer)
            self.opening.discard(writer)
            if not hosts:
                self.active = time.monotonic()

    async def _open(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Read the connection's first request and splice it to its server (:attr:`opening` in between);
        whether it was a tunnel to the host server.

        A tunnel to the host server (the host page, its heartbeat every 0.5 s) is no activity of the
        block's: its bytes do not keep the proxy from settling (:meth:`fence`). What the block asks of
        the host's origin through it is, once the host server handles it (:meth:`handling`)."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return False
        self.opening.add(writer)
        self.active = time.monotonic()
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) == 3 and parts[0].upper() == "CONNECT" and self.name and parts[1].lower() == f"{self.name}:443":
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            await self._splice(reader, writer, self.host.port, b"", counts=False)
            return True
        elif len(parts) == 3 and parts[0].upper() == "CONNECT":
            self.last = time.monotonic()
            if len(self.tunnels) < MAX_KEPT:
                self.tunnels.append(parts[1])
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            await self._splice(reader, writer, self.https.port, b"")
        else:
            await self._splice(reader, writer, self.http.port, head)
        return False

    async def _splice(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, port: int | None, first: bytes, *,
                      counts: bool = True) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer.close()
            return
        finally:
            self.opening.discard(writer)
        if first:
            up_writer.write(first)

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    if counts:
                        self.active = time.monotonic()
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                try:
                    dst.close()
                except (OSError, RuntimeError):  # a transport already gone, or its loop closing
                    pass

        tasks = [asyncio.ensure_future(pump(reader, up_writer)), asyncio.ensure_future(pump(up_reader, writer))]
        self._pipes.update(tasks)
        try:
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            self._pipes.difference_update(tasks)


__all__ = ["Tap", "Seen", "HostServer", "HOST_ORIGIN", "MAX_KEPT"]
