"""A host page in a real browser that mounts blocks with the real host module and records their bridge traffic.

This is what the ``flowui_host`` pytest fixture gives a test (docs/PYTEST.md): mount a block the
way a platform does (``bridge/flow-ui-host.js``'s ``mountHtmlBlock``, served by
:class:`flowui_sandbox.sandbox.harness.server.LocalServer`), act inside it as a user would, and read what it sent
over the bridge: ui-actions, value writes, ``openUrl`` requests and the host's log.

    block = flowui_host.mount(source, block_id="checkout", state=state, answers={"pay": {"ok": True}})
    block.click("#pay")
    assert block.wait_for_traffic("actions")[0]["action"] == "pay"
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..harness.portal import SyncPage
    from ..harness.server import LocalServer

#: The kinds of traffic a :class:`MountedBlock` records, each a list in arrival order:
#: ``actions`` (ui-actions the block sent), ``values`` (``setValue`` writes, ``{blockId, path, value}``),
#: ``urls`` (``openUrl`` requests, ``{blockId, url}``), ``log`` (the host module's log entries,
#: ``{time, blockId, level, code, message, detail?}``, bridge/PROTOCOL.md).
TRAFFIC_KINDS = ("actions", "values", "urls", "log")

HOST_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>flowui host</title>
<style>body{margin:0;font:14px sans-serif}.flowui-slot{margin:4px}</style></head><body>
<script>
window.hostErrors = [];
addEventListener('error', (e) => hostErrors.push(String(e.message)));
addEventListener('unhandledrejection', (e) => hostErrors.push('unhandled rejection: ' + e.reason));
</script>
<script type="module">
import { mountHtmlBlock } from '/bridge/flow-ui-host.js';
const copy = (v) => JSON.parse(JSON.stringify(v === undefined ? null : v));
const H = window.flowuiHost = { handles: {}, traffic: {} };
H.mount = (spec, rules) => {
  const id = spec.blockId;
  const traffic = H.traffic[id] = { actions: [], values: [], urls: [], log: [] };
  const slot = document.createElement('div');
  slot.className = 'flowui-slot';
  document.body.appendChild(slot);
  const options = Object.assign({}, spec, {
    onLog: (entry) => { traffic.log.push(copy(entry)); },
    onAction: (action) => {
      traffic.actions.push(copy(action));
      return Object.prototype.hasOwnProperty.call(rules.answers, action.action) ? rules.answers[action.action] : null;
    },
    onValue: (write) => { traffic.values.push(copy(write)); if (rules.refuseValues.includes(write.path)) return false; },
    onOpenUrl: (request) => { traffic.urls.push(copy(request)); return rules.openUrls ? undefined : false; },
  });
  try {
    H.handles[id] = mountHtmlBlock(slot, options);
  } catch (e) {
    return e.name + ': ' + e.message;
  }
  return null;
};
H.ready = true;
</script></body></html>"""


def block_frame(block_id: str) -> str:
    """The CSS selector of a mounted block's iframe."""
    return f"iframe[data-block-id={json.dumps(block_id)}]"


