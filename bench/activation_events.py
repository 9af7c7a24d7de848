"""What a host page sees of a click inside a cross-origin (sandboxed) block, per engine.

    .venv/bin/python bench/activation_events.py [--engine E]...

Two sandboxed srcdoc blocks A and B; the host records pointer, mouse, focus and key events on
its window, its document and each frame element, with its ``document.activeElement`` and
``navigator.userActivation.isActive`` at each, and every message a block posts to it. The script
waits out the driver's own activation, clicks a button in A, then in B, lets A call ``focus()``
on its input (a block taking the focus back after the user clicked its neighbour), then clicks
the host page. Prints the events in order, per engine (docs/THREATS.md, "Whose click it was").
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

BLOCK = """<button id=b style='width:200px;height:60px'>b</button><input id=i><script>
document.getElementById('b').onclick = () => { top.postMessage({clicked: NAME}, '*'); };
addEventListener('message', (e) => { if (e.data === 'steal') document.getElementById('i').focus(); });
</script>"""

HOST = r"""<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><p id=p style="height:40px">host text</p>
<div id=c></div><script>
const BLOCK = BLOCKJSON;
window.ev = [];
const where = () => { const a = document.activeElement; return a ? (a.id || a.tagName) : 'none'; };
const rec = (what, e) => ev.push(`${what}:${e.type}${e.isTrusted ? '' : '(untrusted)'} ae=${where()} ua=${navigator.userActivation.isActive}`);
for (const n of ['A', 'B']) {
  const f = document.createElement('iframe');
  f.id = n; f.setAttribute('sandbox', 'allow-scripts'); f.style = 'width:300px;height:100px;display:block;margin:4px';
  f.srcdoc = BLOCK.replace('NAME', JSON.stringify(n));
  document.getElementById('c').append(f);
  for (const t of ['pointerover', 'pointerenter', 'pointerdown', 'mousedown', 'click', 'focus', 'blur', 'focusin', 'mouseover']) {
    f.addEventListener(t, (e) => rec('frame' + n, e));
  }
}
for (const t of ['pointerdown', 'pointerup', 'click', 'keydown', 'blur', 'focus']) addEventListener(t, (e) => rec('window', e), true);
document.addEventListener('focusin', (e) => rec('document:' + (e.target.id || e.target.tagName), e), true);
addEventListener('message', (e) => ev.push(`message ${JSON.stringify(e.data)} ae=${where()} ua=${navigator.userActivation.isActive}`));
</script></body></html>"""


async def run(engine, url: str) -> list[str]:
    session = await launch(engine)
    try:
        page = await session.new_page()
        await page.goto(url)
        await asyncio.sleep(6)  # the driver's own activation (its script calls) expires
        await page.evaluate("() => { ev.push('--- click in A'); }")
        await asyncio.sleep(5.5)
        await page.click("#b", frame="#A")
        await asyncio.sleep(0.5)
        await page.evaluate("() => { ev.push('--- click in B'); }")
        await asyncio.sleep(5.5)
        await page.click("#b", frame="#B")
        await asyncio.sleep(0.5)
        await page.evaluate("() => { ev.push('--- A calls focus()'); document.getElementById('A').contentWindow.postMessage('steal', '*'); }")
        await asyncio.sleep(0.5)
        await page.evaluate("() => { ev.push('--- click on the host page, ae=' + document.activeElement.id); }")
        await page.click("#p")
        await asyncio.sleep(0.5)
        return await page.evaluate("() => ev")
    finally:
        await session.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append", choices=ENGINE_NAMES)
    args = parser.parse_args()
    server = await LocalServer().start()
    try:
        url = server.add_page(HOST.replace("BLOCKJSON", json.dumps(BLOCK).replace("</", "<\\/")))
        for engine in select_engines(args.engine):
            print("==", engine.name)
            for line in await run(engine, url):
                print("  ", line)
    finally:
        await server.stop()


if __name__ == "__main__":
    asyncio.run(main())
