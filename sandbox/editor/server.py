"""The editor's aiohttp server: one author, one file, the loopback only.

Two listeners on one port, 127.0.0.1:PORT and [::1]:PORT (browsers resolve ``localhost``, the
preview's name, to ::1 first: no other program may answer there, :meth:`EditorServer.start`),
and two origins, told apart by the Host header (any other Host is refused: a page on another
site that rebinds its DNS name to 127.0.0.1 sends its own name, DNS rebinding):

* ``http://127.0.0.1:<port>/<token>/``, the editor. The token (``secrets.token_urlsafe``) is
  printed once in the editor's URL and compared in constant time. A state-changing request
  (any method but GET and HEAD) must also come from the editor's own page: its ``Origin``, a
  ``Sec-Fetch-Site`` of ``same-origin`` when sent, the header ``X-Flowui-Editor: 1`` (a page
  elsewhere cannot send it without a CORS preflight, never answered) and a JSON body
  (:meth:`EditorServer.cross_site_problem`).
* ``http://localhost:<port>/preview/``, the preview: another site, so a block, whose srcdoc
  document takes its base URL from this page, learns a URL with no token in it, and the engines
  that isolate sites run it outside the editor's process. GET only, public code only (the page,
  its script and stylesheet, the bridge's files); no token, no API.

Refusals are 403 with one line of text and nothing else. Every response, errors included,
carries ``_COMMON_HEADERS`` (no caching, no sniffing, no referrer, same-origin resources only).

Two documents are served:

* ``/<token>/`` the editor page: a strict CSP (scripts and styles from the server only, no
  inline script, no eval, no frames but the preview's origin, no connections but to itself);
* ``/preview/`` (on the preview's origin) the preview host page, framed by the editor only
  (``frame-ancestors``) and driven by ``postMessage``: it runs the bridge's host module, which
  mounts the block in ``<iframe sandbox="allow-scripts" srcdoc>``. A srcdoc document inherits
  its parent's CSP on top of its own (the block's, first in its <head>), so this page's policy
  has no fetch directive (:func:`preview_csp`): the block's effective policy is exactly its own,
  and each violation of it is reported once. The author's code never runs in the editor's
  origin: the srcdoc frame is sandboxed (opaque origin).

The JSON API (all POST bodies JSON, read by the repository's JSON reader: a bad body is 400
with one located line; all answers JSON):

* ``GET api/session``: the file, its text (or the starter's), its sha256, why it has no text
  (``problem``: :class:`~flowui_sandbox.sandbox.editor.disk.OnDisk`), state, fields, theme, and
  the key and name that seal its drafts in the page's storage (``draft``:
  :func:`~flowui_sandbox.sandbox.editor.private.draft_seal`);
* ``POST api/analyze`` ``{source, fields}``: the markup paths the generator extracts (the
  preview passes them to the host so its srcdoc is ``build_srcdoc``'s bytes), or the problems
  with line:column;
* ``POST api/findings`` ``{source, fields}``: the static review's findings (asked for beside the
  analysis, so the preview never waits for the review);
* ``POST api/json`` ``{text}``: the JSON of the state pane, or (422) its one located error;
* ``GET api/disk``: the file's sha256 now and its problem (the page polls it to see changes on disk);
* ``GET api/disk/text``: the file's text, sha256 and problem (a file not read has no text);
* ``POST api/save`` ``{source, base}``: writes the file atomically unless its sha256 on disk is
  no longer ``base`` or the file on disk has a problem (409 with the disk's text and problem;
  ``force`` overwrites); a text over MAX_SOURCE_BYTES is refused (413), as opening it would be;
* ``GET api/contract``: the cheat sheet's data, read from the sources of truth;
* ``POST api/review`` ``{source, fields, state, theme, engines?}``: the whole review
  (``flowui_sandbox.sandbox.review.review``, static and in-browser layers) of the text on the page, on demand;
  one at a time.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import hmac
import json
import os
import secrets
import socket
import tempfile
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from flowui_sandbox.bridge import BRIDGE_DIR
from flowui_sandbox.sandbox.block.extract import MAX_SOURCE_BYTES
from flowui_sandbox.sandbox.block.policy import CSP as BLOCK_CSP
from flowui_sandbox.sandbox.errors import OptionError

from .disk import OnDisk, read_disk
from .private import draft_seal

STATIC_DIR = Path(__file__).resolve().parent / "static"
PROTOCOL_FILE = BRIDGE_DIR / "PROTOCOL.md"
#: Where the preview is served, on the preview's own origin (``http://localhost:PORT``).
PREVIEW_PREFIX = "/preview"
#: The preview page's own files (beside the bridge's, all public code).
PREVIEW_FILES = ("preview.js", "preview.css")
#: Seconds a request still being answered gets when the editor stops: aiohttp's default (60) kept
#: a stopped editor, and the port a restarted one wants, busy that long (a CI run waited 60 s).
STOP_WAIT = 1.0
#: The header every state-changing request of the editor's page carries (a custom header: a page
#: on another site cannot send it without a CORS preflight, and this server answers none).
EDITOR_HEADER = "X-Flowui-Editor"
#: Ports tried when any free port will do (``--port 0``) and the one found free on 127.0.0.1 is
#: taken on [::1] by another program.
PORT_TRIES = 20


def editor_csp(style_nonce: str, preview_origin: str) -> str:
    """The editor page's own policy: no inline script at all, nothing from elsewhere, only its
    preview page (``preview_origin``) framed. The editor component (CodeMirror) writes its styles
    into <style> elements, which carry this response's nonce (``EditorView.cspNonce``)."""
    return (
        f"default-src 'none'; script-src 'self'; style-src 'self' 'nonce-{style_nonce}'; img-src 'self' data:; "
        f"font-src 'self'; connect-src 'self'; frame-src {preview_origin}; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


def preview_csp(editor_origin: str) -> str:
    """The preview host page's policy: framed by the editor's origin only, no form sent; no fetch
    directive.

    The block's srcdoc inherits this policy on top of its own (``flowui_sandbox.sandbox.block.policy.CSP``,
    first in its <head>, before anything of the author's). A fetch directive here would either be
    stricter than the block's (refusing what the block's policy allows) or refuse what the block's
    refuses too, and the engines report a violation once per policy violated: twice in the bridge
    log. Without any, the block's effective policy is exactly its own, and each violation is one entry.
    """
    # No base-uri: the host module's holder frame sets <base href="about:blank"> (the block's base URL).
    return f"form-action 'none'; frame-ancestors {editor_origin}"


_COMMON_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    # The token is in the editor's URLs: no page may learn it through a Referer.
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def sha256(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class EditorSession:
    """What the editor edits: one file, and the test inputs of its preview."""

    file: Path
    state: Any = None
    fields: list[str] = field(default_factory=list)
    theme: Any = None
    block_id: str = "block"
    #: The text shown when the file does not exist yet (the starter source).
    starter: str = ""

    def read_disk(self) -> OnDisk:
        """The file as it is now (:func:`read_disk`)."""
        return read_disk(self.file)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename:
    a reader sees the old file or the new one, never half of one. The mode of an existing
    file is kept."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(text.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


def cheatsheet() -> dict[str, Any]:
    """The cheat sheet's data from the sources of truth: the block API table of
    bridge/PROTOCOL.md, the theme tokens and their defaults, the limits and reason codes."""
    from flowui_sandbox.bridge.protocol import limits
    from flowui_sandbox.theme import CSS_PREFIX, TOKEN_TABLE

    api: list[dict[str, str]] = []
    section = False
    for line in PROTOCOL_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line.strip() == "## The block's API"
            continue
        if section and line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 2:
                api.append({"member": cells[0].strip("`"), "does": cells[1]})
    return {
        "api": api,
        "tokens": [{"token": t.name, "kind": t.kind, "property": f"{CSS_PREFIX}{t.name}", "light": t.light, "dark": t.dark,
                    "purpose": t.purpose} for t in TOKEN_TABLE],
        "limits": limits(),
        "csp": BLOCK_CSP,
    }


class CannotListen(OptionError):
    """The editor cannot hold the addresses it needs; its one line says which and why."""


class EditorServer:
    """The aiohttp application and its listeners; ``await start()`` then :attr:`url`."""

    def __init__(self, session: EditorSession, *, port: int = 0, token: str | None = None):
        self.session = session
        self.token = token or secrets.token_urlsafe(24)
        self.requested_port = port
        self.port: int | None = None
        self._runner: web.AppRunner | None = None
        self._reviewing = False
        #: The key and name that seal the file's drafts in the page's storage (None: no private folder for the secret).
        self.draft: dict[str, str] | None = None
        #: The last 100 refused requests, one line each (method, path with the token hidden, why).
        self.refused: deque[str] = deque(maxlen=100)
        self.app = web.Application(middlewares=[self._guard], client_max_size=8 * 1024 * 1024)
        # Every response, the errors aiohttp answers itself included (404, 405, 413).
        self.app.on_response_prepare.append(_secure)
        prefix = f"/{self.token}"
        r = self.app.router
        r.add_get(f"{prefix}/", self._editor_page)
        r.add_get(f"{prefix}/api/session", self._api_session)
        r.add_get(f"{prefix}/api/contract", self._api_contract)
        r.add_get(f"{prefix}/api/disk", self._api_disk)
        r.add_get(f"{prefix}/api/disk/text", self._api_disk_text)
        r.add_post(f"{prefix}/api/analyze", self._api_analyze)
        r.add_post(f"{prefix}/api/findings", self._api_findings)
        r.add_post(f"{prefix}/api/json", self._api_json)
        r.add_post(f"{prefix}/api/save", self._api_save)
        r.add_post(f"{prefix}/api/review", self._api_review)
        r.add_static(f"{prefix}/static/", STATIC_DIR, show_index=False)
        r.add_static(f"{prefix}/bridge/", BRIDGE_DIR, show_index=False)
        # The preview's origin (PREVIEW_PREFIX under Host localhost:PORT, see the module doc): public
        # code only, no token, nothing but GET.
        r.add_get(f"{PREVIEW_PREFIX}/", self._preview_page)
        for name in PREVIEW_FILES:
            r.add_get(f"{PREVIEW_PREFIX}/static/{name}", self._preview_file)
        r.add_static(f"{PREVIEW_PREFIX}/bridge/", BRIDGE_DIR, show_index=False)

    # ---- lifecycle

    @property
    def host(self) -> str:
        """The Host header every request must carry: the loopback name and port printed."""
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.host}/{self.token}/"

    @property
    def origin(self) -> str:
        """The editor page's origin: the only ``Origin`` a state-changing request may carry."""
        return f"http://{self.host}"

    @property
    def preview_host(self) -> str:
        """The Host header of the preview's requests: the same socket under the name ``localhost``,
        another site than ``127.0.0.1`` (so the block's document and its base URL are another
        site's, and carry no token)."""
        return f"localhost:{self.port}"

    @property
    def preview_origin(self) -> str:
        return f"http://{self.preview_host}"

    @property
    def preview_url(self) -> str:
        return f"{self.preview_origin}{PREVIEW_PREFIX}/"

    async def start(self) -> EditorServer:
        """Listen on 127.0.0.1:PORT and on [::1]:PORT, the same port.

        Browsers resolve the preview's name, ``localhost``, to ::1 first (Chromium): a program of
        another user's listening on [::1]:PORT would be framed as the preview and get every mount
        message (the author's source and state). Holding [::1]:PORT leaves it to no one; where the
        machine has no IPv6 loopback, no program can listen there either. Another program on
        [::1]:PORT: ``CannotListen`` for a port asked for, the next free port otherwise.
        ``OSError`` when 127.0.0.1:PORT is taken.
        """
        try:
            self.draft = await asyncio.get_running_loop().run_in_executor(None, draft_seal, self.session.file)
        except OSError:
            self.draft = None  # unsaved text then stays in the tab only
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False, shutdown_timeout=STOP_WAIT)
        await self._runner.setup()
        for _ in range(PORT_TRIES if self.requested_port == 0 else 1):
            first = await self._listen("127.0.0.1", self.requested_port)
            port = first._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            try:
                await self._listen("::1", port)
            except OSError as exc:
                if isinstance(exc, socket.gaierror) or exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
                    break  # no IPv6 loopback here
                await first.stop()
                if exc.errno == errno.EADDRINUSE and self.requested_port == 0:
                    continue
                await self.stop()
                why = "is taken by another program" if exc.errno == errno.EADDRINUSE else f"cannot be listened on: {exc.strerror or exc}"
                raise CannotListen(f"[::1]:{port} {why}, and the preview's name localhost would reach it there (browsers "
                                   "try ::1 first): choose another --port") from None
            break
        else:
            await self.stop()
            raise CannotListen(f"no free port whose [::1] address is free too ({PORT_TRIES} tried)")
        self.port = port
        return self

    async def _listen(self, host: str, port: int) -> web.TCPSite:
        """A listener of the app on ``host:port``, started."""
        assert self._runner is not None
        site = web.TCPSite(self._runner, host, port)
        try:
            await site.start()
        except BaseException:
            await site.stop()
            raise
        return site

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ---- the guard: Host, then token, then (state-changing requests) the editor's own page

    @web.middleware
    async def _guard(self, request: web.Request, handler):
        problem = self.refusal(request.method, request.path, request.headers)
        if problem is not None:
            self.refused.append(f"{request.method} {request.path.replace(self.token, 'TOKEN')}: {problem}")
            return _refuse(problem)
        return await handler(request)

    def refusal(self, method: str, path: str, headers: Mapping[str, str]) -> str | None:
        """Why a request is refused (the one line of its 403), or ``None``: it may pass.

        * ``Host`` ``127.0.0.1:PORT`` (the editor): the token must be the first path segment;
          a state-changing request (any method but GET and HEAD) must come from the editor's own
          page (:meth:`cross_site_problem`).
        * ``Host`` ``localhost:PORT`` (the preview): GET or HEAD under ``/preview/`` only.
        * any other ``Host`` (a DNS-rebound name): refused.
        """
        host = headers.get("Host", "")
        if host == self.preview_host:
            if method not in ("GET", "HEAD") or not path.startswith(f"{PREVIEW_PREFIX}/"):
                return f"the preview's address serves the preview page only (GET {PREVIEW_PREFIX}/)"
            return None
        if host != self.host:
            return "this editor answers only to the address it printed (Host must be " + self.host + ")"
        first = path.split("/", 2)[1] if path.count("/") >= 1 else ""
        if not hmac.compare_digest(first.encode(), self.token.encode()):
            return "a token is needed: open the URL the editor printed"
        if method not in ("GET", "HEAD"):
            return self.cross_site_problem(headers)
        return None

    def cross_site_problem(self, headers: Mapping[str, str]) -> str | None:
        """What shows a state-changing request did not come from the editor's own page, or ``None``.

        Three checks, each enough against a page on another site (a form, ``sendBeacon``, a
        ``no-cors`` fetch): ``Origin`` is the editor's exactly (browsers send it with every POST;
        ``null`` and a missing one are refused); ``Sec-Fetch-Site``, when the engine sends it, is
        ``same-origin``; the header ``X-Flowui-Editor: 1`` is there (a page elsewhere can set it
        only with a CORS preflight, which this server never answers: OPTIONS is refused like any
        other method); and the body is ``application/json``.
        """
        origin = headers.get("Origin")
        if origin != self.origin:
            return f"a state-changing request must come from the editor's page (Origin {origin or 'missing'}, not {self.origin})"
        site = headers.get("Sec-Fetch-Site")
        if site is not None and site != "same-origin":
            return f"a state-changing request must come from the editor's page (Sec-Fetch-Site {site}, not same-origin)"
        if headers.get(EDITOR_HEADER) != "1":
            return f"a state-changing request must carry the editor's header {EDITOR_HEADER}: 1"
        content_type = headers.get("Content-Type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            return "the API accepts application/json only"
        return None

    # ---- pages

    async def _editor_page(self, request: web.Request) -> web.Response:
        nonce = secrets.token_urlsafe(18)
        body = (STATIC_DIR / "editor.html").read_text(encoding="utf-8").replace("{{STYLE_NONCE}}", nonce)
        body = body.replace("{{PREVIEW_URL}}", self.preview_url)
        return web.Response(text=body, content_type="text/html", charset="utf-8",
                            headers={"Content-Security-Policy": editor_csp(nonce, self.preview_origin),
                                     "Cross-Origin-Opener-Policy": "same-origin", "X-Frame-Options": "DENY"})

    async def _preview_page(self, request: web.Request) -> web.Response:
        body = (STATIC_DIR / "preview.html").read_text(encoding="utf-8").replace("{{EDITOR_ORIGIN}}", self.origin)
        # Framed by the editor's origin only (frame-ancestors; no X-Frame-Options, whose SAMEORIGIN
        # would refuse the editor, another origin).
        return web.Response(text=body, content_type="text/html", charset="utf-8",
                            headers={"Content-Security-Policy": preview_csp(self.origin)})

    async def _preview_file(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC_DIR / request.path.rsplit("/", 1)[1])

    # ---- API

    async def _api_session(self, request: web.Request) -> web.Response:
        s = self.session
        disk = s.read_disk()
        exists = disk.sha is not None
        return web.json_response({
            "file": str(s.file), "name": s.file.name, "exists": exists,
            # A file that cannot be shown (disk.problem) shows no text, never the starter's.
            "source": disk.text if disk.text is not None else ("" if exists else s.starter), "sha": disk.sha, "problem": disk.problem,
            "state": s.state if s.state is not None else {}, "fields": s.fields, "theme": s.theme, "blockId": s.block_id,
            "draft": self.draft,
        })

    async def _api_contract(self, request: web.Request) -> web.Response:
        return web.json_response(cheatsheet())

    async def _api_disk(self, request: web.Request) -> web.Response:
        disk = self.session.read_disk()
        return web.json_response({"sha": disk.sha, "problem": disk.problem})

    async def _api_disk_text(self, request: web.Request) -> web.Response:
        return web.json_response(self.session.read_disk().json())

    async def _api_analyze(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        source = body.get("source")
        fields = body.get("fields") or []
        if not isinstance(source, str) or not isinstance(fields, list):
            return web.json_response({"error": "source must be a string and fields a list"}, status=400)
        return web.json_response(await asyncio.get_running_loop().run_in_executor(None, analyze, source, fields))

    async def _api_findings(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        source = body.get("source")
        fields = body.get("fields") or []
        if not isinstance(source, str) or not isinstance(fields, list):
            return web.json_response({"error": "source must be a string and fields a list"}, status=400)
        return web.json_response(await asyncio.get_running_loop().run_in_executor(None, static_findings, source, fields))

    async def _api_json(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        text = body.get("text")
        if not isinstance(text, str):
            return web.json_response({"error": "text must be a string"}, status=400)
        result = parse_state(text)
        # A state that is not accepted is the client's problem: 422, with its one located line.
        return web.json_response(result, status=200 if result["ok"] else 422)

    async def _api_save(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        source, base, force = body.get("source"), body.get("base"), bool(body.get("force"))
        if not isinstance(source, str):
            return web.json_response({"error": "source must be a string"}, status=400)
        size = len(source.encode("utf-8", "surrogatepass"))
        if size > MAX_SOURCE_BYTES:  # the editor (and build) would refuse to open the file
            return web.json_response({"error": f"the text is {size:,} bytes; a block has at most {MAX_SOURCE_BYTES:,} "
                                               f"({MAX_SOURCE_BYTES // 2**20} MiB)"}, status=413)
        disk = self.session.read_disk()
        # A file whose text the page could not show is never written over without the author's word.
        if not force and (disk.problem is not None or disk.sha != base):
            return web.json_response({"conflict": True, **disk.json()}, status=409)
        try:
            write_atomically(self.session.file, source)
        except OSError as exc:
            return web.json_response({"error": f"{self.session.file}: cannot write: {exc.strerror or exc}"}, status=500)
        return web.json_response({"sha": sha256(source)})

    async def _api_review(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        source, fields, state, theme = body.get("source"), body.get("fields") or [], body.get("state") or {}, body.get("theme")
        engines = body.get("engines")
        if not (isinstance(source, str) and isinstance(fields, list) and isinstance(state, dict)
                and (theme is None or isinstance(theme, dict)) and (engines is None or isinstance(engines, list))):
            return web.json_response({"error": "source, fields, state, theme or engines have the wrong type"}, status=400)
        if self._reviewing:
            return web.json_response({"error": "a review is running already"}, status=409)
        self._reviewing = True
        try:
            result = await asyncio.get_running_loop().run_in_executor(
                None, review_in_browsers, source, fields, state, theme, engines, self.session.file.name)
        finally:
            self._reviewing = False
        return web.json_response(result)


def review_in_browsers(source: str, fields: list, state: dict, theme: dict | None, engines: list | None, name: str) -> dict[str, Any]:
    """The whole review (static and in-browser layers, ``flowui_sandbox.sandbox.review.review``) of the text on
    the page, in the engines installed (or ``engines``); its findings and what each engine saw."""
    from flowui_sandbox.sandbox.errors import SandboxError
    from flowui_sandbox.sandbox.review import review
    from flowui_sandbox.sandbox.review.model import BlockInput

    try:
        report = review([BlockInput(file=name, source=source, fields=list(fields), state=dict(state), theme=theme)],
                        engines=engines or None, static_only=False, screenshots=False)  # the page shows none
    except SandboxError as exc:
        return {"error": str(exc), "findings": [], "engines": []}
    block = report.blocks[0]
    browser = block.browser
    return {
        "engines": report.engines,
        "findings": [_finding_json(f) for f in block.findings],
        "timedOut": list(browser.timed_out) if browser else [],
        "requests": list(browser.requests) if browser else [],
        "errors": list(browser.errors) if browser else [],
    }


async def _secure(request: web.Request, response: web.StreamResponse) -> None:
    """Adds the common headers (module doc) to a response about to be sent."""
    for name, value in _COMMON_HEADERS.items():
        response.headers.setdefault(name, value)


def _refuse(text: str) -> web.Response:
    return web.Response(status=403, text=text + "\n", headers=dict(_COMMON_HEADERS))


async def _json_body(request: web.Request) -> dict:
    """The request's JSON object, read by the repository's JSON reader (``flowui_sandbox.sandbox.files.parse_json``:
    depth limit, no NaN, exact integers); a problem is 400 with its one located line."""
    from flowui_sandbox.sandbox.errors import UsageError
    from flowui_sandbox.sandbox.files import parse_json

    try:
        text = (await request.read()).decode("utf-8")
    except UnicodeDecodeError:
        raise _bad_request("request body: not UTF-8") from None
    try:
        body = parse_json(text, "request body")
    except UsageError as exc:
        raise _bad_request(str(exc)) from None
    if not isinstance(body, dict):
        raise _bad_request("request body: must be a JSON object")
    return body


def _bad_request(text: str) -> web.HTTPBadRequest:
    return web.HTTPBadRequest(text=json.dumps({"error": text}), content_type="application/json", headers=dict(_COMMON_HEADERS))


def analyze(source: str, fields: list) -> dict[str, Any]:
    """The generator's view of ``source``: its markup paths (or every problem with
    line:column) and the problems of ``fields``. Fast (the preview waits for it); the review's
    findings come separately (:func:`static_findings`)."""
    from flowui_sandbox.sandbox.block.extract import ExtractionError, extract_paths
    from flowui_sandbox.sandbox.block.srcdoc import check_paths, check_text
    from flowui_sandbox.sandbox.errors import SandboxError

    out: dict[str, Any] = {"paths": None, "problems": [], "fieldProblems": []}
    try:
        check_text(source, "source")
        out["paths"] = extract_paths(source)
    except ExtractionError as exc:
        out["problems"] = [p.to_json() for p in exc.problems]
    except SandboxError as exc:
        out["problems"] = [{"line": None, "column": None, "reason": str(exc)}]
    try:
        check_paths(fields, "fields")
    except SandboxError as exc:
        out["fieldProblems"] = [str(exc)]
    return out


def static_findings(source: str, fields: list) -> dict[str, Any]:
    """The static review's findings (``flowui_sandbox.sandbox.review.review_static``) at their line:column."""
    from flowui_sandbox.sandbox.review import review_static

    fields = [f for f in fields if isinstance(f, str)]
    try:
        findings = review_static(source, file="source", fields=fields)
    except Exception as exc:  # a review bug must not take the editor down: it is shown, not raised
        return {"findings": [], "error": f"the review failed: {type(exc).__name__}: {exc}"}
    return {"findings": [_finding_json(f) for f in findings]}


def _finding_json(finding: Any) -> dict[str, Any]:
    """A finding (pydantic model, dataclass or mapping) as the page's marker needs it."""
    if hasattr(finding, "model_dump"):
        data = finding.model_dump(mode="json")
    elif hasattr(finding, "__dataclass_fields__"):
        from dataclasses import asdict

        data = asdict(finding)
    else:
        data = dict(finding)
    return {k: data.get(k) for k in ("rule", "severity", "message", "line", "column", "layer", "engines")}


#: The name the state pane's text has in its errors (README, "Errors").
STATE_NAME = "state.json"


def parse_state(text: str) -> dict[str, Any]:
    """The state pane's text as a JSON object, or its first problem: ``{"ok": false, "line",
    "column", "message", "error"}`` where ``error`` is the one located line the command line
    prints (``state.json:1:65: nested deeper than 64 objects and arrays``). Read by the
    repository's JSON reader (``flowui_sandbox.sandbox.files.parse_json``), so its rules are ``build``'s."""
    from flowui_sandbox.sandbox.block.srcdoc import _json_type, check_state
    from flowui_sandbox.sandbox.errors import SandboxError, UsageError
    from flowui_sandbox.sandbox.files import parse_json, top_position

    def problem(error: str) -> dict[str, Any]:
        # The reader's line is STATE_NAME:LINE:COL: message (its own format, built from numbers).
        line, column, message = error[len(STATE_NAME) + 1 :].split(":", 2)
        return {"ok": False, "line": int(line), "column": int(column), "message": message.strip(), "error": error}

    try:
        value = parse_json(text, STATE_NAME)
    except UsageError as exc:
        return problem(str(exc))
    if not isinstance(value, dict):
        return problem(f"{STATE_NAME}:{top_position(text)}: the state must be a JSON object, not {_json_type(value)}")
    try:
        check_state(value)
    except SandboxError as exc:
        return problem(f"{STATE_NAME}:{top_position(text)}: {exc}")
    return {"ok": True, "value": value}