class MountedBlock:
    """One block mounted in a :class:`BlockHost`; its traffic is read from the host page on each access."""

    def __init__(self, host: BlockHost, block_id: str):
        self.host = host
        self.id = block_id
        self.frame = block_frame(block_id)

    # --- inside the block
    def evaluate(self, script: str, arg: Any = None, *, timeout: float = 10) -> Any:
        """Run a JavaScript function expression in the block's frame (``"() => document.title"``)."""
        return self.host.page.evaluate(script, arg, frame=self.frame, timeout=timeout)

    def wait_for(self, script: str, arg: Any = None, *, timeout: float = 10) -> Any:
        """Evaluate ``script`` in the block's frame until it returns something truthy, and return that."""
        return self.host.page.wait_for(script, arg, frame=self.frame, timeout=timeout)

    def click(self, selector: str, *, timeout: float = 10) -> None:
        """A real user click (a user gesture) on ``selector`` inside the block."""
        self.host.page.click(selector, frame=self.frame, timeout=timeout)

    # --- from the host
    def _handle(self, script: str, arg: Any = None) -> Any:
        return self.host.page.evaluate(
            "([id, arg]) => { const h = window.flowuiHost.handles[id]; return (" + script + ")(h, arg); }", [self.id, arg]
        )

    @property
    def status(self) -> str:
        """The host module's status of the block: ``loading``, ``connected``, ``navigated`` or ``destroyed``."""
        return self._handle("(h) => h.status")

    def set_state(self, state: dict[str, Any]) -> None:
        """Push a new whole state (the host module projects it and sends the block what changed)."""
        self._handle("(h, state) => { h.setState(state); }", state)

    def patch(self, ops: list[dict[str, Any]]) -> None:
        """Apply JSON Patch operations to the state the block was mounted with."""
        self._handle("(h, ops) => { h.patch(ops); }", ops)

    def set_theme(self, theme: dict[str, Any] | None) -> None:
        """Push a new theme (``{"color-scheme": "dark", ...}``) without reloading the block."""
        self._handle("(h, theme) => { h.setTheme(theme); }", theme)

    def destroy(self) -> None:
        self._handle("(h) => { h.destroy(); }")

    # --- bridge traffic
    def traffic(self) -> dict[str, list[Any]]:
        """Everything the block's bridge carried so far, by kind (:data:`TRAFFIC_KINDS`)."""
        return self.host.page.evaluate("(id) => window.flowuiHost.traffic[id]", self.id)

    @property
    def actions(self) -> list[dict[str, Any]]:
        """The ui-actions the block sent (``flowUi.send``), as the host's ``onAction`` got them."""
        return self.traffic()["actions"]

    @property
    def values(self) -> list[dict[str, Any]]:
        """The value writes (``flowUi.setValue``) the host's ``onValue`` got: ``{blockId, path, value}``."""
        return self.traffic()["values"]

    @property
    def urls(self) -> list[dict[str, Any]]:
        """The ``flowUi.openUrl`` requests the host's ``onOpenUrl`` got: ``{blockId, url}``."""
        return self.traffic()["urls"]

    @property
    def log(self) -> list[dict[str, Any]]:
        """The host module's log entries for this block (refusals, errors, CSP violations, ...)."""
        return self.traffic()["log"]

    def codes(self) -> list[str]:
        """The ``code`` of each log entry, in order (``connected``, ``action``, ``refused``, ...)."""
        return [entry["code"] for entry in self.log]

    def wait_for_traffic(self, kind: str, count: int = 1, *, timeout: float = 10) -> list[Any]:
        """Wait until ``count`` entries of ``kind`` arrived; return all of that kind."""
        if kind not in TRAFFIC_KINDS:
            raise ValueError(f"kind {kind!r}: choose from {', '.join(TRAFFIC_KINDS)}")
        return self.host.page.wait_for(
            "([id, kind, count]) => { const t = window.flowuiHost.traffic[id][kind]; return t.length >= count && t; }",
            [self.id, kind, count], timeout=timeout,
        )


    def wait_for_log(self, code: str, *, timeout: float = 10) -> dict[str, Any]:
        """Wait for the host's first log entry with ``code`` (``csp-violation``, ``refused``, ...) and return it."""
        return self.host.page.wait_for(
            "([id, code]) => window.flowuiHost.traffic[id].log.find((entry) => entry.code === code)",
            [self.id, code], timeout=timeout,
        )


class BlockHost:
    """A host page, opened on ``page`` from ``server``, that mounts blocks with ``bridge/flow-ui-host.js``."""

    def __init__(self, page: SyncPage, server: LocalServer):
        self.page = page
        self.server = server
        page.goto(server.add_page(HOST_PAGE))
        page.wait_for("() => window.flowuiHost && window.flowuiHost.ready")

    def mount(
        self,
        source: str,
        *,
        block_id: str = "block",
        state: dict[str, Any] | None = None,
        theme: dict[str, Any] | None = None,
        fields: list[str] | tuple[str, ...] = (),
        srcdoc: str | None = None,
        answers: dict[str, Any] | None = None,
        refuse_values: list[str] | tuple[str, ...] = (),
        open_urls: bool = False,
        connect: bool = True,
        timeout: float = 15,
        **options: Any,
    ) -> MountedBlock:
        """Mount ``source`` as block ``block_id`` and (unless ``connect=False``) wait until it is connected.

        The host module builds the srcdoc from ``source`` (the bytes ``flowui_sandbox.sandbox.block.srcdoc`` writes),
        unless ``srcdoc`` is given: then that document, e.g. one your own generator built, is
        mounted as it is. ``answers`` maps a ui-action name to what ``onAction`` returns to the
        block; a write to a path in ``refuse_values`` is refused; ``openUrl`` is refused unless
        ``open_urls``. Other ``options`` go to ``mountHtmlBlock`` as they are (``autoHeight``, ``site``, ...).
        """
        spec: dict[str, Any] = {"blockId": block_id, "state": state or {}, "theme": theme, **options}
        if srcdoc is None:
            spec.update(source=source, fields=list(fields))
        else:
            spec["srcdoc"] = srcdoc
        rules = {"answers": answers or {}, "refuseValues": list(refuse_values), "openUrls": open_urls}
        error = self.page.evaluate("([spec, rules]) => window.flowuiHost.mount(spec, rules)", [spec, rules])
        if error is not None:
            raise ValueError(f"mountHtmlBlock refused block {block_id!r}: {error}")
        block = MountedBlock(self, block_id)
        if connect:
            self.page.wait_for(
                "(id) => { const status = window.flowuiHost.handles[id].status; return status !== 'loading' && status; }",
                block_id, timeout=timeout,
            )
            if block.status != "connected":
                raise AssertionError(f"block {block_id!r} did not connect: status {block.status!r}, log {block.codes()}")
        return block

    def errors(self) -> list[str]:
        """Errors thrown on the host page itself (none expected: nothing a block sends may make the host throw)."""
        return self.page.evaluate("() => window.hostErrors")
