"""The ``document`` and ``diff`` commands.

``flowui-sandbox document DOC.json [--json] [--frozen a,b]``: the projection paths of
the document and of each html block, and every problem (``DOC.json:LINE:COL: where:
message`` on stderr, exit 2). ``flowui-sandbox document --schema [--frozen a,b]``: the
document's JSON Schema. ``flowui-sandbox diff OLD.json NEW.json``: the JSON Patch from
one state to the other, on stdout as a JSON array.
"""

from __future__ import annotations

import argparse
import json

from ..errors import OptionError, UsageError
from ..files import read_text
from .jsontext import load_json, locate
from .model import document_schema
from .patch import PatchError, diff
from .validate import check_document

#: Largest document file accepted. A document is design-time data edited by people; a
#: few hundred blocks with html sources make a few hundred KB. Each html source is
#: also limited on its own (sandbox.extract.MAX_SOURCE_BYTES).
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
#: Largest state file the diff command reads.
MAX_STATE_BYTES = 16 * 1024 * 1024


def add_cli(sub, command) -> None:
    p = sub.add_parser("document", help="the projection paths and problems of a Flow UI document",
                       description="Check a Flow UI document; print its projection paths and each html block's.")
    p.add_argument("file", nargs="?", metavar="DOC.json", help="the document (UTF-8 JSON; - for stdin)")
    p.add_argument("--json", action="store_true", help='print {"paths", "refs", "blocks", "errors"}')
    p.add_argument("--frozen", default="", metavar="A,B", help="the server's frozen system fields (refused as a path's first segment)")
    p.add_argument("--schema", action="store_true", help="print the document's JSON Schema instead")
    command("document")(_document_command)

    p = sub.add_parser("diff", help="the JSON Patch (add/replace/remove) from one state to another",
                       description="Print the RFC 6902 patch turning OLD into NEW as a JSON array.")
    p.add_argument("old", metavar="OLD.json")
    p.add_argument("new", metavar="NEW.json")
    command("diff")(_diff_command)


def _frozen(text: str) -> list[str]:
    return [f.strip() for f in text.split(",") if f.strip()]


def _document_command(args: argparse.Namespace) -> int:
    frozen = _frozen(args.frozen)
    if args.schema:
        print(json.dumps(document_schema(frozen), indent=2, ensure_ascii=False))
        return 0
    if args.file is None:
        raise OptionError("give DOC.json (or --schema)")
    name = args.file
    text = read_text(name, limit=MAX_DOCUMENT_BYTES)
    data = load_json(text, name)
    report = check_document(data, frozen=frozen)
    errors = []
    for problem in report.problems:
        position = locate(text, problem.loc)
        line, column = position if position else (None, None)
        errors.append((line or 0, column or 0, problem, line, column))
    errors.sort(key=lambda e: (e[0], e[1]))
    lines = [f"{name}:{line}:{column}: {p}" if line else f"{name}: {p}" for _, _, p, line, column in errors]

    refs: dict[str, list] = {}
    for ref in report.refs:
        refs.setdefault(ref.path, []).append(ref)
    if args.json:
        print(json.dumps({
            "paths": report.paths,
            "refs": [ref.to_json() for ref in report.refs],
            "blocks": report.html,
            "errors": [{"file": name, "line": line, "column": column, **p.to_json()} for _, _, p, line, column in errors],
        }, indent=2, ensure_ascii=False))
    else:
        width = max((len(p) for p in refs), default=0)
        print(f"paths ({len(refs)}):")
        for path, found in refs.items():
            print(f"  {path.ljust(width)}  {', '.join(r.where for r in found)}")
        print(f"html blocks ({len(report.html)}):")
        for block_id, paths in report.html.items():
            print(f"  {block_id}: {', '.join(paths) or '(no paths)'}")
    if lines:
        raise UsageError("\n".join(lines))
    return 0


def _diff_command(args: argparse.Namespace) -> int:
    states = []
    for name in (args.old, args.new):
        states.append(load_json(read_text(name, limit=MAX_STATE_BYTES), name))
    try:
        ops = diff(*states)
    except PatchError as exc:
        raise UsageError(f"{args.old}, {args.new}: {exc}") from None
    print(json.dumps(ops, ensure_ascii=False))
    return 0
