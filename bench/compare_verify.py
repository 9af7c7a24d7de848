"""Compare two `flowui-sandbox verify --json` reports probe by probe, on every engine.

    .venv/bin/flowui-sandbox verify --json /tmp/before.json     # before the change
    .venv/bin/flowui-sandbox verify --json /tmp/after.json      # after it
    .venv/bin/python bench/compare_verify.py /tmp/before.json /tmp/after.json

Prints one line per (probe, engine) whose outcome changed (or that one report lacks), then a
summary; exit status 0 when every outcome is the same, 1 when one differs, 2 on a bad file.
Under a loaded machine an outcome can flip for timing alone: re-run the probes named
(`verify --probe ID --engine E`) before and after the change to tell.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from flowui_sandbox.sandbox.errors import UsageError
from flowui_sandbox.sandbox.verify.compare import compare_files


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0].startswith("-") or argv[1].startswith("-"):
        print("usage: compare_verify.py BEFORE.json AFTER.json", file=sys.stderr)
        return 2
    try:
        result = compare_files(argv[0], argv[1])
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    print("\n".join(result.lines()))
    return 0 if result.agree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
