"""Where the review corpus's wall time goes (the heaviest module of the browser tier).

Reviews every corpus block (fixtures/review/) in every engine in one run, as the corpus test
does, and prints: the run's wall time; per engine, when its last first review ended, its
timed-out blocks and its differential review (the extra runs of blocks whose requests no canary
explains, their seconds); each step of a first review (:meth:`Lane.drive`'s steps: load, connected,
screenshots, actions, update, settle, virtual time, clock leaps), summed and its median, in
page-seconds; the blocks that cost most. The peer measured in the same run is the engines' first
reviews: the differential review's seconds are printed against them and against the wall time.

    .venv/bin/python bench/review_corpus.py [--engine E]...
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from flowui_sandbox.sandbox.engines import select_engines
from flowui_sandbox.sandbox.harness.server import tls_context
from flowui_sandbox.sandbox.review.browser import _quiet, _work, run_lanes
from flowui_sandbox.sandbox.review.browser.run import Lane
from flowui_sandbox.sandbox.review.corpus import load_corpus
from flowui_sandbox.sandbox.review.model import BlockInput


async def review(engine_names: list[str] | None, screenshots: bool = True):
    """The corpus in every engine at once, as the corpus test runs it; (works, engines, observations, wall, done)."""
    asyncio.get_running_loop().set_exception_handler(_quiet)
    engines = select_engines(engine_names)
    blocks = [BlockInput(file=c.name, source=c.source, fields=c.fields, state=c.state) for c in load_corpus()]
    works = [_work(i, b) for i, b in enumerate(blocks)]
    _, context = tls_context("127.0.0.1", "localhost")
    done: dict[str, list[float]] = defaultdict(list)
    started = time.monotonic()
    lanes = [Lane(e, context, time_limit=15, screenshots=screenshots, on_done=lambda name, _w: done[name.split("@")[0]].append(time.monotonic() - started))
             for e in engines]
    runs = await run_lanes(lanes, works)
    return works, [e.name for e in engines], runs, time.monotonic() - started, done


def step_times(steps: dict) -> dict[str, float]:
    """Each timed step's own seconds (the record holds the seconds at each step's end)."""
    out, before = {}, 0.0
    for name, at in steps.items():
        if isinstance(at, (int, float)) and not isinstance(at, bool):
            out[name], before = at - before, at
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append", help="an engine (default: every one installed)")
    parser.add_argument("--no-screenshots", action="store_true", help="first reviews without their screenshots")
    args = parser.parse_args()
    works, engines, runs, wall, done = asyncio.run(review(args.engine, not args.no_screenshots))
    print(f"{len(works)} corpus blocks, engines {', '.join(engines)}: wall {wall:.0f} s")
    costly = []
    for engine, run in zip(engines, runs):
        seen = [run[w.index] for w in works]
        firsts = sum(o.seconds for o in seen)
        diffs = [(w.file, o.differential) for w, o in zip(works, seen) if o.differential]
        extra = sum(d.runs for _, d in diffs)
        seconds = sum(d.seconds for _, d in diffs)
        timed_out = [w.file for w, o in zip(works, seen) if o.timed_out]
        last = max(done[engine], default=0.0)
        print(f"  {engine}: the last first review ended at {last:.0f} s ({last / wall:.2f} of the wall); first reviews "
              f"{firsts:.0f} page-s; timed out: {len(timed_out)} {timed_out}; differential: {len(diffs)} blocks, "
              f"{extra} extra runs, {seconds:.0f} page-s ({seconds / max(firsts, 1e-9):.2f} of the first reviews')")
        steps: dict[str, list[float]] = defaultdict(list)
        for o in seen:
            for name, took in step_times(o.steps).items():
                steps[name].append(took)
        for name, took in steps.items():
            print(f"      {name:<18} {len(took):4} reviews  {sum(took):7.1f} page-s  median {statistics.median(took):5.2f} s")
        costly += [(d.seconds, engine, file, d.runs) for file, d in diffs]
    print("  the differential reviews that cost most:")
    for seconds, engine, file, n in sorted(costly, reverse=True)[:10]:
        print(f"    {seconds:5.1f} s  {engine:8} {file} ({n} runs)")


if __name__ == "__main__":
    main()
