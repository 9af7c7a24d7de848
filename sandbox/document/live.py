"""A small page server that runs one client's :class:`.session.Session` over the wire in a browser.

``GET /live/`` is a host page: it reads the document (``GET /live/document``), opens the
downlink (``GET /live/events``, Server-Sent Events, one ``TaskArtifactUpdateEvent`` per
event), keeps the state it is told (snapshot, then patches, with the host module's
``applyPatch``), mounts the html blocks of its current page and of the slots rendered on it
with the host module (``bridge/flow-ui-host.js``, ``mountHtmlBlock``), and sends every
ui-action a block makes up as one A2A Message (``POST /live/message``). The client checks
every downlink part as the server does (a ``kind`` or ``mediaType`` it does not know is a
protocol error, recorded in ``window.wire.errors``).

The server side drives the session: :meth:`LiveServer.step` (a new state),
:meth:`LiveServer.navigate`, :meth:`LiveServer.render`. What it told the client is kept in
:attr:`LiveServer.told` (the client's state after each state part), what it refused in
:attr:`LiveServer.refused`.

    python -m flowui_sandbox.sandbox.document.live DOC.json STATE.json   # prints the page's URL
"""

from __future__ import annotations

import asyncio
import copy
import json
import sys
from typing import Any

from aiohttp import web

from ..errors import SandboxError, UsageError
from ..files import read_text
from ..harness.server import LocalServer
from .action import UiActionRefused
from .command import MAX_DOCUMENT_BYTES, MAX_STATE_BYTES
from .jsontext import load_json
from .session import Session
from .wire import MAX_UP_NODES, WireError, text_over_nodes

HOST_PAGE = r"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>flow ui: live</title>
<style>body{margin:0;font:14px sans-serif}.block{margin:4px}</style></head><body>
<div id="page"></div>
<script type="module">
import { mountHtmlBlock, applyPatch } from '/bridge/flow-ui-host.js';
import { checkDownEvent, uiActionMessage } from '/bridge/flow-ui-wire.js';
const W = window.wire = { state: null, page: null, rendered: {}, told: [], text: [], errors: [], handles: {}, events: 0,
  answers: [], mounts: 0 };
const doc = await (await fetch('/live/document')).json();
W.page = doc.start_page_id;
let ids = null;

// The blocks of a page (layout blocks walked), then those rendered into its slots and conversation.
function pageBlocks(pageId) {
  const out = [];
  const walk = (blocks) => { for (const b of blocks) {
    out.push(b);
    if (b.blocks) walk(b.blocks);
    for (const c of b.columns || []) walk(c.blocks);
    for (const t of b.tabs || []) walk(t.blocks);
    if ((b.type === 'slot' || b.type === 'conversation') && W.rendered[b.block_id]) walk(W.rendered[b.block_id]);
  } };
  walk(doc.pages.find((p) => p.page_id === pageId).blocks);
  return out;
}

