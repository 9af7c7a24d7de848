"""The `flowui-sandbox` command (also `python -m sandbox`).

Subcommands: engines, paths, build, generate, review, document, diff, verify,
browser-server. Every bad input ends with one
line per problem on stderr, ``FILE:LINE:COL: message`` (``FILE: message`` without a
position; ``flowui-sandbox COMMAND: error: message`` for an option), and exit status 2;
never a traceback (see sandbox/errors.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence

from .errors import OptionError, UsageError

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}

#: Modules that add subcommands: each has ``add_cli(subparsers, command)`` where
#: ``command(name)`` is the decorator registering the handler ``fn(args) -> exit status``.
PARTS = (
    "sandbox.extract", "sandbox.generator", "sandbox.generate", "sandbox.verify.cli", "sandbox.review.command",
    "sandbox.document.command", "sandbox.browser_server", "sandbox.editor.command",
)


def command(name: str):
    def register(fn):
        COMMANDS[name] = fn
        return fn

    return register


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad option reported on one line (usage is one ``--help`` away)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="flowui-sandbox", description="Sandboxed html blocks for Flow UI: build, extract, verify.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("engines", help="list the browser engines found and how each is driven")
    p.add_argument("--json", action="store_true", help="print JSON")

    import importlib

    for module in PARTS:
        importlib.import_module(module).add_cli(sub, command)
    parser.set_defaults(_commands=sub.choices)
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
    args, extra = parser.parse_known_args(argv)
    if extra:  # reported by the subcommand's parser, so the line names the subcommand
        args._commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return COMMANDS[args.command](args)
    except OptionError as exc:
        print("\n".join(f"flowui-sandbox {args.command}: error: {line}" for line in str(exc).splitlines()), file=sys.stderr)
        return 2
    except UsageError as exc:
        print(exc, file=sys.stderr)  # already one located line per problem
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug, not a bad input: still one line, the traceback on request
        if os.environ.get("FLOWUI_SANDBOX_TRACEBACK"):
            raise
        first = str(exc).splitlines()[0] if str(exc) else ""
        print(f"flowui-sandbox {args.command}: internal error: {type(exc).__name__}: {first} "
              "(a bug: please report it; FLOWUI_SANDBOX_TRACEBACK=1 shows the traceback)", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
