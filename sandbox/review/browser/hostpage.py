"""The host page a reviewed block is mounted in: the real host module, callbacks that record.

The block's document is built by the real generator (:func:`flowui_sandbox.sandbox.generator.build_srcdoc`)
and mounted with ``mountHtmlBlock({srcdoc, ...})`` from ``/bridge/flow-ui-host.js``, as
``build --page`` does. Everything the host sees goes to ``window.__review``, which the
harness reads from outside the block's frame:

* ``actions`` (onAction: the ui-action), ``values`` (onValue), ``urls`` (onOpenUrl,
  refused after recording so no window opens), ``log`` (onLog: refusals, CSP
  violations and errors the runtime reports, height loops, navigation);
* ``maxGap``: the longest stall of a 50 ms timer of the host page (a block busy on the
  main thread stalls its host in every engine: a sandboxed srcdoc frame shares its
  parent's process);
* ``heights``: the frame's heights as the host module applied them.
"""

from __future__ import annotations

import json
from typing import Any

#: Items kept per list in ``window.__review`` (a flood is counted by the host's own rate limit).
MAX_ITEMS = 200

_SCRIPT = """import { mountHtmlBlock } from '/bridge/flow-ui-host.js';
const r = window.__review = { ready: false, connected: '', actions: [], values: [], urls: [], log: [], errors: [],
  heights: [], maxGap: 0 };
const keep = (list, item) => { if (list.length < %(max)d) list.push(item); };
const copy = (v) => { try { const t = JSON.stringify(v); return t.length > 20000 ? t.slice(0, 20000) : JSON.parse(t); } catch (e) { return String(v); } };
let last = performance.now();
setInterval(() => { const now = performance.now(); r.maxGap = Math.max(r.maxGap, now - last); last = now; }, 50);
const config = JSON.parse(document.getElementById('review-config').textContent);
try {
  r.handle = mountHtmlBlock(document.getElementById('block'), {
    srcdoc: config.srcdoc,
    onAction: (a) => { keep(r.actions, copy(a)); return { ok: true }; },
    onValue: (v) => { keep(r.values, copy(v)); return true; },
    onOpenUrl: (u) => { keep(r.urls, copy(u)); return false; },
    onLog: (e) => keep(r.log, copy(e)),
  });
  new ResizeObserver(() => keep(r.heights, Math.round(r.handle.iframe.getBoundingClientRect().height))).observe(r.handle.iframe);
  Promise.race([
    r.handle.ready.then(() => 'connected'),
    new Promise((resolve) => setTimeout(() => resolve('not connected within 5 s'), 5000)),
  ]).then((how) => { r.connected = how; r.ready = true; });
} catch (e) { r.errors.push('mount: ' + e); r.ready = true; }
"""


def _json(value: Any) -> str:
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def host_page(srcdoc: str, *, background: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>flowui-sandbox review</title>'
        f"<style>body{{margin:0;padding:8px;background:{background}}}#block{{width:640px}}</style>"
        f'<script type="application/json" id="review-config">{_json({"srcdoc": srcdoc})}</script>'
        '</head><body><div id="block"></div>'
        f'<script type="module">{_SCRIPT % {"max": MAX_ITEMS}}</script></body></html>'
    )


#: What the harness reads back (one call: a busy page answers once).
READ = """() => { const r = window.__review; if (!r) return null;
  const h = r.handle; return { ready: r.ready, connected: r.connected, actions: r.actions, values: r.values, urls: r.urls,
  log: r.log, errors: r.errors, heights: r.heights, maxGap: Math.round(r.maxGap), status: h ? h.status : 'unmounted',
  loads: h ? h.loads : 0, height: h ? Math.round(h.iframe.getBoundingClientRect().height) : 0 }; }"""

#: Elements a user acts on, read inside the block's frame.
ACTIONABLE = "a[href], button, input, select, textarea, summary, [onclick], [role=button]"
LIST_ACTIONS = """(sel) => [...document.querySelectorAll(sel)].slice(0, 60).map((e, i) => ({
  i, tag: e.tagName.toLowerCase(), type: (e.getAttribute('type') || '').toLowerCase(),
  link: e.matches('a[href]'), fragment: e.matches('a[href]') && (e.getAttribute('href') || '').startsWith('#'),
  visible: e.getClientRects().length > 0 && !e.disabled }))"""

