"""The host page of one run: the secrets a block must not reach (cookies are the servers'),
the blocks (static iframes from the generator, or mounted by the bridge's host module), and
the run's template values (URLs, token, secrets) that probes and the page share.

A run either loads a host page made for it (:func:`host_page`), or mounts its blocks in the
host page its page slot keeps (:func:`kept_host_page`, :data:`MOUNT`), which first takes the
run's URL, title, secret element, storage and cookies: loading a page per run costs about a
third of verify's CPU (docs/SCALE.md). Both run the same script, :data:`HOST_SCRIPT`
(``host-page.js``); the page gives it the run's values as JSON, in one-line calls."""

from __future__ import annotations

import functools
import json
import secrets as _secrets
from pathlib import Path
from typing import Any

from ..data import shipped_script
from .probes import Probe, render
from .servers import Servers, Taps, cookie_value

#: The iframe of block ``i`` in the host page.
FRAME = "#block-{i} iframe"


def _js(value: Any) -> str:
    """JSON for inside a host page <script> (no '</' can close it)."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


#: What every host page runs first, whichever way its blocks arrive (a classic script: it records
#: into the current run's record, ``window.__host``, which a kept page replaces at each mount).
HOST_SCRIPT = Path(__file__).resolve().parent / "host-page.js"


@functools.cache
def _host_script() -> str:
    return shipped_script(HOST_SCRIPT).rstrip("\n")


#: What :data:`MOUNT` answers in a document that is not the kept host page.
NOT_KEPT = "not the kept host page"
#: The kept page's mount call (its argument: :func:`mount_run`); answers the tab's history length,
#: or :data:`NOT_KEPT` where the window shows another document (seen once in WebKitGTK: the call
#: found no ``__hostMount`` in three runs in a row, a harness error each time).
MOUNT = f"(run) => typeof window.__hostMount === 'function' ? window.__hostMount(run) : {NOT_KEPT!r}"

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
        f'<script nonce="{nonce}">{_host_script()}\n__hostStart({_js(_init(probe, values, blocks))});'
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
        f"<script>{_host_script()}</script>{_STYLE}"
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


__all__ = ["FRAME", "HOST_SCRIPT", "MOUNT", "NOT_KEPT", "host_page", "kept_host_page", "make_values", "mount_run"]
