"""The cost of many html blocks on one host page: sandboxed frames against plain iframes and inline HTML.

    .venv/bin/python bench/mount.py [--engine E]... [--counts 1,10,50,100] [--reps 3] [--variants sandboxed,plain,inline,lazy]

For each engine, block count N and variant, a host page (served by the local aiohttp
server) mounts N different blocks of the same kind (a card: styles, a heading and text
bound to state, a list, a button, a script) one under the other, and records:

* **ready**: from the start of mounting to the block's document having run its script
  (its ``load`` event; for inline HTML, the insertion and layout), per block: p50 and p95;
* **height**: from the start to the frame's first height set from the block's report
  (``sandboxed``: the runtime's ``height`` message through the bridge; ``plain``: the host
  reads the same-origin document's height at ``load``; ``inline``: the layout), p50 and p95;
* **stall**: the host's main thread, measured by a 10 ms timer from the start until 0.5 s
  after the last block: the longest gap, and the sum of the time lost in gaps over 50 ms;
* **memory per block**: the proportional set size (PSS) summed over every process of the
  browser (the process tree under this script, /proc/PID/smaps_rollup), with the blocks
  mounted minus the same page before mounting, divided by N; the process count too.

Variants: ``sandboxed`` (``mountHtmlBlock`` from bridge/flow-ui-host.js with the block's
source: the host module builds the sandboxed srcdoc frame with the fixed CSP, the runtime
and the bridge), ``srcdoc`` (the same, with the document built by the server-side
generator, ``build_srcdoc``, so the host only mounts it), ``plain`` (the same block
source in an ``<iframe srcdoc>`` without ``sandbox``: same origin, no runtime), ``inline``
(the same source as HTML in the host's DOM; its script does not run), and ``lazy``
(``mountFeed`` from bridge/flow-ui-feed.js: sandboxed blocks mounted only near the
viewport; "ready" and "height" then cover the blocks that were mounted, and the table
says how many).

Prints a table per engine and the ratios sandboxed/plain and sandboxed/inline, all
medians over the repetitions, measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flowui_sandbox.sandbox.engines import ENGINE_NAMES, launch, select_engines
from flowui_sandbox.sandbox.harness.server import LocalServer

VARIANTS = ("sandboxed", "srcdoc", "plain", "inline", "lazy")

BLOCK = """<style>.card{font:14px/1.4 sans-serif;padding:10px 14px;border:1px solid #ccd;border-radius:8px;margin:4px}
.card h3{margin:0 0 4px;font-size:16px}.card ul{margin:4px 0;padding-left:18px}.card .total{font-weight:bold}</style>
<div class="card"><h3 data-bind="order.title">{title}</h3>
<p>Status: <span data-bind="order.status">{status}</span>, total <span class="total" data-bind="order.total">{total}</span></p>
<ul>{items}</ul><button type="button">Details</button></div>
<script>
document.querySelector('button').addEventListener('click', function () { if (window.flowUi) flowUi.send('details', {}); });
addEventListener('load', function () { top.postMessage({bench: 'ready', i: {i}}, '*'); });
</script>"""

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>mount bench</title>
<style>body{margin:0;font:14px sans-serif}#feed{width:640px}</style></head><body><div id="feed"></div>
<script type="module">
import { mountHtmlBlock } from '/bridge/flow-ui-host.js';
import { mountFeed } from '/bridge/flow-ui-feed.js';
const C = %(config)s;
let measuring = false, last = performance.now(), stallMax = 0, stallSum = 0;
setInterval(() => {
  const now = performance.now(), gap = now - last; last = now;
  if (!measuring) return;
  stallMax = Math.max(stallMax, gap);
  if (gap > 50) stallSum += gap - 10;
}, 10);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
window.run = async () => {
  const n = C.sources.length, feed = document.getElementById('feed');
  const ready = new Array(n).fill(null), height = new Array(n).fill(null);
  let wake; const changed = () => wake && wake();
  let t0 = performance.now(); last = t0; stallMax = 0; stallSum = 0; measuring = true;
  addEventListener('message', (e) => {
    if (e.data && e.data.bench === 'ready' && ready[e.data.i] === null) { ready[e.data.i] = performance.now() - t0; changed(); }
  });
  // The height is set on the element the host module mounts (its holder frame), the ready beacon
  // goes to the top page (a block's parent is that holder).
  const watchHeight = (frame, i) => new MutationObserver((_, obs) => {
    if (frame.style.height) { height[i] = performance.now() - t0; obs.disconnect(); changed(); }
  }).observe(frame, { attributes: true, attributeFilter: ['style'] });
  let expected = n;
  if (C.variant === 'lazy') {
    const feedHandle = mountFeed(feed, C.sources.map((source, i) => ({ source, blockId: 'b' + i, state: C.states[i] })), {
      onMount: (i, handle) => watchHeight(handle.frame, i),
    });
    window.feedHandle = feedHandle;
    await feedHandle.settled;
    expected = feedHandle.mounted.length;
  } else {
    for (let i = 0; i < n; i++) {
      const slot = document.createElement('div');
      feed.appendChild(slot);
      if (C.variant === 'sandboxed') {
        const handle = mountHtmlBlock(slot, { source: C.sources[i], blockId: 'b' + i, state: C.states[i] });
        watchHeight(handle.frame, i);
      } else if (C.variant === 'srcdoc') {
        const handle = mountHtmlBlock(slot, { srcdoc: C.srcdocs[i] });
        watchHeight(handle.frame, i);
      } else if (C.variant === 'plain') {
        const f = document.createElement('iframe');
        f.style.cssText = 'width:100%%;border:0;display:block';
        f.srcdoc = C.plain[i];
        f.addEventListener('load', () => { f.style.height = f.contentDocument.documentElement.scrollHeight + 'px'; height[i] = performance.now() - t0; changed(); }, { once: true });
        slot.appendChild(f);
      } else {
        slot.innerHTML = C.sources[i];
      }
    }
    if (C.variant === 'inline') {
      void feed.offsetHeight;  // the layout: the blocks' heights are known now
      const at = performance.now() - t0;
      ready.fill(at); height.fill(at);
    }
  }
  const count = (a) => a.filter((x) => x !== null).length;
  const deadline = performance.now() + C.timeout;
  while ((count(ready) < expected || count(height) < expected) && performance.now() < deadline) {
    await new Promise((r) => { wake = r; setTimeout(r, 100); });
  }
  const total = performance.now() - t0;
  await sleep(500);
  measuring = false;
  return { ready, height, total, stallMax, stallSum, expected };
};
window.pageReady = true;
</script></body></html>"""


def blocks(n: int) -> tuple[list[str], list[dict], list[str], list[str]]:
    """N different cards: the source, its state, the plain-iframe document (same text, no runtime),
    and the sandboxed document as the server-side generator builds it."""
    from flowui_sandbox.sandbox.block.srcdoc import build_srcdoc

    sources, states, plain, srcdocs = [], [], [], []
    for i in range(n):
        order = {"title": f"Order {1000 + i}", "status": ("shipped", "paid", "open")[i % 3], "total": f"{(i * 37) % 500}.{i % 100:02d} EUR"}
        items = "".join(f"<li>Item {i}-{k}: {(k * 7 + i) % 40} pcs</li>" for k in range(5))
        source = BLOCK.replace("{items}", items).replace("{i}", str(i))
        for key, value in order.items():
            source = source.replace("{" + key + "}", value)
        sources.append(source)
        states.append({"order": order})
        plain.append(f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>{source}</body></html>')
        srcdocs.append(build_srcdoc(source, block_id=f"b{i}", state={"order": order}))
    return sources, states, plain, srcdocs


# ------------------------------------------------------------------------- memory


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        tree.setdefault(ppid, []).append(int(name))
    return tree


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


#: Not the browser: Playwright's driver, the X server, WebDriver's own process.
NOT_BROWSER = {"node", "Xvfb", "WebKitWebDriver", "python", "python3"}


def browser_memory() -> tuple[int, int, int]:
    """(processes, PSS kB, RSS kB) summed over the browser processes under this script."""
    tree = _children()
    stack, seen = [os.getpid()], []
    while stack:
        pid = stack.pop()
        for child in tree.get(pid, []):
            seen.append(child)
            stack.append(child)
    count = pss = rss = 0
    for pid in seen:
        if _comm(pid) in NOT_BROWSER:
            continue
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line and not line.startswith(("0", "7", "f")))
            pss += int(fields.get("Pss", "0 kB").split()[0])
            rss += int(fields.get("Rss", "0 kB").split()[0])
            count += 1
        except (OSError, ValueError):
            continue
    return count, pss, rss


# --------------------------------------------------------------------------- runs


def pct(values: list[float], p: float) -> float | None:
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def settle(seconds: float = 3.0) -> tuple[int, int, int]:
    """The browser's memory once its process count and PSS stop moving (processes of a closed page exit late)."""
    last = browser_memory()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(0.7)
        now = browser_memory()
        if now[0] == last[0] and abs(now[1] - last[1]) < max(1024, 0.01 * last[1]):
            return now
        last = now
    return last


async def fresh_page(session):
    """A page in a new browser context (Playwright) or a new MiniBrowser (WebDriver): no process
    or cache of an earlier measurement is reused, so the memory delta is this page's."""
    page = await session.new_page()
    await page.resize(1280, 900)  # Playwright: the viewport; WebDriver: the window
    return page


async def close_page(session, page) -> None:
    await page.close()
    if not session.fresh_pages:
        await session.close()  # quits the MiniBrowser the pool kept; the next new_page starts a fresh one


async def measure(session, server: LocalServer, variant: str, n: int, timeout: float) -> dict:
    sources, states, plain, srcdocs = blocks(n)
    config = {"variant": variant, "sources": sources, "states": states, "timeout": timeout * 1000,
              "plain": plain if variant == "plain" else [], "srcdocs": srcdocs if variant == "srcdoc" else []}
    html = PAGE % {"config": json.dumps(config).replace("<", "\\u003c")}
    page = await fresh_page(session)
    try:
        await page.goto(server.add_page(html), timeout=60)
        await page.wait_for("() => window.pageReady === true", timeout=30)
        before = await settle()
        out = await page.evaluate("() => window.run()", timeout=timeout + 30)
        after = await settle()
    finally:
        await close_page(session, page)
    out["processes"] = after[0] - before[0]
    out["pss_kb"] = after[1] - before[1]
    out["rss_kb"] = after[2] - before[2]
    return out


def summarise(runs: list[dict], n: int) -> dict:
    ready = [x for r in runs for x in r["ready"]]
    height = [x for r in runs for x in r["height"]]
    expected = statistics.median(r["expected"] for r in runs)
    return {
        "ready50": pct(ready, 50), "ready95": pct(ready, 95), "height50": pct(height, 50), "height95": pct(height, 95),
        "missing": sum(r["expected"] - len([x for x in r["height"] if x is not None]) for r in runs),
        "total": statistics.median(r["total"] for r in runs),
        "stallMax": statistics.median(r["stallMax"] for r in runs), "stallSum": statistics.median(r["stallSum"] for r in runs),
        "pss_total": statistics.median(r["pss_kb"] for r in runs),
        "pss_per_block": statistics.median(r["pss_kb"] for r in runs) / n, "rss_per_block": statistics.median(r["rss_kb"] for r in runs) / n,
        "processes": statistics.median(r["processes"] for r in runs), "mounted": expected,
    }


def fmt(v, unit="") -> str:
    return "-" if v is None else f"{v:,.0f}{unit}"


def ratio(a, b) -> str:
    if a is None or b is None or b <= 0:
        return "-"
    return f"{a / b:.1f}x"


def print_engine(engine: str, table: dict[tuple[str, int], dict], counts: list[int], variants: list[str]) -> None:
    print(f"\n### {engine}\n")
    print("| blocks | variant | mounted | ready p50 / p95 ms | height p50 / p95 ms | all done ms | longest stall ms | stalled ms | PSS per block kB | RSS per block kB | +processes |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in counts:
        for v in variants:
            s = table.get((v, n))
            if s is None:
                continue
            # lazy: blocks can mount after the first pass (as heights settle), so there may be more than "mounted".
            missing = f" ({s['missing']} missing)" if s["missing"] > 0 else (f" (+{-s['missing']} more)" if s["missing"] < 0 else "")
            print(f"| {n} | {v} | {s['mounted']:.0f} | {fmt(s['ready50'])} / {fmt(s['ready95'])} | {fmt(s['height50'])} / {fmt(s['height95'])}{missing} "
                  f"| {fmt(s['total'])} | {fmt(s['stallMax'])} | {fmt(s['stallSum'])} | {fmt(s['pss_per_block'])} | {fmt(s['rss_per_block'])} | {s['processes']:+.0f} |")
    if len(counts) > 1:
        hi = max(counts)
        lo = max([c for c in counts if c < hi and c > 1] or [min(counts)])
        print(f"\nmarginal memory per block (PSS, from {lo} to {hi} blocks: fixed costs such as a first extra process cancel out):\n")
        print("| variant | kB per block |")
        print("| --- | ---: |")
        for v in variants:
            if v == "lazy":
                continue  # it mounts about the same number of blocks at every count: no slope to take
            a, b = table.get((v, lo)), table.get((v, hi))
            if a and b:
                print(f"| {v} | {(b['pss_total'] - a['pss_total']) / (hi - lo):,.0f} |")
    print("\nratios (medians of the same run):\n")
    print("| blocks | sandboxed/plain ready p50 | sandboxed/inline ready p50 | sandboxed/plain all done "
          "| sandboxed/plain PSS per block | sandboxed/inline PSS per block | lazy/sandboxed all done | lazy/sandboxed PSS |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in counts:
        s, p, i, lz = (table.get((v, n)) for v in ("sandboxed", "plain", "inline", "lazy"))
        if s is None:
            continue

        def r(a, b, key):
            return ratio(a[key], b[key]) if a and b else "-"

        print(f"| {n} | {r(s, p, 'ready50')} | {r(s, i, 'ready50')} | {r(s, p, 'total')} | {r(s, p, 'pss_per_block')} | {r(s, i, 'pss_per_block')} "
              f"| {r(lz, s, 'total')} | {ratio(lz['pss_per_block'] * n, s['pss_per_block'] * n) if lz else '-'} |")


async def bench_engine(engine, counts: list[int], variants: list[str], reps: int, timeout: float, progress=None) -> dict:
    server = await LocalServer().start()
    session = await launch(engine)
    table: dict[tuple[str, int], dict] = {}
    try:
        await measure(session, server, "sandboxed", 2, timeout)  # warm-up: the module, the disk cache
        for n in counts:
            runs: dict[str, list[dict]] = {v: [] for v in variants}
            for _ in range(reps):  # interleaved: every variant sees the same machine load
                for v in variants:
                    runs[v].append(await measure(session, server, v, n, timeout))
            for v in variants:
                table[(v, n)] = summarise(runs[v], n)
            print(f"  {engine.name}: {n} blocks done (load average {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
            if progress:
                progress(table)
    finally:
        await session.close()
        await server.stop()
    return table


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append", choices=ENGINE_NAMES)
    parser.add_argument("--counts", default="1,10,50,100")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--timeout", type=float, default=120, help="seconds a mount may take before its missing blocks are counted")
    parser.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    parser.add_argument("--tables", metavar="FILE", help="print the tables of a JSON file an earlier run wrote, and stop")
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    variants = [v for v in args.variants.split(",") if v]
    if args.tables:
        for name, figures in json.loads(Path(args.tables).read_text()).items():
            table = {(key.split("/")[0], int(key.split("/")[1])): s for key, s in figures.items()}
            print_engine(name, table, sorted({n for _, n in table}), [v for v in VARIANTS if any(k[0] == v for k in table)])
        return 0
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"--variants: unknown {unknown[0]!r}; choose from {', '.join(VARIANTS)}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; medians of {args.reps} repetitions")
    out = {}
    for engine in select_engines(args.engine):
        started = time.monotonic()
        def partial(table, engine=engine):
            # Every figure so far, so a run cut short still leaves its tables.
            if args.json:
                Path(args.json).write_text(json.dumps({**out, engine.name: {f"{v}/{n}": s for (v, n), s in table.items()}}, indent=1))

        table = await bench_engine(engine, counts, variants, args.reps, args.timeout, partial)
        print_engine(engine.name, table, counts, variants)
        print(f"\n({engine.name}: {time.monotonic() - started:.0f} s; load average {os.getloadavg()[0]:.1f})")
        out[engine.name] = {f"{v}/{n}": s for (v, n), s in table.items()}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
