"""Benchmark of `flowui-sandbox verify`: the full probe x engine matrix, against a browser per probe.

Prints the matrix's wall time (one browser per engine, probes in parallel pages, all
engines at once) and, for a small sample of probes measured in the same run, the time of
the naive way: launch a browser, run one probe, close it. The ratio extrapolates the
naive way to the whole catalogue (engines side by side, probes one after another).

    .venv/bin/python bench/verify.py [--sample N] [--engine E]...
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from flowui_sandbox.sandbox.engines import launch, select_engines
from flowui_sandbox.sandbox.verify.probes import load_catalogue
from flowui_sandbox.sandbox.verify.report import summary
from flowui_sandbox.sandbox.verify.runner import Generator, run_engine, run_matrix
from flowui_sandbox.sandbox.verify.servers import Servers

#: Probes for the naive sample: quick ones of several kinds.
SAMPLE = ["network.fetch", "host.dom_read", "exfiltration.img_https", "ui.alert", "loading.eval", "storage.indexeddb"]


async def per_probe_browser(engine, probes, servers) -> list[float]:
    times = []
    for probe in probes:
        started = time.monotonic()
        session = await launch(engine)
        try:
            await run_engine(session, [probe], servers, Generator(), concurrency=1)
        finally:
            await session.close()
        times.append(time.monotonic() - started)
    return times


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=3, help="probes per engine in the naive sample (default 3)")
    parser.add_argument("--engine", action="append")
    args = parser.parse_args()
    engines = select_engines(args.engine)
    catalogue = load_catalogue()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print(f"catalogue: {len(catalogue)} probes; engines: {', '.join(e.name for e in engines)}")

    started = time.monotonic()
    runs = await run_matrix(engines, catalogue)
    wall = time.monotonic() - started
    counts = summary(runs)
    print(f"full matrix: {len(catalogue) * len(engines)} runs in {wall:.1f} s wall "
          f"({counts['held']} held, {counts['allowed']} allowed, {counts['UNEXPECTED']} UNEXPECTED); target <= 90 s")
    for run in runs:
        print(f"  {run.engine:<9} {run.seconds:6.1f} s{'  ERROR ' + run.error if run.error else ''}")

    sample = [p for p in catalogue if p.id in SAMPLE][: args.sample]
    async with Servers() as servers:
        naive = await asyncio.gather(*(per_probe_browser(e, sample, servers) for e in engines))
    estimate = 0.0
    for engine, times in zip(engines, naive):
        mean = statistics.mean(times)
        estimate = max(estimate, mean * len(catalogue))
        print(f"  browser per probe, {engine.name:<9}: {mean:.1f} s per probe (sample of {len(times)})")
    print(f"browser per probe, whole catalogue (extrapolated, engines side by side): {estimate:.0f} s")
    print(f"ratio: the harness is {estimate / wall:.1f}x faster than a browser per probe")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