const send = (action) => W.post(uiActionMessage(action, ids));
W.post = async (message) => {
  const response = await fetch('/live/message', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
  const answer = await response.json();
  W.answers.push(answer);
  return answer;
};

function mountPage() {
  for (const handle of Object.values(W.handles)) handle.destroy();
  W.handles = {};
  const root = document.getElementById('page');
  root.textContent = '';
  for (const b of pageBlocks(W.page)) {
    if (b.type !== 'html') continue;
    const box = document.createElement('div');
    box.className = 'block';
    root.appendChild(box);
    W.handles[b.block_id] = mountHtmlBlock(box, { source: b.source, blockId: b.block_id, fields: b.fields || [],
      state: W.state || {}, onAction: send, onLog: (entry) => { if (entry.level === 'error') W.errors.push(entry.code + ': ' + entry.message); } });
    W.mounts += 1;
  }
}

// Every event is checked first (bridge/flow-ui-wire.js, the twin of the server's check_down):
// a kind or mediaType it does not know is a protocol error, recorded, never guessed at.
function apply(event) {
  const parts = checkDownEvent(event);
  ids = ids || { contextId: event.contextId, taskId: event.taskId };
  let changed = false, remount = false;
  parts.forEach(({ kind, part }, i) => {
    if (kind === 'snapshot') { W.state = part.data; changed = true; }
    else if (kind === 'patch') {
      if (W.state === null) throw new Error(`artifact.parts[${i}]: a patch before the snapshot`);
      W.state = applyPatch(W.state, part.data); changed = true;
    } else if (kind === 'ui' && part.data.kind === 'navigate') { W.page = part.data.page_id; remount = true; }
    else if (kind === 'ui') {
      const target = doc.pages.flatMap((p) => pageBlocks(p.page_id)).find((b) => b.block_id === part.data.slot_id);
      if (!target) throw new Error(`artifact.parts[${i}].data.slot_id: no slot ${JSON.stringify(part.data.slot_id)}`);
      W.rendered[part.data.slot_id] = target.type === 'slot' ? part.data.blocks : (W.rendered[part.data.slot_id] || []).concat(part.data.blocks);
      remount = true;
    } else W.text.push(part.text);
  });
  if (changed) W.told.push(JSON.stringify(W.state));
  if (remount) mountPage();
  else if (changed) for (const handle of Object.values(W.handles)) handle.setState(W.state);
  W.events += 1;
}

const source = new EventSource('/live/events');
source.onmessage = (e) => { try { apply(JSON.parse(e.data)); } catch (error) { W.errors.push(String(error.message || error)); W.events += 1; } };
source.onerror = () => { if (source.readyState === EventSource.CLOSED) W.errors.push('the event stream closed'); };
mountPage();
W.ready = true;
</script></body></html>
"""


class LiveServer(LocalServer):
    """A :class:`LocalServer` (so ``/bridge/`` is served) with one live session at ``/live/``.

    ``leak=True`` (tests only) tells the client the whole state instead of its projection."""

    def __init__(self, document: Any, state: dict[str, Any], *, leak: bool = False, frozen: tuple[str, ...] = ()):
        super().__init__()
        self.session = Session(document, context_id="ctx-live", task_id="task-live", frozen=frozen, leak=leak)
        self.state = copy.deepcopy(state)
        #: The client's state after each state part the server sent (compact JSON, as the page records it).
        self.told: list[str] = []
        #: Every event sent, in order.
        self.sent: list[dict[str, Any]] = []
        #: Accepted and refused upward messages: (message, writes) and (message, reason codes or problems).
        self.accepted: list[tuple[dict, list]] = []
        self.refused: list[tuple[dict, list[str]]] = []
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._connected = False
        self.app.router.add_get("/live/", self._host)
        self.app.router.add_get("/live/document", self._document)
        self.app.router.add_get("/live/events", self._events)
        self.app.router.add_post("/live/message", self._message)

    @property
    def url(self) -> str:
        return f"{self.base_url}/live/"

    def _push(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            if event["artifact"]["artifactId"] == "state":
                told = self.session.told
                self.told.append(json.dumps(told, ensure_ascii=False, separators=(",", ":")))
            self.sent.append(event)
            self._queue.put_nowait(event)

    async def step(self, state: dict[str, Any]) -> int:
        """A new state; returns how many events it sent."""
        self.state = copy.deepcopy(state)
        events = self.session.update(self.state)
        self._push(events)
        return len(events)

    async def navigate(self, page_id: str) -> int:
        events = self.session.navigate(page_id)
        self._push(events)
        return len(events)

    async def render(self, slot_id: str, blocks: list[dict[str, Any]]) -> int:
        events = self.session.render(slot_id, blocks)
        self._push(events)
        return len(events)

    async def push_raw(self, event: dict[str, Any]) -> None:
        """Send ``event`` as it is, unchecked (tests: the client's side of the protocol check)."""
        self.sent.append(event)
        self._queue.put_nowait(event)

    async def _host(self, request: web.Request) -> web.Response:
        return web.Response(text=HOST_PAGE, content_type="text/html", headers={"cache-control": "no-store"})

    async def _document(self, request: web.Request) -> web.Response:
        return web.json_response(self.session.document)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        if self._connected:
            return web.Response(status=409, text="one client per live server")
        self._connected = True
        response = web.StreamResponse(headers={"content-type": "text/event-stream", "cache-control": "no-store"})
        await response.prepare(request)
        # The session's first event is the snapshot; the ui and state events follow in order.
        events = self.session.start(self.state)
        self.sent, self.told = [], []
        self._push(events)
        closing = asyncio.ensure_future(self._closing.wait())
        try:
            while True:
                getting = asyncio.ensure_future(self._queue.get())
                done, _ = await asyncio.wait({getting, closing}, return_when=asyncio.FIRST_COMPLETED)
                if getting not in done:
                    getting.cancel()
                    break
                text = json.dumps(getting.result(), ensure_ascii=False, separators=(",", ":"))
                # a lone surrogate has no UTF-8: written as the JSON escape \udxxx, the same string
                await response.write(f"data: {text}\n\n".encode("utf-8", "backslashreplace"))
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            closing.cancel()
        return response

    async def _message(self, request: web.Request) -> web.Response:
        try:  # the bytes, decoded here: request.text() decodes by the header's charset and raises on a bad byte
            text = message_text(await request.read(), request.charset)
        except UsageError as exc:
            return web.json_response({"accepted": False, "problems": [str(exc)]}, status=400)
        if text_over_nodes(text):  # before parsing: what check_up would refuse, refused in milliseconds
            return web.json_response({"accepted": False, "problems": [f"more than {MAX_UP_NODES:,} JSON values; "
                                                                      "an upward message has at most that many"]}, status=400)
        try:  # the project's reader: bounded depth, numbers JavaScript holds, one located line
            message = load_json(text, "message")
        except UsageError as exc:
            return web.json_response({"accepted": False, "problems": [str(exc)]}, status=400)
        try:
            received = self.session.receive(message)
        except UiActionRefused as exc:
            self.refused.append((message, exc.codes))
            return web.json_response({"accepted": False, "codes": exc.codes, "problems": [str(r) for r in exc.refusals]}, status=422)
        except WireError as exc:
            self.refused.append((message, exc.wheres))
            return web.json_response({"accepted": False, "problems": [f"{w}: {m}" for w, m in exc.problems]}, status=400)
        writes = received.result.writes if received.result is not None else []
        self.accepted.append((message, writes))
        if writes:
            self._push(self.session.apply(writes))
            assert self.session.state is not None
            self.state = self.session.state
        return web.json_response({"accepted": True})


def message_text(body: bytes, charset: str | None) -> str:
    """The text of an upward message's body: JSON is UTF-8 (RFC 8259), so the body is read as
    UTF-8 whatever it is labelled, and a ``charset`` other than ``utf-8`` is refused, as is a byte
    that is not UTF-8; each :class:`UsageError` is one line, ``message:LINE:COLUMN`` for a bad byte."""
    if charset is not None and charset.strip().lower() not in ("utf-8", "utf8"):
        shown = charset if len(charset) <= 40 else charset[:40] + "…"
        raise UsageError(f"message: charset {shown!r}: a message is JSON in UTF-8 (charset=utf-8, or none)")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        head = body[: exc.start]
        line = head.count(b"\n") + 1
        column = len(head[head.rfind(b"\n") + 1:].decode("utf-8")) + 1
        raise UsageError(f"message:{line}:{column}: not UTF-8 (byte 0x{body[exc.start]:02X} at offset {exc.start}); "
                         "a message is JSON in UTF-8") from None


async def _serve(document: Any, state: dict[str, Any]) -> None:
    server = LiveServer(document, state)
    await server.start()
    print(server.url, flush=True)
    await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m flowui_sandbox.sandbox.document.live DOC.json STATE.json", file=sys.stderr)
        return 2
    loaded = []
    for name, limit in zip(args, (MAX_DOCUMENT_BYTES, MAX_STATE_BYTES)):
        try:  # as the document and diff commands read them
            loaded.append(load_json(read_text(name, limit=limit), name))
        except UsageError as exc:
            print(str(exc).splitlines()[0], file=sys.stderr)
            return 2
    document, state = loaded
    if not isinstance(state, dict):
        print(f"{args[1]}: the state is a JSON object", file=sys.stderr)
        return 2
    try:
        asyncio.run(_serve(document, state))
    except SandboxError as exc:
        print(f"{args[0]}: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["LiveServer", "HOST_PAGE", "main", "message_text"]
