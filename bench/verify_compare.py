"""Compare two `flowui-sandbox verify --json` files probe by probe, engine by engine.

A (probe, engine) pair differs when its observed status or its verdict is not the same in
both files, or when it is in one file and not the other. Also prints the wall time of
each file and, per engine, the sum of the probes' own seconds (where the time went).

    .venv/bin/python bench/verify_compare.py [--common] BEFORE.json AFTER.json [AFTER2.json ...]

--common compares only the pairs both files hold (a run of a subset, --probe or --engine).
A pair whose run did not exercise the probe on one side (status invalid or error: a lost
click, a page too slow to load) is marked "(not exercised)": a flake of that run, not a
change of outcome, but it still counts as a difference.

Exit status 0 when every later file agrees with BEFORE on every pair, 1 when any differs,
2 when a file cannot be read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def load(path: str) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"{path}:1:1: cannot read a verify JSON file: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def outcomes(report: dict) -> dict[tuple[str, str], tuple[str, str]]:
    """(probe, engine) -> (status, verdict)."""
    return {(r["probe"], r["engine"]): (r["status"], r["verdict"]) for r in report.get("results", [])}


def compare(before: dict, after: dict, common: bool = False) -> list[str]:
    """One line per (probe, engine) whose outcome differs; empty when they agree."""
    a, b = outcomes(before), outcomes(after)
    lines = []
    for key in sorted(set(a) & set(b) if common else set(a) | set(b)):
        probe, engine = key
        if key not in b:
            lines.append(f"{probe} [{engine}]: only in the first file ({a[key][0]}, {a[key][1]})")
        elif key not in a:
            lines.append(f"{probe} [{engine}]: only in the second file ({b[key][0]}, {b[key][1]})")
        elif a[key] != b[key]:
            lost = " (not exercised)" if {a[key][0], b[key][0]} & {"invalid", "error"} else ""
            lines.append(f"{probe} [{engine}]: {a[key][0]}/{a[key][1]} -> {b[key][0]}/{b[key][1]}{lost}")
    return lines


def describe(path: str, report: dict) -> str:
    engines = ", ".join(f"{e['engine']} {e['seconds']:.0f} s" + (f" (ERROR {e['error']})" if e.get("error") else "")
                        for e in report.get("engines", []))
    s = report.get("summary", {})
    return (f"{path}: {len(report.get('results', []))} results in {report.get('wall_seconds', 0):.1f} s wall [{engines}]; "
            f"{s.get('held', 0)} held, {s.get('allowed', 0)} allowed, {s.get('UNEXPECTED', 0)} UNEXPECTED, {s.get('n/a', 0)} n/a")


def main(argv: list[str]) -> int:
    common = "--common" in argv
    argv = [a for a in argv if a != "--common"]
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    before = load(argv[0])
    print(describe(argv[0], before))
    status = 0
    for path in argv[1:]:
        after = load(path)
        print(describe(path, after))
        diff = compare(before, after, common)
        if diff:
            status = 1
            print(f"  {len(diff)} pair(s) differ from {argv[0]}:")
            for line in diff:
                print(f"    {line}")
        else:
            pairs = len(set(outcomes(before)) & set(outcomes(after))) if common else len(outcomes(after))
            print(f"  every (probe, engine) pair agrees with {argv[0]} ({pairs} pairs)")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
