"""Wall time and machine-wide CPU seconds of a whole command, over several runs.

A command that starts browsers cannot be measured from its process tree: browser processes are
reparented (to init, to a zygote) and their CPU never reaches the command's rusage. This reads
the machine's own counters (/proc/stat: user, nice, system, irq, softirq, steal of every CPU)
before and after each run instead, so it counts everything the machine did meanwhile: run it on
a quiet machine. With ``--vs``, the two commands run in turn (A B A B ...) and the ratios A/B
are printed pair by pair, so a drift of the machine's speed hits both.

    .venv/bin/python bench/machine_cpu.py -n 3 -- .venv/bin/flowui-sandbox verify
    .venv/bin/python bench/machine_cpu.py -n 3 --vs '/path/to/other/.venv/bin/flowui-sandbox verify' -- .venv/bin/flowui-sandbox verify
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import time

TICK = os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU seconds the whole machine has been busy since boot (every CPU summed)."""
    with open("/proc/stat", encoding="ascii") as f:
        fields = f.readline().split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / TICK


def run(argv: list[str]) -> tuple[float, float, int]:
    cpu, wall = busy_seconds(), time.monotonic()
    code = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return time.monotonic() - wall, busy_seconds() - cpu, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=3, help="runs of each command (default 3)")
    parser.add_argument("--vs", help="a second command, run in turn with the first")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG ...]")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    peers = {"A": command, **({"B": shlex.split(args.vs)} if args.vs else {})}
    rows: dict[str, list[tuple[float, float, int]]] = {k: [] for k in peers}
    for i in range(args.n):
        for key, argv in peers.items():
            rows[key].append(run(argv))
            wall, cpu, code = rows[key][-1]
            print(f"run {i + 1} {key}: wall {wall:.1f} s, machine CPU {cpu:.1f} s (exit {code})", flush=True)
    for key, argv in peers.items():
        walls, cpus = [r[0] for r in rows[key]], [r[1] for r in rows[key]]
        print(f"{key} = {shlex.join(argv)}: wall median {statistics.median(walls):.1f} s "
              f"(min {min(walls):.1f}, max {max(walls):.1f}); machine CPU median {statistics.median(cpus):.1f} s "
              f"(min {min(cpus):.1f}, max {max(cpus):.1f})")
    if "B" in rows:
        for what, at in (("wall", 0), ("machine CPU", 1)):
            ratios = [a[at] / b[at] for a, b in zip(rows["A"], rows["B"]) if b[at]]
            print(f"A/B {what}: " + ", ".join(f"{r:.2f}" for r in ratios) + f" (median {statistics.median(ratios):.2f})")


if __name__ == "__main__":
    main()