#: Prepended to the reviewed source (so it runs first among the block's scripts, under the
#: block's own CSP): it counts the block's pending timers and animation frames, and when one
#: last ran, so the harness can end the wait for delayed code on quiescence (:data:`QUIET`)
#: instead of always waiting the maximum. It changes nothing a block does; a block can see it
#: (``setTimeout`` is no longer native code) -- docs/REVIEW-BROWSER.md says what that costs.
PROBE = """<script>(() => {
const w = window, K = Symbol.for('flowui.review.probe');
if (w[K]) return;
const now = () => performance.now();
const st = w.setTimeout, ct = w.clearTimeout, si = w.setInterval, ci = w.clearInterval;
const raf = w.requestAnimationFrame, caf = w.cancelAnimationFrame;
const timers = new Map(), frames = new Set();
const p = { timers, frames, last: now(), sleep: (ms) => new Promise((r) => st.call(w, r, ms)),
  frame: () => new Promise((r) => raf.call(w, () => r())) };
Object.defineProperty(w, K, { value: p });
w.setTimeout = function setTimeout(f, d, ...a) {
  if (typeof f !== 'function') return st.call(w, f, d, ...a);
  const id = st.call(w, function () { timers.delete(id); p.last = now(); return f.apply(this, arguments); }, d, ...a);
  timers.set(id, now() + Math.max(0, Number(d) || 0));
  return id;
};
w.setInterval = function setInterval(f, d, ...a) {
  if (typeof f !== 'function') return si.call(w, f, d, ...a);
  const ms = Math.max(0, Number(d) || 0);
  const id = si.call(w, function () { timers.set(id, now() + ms); p.last = now(); return f.apply(this, arguments); }, d, ...a);
  timers.set(id, now() + ms);
  return id;
};
w.clearTimeout = function clearTimeout(id) { timers.delete(id); return ct.call(w, id); };
w.clearInterval = function clearInterval(id) { timers.delete(id); return ci.call(w, id); };
w.requestAnimationFrame = function requestAnimationFrame(f) {
  const id = raf.call(w, (t) => { frames.delete(id); p.last = now(); return f(t); });
  frames.add(id);
  return id;
};
w.cancelAnimationFrame = function cancelAnimationFrame(id) { frames.delete(id); return caf.call(w, id); };
})();</script>"""

#: Seconds without a timer or animation frame of the block (and without a request at the
#: proxy) that count as quiescence.
QUIET = 0.2

#: Run in the block's frame: resolves once nothing of the block is due within ``deadline`` ms
#: (timers due later cannot run inside the wait anyway) and nothing ran for ``quiet`` ms, or at
#: the deadline. ``probe: false`` when the frame holds no probe (it navigated away).
WAIT_QUIET = """async ({deadline, quiet}) => {
  const p = window[Symbol.for('flowui.review.probe')];
  if (!p) return { probe: false };
  const t0 = performance.now(), end = t0 + deadline;
  for (;;) {
    const t = performance.now();
    // A meta refresh is a timer the probe cannot see: wait the window out.
    const due = [...p.timers.values()].filter((at) => at <= end).length + (document.querySelector('meta[http-equiv="refresh" i]') ? 1 : 0);
    if (!due && !p.frames.size && t - Math.max(p.last, t0) >= quiet) return { probe: true, quiet: true, waited: Math.round(t - t0) };
    if (t >= end) return { probe: true, quiet: false, waited: Math.round(t - t0), timers: due, frames: p.frames.size };
    await p.sleep(20);
  }
}"""

#: Run in the block's frame: wait until the block's root has the color scheme (the theme
#: travels over the bridge), then for a frame to be painted. One round trip.
WAIT_THEME = """async (scheme) => {
  const p = window[Symbol.for('flowui.review.probe')];
  const sleep = p ? p.sleep : (ms) => new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i < 150 && getComputedStyle(document.documentElement).colorScheme !== scheme; i++) await sleep(20);
  await (p ? p.frame() : new Promise((r) => requestAnimationFrame(() => r())));
  await sleep(30);
  return getComputedStyle(document.documentElement).colorScheme === scheme;
}"""

