"""The `flowui-sandbox` command (also `python -m sandbox`).

Subcommands: engines, paths, build, generate, verify. Every bad input ends with a
one-line error on stderr naming the file and the problem, and exit status 2;
never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from .errors import UsageError

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}

#: Modules that add subcommands: each has ``add_cli(subparsers, command)`` where
#: ``command(name)`` is the decorator registering the handler ``fn(args) -> exit status``.
PARTS = ("sandbox.extract", "sandbox.generator", "sandbox.generate", "sandbox.verify.cli", "sandbox.review.command",
         "sandbox.editor.command")


def command(name: str):
    def register(fn):
        COMMANDS[name] = fn
        return fn

    return register


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="flowui-sandbox", description="Sandboxed html blocks for Flow UI: build, extract, verify.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("engines", help="list the browser engines found and how each is driven")
    p.add_argument("--json", action="store_true", help="print JSON")

    import importlib

    for module in PARTS:
        importlib.import_module(module).add_cli(sub, command)
    return parser


@command("engines")
def _engines(args: argparse.Namespace) -> int:
    from .engines import engines_report, find_engines

    engines = find_engines()
    if args.json:
        print(json.dumps([e.to_json() for e in engines], indent=2))
    else:
        print(engines_report(engines))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except UsageError as exc:
        print(f"flowui-sandbox {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
