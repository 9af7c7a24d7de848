"""Where the review corpus's wall time goes (the heaviest module of the browser tier).

Reviews every corpus block (fixtures/review/) in every engine in one run, as the corpus test
does, and prints: the run's wall time; per engine, when its last first review ended and what
came after (the timed-out blocks reviewed again alone, then closing), its timed-out blocks and
its differential review (the extra runs of blocks whose requests no canary explains, their
seconds); the blocks that cost most. The peer measured in the same run is the engines' first
reviews: the differential review's seconds and the tail are printed as shares of the wall time.

    .venv/bin/python bench/review_corpus.py [--engine E]...
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from flowui_sandbox.sandbox.review.browser import run_browser_layer
from flowui_sandbox.sandbox.review.corpus import load_corpus
from flowui_sandbox.sandbox.review.model import BlockInput


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append", help="an engine (default: every one installed)")
    args = parser.parse_args()
    cases = load_corpus()
    blocks = [BlockInput(file=c.name, source=c.source, fields=c.fields, state=c.state) for c in cases]
    done: dict[str, list[float]] = defaultdict(list)
    started = time.monotonic()

    def progress(line: str) -> None:
        _, engine, _ = line.split(" ", 2)
        done[engine].append(time.monotonic() - started)

    results = run_browser_layer(blocks, args.engine, time_limit=15, progress=progress)
    wall = time.monotonic() - started
    print(f"{len(blocks)} corpus blocks, engines {', '.join(sorted(done))}: wall {wall:.0f} s")
    costly = []
    for engine in sorted(done):
        diffs = [d for r in results for d in r.differential if d.get("engine") == engine]
        extra = sum(max(0, d.get("runs", 1) - 1) for d in diffs)
        seconds = sum(d.get("seconds", 0.0) for d in diffs)
        timed_out = [r.file for r in results if engine in r.timed_out]
        last = max(done[engine])
        print(f"  {engine}: {len(done[engine])} first reviews, the last ended at {last:.0f} s ({last / wall:.2f} of the wall); "
              f"timed out: {len(timed_out)} {timed_out}; differential: {len(diffs)} blocks, {extra} extra runs, "
              f"{seconds:.0f} s ({seconds / wall:.2f} of the wall, summed over the engine's pages)")
        costly += [(d.get("seconds", 0.0), engine, r.file, d.get("runs", 1)) for r in results for d in r.differential
                   if d.get("engine") == engine]
    print("  the differential reviews that cost most:")
    for seconds, engine, file, runs in sorted(costly, reverse=True)[:10]:
        print(f"    {seconds:5.1f} s  {engine:8} {file} ({runs} runs)")


if __name__ == "__main__":
    main()
