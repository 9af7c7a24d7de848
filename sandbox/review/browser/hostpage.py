"""The host page a reviewed block is mounted in: the real host module, callbacks that record.

The block's document is built by the real generator (:func:`flowui_sandbox.sandbox.block.srcdoc.build_srcdoc`)
and mounted with ``mountHtmlBlock({srcdoc, ...})`` from ``/bridge/flow-ui-host.js``, as
``build --page`` does. A page slot loads the host page once and mounts block after block
in it (:data:`MOUNT`), each with a fresh record. Everything the host sees goes to
``window.__review``, which the harness reads from outside the block's frame:

* ``actions`` (onAction: the ui-action), ``values`` (onValue), ``urls`` (onOpenUrl:
  recorded and let through to a stand-in ``window.open``, so the block is told "opened", as
  by a host that opens URLs, and no window opens), ``log`` (onLog: refusals, CSP
  violations and errors the runtime reports, height loops, navigation);
* ``maxGap``: the longest stall of a 50 ms timer of the host page (a block busy on the
  main thread stalls its host in every engine: a sandboxed srcdoc frame shares its
  parent's process);
* ``heights``: the frame's heights as the host module applied them.
"""

from __future__ import annotations

#: Items kept per list in ``window.__review`` (a flood is counted by the host's own rate limit).
MAX_ITEMS = 200

_SCRIPT = """import { mountHtmlBlock } from '/bridge/flow-ui-host.js';
const keep = (list, item) => { if (list.length < %(max)d) list.push(item); };
const copy = (v) => { try { const t = JSON.stringify(v); return t.length > 20000 ? t.slice(0, 20000) : JSON.parse(t); } catch (e) { return String(v); } };
// openUrl is recorded and answered as a host that opens URLs answers ("opened"), but the window
// is a stand-in: an inert document, so the host module's link click in it goes nowhere.
window.open = () => ({ opener: null, closed: false, close() {}, document: document.implementation.createHTMLDocument('') });
let r = null, sizes = null, last = performance.now();
setInterval(() => { const now = performance.now(); if (r) r.maxGap = Math.max(r.maxGap, now - last); last = now; }, 50);
// One page, many blocks: each mount starts a fresh record and destroys the last block first.
window.__reviewMount = (config) => {
  if (r && r.handle) r.handle.destroy();
  if (sizes) sizes.disconnect();
  const box = document.getElementById('block');
  box.replaceChildren();
  document.body.style.background = config.background;
  scrollTo(0, 0);
  const own = r = window.__review = { ready: false, connected: '', actions: [], values: [], urls: [], log: [], errors: [],
    heights: [], maxGap: 0 };
  last = performance.now();
  try {
    own.handle = mountHtmlBlock(box, {
      srcdoc: config.srcdoc,
      // With the holder frame, as a host page mounts a block: the block's base URL is about:blank
      // and its parent is the holder, as in production (docs/REVIEW-BROWSER.md, "The host page").
      onAction: (a) => { keep(own.actions, copy(a)); return { ok: true }; },
      onValue: (v) => { keep(own.values, copy(v)); return true; },
      onOpenUrl: (u) => { keep(own.urls, copy(u)); return true; },
      onLog: (e) => keep(own.log, copy(e)),
    });
    sizes = new ResizeObserver(() => keep(own.heights, Math.round(own.handle.frame.getBoundingClientRect().height)));
    sizes.observe(own.handle.frame);
    Promise.race([
      own.handle.ready.then(() => 'connected'),
      new Promise((resolve) => setTimeout(() => resolve('not connected within 5 s'), 5000)),
    ]).then((how) => { own.connected = how; own.ready = true; });
  } catch (e) { own.errors.push('mount: ' + e); own.ready = true; }
  return true;
};
"""


