"""Bridge latency and throughput in Chromium, against a bare postMessage round trip in the same page.

    .venv/bin/python bench/bridge.py [--rounds N]

Both peers are sandboxed srcdoc iframes in one host page served by the local aiohttp server:

* **bridge**: a block built by ``flowui_sandbox.sandbox.block.srcdoc.build_srcdoc`` and mounted by
  ``bridge/flow-ui-host.js``. One round: ``handle.setState(state)`` (a 60-key state, a
  projection of 4 paths), the runtime applies the change, updates the ``data-bind`` text and
  calls the block's ``onChange``, which acknowledges with ``parent.postMessage`` after reading
  the DOM text back.
* **bare**: a MessagePort to an iframe whose script sets the same element's text from each
  message and acknowledges the same way. No validation, projection or diffing.

Prints p50 and p99 of the round trip for both, the ratio (target: bridge p50 within 2x of the
bare round trip), and then the coalesced throughput: states pushed as fast as the page can in
bursts of 10 per task (task boundaries through a MessageChannel, no timer clamp) for 2 s; how many reached the DOM per second, and that the last one won.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flowui_sandbox.sandbox.block.policy import CSP, SANDBOX
from flowui_sandbox.sandbox.block.srcdoc import build_srcdoc
from flowui_sandbox.sandbox.engines import find_engines, launch
from flowui_sandbox.sandbox.harness.server import LocalServer

BLOCK = """<p>Total: <b id="v" data-bind="order.total"></b> <i data-bind="customer.name"></i></p>
<p data-show="order.paid">paid</p>
<script>
  flowUi.onChange(function (state, changed) {
    if (changed.indexOf('order.total') >= 0) parent.postMessage(document.getElementById('v').textContent, '*');
  });
</script>"""

BARE = (
    f'<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="{CSP}"></head><body>'
    '<p>Total: <b id="v"></b></p><script>'
    "addEventListener('message', function (e) { var port = e.ports[0]; port.onmessage = function (m) {"
    " var v = document.getElementById('v'); v.textContent = String(m.data.total); parent.postMessage(v.textContent, '*'); }; });"
    "</script>"
)


def script_json(value: object) -> str:
    """JSON inside the host page's module script (no '</script' can end it)."""
    return json.dumps(value).replace("<", "\\u003c")


def state(n: int) -> dict:
    base = {f"key_{i}": {"value": i, "label": f"item {i}"} for i in range(56)}
    return {**base, "order": {"total": n, "paid": n % 2 == 0, "items": list(range(20))}, "customer": {"name": "Анна"}, "n": n}


PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>bench</title></head><body>
<div id="a"></div><iframe id="bare" sandbox="%(sandbox)s"></iframe>
<script type="module">
import { mountHtmlBlock } from '/bridge/flow-ui-host.js';
const S = %(state)s;
const make = (n) => Object.assign({}, S, { order: Object.assign({}, S.order, { total: n, paid: n %% 2 === 0 }), n });
const bare = document.getElementById('bare');
const channel = new MessageChannel();
bare.srcdoc = %(bare)s;
bare.addEventListener('load', () => { bare.contentWindow.postMessage('port', '*', [channel.port2]); window.bareReady = true; }, { once: true });
const handle = mountHtmlBlock(document.getElementById('a'), { srcdoc: %(srcdoc)s, state: S });
handle.ready.then(() => { window.bridgeReady = true; });

let waiting = null;
addEventListener('message', (e) => {
  if (e.source === handle.iframe.contentWindow || e.source === bare.contentWindow) {
    window.lastAck = e.data;
    window.acks = (window.acks || 0) + 1;
    if (waiting && e.data === String(waiting.n)) { const w = waiting; waiting = null; w.resolve(); }
  }
});
const ack = (n) => new Promise((resolve) => { waiting = { n, resolve }; });

window.roundTrips = async (which, rounds) => {
  const times = [];
  for (let i = 1; i <= rounds; i++) {
    const n = (which === 'bridge' ? 1e6 : 2e6) + i;
    const done = ack(n);
    const t0 = performance.now();
    if (which === 'bridge') handle.setState(make(n)); else channel.port1.postMessage({ total: n });
    await done;
    times.push(performance.now() - t0);
  }
  return times;
};

// A task boundary without setTimeout's 4 ms clamp.
const tick = new MessageChannel();
const nextTask = () => new Promise((r) => { tick.port1.onmessage = () => r(); tick.port2.postMessage(0); });

window.coalesced = async (ms) => {
  window.acks = 0;
  let n = 3e6;
  const end = performance.now() + ms;
  let pushed = 0;
  while (performance.now() < end) {
    for (let k = 0; k < 10; k++) { handle.setState(make(++n)); pushed++; }
    await nextTask();
  }
  const last = n;
  const t0 = performance.now();
  while (window.lastAck !== String(last) && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 5));
  return { pushed, delivered: window.acks, lastWins: window.lastAck === String(last), seconds: ms / 1000 };
};
</script></body></html>"""


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def main(rounds: int) -> None:
    chromium = next((e for e in find_engines() if e.name == "chromium"), None)
    if chromium is None:
        sys.exit("bench/bridge.py needs Chromium (run `make setup`)")
    server = await LocalServer().start()
    session = await launch(chromium)
    try:
        page = await session.new_page()
        srcdoc = build_srcdoc(BLOCK, block_id="bench", state=state(0))
        html = PAGE % {"sandbox": SANDBOX, "state": script_json(state(0)), "bare": script_json(BARE), "srcdoc": script_json(srcdoc)}
        await page.goto(server.add_page(html))
        await page.wait_for("() => window.bridgeReady && window.bareReady")
        await page.evaluate("async () => { await roundTrips('bridge', 50); await roundTrips('bare', 50); }", timeout=60)  # warm-up
        bridge, bare = [], []
        for _ in range(4):  # interleaved, so both see the same machine load
            bridge += await page.evaluate("(n) => roundTrips('bridge', n)", rounds // 4, timeout=120)
            bare += await page.evaluate("(n) => roundTrips('bare', n)", rounds // 4, timeout=120)
        flood = await page.evaluate("() => coalesced(2000)", timeout=60)
        await page.close()
    finally:
        await session.close()
        await server.stop()

    print(f"Chromium, {len(bridge)} round trips each (state push -> DOM text -> acknowledgement)")
    print(f"{'':10}{'p50 ms':>10}{'p99 ms':>10}{'mean ms':>10}")
    for name, times in (("bridge", bridge), ("bare", bare)):
        print(f"{name:10}{pct(times, 50):10.3f}{pct(times, 99):10.3f}{statistics.mean(times):10.3f}")
    ratio = pct(bridge, 50) / pct(bare, 50)
    print(f"bridge p50 / bare p50 = {ratio:.2f}x (target <= 2x: {'met' if ratio <= 2 else 'NOT met'})")
    print(f"bridge p99 / bare p99 = {pct(bridge, 99) / pct(bare, 99):.2f}x")
    seconds = flood["seconds"]
    print(f"coalescing: {flood['pushed'] / seconds:,.0f} states pushed/s, {flood['delivered'] / seconds:,.0f} reached the DOM/s "
          f"({flood['pushed'] / max(1, flood['delivered']):.1f} pushes per update), last state won: {flood['lastWins']}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="round trips per peer (default 1000)")
    asyncio.run(main(parser.parse_args().rounds))
