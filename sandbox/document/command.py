"""What the ``document`` and ``diff`` commands do, from their options (sandbox/cli.py) to an exit status.

:func:`check_document_file` (``flowui-sandbox document DOC.json [--json] [--frozen a,b]``): the projection paths of
the document and of each html block, and every problem (``DOC.json:LINE:COL: where:
message`` on stderr, exit 2). ``flowui-sandbox document --schema [--frozen a,b]``: the
document's JSON Schema. :func:`diff_files` (``flowui-sandbox diff OLD.json NEW.json``): the JSON Patch from
one state to the other, on stdout as a JSON array.
"""

from __future__ import annotations

import json

from ..block.paths import parse_path_list
from ..errors import OptionError, UsageError
from ..files import read_text
from .jsontext import load_json, locate, locate_all
from .model import document_schema
from .patch import PatchError, diff
from .validate import check_document

#: Largest document file accepted. A document is design-time data edited by people; a
#: few hundred blocks with html sources make a few hundred KB. Each html source is
#: also limited on its own (sandbox.block.extract.MAX_SOURCE_BYTES).
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
#: Largest state file the diff command reads.
MAX_STATE_BYTES = 16 * 1024 * 1024


def _frozen(text: str) -> list[str]:
    """The ``--frozen`` names, checked as ``paths --frozen`` checks them (one grammar, one error line)."""
    fields, problems = parse_path_list(text, "--frozen", top_level=True)
    if problems:
        raise OptionError("\n".join(problems))
    return fields


def check_document_file(file: str | None, *, as_json: bool = False, frozen: str = "", schema: bool = False) -> int:
    """Print the projection paths of the document in ``file`` (``-``: standard input) and of
    each html block (``as_json``: one JSON object); its problems are raised after the output,
    one located line each. ``frozen``: comma-separated frozen fields. ``schema``: print the
    document's JSON Schema instead."""
    frozen_fields = _frozen(frozen)
    if schema:
        print(json.dumps(document_schema(frozen_fields), indent=2, ensure_ascii=False))
        return 0
    if file is None:
        raise OptionError("give DOC.json (or --schema)")
    name = file
    text = read_text(name, limit=MAX_DOCUMENT_BYTES)
    data = load_json(text, name)
    report = check_document(data, frozen=frozen_fields)
    errors = []
    positions = locate_all(text, [problem.loc for problem in report.problems])  # one pass for all
    for problem, position in zip(report.problems, positions):
        line, column = position if position else (None, None)
        errors.append((line or 0, column or 0, problem, line, column))
    errors.sort(key=lambda e: (e[0], e[1]))
    lines = [f"{name}:{line}:{column}: {p}" if line else f"{name}: {p}" for _, _, p, line, column in errors]

    refs: dict[str, list] = {}
    for ref in report.refs:
        refs.setdefault(ref.path, []).append(ref)
    if as_json:
        print(_printable(json.dumps({
            "paths": report.paths,
            "refs": [ref.to_json() for ref in report.refs],
            "blocks": report.html,
            "errors": [{"file": name, "line": line, "column": column, **p.to_json()} for _, _, p, line, column in errors],
        }, indent=2, ensure_ascii=False)))
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


def diff_files(old: str, new: str) -> int:
    """Print the JSON Patch from the state in ``old`` to the one in ``new``, as one JSON array."""
    states = []
    for name in (old, new):
        text = read_text(name, limit=MAX_STATE_BYTES)
        state = load_json(text, name)
        if type(state) is not dict:  # what diff refuses, located at the value in its file
            line, column = locate(text, ()) or (1, 1)
            kind = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(type(state), "null")
            raise UsageError(f"{name}:{line}:{column}: a state is a JSON object, not {kind}")
        states.append(state)
    try:
        ops = diff(*states)
    except PatchError as exc:
        raise UsageError(f"{old}, {new}: {exc}") from None
    print(_printable(json.dumps(ops, ensure_ascii=False)))
    return 0


def _printable(text: str) -> str:
    """JSON ``text`` with each lone surrogate (which has no UTF-8) written as its JSON escape
    ``\\udxxx``: the same value, and printing it cannot fail."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