def host_page() -> str:
    """The slot's host page: loaded once per page, then :data:`MOUNT` mounts each block in it
    (a page load per block cost 0.15 to 0.4 s in Firefox)."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>flowui-sandbox review</title><link rel="icon" href="data:,">'
        "<style>body{margin:0;padding:8px}#block{max-width:640px}</style>"
        '</head><body><div id="block"></div>'
        f'<script type="module">{_SCRIPT % {"max": MAX_ITEMS}}</script></body></html>'
    )


#: In the host page: whether it is the review's host page, its script run (then MOUNT can be called).
LOADED = "() => typeof window.__reviewMount === 'function'"
#: In the host page: mount the block ``{srcdoc, background}`` in place of the last one.
MOUNT = "(config) => window.__reviewMount(config)"


#: What the harness reads back (one call: a busy page answers once).
READ = """() => { const r = window.__review; if (!r) return null;
  const h = r.handle; return { ready: r.ready, connected: r.connected, actions: r.actions, values: r.values, urls: r.urls,
  log: r.log, errors: r.errors, heights: r.heights, maxGap: Math.round(r.maxGap), status: h ? h.status : 'unmounted',
  loads: h ? h.loads : 0, height: h ? Math.round(h.iframe.getBoundingClientRect().height) : 0 }; }"""

#: Elements a user acts on, read inside the block's frame.
ACTIONABLE = "a[href], button, input, select, textarea, summary, [onclick], [role=button]"
LIST_ACTIONS = """(sel) => [...document.querySelectorAll(sel)].slice(0, 60).map((e, i) => ({
  i, tag: e.tagName.toLowerCase(), type: (e.getAttribute('type') || '').toLowerCase(),
  link: e.matches('a[href]'), name: e.id || e.getAttribute('name') || e.getAttribute('aria-label') || e.getAttribute('placeholder') || '',
  visible: e.getClientRects().length > 0 && !e.disabled }))"""

#: Inside the block's frame: bring element ``i`` of ``sel`` into view and say where a user would
#: click it (frame coordinates), or null when it is gone or has no box. ``clear``: empty a text
#: field first (the typing that follows replaces its value, as a user's select-all would).
#: Runs in the block's own JS world: a block that redefines DOM methods can steer the clicks
#: (docs/REVIEW-BROWSER.md says so; the static layer's findings stand either way).
LOCATE = """([sel, i, clear]) => { const e = document.querySelectorAll(sel)[i]; if (!e || !e.isConnected) return null;
  e.scrollIntoView({block: 'center', inline: 'center'});
  const r = e.getClientRects()[0]; if (!r || r.width <= 0 || r.height <= 0) return null;
  if (clear && 'value' in e) e.value = '';
  return [r.left + r.width / 2, r.top + r.height / 2]; }"""
#: Inside the block's frame, after the click that should have focused element ``i``: focus it if
#: the click did not (a covering element took it), so the typing that follows reaches it.
FOCUS = """([sel, i]) => { const e = document.querySelectorAll(sel)[i];
  if (e && document.activeElement !== e) e.focus(); return !!e && document.activeElement === e; }"""
#: Inside the block's frame: choose the last option of select ``i`` and fire input and change,
#: as Playwright's selectOption does (its events are not trusted either).
SELECT_LAST = """([sel, i]) => { const e = document.querySelectorAll(sel)[i]; if (!e || !e.options || !e.options.length) return false;
  e.selectedIndex = e.options.length - 1; e.dispatchEvent(new Event('input', {bubbles: true}));
  e.dispatchEvent(new Event('change', {bubbles: true})); return true; }"""
#: In the host page: frame point (x, y) of the block's frame (inside the host module's holder frame) as a viewport point, the host page
#: scrolled first when the point is outside the viewport (the frame can be taller than it).
TO_VIEWPORT = """([x, y]) => { const f = document.querySelector('#block iframe'); if (!f) return null;
  const inner = f.contentDocument && f.contentDocument.querySelector('iframe'); if (!inner) return null;
  const box = (e) => { const r = e.getBoundingClientRect(), s = e.ownerDocument.defaultView.getComputedStyle(e);
    return [r.left + e.clientLeft + parseFloat(s.paddingLeft), r.top + e.clientTop + parseFloat(s.paddingTop)]; };
  const at = () => { const [hx, hy] = box(f), [bx, by] = box(inner); return [hx + bx + x, hy + by + y]; };
  let [px, py] = at();
  if (py < 0 || py >= innerHeight || px < 0 || px >= innerWidth) { scrollBy(px - innerWidth / 2, py - innerHeight / 2); [px, py] = at(); }
  const r = f.getBoundingClientRect();
  const entry = r.left >= 4 ? [r.left - 3, py] : r.top >= 4 ? [px, r.top - 3] : [Math.min(innerWidth - 1, r.right + 3), py];
  return [px, py, entry[0], entry[1]]; }"""
#: (TO_VIEWPORT gives the element's point and where a pointer coming from the host page enters the
#: frame: the host module judges whose click it was by the last pointer event it saw, docs/THREATS.md.)

#: In the host page: scroll to the end of the block's frame (as a reader does) and wait a frame.
SCROLL_END = """() => new Promise((r) => { scrollTo(0, document.body.scrollHeight);
  requestAnimationFrame(() => setTimeout(() => { scrollTo(0, 0); r(true); }, 250)); })"""
#: In the host page: destroy the block's frame (its pending loads stop), as a host does.
UNMOUNT = """() => { const r = window.__review; if (r && r.handle) r.handle.destroy();
  const b = document.getElementById('block'); if (b) b.replaceChildren(); return true; }"""

__all__ = ["host_page", "LOADED", "MOUNT", "UNMOUNT", "READ", "ACTIONABLE", "LIST_ACTIONS", "LOCATE", "FOCUS", "SELECT_LAST", "SCROLL_END", "TO_VIEWPORT", "MAX_ITEMS"]
