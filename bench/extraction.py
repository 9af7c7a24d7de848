"""Extraction throughput against a bare lexbor parse and against html5lib, in one run.

    .venv/bin/python bench/extraction.py [--quick]

Inputs: a typical 5 KB block (markup, a style and a script element, bindings on
about one element in three) and a 1 MB block (that block's body repeated). For each:
``extract_paths`` (the whole job: checks, parse, selection, validation), a bare
``LexborHTMLParser(EXTRACTION_PREFIX + source, scripting=True)``, and
``html5lib.parse`` of the same string. CPU time (this process and its children),
best of several rounds, so other work on the machine hardly moves the ratios, which
are the result (targets: extraction at most
1.5x the bare lexbor parse, at least 10x faster than html5lib).

Then the bad-input rows: how long the worst inputs take to be answered or refused.
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from selectolax.lexbor import LexborHTMLParser

from flowui_sandbox.sandbox.block.extract import EXTRACTION_PREFIX, GUARD_THRESHOLD, ExtractionError, extract_paths

CARD = """<section class="card" data-show="order">
  <header><h2 data-bind="order.title">Order</h2><span class="badge" data-show="order.paid">paid</span></header>
  <p>Hello <b data-bind="customer.name">there</b>, your order <a href="#details">#<span data-bind="order.id"></span></a>
     ships on <time data-bind="order.ships_on"></time> &mdash; thank you&nbsp;for waiting.</p>
  <ul class="items">
    <li><span data-bind="order.items.0.name"></span> &times; <span data-bind="order.items.0.qty"></span></li>
    <li><span data-bind="order.items.1.name"></span> &times; <span data-bind="order.items.1.qty"></span></li>
  </ul>
  <table><thead><tr><th>Total</th><th>Tax</th></tr></thead>
    <tbody><tr><td data-bind="order.total"></td><td data-bind="order.tax"></td></tr></tbody></table>
  <label>Email <input name="email" type="email" placeholder="you@example.com"></label>
  <button type="button" class="primary" onclick="flowUi.send('submit', {plan: 'pro'})">Confirm</button>
</section>
"""
STYLE = """<style>
  .card { font: 14px/1.4 system-ui; color: var(--flow-ui-text); background: var(--flow-ui-panel); border-radius: var(--flow-ui-radius); }
  .card header { display: flex; justify-content: space-between; } .badge { color: var(--flow-ui-accent); }
  .items li + li { margin-top: 4px; } button.primary { background: var(--flow-ui-accent); color: var(--flow-ui-on-accent); }
</style>
"""
SCRIPT = """<script>
  flowUi.onChange((state, changed) => {
    if (changed.includes('order.paid')) document.querySelector('.badge').classList.toggle('on', Boolean(state.order && state.order.paid));
  });
</script>
"""


def block(size: int, *, dense: bool = False) -> str:
    """A block of about ``size`` bytes. Typical: a style and a script element beside
    the markup, one binding per ~180 bytes. Dense: markup only, one binding per ~90
    bytes (the per-element cost of reading attributes shows most there)."""
    style, script = ("", "") if dense else (STYLE * 3, SCRIPT * 3)
    body = []
    while sum(map(len, body)) + len(style) + len(script) < size:
        body.append(CARD)
    return style + "".join(body) + script


def cpu() -> float:
    """CPU seconds of this process and its finished children (large sources parse in a
    forked child). CPU time, not wall time: this machine is shared, and the ratios
    must not depend on what else runs."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def best(fn, source: str, budget: float) -> float:
    """Best CPU time of one call, over rounds of enough calls to span os.times' ticks."""
    fn(source)
    start = cpu()
    fn(source)
    once = max(cpu() - start, 1e-4)
    calls = max(1, int(0.02 / once))  # about 20 ms of CPU per round
    times = []
    deadline = time.perf_counter() + budget
    while time.perf_counter() < deadline or len(times) < 3:
        start = cpu()
        for _ in range(calls):
            fn(source)
        times.append((cpu() - start) / calls)
    return min(times)


def bare_lexbor(source: str) -> None:
    LexborHTMLParser(EXTRACTION_PREFIX + source, scripting=True)


def html5lib_parse(source: str) -> None:
    import html5lib

    html5lib.parse(EXTRACTION_PREFIX + source)


def timed_outcome(source: str) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        outcome = f"{len(extract_paths(source))} paths"
    except ExtractionError as exc:
        outcome = "refused: " + exc.problems[0].reason[:70] + "..."
    return time.perf_counter() - start, outcome


def main() -> int:
    quick = "--quick" in sys.argv
    budget = 0.5 if quick else 2.0
    print(f"{'input':<11} {'what':<22} {'CPU/call':>11} {'MB/s':>8} {'blocks/s':>10}")
    ratios = []
    inputs = (("5 KB", block(5_000)), ("1 MB", block(1_000_000)),
              ("5 KB dense", block(5_000, dense=True)), ("1 MB dense", block(1_000_000, dense=True)))
    for label, source in inputs:
        mb = len(source.encode()) / 1e6
        print(f"{label}: {len(source):,} bytes, {source.count('data-'):,} bindings")
        rows = {}
        for name, fn in (("extract_paths", extract_paths), ("bare lexbor parse", bare_lexbor), ("html5lib parse", html5lib_parse)):
            seconds = best(fn, source, budget if name != "html5lib parse" else budget / 2)
            rows[name] = seconds
            print(f"{label:<11} {name:<22} {seconds * 1e3:>9.3f}ms {mb / seconds:>8.1f} {1 / seconds:>10.1f}")
        vs_lexbor = rows["extract_paths"] / rows["bare lexbor parse"]
        vs_html5lib = rows["html5lib parse"] / rows["extract_paths"]
        ratios.append((label, vs_lexbor, vs_html5lib))
        print(f"{label:<11} extraction = {vs_lexbor:.2f}x a bare lexbor parse (target <= 1.5x); "
              f"{vs_html5lib:.1f}x faster than html5lib (target >= 10x)\n")

    print("bad input: time to answer or refuse (limit 2 s)")
    worst = [
        ("100,000 nested <div>", '<div data-bind="a">' * 100_000),
        (f"{GUARD_THRESHOLD // 1024} KiB of nested <div> (in-process)", "<div>" * (GUARD_THRESHOLD // 5)),
        (f"{GUARD_THRESHOLD // 1024} KiB: <span> x N then stray </x>", "<span>" * (GUARD_THRESHOLD // 12) + "</x>" * (GUARD_THRESHOLD // 8)),
        ("1,000 <span> then 200,000 stray </x>", "<span>" * 1000 + "</x>" * 200_000),
        ("4 MiB of unclosed <p>x", "<p>x" * (4 * 1024 * 1024 // 4 - 10)),
        ("4 MiB + 1 byte", "x" * (4 * 1024 * 1024 + 1)),
    ]
    for name, source in worst:
        seconds, outcome = timed_outcome(source)
        print(f"  {name:<42} {seconds:6.3f}s  {outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
