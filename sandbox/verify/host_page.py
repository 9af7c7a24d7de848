"""The host page of one run: the secrets a block must not reach (cookies are the servers'),
the blocks (static iframes from the generator, or mounted by the bridge's host module), and
the run's template values (URLs, token, secrets) that probes and the page share."""

from __future__ import annotations

import json
import secrets as _secrets
from typing import Any

from .probes import Probe, render
from .servers import Servers, Taps, cookie_value

#: The iframe of block ``i`` in the host page.
FRAME = "#block-{i} iframe"


def _js(value: Any) -> str:
    """JSON for inside a host page <script> (no '</' can close it)."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_HOST_SETUP = """(() => {
  const h = window.__host = Object.assign(%(init)s, {ready: false, maxGap: 0, messages: [], log: [], actions: [],
    values: [], urls: [], errors: [], handles: []});
  h.title = document.title;
  try { localStorage.setItem('flowui_secret', h.ls); sessionStorage.setItem('flowui_secret', h.ss); }
  catch (e) { h.errors.push('storage: ' + e); }
  let last = performance.now();
  setInterval(() => { const now = performance.now(); h.maxGap = Math.max(h.maxGap, now - last); last = now; }, 50);
  const copy = (v) => { try { return JSON.parse(JSON.stringify(v)); } catch (e) { return String(v); } };
  addEventListener('message', (e) => { if (h.messages.length < 50) h.messages.push({origin: e.origin, data: copy(e.data)}); });
  addEventListener('error', (e) => h.errors.push(String(e.message)));
  addEventListener('load', () => { h.historyLength = history.length; h.maxGap = 0; last = performance.now(); if (!h.bridge) h.ready = true; });
})();"""

_BRIDGE_MOUNT = """import { mountHtmlBlock } from '/bridge/flow-ui-host.js';
const h = window.__host;
const copy = (v) => { try { return JSON.parse(JSON.stringify(v)); } catch (e) { return String(v); } };
try {
  h.blocks.forEach((b, i) => {
    // b.srcdoc: the document an external generator built (verify --generator-protocol json).
    const doc = b.srcdoc ? {srcdoc: b.srcdoc} : {source: b.source, blockId: b.block_id, fields: b.fields};
    h.handles[i] = mountHtmlBlock(document.getElementById('block-' + i), {
      ...doc, state: b.state, theme: b.theme || undefined,
      onAction: (a) => { h.actions.push(copy(a)); return {ok: true}; },
      onValue: (v) => { h.values.push(copy(v)); },
      // Refused after recording: the harness sees what reached the host without opening windows.
      onOpenUrl: (u) => { h.urls.push(copy(u)); return false; },
      onLog: (entry) => { if (h.log.length < 200) h.log.push(copy(entry)); },
    });
  });
} catch (e) { h.errors.push('mount: ' + e); }
// Ready when every block is connected (its handle's promise), or after 5 s, recorded as not connected.
Promise.race([
  Promise.all(h.handles.map((x) => x && x.ready)).then(() => 'connected'),
  new Promise((resolve) => setTimeout(() => resolve('not connected within 5 s'), 5000)),
]).then((how) => { h.connected = how; h.ready = true; });
"""


def host_page(probe: Probe, values: dict[str, str], iframes: list[str] | None, blocks: list[dict[str, Any]]) -> str:
    init = {
        "nonce": values["host_nonce"], "dom": values["secret_dom"], "ls": values["secret_local_storage"],
        "ss": values["secret_session_storage"], "bridge": probe.bridge, "blocks": blocks if probe.bridge else [],
    }
    nonce = values["host_nonce"]
    parts = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        f"<title>{values['secret_title']}</title>",
        f'<script nonce="{nonce}">{_HOST_SETUP % {"init": _js(init)}}</script>',
        "<style>.flowui-block iframe{width:600px;height:200px;border:1px solid #888}</style>",
        f'</head><body><h1>host</h1><p id="secret">{values["secret_dom"]}</p>',
    ]
    for i in range(len(blocks)):
        parts.append(f'<div class="flowui-block" id="block-{i}">{iframes[i] if iframes else ""}</div>')
    if probe.bridge:
        parts.append(f'<script type="module" nonce="{nonce}">{_BRIDGE_MOUNT}</script>')
    parts.append(render(probe.host_html, values))
    parts.append("</body></html>")
    return "".join(parts)


def make_values(servers: Servers, token: str, taps: Taps, https: bool) -> dict[str, str]:
    host = servers.host if https else servers.host_http
    values = {
        "token": token,
        "canary": servers.canary.base_url,
        "canary_http": servers.canary_http.base_url,
        "host": host.base_url,
        "host_http": servers.host_http.base_url,
        # On the canary's name: the tap is another site than the host, as an attacker's server would be.
        "tap": f"https://{servers.canary.public_host}:{taps.tcp_port}",
        "tap_host": servers.host.public_host,
        "udp_port": str(taps.udp_port),
        "host_nonce": _secrets.token_hex(8),
        "secret_cookie": cookie_value("fs_lax", token),
        "secret_local_storage": f"ls-secret-{token}",
        "secret_session_storage": f"ss-secret-{token}",
        "secret_dom": f"dom-secret-{token}",
        "secret_title": f"title-secret-{token}",
        "secret_location": f"loc-secret-{token}",
        "secret_hidden_state": f"hidden-secret-{token}",
        "secret_host_origin": host.base_url,
    }
    values["alive"] = f"new Image().src='{values['canary']}/log/{token}/alive.gif'"
    return values


__all__ = ["FRAME", "host_page", "make_values"]
