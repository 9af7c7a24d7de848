"""What a block reads of the host page's URL through its base URL, per engine and per way of making its frame.

    .venv/bin/python bench/base_url.py [--engine E]...

The host page is served at ``/p/orders-PATHSECRET?tab=QUERYSECRET#FRAGSECRET``. Each variant makes a
sandboxed (``allow-scripts``) srcdoc frame whose block reports ``document.baseURI`` at four steps:
``initial``; ``removed`` (every ``<base>`` of its own removed); ``after-push`` (once the host has
``history.pushState``-d to ``/p/moved-PATHTWO?q=QTWO#FRAGTWO``); ``after-open`` (after
``document.open``/``write``, a document with no ``<base>``). Variants:

* ``plain``: the srcdoc frame straight in the host page (the host module before the holder frame);
* ``own-base``: the same, the block's head starting with ``<base href="about:blank">`` (what a
  generator could write; the block removes it);
* ``holder``: the srcdoc frame inside a same-origin about:blank frame whose ``<base href>`` is
  about:blank (what the host module does);
* ``replace-state``: the host ``history.replaceState``-s to its origin's root while making the frame, then back;
* ``host-base``: the host puts a ``<base href>`` (its origin's root) first in its own head while making the frame;
* ``module``, ``module-self``, ``module-none``: ``mountHtmlBlock`` itself, in
  a host page without a CSP, and with ``base-uri 'self'`` / ``'none'``.

Prints, per engine, what each variant's block read at each step: ``URL`` (the whole first URL: path,
query and fragment), ``URL-2`` (the URL the host pushed), or the value itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flowui_sandbox.sandbox.engines import ENGINE_NAMES, launch, select_engines
from flowui_sandbox.sandbox.harness.server import LocalServer

BLOCK = r"""<script>
const V = 'VARIANT';
const say = (stage) => top.postMessage({m: 1, v: V, stage, base: document.baseURI}, '*');
say('initial');
document.querySelectorAll('base').forEach((b) => b.remove());
say('removed');
addEventListener('message', (e) => {
  if (e.data !== 'changed') return;
  say('after-push');
  document.open(); document.write('<p>x'); document.close();
  say('after-open');
});
</script>"""

HOST = r"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>base</title></head><body>
<script type="module">
import { mountHtmlBlock } from '/bridge/flow-ui-host.js';
const BLOCK = BLOCKJSON;
window.__r = {};
addEventListener('message', (e) => { if (e.data && e.data.m) (window.__r[e.data.v] ||= {})[e.data.stage] = e.data.base; });
const ROOT = location.origin + '/';
const block = (v, base) => (base ? '<!DOCTYPE html><html><head><base href="about:blank"></head><body>' : '') + BLOCK.replace('VARIANT', v);
const sandboxed = (v, base) => { const f = document.createElement('iframe'); f.setAttribute('sandbox', 'allow-scripts'); f.srcdoc = block(v, base); return f; };
const targets = {};
window.run = (variants) => {
  if (variants.includes('plain')) { const f = sandboxed('plain', false); document.body.append(f); targets.plain = f; }
  if (variants.includes('own-base')) { const f = sandboxed('own-base', true); document.body.append(f); targets['own-base'] = f; }
  if (variants.includes('holder')) {
    const w = document.createElement('iframe'); document.body.append(w);
    const b = w.contentDocument.createElement('base'); b.setAttribute('href', 'about:blank'); w.contentDocument.head.append(b);
    const f = sandboxed('holder', false); w.contentDocument.body.append(f); targets.holder = f;
  }
  if (variants.includes('replace-state')) {
    const here = location.href; history.replaceState(null, '', ROOT);
    const f = sandboxed('replace-state', false); document.body.append(f); targets['replace-state'] = f;
    history.replaceState(null, '', here);
  }
  if (variants.includes('host-base')) {
    const b = document.createElement('base'); b.href = ROOT; document.head.prepend(b);
    const f = sandboxed('host-base', false); document.body.append(f); targets['host-base'] = f;
    b.remove();
  }
  for (const v of variants.filter((x) => x.startsWith('module'))) {
    const box = document.createElement('div'); document.body.append(box);
    targets[v] = mountHtmlBlock(box, {source: BLOCK.replace('VARIANT', v), blockId: 'b' + Object.keys(targets).length}).iframe;
  }
};
window.change = () => {
  history.pushState(null, '', '/p/moved-PATHTWO?q=QTWO#FRAGTWO');
  for (const f of Object.values(targets)) f.contentWindow.postMessage('changed', '*');
};
window.ready = true;
</script></body></html>"""

STAGES = ("initial", "removed", "after-push", "after-open")
PAGES = {  # page name -> (CSP header or None, variants)
    "orders-PATHSECRET": (None, ["plain", "own-base", "holder", "replace-state", "host-base", "module"]),
    "self-PATHSECRET": ("base-uri 'self'", ["module-self"]),
    "none-PATHSECRET": ("base-uri 'none'", ["module-none"]),
}


def short(value: str | None, first: str, second: str) -> str:
    if value is None:
        return "(none)"
    return {first: "URL", second: "URL-2"}.get(value, value)


async def measure(engine, server) -> dict[str, dict[str, str]]:
    host = HOST.replace("BLOCKJSON", json.dumps(BLOCK).replace("</", "<\\/"))
    session = await launch(engine)
    out: dict[str, dict[str, str]] = {}
    try:
        for name, (csp, variants) in PAGES.items():
            url = server.add_page(host, name=name, headers={"Content-Security-Policy": csp} if csp else None)
            first = f"{url}?tab=QUERYSECRET#FRAGSECRET"
            page = await session.new_page()
            try:
                await page.goto(first)
                await page.wait_for("() => window.ready")
                await page.evaluate("(v) => run(v)", variants)
                await asyncio.sleep(2)
                await page.evaluate("() => change()")
                await asyncio.sleep(2)
                seen = await page.evaluate("() => window.__r")
            finally:
                await page.close()
            second = url.rsplit("/p/", 1)[0] + "/p/moved-PATHTWO?q=QTWO#FRAGTWO"
            for v in variants:
                out[v] = {s: short((seen.get(v) or {}).get(s), first, second) for s in STAGES}
    finally:
        await session.close()
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append", choices=ENGINE_NAMES)
    args = parser.parse_args()
    server = await LocalServer().start()
    try:
        for engine in select_engines(args.engine):
            table = await measure(engine, server)
            print(f"== {engine.name}")
            print(f"{'variant':26} " + " ".join(f"{s:22}" for s in STAGES))
            for v, row in table.items():
                print(f"{v:26} " + " ".join(f"{row[s]:22}" for s in STAGES))
    finally:
        await server.stop()


if __name__ == "__main__":
    asyncio.run(main())
