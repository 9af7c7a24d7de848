"""Where a `flowui-sandbox verify --json` run spent its time: per engine, each phase of a probe
run summed over the catalogue and its share, then the slowest probes.

    .venv/bin/python bench/verify_profile.py RUN.json [--top N]

The phases (``observed.phases`` of each result, seconds): ``build`` (taps, template values,
the generator, the host page), ``page`` (a page from the pool, or a new one), ``load`` (the
host page's navigation, load event included), ``ready`` (until the bridge blocks connected),
``host_script``, ``click``, ``window`` (the observation window), ``observe`` (reading the
host page, the frames, the logs). A run's pages overlap (several at once per engine, the
engines at once): the sums are page-seconds, and each engine's wall time is printed beside them.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

PHASES = ("build", "page", "load", "ready", "host_script", "click", "window", "observe")


def main(argv: list[str]) -> int:
    top = 10
    if "--top" in argv:
        i = argv.index("--top")
        top = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    try:
        report = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"{argv[0]}:1:1: cannot read a verify JSON file: {exc}", file=sys.stderr)
        return 2
    walls = {e["engine"]: e["seconds"] for e in report.get("engines", [])}
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    runs: dict[str, list[float]] = defaultdict(list)
    early: dict[str, int] = defaultdict(int)
    for r in report.get("results", []):
        for name, seconds in (r["observed"].get("phases") or {}).items():
            sums[r["engine"]][name] += seconds
        runs[r["engine"]].append(r["seconds"])
        early[r["engine"]] += "window_ended_early" in r["observed"]
    print(f"{argv[0]}: {report.get('wall_seconds', 0):.1f} s wall")
    print("| engine | wall s | runs | median run s | " + " | ".join(PHASES) + " | total page-s | windows ended early |")
    print("| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in PHASES) + " | ---: | ---: |")
    for engine, phases in sums.items():
        total = sum(phases.values()) or 1.0
        cells = " | ".join(f"{phases.get(p, 0):.0f} ({100 * phases.get(p, 0) / total:.0f}%)" for p in PHASES)
        print(f"| {engine} | {walls.get(engine, 0):.0f} | {len(runs[engine])} | {statistics.median(runs[engine]):.1f} | "
              f"{cells} | {total:.0f} | {early[engine]} |")
    slow = sorted(report.get("results", []), key=lambda r: -r["seconds"])[:top]
    print(f"\nslowest {len(slow)} runs:")
    for r in slow:
        phases = ", ".join(f"{k} {v:.1f}" for k, v in (r["observed"].get("phases") or {}).items() if v >= 0.5)
        print(f"  {r['seconds']:6.1f} s  {r['engine']:<9} {r['probe']:<36} {phases}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