#: Run in the block's frame, one round trip: find what a user acts on (``selector``, at most
#: ``max`` visible elements), then click every button, [onclick] and in-page link, type into
#: every text input (the ``strings``/``numbers`` canaries, one per input, in order), change
#: every select and checkbox, and last click the first link that leaves the page (it navigates
#: the frame away: nothing after it would run). The events are the ones a user's input
#: produces, in the same order, but dispatched by script: ``isTrusted`` is false
#: (docs/REVIEW-BROWSER.md, "Acting like a user", says what that costs). Returns one line per
#: element: ``{i, what, kind, typed?, result}``.
ACT = """async ({selector, max, strings, numbers}) => {
  const p = window[Symbol.for('flowui.review.probe')];
  const sleep = p ? p.sleep : (ms) => new Promise((r) => setTimeout(r, ms));
  const NOT_TEXT = ['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'range', 'color', 'date', 'time',
    'datetime-local', 'month', 'week', 'hidden', 'file'];
  const all = [...document.querySelectorAll(selector)].slice(0, 60).map((el, i) => ({ el, i,
    tag: el.tagName.toLowerCase(), type: (el.getAttribute('type') || '').toLowerCase(), link: el.matches('a[href]'),
    fragment: el.matches('a[href]') && (el.getAttribute('href') || '').startsWith('#') }))
    .filter((x) => x.el.getClientRects().length > 0 && !x.el.disabled && !['hidden', 'file'].includes(x.type)).slice(0, max);
  const leaving = all.filter((x) => x.link && !x.fragment);
  const plan = [...all.filter((x) => !x.link || x.fragment), ...leaving.slice(0, 1)];
  const out = leaving.slice(1).map((x) => ({ i: x.i, what: `<a> #${x.i}`, kind: 'click', result: 'not done: the first link leaves the page' }));
  const fire = (el, type, init, Kind) => el.dispatchEvent(new (Kind || Event)(type, { bubbles: true, cancelable: true, composed: true, ...init }));
  const key = (el, k) => {
    const init = { key: k, code: k === 'Enter' ? 'Enter' : '', keyCode: k === 'Enter' ? 13 : k.charCodeAt(0), view: window };
    fire(el, 'keydown', init, KeyboardEvent);
    fire(el, 'keypress', init, KeyboardEvent);
  };
  const press = (el) => {
    const init = { view: window, button: 0, detail: 1 };
    const Pointer = window.PointerEvent || MouseEvent;
    fire(el, 'pointerdown', { ...init, pointerType: 'mouse', isPrimary: true }, Pointer);
    fire(el, 'mousedown', init, MouseEvent);
    if (typeof el.focus === 'function') el.focus();
    fire(el, 'pointerup', { ...init, pointerType: 'mouse', isPrimary: true }, Pointer);
    fire(el, 'mouseup', init, MouseEvent);
  };
  let s = 0, n = 0;
  for (const x of plan) {
    const el = x.el;
    const kind = x.tag === 'textarea' || (x.tag === 'input' && !NOT_TEXT.includes(x.type)) ? 'type' : x.tag === 'select' ? 'select' : 'click';
    const line = { i: x.i, what: `<${x.tag}${x.type ? ' type=' + x.type : ''}> #${x.i}`, kind, result: 'done' };
    out.push(line);
    if (!el.isConnected) { line.result = 'failed: the element is gone'; continue; }
    try {
      if (kind === 'type') {
        const text = String(x.type === 'number' ? numbers[n++ % numbers.length] : strings[s++ % strings.length]);
        line.typed = text;
        press(el);
        el.click();
        const proto = x.tag === 'textarea' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
        const set = Object.getOwnPropertyDescriptor(proto, 'value').set;
        set.call(el, '');
        for (const c of text) {
          key(el, c);
          set.call(el, el.value + c);
          fire(el, 'input', { data: c, inputType: 'insertText' }, InputEvent);
          fire(el, 'keyup', { key: c, view: window }, KeyboardEvent);
        }
        fire(el, 'change', {});
        key(el, 'Enter');
        fire(el, 'keyup', { key: 'Enter', code: 'Enter', keyCode: 13, view: window }, KeyboardEvent);
        if (el.form && x.tag === 'input') { try { el.form.requestSubmit(); } catch (e) { /* what Enter does */ } }
      } else if (kind === 'select') {
        press(el);
        el.selectedIndex = Math.max(0, el.options.length - 1);
        fire(el, 'input', {});
        fire(el, 'change', {});
      } else {
        press(el);
        el.click();
      }
    } catch (e) {
      line.result = 'failed: ' + String(e).slice(0, 120);
    }
    await sleep(0);  // what the block scheduled for this action runs before the next one
  }
  return out;
}"""

#: One round trip on the host page: wait until the host module says the block connected (or
#: gave up), then return :data:`READ`'s record and the box a screenshot clips to.
WAIT_READY = """async () => {
  while (!(window.__review && window.__review.ready)) await new Promise((r) => setTimeout(r, 20));
  const b = document.getElementById('block').getBoundingClientRect();
  return { host: (READ_FN)(), box: { x: 0, y: 0, width: Math.ceil(b.right + 8), height: Math.ceil(Math.min(b.bottom + 8, 2000)) } };
}""".replace("READ_FN", READ)

__all__ = ["host_page", "READ", "ACTIONABLE", "LIST_ACTIONS", "MAX_ITEMS", "PROBE", "QUIET", "WAIT_QUIET", "WAIT_THEME", "ACT", "WAIT_READY"]
