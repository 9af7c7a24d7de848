"""The host page of one run: the secrets a block must not reach (cookies are the servers'),
the blocks (static iframes from the generator, or mounted by the bridge's host module), and
the run's template values (URLs, token, secrets) that probes and the page share.

A run either loads a host page made for it (:func:`host_page`), or mounts its blocks in the
host page its page slot keeps (:func:`kept_host_page`, :data:`MOUNT`), which first takes the
run's URL, title, secret element, storage and cookies: loading a page per run costs about a
third of verify's CPU (docs/SCALE.md). Both run the same script, :data:`_HOST_CORE`."""

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


#: What every host page runs first, whichever way its blocks arrive. The listeners record into
#: the current run's record, ``window.__host``, which a kept page replaces at each mount.
_HOST_CORE = """(() => {
  const copy = (v) => { try { return JSON.parse(JSON.stringify(v)); } catch (e) { return String(v); } };
  let last = performance.now();
  setInterval(() => { const h = window.__host, now = performance.now(); if (h) h.maxGap = Math.max(h.maxGap, now - last); last = now; }, 50);
  addEventListener('message', (e) => { const h = window.__host; if (h && h.messages.length < 50) h.messages.push({origin: e.origin, data: copy(e.data)}); });
  addEventListener('error', (e) => { const h = window.__host; if (h) h.errors.push(String(e.message)); });
  const settled = () => { const h = window.__host; h.historyLength = history.length; h.maxGap = 0; last = performance.now(); };
  // A run's record: its secrets (init) and what the host saw; storage holds this run's secrets.
  window.__hostStart = (init) => {
    const h = window.__host = Object.assign(init, {ready: false, maxGap: 0, messages: [], log: [], actions: [],
      values: [], urls: [], errors: [], handles: []});
    h.title = document.title;
    try { localStorage.setItem('flowui_secret', h.ls); sessionStorage.setItem('flowui_secret', h.ss); }
    catch (e) { h.errors.push('storage: ' + e); }
    return h;
  };
  // A loaded host page: ready at its load event (bridge blocks: once connected, __hostBridge).
  window.__hostLoaded = () => { settled(); if (!window.__host.bridge) window.__host.ready = true; };
  window.__hostBridge = (mountHtmlBlock) => {
    const h = window.__host;
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
  };
  // A kept host page (docs/SCALE.md): the last run's blocks go, this run's secrets and blocks come.
  // run: {url, title, cookies, init, iframes}: iframes are the static blocks' HTML, or null (bridge).
  window.__hostMount = async (run) => {
    const old = window.__host;
    for (const x of (old && old.handles) || []) { try { x && x.destroy(); } catch (e) {} }
    for (const d of document.querySelectorAll('.flowui-block')) d.remove();
    delete window.__pwned; delete document.body.dataset.pwned;
    history.replaceState(null, '', run.url);
    document.title = run.title;
    document.getElementById('secret').textContent = run.init.dom;
    const h = window.__hostStart(run.init);
    await fetch(run.cookies, {credentials: 'same-origin', cache: 'no-store'});  // this run's host cookies
    settled();
    let at = document.getElementById('secret');  // blocks follow it, as in a loaded host page
    (run.iframes || h.blocks).forEach((html, i) => {
      const d = document.createElement('div');
      d.className = 'flowui-block'; d.id = 'block-' + i;
      if (run.iframes) d.innerHTML = html;
      at.after(d); at = d;
    });
    if (h.bridge) {
      window.__hostBridge((await import('/bridge/flow-ui-host.js')).mountHtmlBlock);
    } else {
      const loads = [...document.querySelectorAll('.flowui-block iframe')]
        .map((f) => new Promise((resolve) => f.addEventListener('load', resolve, {once: true})));
      Promise.race([Promise.all(loads), new Promise((resolve) => setTimeout(resolve, 5000))]).then(() => { h.ready = true; });
    }
    return history.length;
  };
})();"""

#: The kept page's mount call (its argument: :func:`mount_run`); answers the tab's history length.
MOUNT = "(run) => window.__hostMount(run)"

_STYLE = "<style>.flowui-block iframe{width:600px;height:200px;border:1px solid #888}</style>"


def _init(probe: Probe, values: dict[str, str], blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "nonce": values["host_nonce"], "dom": values["secret_dom"], "ls": values["secret_local_storage"],
        "ss": values["secret_session_storage"], "bridge": probe.bridge, "blocks": blocks if probe.bridge else [],
    }


def host_page(probe: Probe, values: dict[str, str], iframes: list[str] | None, blocks: list[dict[str, Any]]) -> str:
    """The host page of one run, loaded for it alone (a probe that needs its own page, docs/SCALE.md)."""
    nonce = values["host_nonce"]
    parts = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        f"<title>{values['secret_title']}</title>",
        f'<script nonce="{nonce}">{_HOST_CORE}\n__hostStart({_js(_init(probe, values, blocks))});'
        " addEventListener('load', __hostLoaded);</script>",
        _STYLE,
        f'</head><body><h1>host</h1><p id="secret">{values["secret_dom"]}</p>',
    ]
    for i in range(len(blocks)):
        parts.append(f'<div class="flowui-block" id="block-{i}">{iframes[i] if iframes else ""}</div>')
    if probe.bridge:
        parts.append(f"<script type=\"module\" nonce=\"{nonce}\">import {{ mountHtmlBlock }} from '/bridge/flow-ui-host.js';"
                     " window.__hostBridge(mountHtmlBlock);</script>")
    parts.append(render(probe.host_html, values))
    parts.append("</body></html>")
    return "".join(parts)


def kept_host_page() -> str:
    """The host page a page slot keeps: no run's secrets, no blocks, until :data:`MOUNT` brings them."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>host</title>'
        f"<script>{_HOST_CORE}</script>{_STYLE}"
        f'</head><body><h1>host</h1><p id="secret"></p></body></html>'
    )


def mount_run(probe: Probe, values: dict[str, str], iframes: list[str] | None, blocks: list[dict[str, Any]],
              url: str, cookies: str) -> dict[str, Any]:
    """The argument of :data:`MOUNT`: the page takes ``url`` (the run's own, as a loaded host page
    would have), the run's title, cookies (a request to ``cookies`` sets them) and blocks."""
    return {"url": url, "title": values["secret_title"], "cookies": cookies,
            "init": _init(probe, values, blocks), "iframes": iframes}


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
        "secret_path": f"path-secret-{token}",
        "secret_fragment": f"frag-secret-{token}",
        "secret_hidden_state": f"hidden-secret-{token}",
        "secret_host_origin": host.base_url,
    }
    values["alive"] = f"new Image().src='{values['canary']}/log/{token}/alive.gif'"
    return values


__all__ = ["FRAME", "MOUNT", "host_page", "kept_host_page", "make_values", "mount_run"]
