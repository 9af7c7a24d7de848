"""The `flowui-sandbox` command (also `python -m flowui_sandbox`): every parser, and nothing else.

This is the only module that knows argparse (tests/test_cli_shape.py holds it to that).
One section per command: its parser, then a handler that passes the options, as
keyword arguments, to the library function doing the command's work (which checks
them, naming the option in its message). Library modules take plain values, never an
``argparse.Namespace``, and are imported when their command runs.

Every bad input ends with one line per problem on stderr, ``FILE:LINE:COL: message``
(``FILE: message`` without a position; ``flowui-sandbox COMMAND: error: message`` for an
option), and exit status 2; never a traceback (see sandbox/errors.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import TextIO

from .data import PROBES_DIR
from .engines.names import ENGINE_NAMES
from .errors import OptionError, Recovered, UsageError
from .files import GuardedStdout
from .review.command import FAIL_ON, FORMATS
from .verify.request import GENERATOR_PROTOCOLS

Subparsers = argparse._SubParsersAction

#: Problem lines printed for one bad input; the rest are counted on one more line. A document of
#: 1.5 million bad fields printed 1.5 million lines: no reader, editor or CI log wants that.
MAX_PROBLEM_LINES = 200


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad option reported on one line (usage is one ``--help`` away)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ------------------------------------------------------------------------ engines


def _add_engines(sub: Subparsers) -> None:
    p = sub.add_parser("engines", help="list the browser engines found and how each is driven")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_engines)


def _engines(args: argparse.Namespace) -> int:
    from .engines import engines_report, find_engines

    engines = find_engines()
    if args.json:
        print(json.dumps([e.to_json() for e in engines], indent=2))
    else:
        print(engines_report(engines))
    return 0


# -------------------------------------------------------------------------- paths


def _add_paths(sub: Subparsers) -> None:
    p = sub.add_parser("paths", help="print the data-bind/data-show paths of html block sources",
                       description="Print the paths each FILE's markup binds, as a browser's DOM holds them.")
    p.add_argument("files", nargs="+", metavar="FILE", help="an html block source (UTF-8)")
    p.add_argument("--json", action="store_true", help='print {"FILE": [paths], ...}')
    p.add_argument("--frozen", default="", metavar="A,B", help="comma-separated frozen system fields (refused as first segment)")
    p.set_defaults(run=_paths)


def _paths(args: argparse.Namespace) -> int:
    from .block.extract import print_paths

    return print_paths(args.files, frozen=args.frozen, as_json=args.json)


# -------------------------------------------------------------------------- build


def _add_build(sub: Subparsers) -> None:
    p = sub.add_parser("build", help="build a block's iframe element (or with --page a whole host page) from its source")
    p.add_argument("file", metavar="FILE", help="the block's source (UTF-8 HTML)")
    p.add_argument("--state", metavar="F", help="a JSON file holding the state (an object)")
    p.add_argument("--theme", metavar="F", help="a JSON file holding a flat theme (color-scheme and tokens)")
    p.add_argument("--fields", metavar="a,b", default="", help="comma-separated paths the block's script reads")
    p.add_argument("--frozen", metavar="a,b", default="", help="comma-separated system fields no path may start with")
    p.add_argument("--block-id", metavar="ID", default="block", help="the block's id (default: block)")
    p.add_argument("--page", action="store_true", help="print a whole host page instead of the iframe element")
    p.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of stdout")
    p.set_defaults(run=_build)


def _build(args: argparse.Namespace) -> int:
    from .block.srcdoc import build_file

    return build_file(args.file, state=args.state, theme=args.theme, fields=args.fields, frozen=args.frozen,
                      block_id=args.block_id, page=args.page, output=args.output)


# ----------------------------------------------------------------------- generate


def _add_generate(sub: Subparsers) -> None:
    p = sub.add_parser(
        "generate", help="write every derived file (contract.js, runtime constants, JSON Schemas, goldens); --check only checks",
    )
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 naming the stale files")
    p.set_defaults(run=_generate)


def _generate(args: argparse.Namespace) -> int:
    from .derived.generate import generate

    return generate(check=args.check)


# ------------------------------------------------------------------------- verify


def _add_verify(sub: Subparsers) -> None:
    p = sub.add_parser(
        "verify", help="run the attack-probe catalogue in every browser engine and report what the sandbox held",
        description="Runs every probe of the catalogue (fixtures/probes) on every engine found and prints a "
        "probe x engine matrix. Exit status: 0 when every outcome is the expected one, 1 when any is UNEXPECTED, "
        "2 on a usage error.",
    )
    p.add_argument("--engine", action="append", metavar="E", help=f"run on this engine only (repeatable; {', '.join(ENGINE_NAMES)})")
    p.add_argument("--json", metavar="FILE", help="write every result as JSON to FILE")
    p.add_argument("--html", metavar="FILE", help="write an HTML report with the evidence to FILE")
    p.add_argument("--generator", metavar="CMD", help="verify another generator: CMD reads a block on stdin and prints the iframe HTML "
                   "(exit status 2: it refuses the input)")
    p.add_argument("--generator-protocol", choices=GENERATOR_PROTOCOLS, default="source",
                   help="what CMD reads on stdin: 'source' (default) the author source only, so probes needing fields, state, "
                   "theme or the bridge are n/a; 'json' one JSON object {version, source, block_id, fields, state, theme}, so "
                   "every probe runs (docs/GENERATORS.md)")
    p.add_argument("--probe", action="append", metavar="ID", help="run only probes whose id starts with ID (repeatable)")
    p.add_argument("--probes-dir", metavar="DIR", default=str(PROBES_DIR), help="the catalogue to run (default: the built-in one)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    # Browsers on other machines (sandbox/harness/remote.py).
    g = p.add_argument_group("browsers elsewhere (docs/SCALE.md)")
    g.add_argument("--remote", action="append", metavar="ENGINE[:PAGES]=URL", default=[],
                   help="use a remote browser (repeatable; the work is spread over all of an engine's): a Playwright browser "
                   "server ws://HOST:PORT/PATH for chromium or firefox, a WebDriver endpoint http://HOST:PORT for webkit")
    g.add_argument("--bind", metavar="ADDR", default="127.0.0.1", help="address the observing servers listen on (default 127.0.0.1)")
    g.add_argument("--public-host", metavar="NAME", help="name or address the remote browsers reach the host origins by (default: the --bind address)")
    g.add_argument("--canary-host", metavar="NAME", help="name the remote browsers reach the canary by; must be another site than --public-host (default: localhost)")
    p.set_defaults(run=_verify)


def _verify(args: argparse.Namespace) -> int:
    from .verify.command import verify

    return verify(engines=args.engine, json_file=args.json, html_file=args.html, generator=args.generator,
                  generator_protocol=args.generator_protocol, probe_prefixes=args.probe, probes_dir=args.probes_dir,
                  quiet=args.quiet, remote_specs=args.remote, bind=args.bind, public_host=args.public_host,
                  canary_host=args.canary_host)


# ------------------------------------------------------------------------- review


def _add_review(sub: Subparsers) -> None:
    p = sub.add_parser("review", help="security review of html blocks: what each one does with what the policy allows",
                       description="Review html block sources (files or directories of .html files): statically, "
                                   "and unless --static in real browsers. Exit 0 when nothing at or above --fail-on "
                                   "was found, 1 when something was, 2 on bad input.")
    p.add_argument("files", nargs="*", metavar="FILE", help="a block source (UTF-8 HTML) or a directory of them")
    p.add_argument("--fields", metavar="a,b", default="", help="comma-separated fields the block receives")
    p.add_argument("--state", metavar="F", help="a JSON file holding the state to mount the blocks with "
                   "(default: each FILE's NAME.state.json beside it, if any)")
    p.add_argument("--theme", metavar="F", help="a JSON file holding a flat theme")
    p.add_argument("--engine", action="append", choices=ENGINE_NAMES, metavar="E",
                   help=f"a browser engine ({', '.join(ENGINE_NAMES)}); repeat for several; default: every engine found")
    p.add_argument("--static", action="store_true", help="the static layer only (no browser)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: by OUT's ending, .json, .sarif, .html, else text)")
    p.add_argument("-o", "--output", metavar="OUT", action="append", default=[],
                   help="write the report to OUT instead of stdout; repeat for several formats of one review "
                        "(-o r.sarif -o r.html)")
    p.add_argument("--fail-on", choices=FAIL_ON, default="high",
                   help="exit 1 when a finding at or above this severity remains (default: high)")
    p.add_argument("--baseline", metavar="F", help="a baseline: findings whose fingerprint it lists (with a justification) are suppressed")
    p.add_argument("--write-baseline", metavar="F", help="write the findings as a baseline to F (justifications to fill in)")
    p.add_argument("--sensitive", metavar="w,w", help="comma-separated words that make a path sensitive (replaces the default list)")
    p.add_argument("--time-limit", type=float, default=None, metavar="S", help="per-block time limit in each engine, seconds (default: the in-browser layer's, 15)")
    p.add_argument("--list-rules", action="store_true", help="print the rule catalogue (Markdown) and exit")
    g = p.add_argument_group("browsers elsewhere (docs/REVIEW-BROWSER.md, Remote browsers)")
    g.add_argument("--remote", action="append", metavar="ENGINE[:PAGES]=URL", default=[],
                   help="review in a remote browser (repeatable; the blocks are spread over all of an engine's): a Playwright "
                   "browser server ws://HOST:PORT/PATH for chromium or firefox, a WebDriver endpoint http://HOST:PORT for webkit")
    g.add_argument("--bind", metavar="ADDR", default="127.0.0.1",
                   help="address the proxies the browsers send through listen on (default 127.0.0.1)")
    g.add_argument("--public-host", metavar="NAME", help="name or address the remote browsers reach the proxies by (default: the --bind address)")
    p.set_defaults(run=_review)


def _review(args: argparse.Namespace) -> int:
    from .review.command import review_files

    return review_files(args.files, fields=args.fields, state=args.state, theme=args.theme, engines=args.engine,
                        static_only=args.static, output_format=args.format, output=args.output, fail_on=args.fail_on,
                        baseline=args.baseline, write_baseline=args.write_baseline, sensitive=args.sensitive,
                        time_limit=args.time_limit, list_rules=args.list_rules, remote_specs=args.remote,
                        bind=args.bind, public_host=args.public_host)


# ----------------------------------------------------------------- document, diff


def _add_document(sub: Subparsers) -> None:
    p = sub.add_parser("document", help="the projection paths and problems of a Flow UI document",
                       description="Check a Flow UI document; print its projection paths and each html block's.")
    p.add_argument("file", nargs="?", metavar="DOC.json", help="the document (UTF-8 JSON; - for stdin)")
    p.add_argument("--json", action="store_true", help='print {"paths", "refs", "blocks", "errors"}')
    p.add_argument("--frozen", default="", metavar="A,B", help="the server's frozen system fields (refused as a path's first segment)")
    p.add_argument("--schema", action="store_true", help="print the document's JSON Schema instead")
    p.set_defaults(run=_document)


def _document(args: argparse.Namespace) -> int:
    from .document.command import check_document_file

    return check_document_file(args.file, as_json=args.json, frozen=args.frozen, schema=args.schema)


def _add_diff(sub: Subparsers) -> None:
    p = sub.add_parser("diff", help="the JSON Patch (add/replace/remove) from one state to another",
                       description="Print the RFC 6902 patch turning OLD into NEW as a JSON array.")
    p.add_argument("old", metavar="OLD.json")
    p.add_argument("new", metavar="NEW.json")
    p.set_defaults(run=_diff)


def _diff(args: argparse.Namespace) -> int:
    from .document.command import diff_files

    return diff_files(args.old, args.new)


# ----------------------------------------------------------------- browser-server


def _add_browser_server(sub: Subparsers) -> None:
    p = sub.add_parser(
        "browser-server", help="serve a browser for `verify --remote` or `review --remote` on another machine (docs/SCALE.md)",
        description="Starts a Playwright browser server (chromium, firefox) or WebKitWebDriver (webkit), prints "
        "ENGINE=URL for `verify --remote` and `review --remote`, and serves until interrupted.",
    )
    p.add_argument("engine", choices=ENGINE_NAMES)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    p.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    p.set_defaults(run=_browser_server)


def _browser_server(args: argparse.Namespace) -> int:
    from .harness.browser_server import serve

    return serve(args.engine, host=args.host, port=args.port)


# --------------------------------------------------------------------------- edit


def _add_edit(sub: Subparsers) -> None:
    p = sub.add_parser("edit", help="edit a block in the browser with a live sandboxed preview, bridge log and cheat sheet")
    p.add_argument("file", metavar="FILE", nargs="?", default="block.html",
                   help="the block's source (UTF-8 HTML); a file that does not exist starts from the starter (default: block.html)")
    p.add_argument("--state", metavar="F", help="a JSON file holding the test state (an object); default: FILE's NAME.state.json beside it, if any")
    p.add_argument("--fields", metavar="a,b", default=None, help="comma-separated paths the block's script reads or writes (default: none; the starter's for the starter)")
    p.add_argument("--theme", metavar="F", help="a JSON file holding a flat theme (color-scheme and token overrides)")
    p.add_argument("--block-id", metavar="ID", default="block", help="the block's id (default: block)")
    p.add_argument("--port", metavar="N", type=int, default=0, help="the port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-open", action="store_true", help="print the URL only; do not open a browser")
    p.set_defaults(run=_edit)


def _edit(args: argparse.Namespace) -> int:
    from .editor.command import edit

    return edit(args.file, state=args.state, fields=args.fields, theme=args.theme, block_id=args.block_id,
                port=args.port, open_browser=not args.no_open)


# ------------------------------------------------------------------- the command

#: The subcommands, in the order ``--help`` lists them.
SECTIONS = (_add_engines, _add_paths, _add_build, _add_generate, _add_verify, _add_review, _add_document, _add_diff,
            _add_browser_server, _add_edit)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="flowui-sandbox", description="Sandboxed html blocks for Flow UI: build, extract, verify.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    for add in SECTIONS:
        add(sub)
    parser.set_defaults(_commands=sub.choices)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # reported by the subcommand's parser, so the line names the subcommand
        args._commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    with warnings.catch_warnings():  # the printer and the filter are the command's, restored after it
        warnings.showwarning = _note(args.command, warnings.showwarning)
        warnings.filterwarnings("always", category=Recovered)  # every recovery, not the first at each line
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    real_stdout = sys.stdout
    sys.stdout = GuardedStdout(real_stdout)  # a full disk or a closed stdout: one line, exit 2
    try:
        code = args.run(args)
        sys.stdout.flush()  # a full disk shows here, not in the interpreter's flush at exit
        return code
    except OptionError as exc:
        _print_problems([f"flowui-sandbox {args.command}: error: {line}" for line in str(exc).splitlines()], args.command)
        return 2
    except UsageError as exc:
        _print_problems(str(exc).splitlines(), args.command)  # already one located line per problem
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
    finally:
        sys.stdout = real_stdout


def _note(command: str, shown: Callable[..., None]) -> Callable[..., None]:
    """Python's warning printer, with each :class:`Recovered` as one note line."""
    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: TextIO | None = None,
             line: str | None = None) -> None:
        if issubclass(category, Recovered):
            print(f"flowui-sandbox {command}: note: {(str(message).strip().splitlines() or [category.__name__])[0]}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)
    return show


def _print_problems(lines: list[str], command: str) -> None:
    """The first MAX_PROBLEM_LINES problem lines on stderr, then one line counting the rest."""
    shown = lines[:MAX_PROBLEM_LINES]
    if len(lines) > MAX_PROBLEM_LINES:
        rest = len(lines) - MAX_PROBLEM_LINES
        shown.append(f"flowui-sandbox {command}: {rest} more problem{'s' if rest != 1 else ''} not shown "
                     f"(the first {MAX_PROBLEM_LINES} are above; fix them and run again)")
    print("\n".join(shown), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
