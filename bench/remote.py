"""Benchmark of `verify` through browser servers: 1 and 2 servers per engine, against local browsers in the same run.

    .venv/bin/python bench/remote.py [--probes N] [--engine E]... [--servers 1,2]

Starts the browser servers on this machine (``flowui_sandbox.sandbox.harness.browser_server``: Playwright
browser servers for Chromium and Firefox, WebKitWebDriver for WebKit), then runs the
same probes (the first N of the catalogue, all by default) on every engine at once:
locally (one browser per engine, as `verify`), then through 1 server per engine, then 2.
Prints the wall time of each, the ratio to the local run, how the probes were spread,
and whether every verdict equals the local one.

On one machine a second server adds no CPU: the figures measure the protocol's overhead
and the spreading, not the gain of a second machine (docs/SCALE.md).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from flowui_sandbox.sandbox.engines import ENGINE_NAMES, select_engines
from flowui_sandbox.sandbox.engines.remote import parse_remote, plan
from flowui_sandbox.sandbox.harness.browser_server import start_many
from flowui_sandbox.sandbox.verify.probes import load_catalogue
from flowui_sandbox.sandbox.verify.report import summary
from flowui_sandbox.sandbox.verify.runner import run_matrix
from flowui_sandbox.sandbox.verify.servers import Servers


def verdicts(runs) -> dict[tuple[str, str], str]:
    return {(r.probe, r.engine): r.verdict for run in runs for r in run.results}


async def timed(engines, probes, remote=None):
    async with Servers() as servers:
        started = time.monotonic()
        runs = await run_matrix(engines, probes, servers=servers, remote=remote)
        return time.monotonic() - started, runs


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=0, help="run the first N probes of the catalogue (default: all)")
    parser.add_argument("--engine", action="append", choices=ENGINE_NAMES)
    parser.add_argument("--servers", default="1,2", help="server counts per engine to measure (default 1,2)")
    args = parser.parse_args()
    names = [e.name for e in select_engines(args.engine)]
    probes = load_catalogue()
    probes = probes[: args.probes] if args.probes else probes
    counts = [int(c) for c in args.servers.split(",")]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print(f"{len(probes)} probes x {len(names)} engines ({', '.join(names)}), all engines at once")

    local_wall, local_runs = await timed(select_engines(names), probes)
    reference = verdicts(local_runs)
    rows = [("local (one browser per engine)", local_wall, local_runs, "")]
    print(f"  local: {local_wall:.1f} s (load average {os.getloadavg()[0]:.1f})", flush=True)
    for count in counts:
        servers = await asyncio.to_thread(start_many, [n for n in names for _ in range(count)])
        try:
            engines, remote = plan(names, parse_remote([s.spec for s in servers]))
            wall, runs = await timed(engines, probes, remote)
        finally:
            for server in servers:
                server.stop()
        spread = "; ".join(f"{run.engine} " + "+".join(str(b.get("probes", 0)) for b in run.browsers) for run in runs)
        rows.append((f"{count} server(s) per engine", wall, runs, spread))
        print(f"  {count} server(s) per engine: {wall:.1f} s, {spread} (load average {os.getloadavg()[0]:.1f})", flush=True)

    print()
    print("| run | wall s | / local | held | allowed | UNEXPECTED | verdicts = local | probes per server |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for label, wall, runs, spread in rows:
        c = summary(runs)
        same = verdicts(runs) == reference
        print(f"| {label} | {wall:.1f} | {wall / local_wall:.2f} | {c['held']} | {c['allowed']} | {c['UNEXPECTED']} | {'yes' if same else 'NO'} | {spread or '-'} |")
    for label, _wall, runs, _spread in rows[1:]:
        differ = sorted(k for k, v in verdicts(runs).items() if reference.get(k) != v)
        if differ:
            print(f"{label}: verdicts that differ from local: " + ", ".join(f"{p} [{e}] {reference.get((p, e))} -> {verdicts(runs)[(p, e)]}" for p, e in differ))
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
