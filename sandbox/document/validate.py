"""Validation of a whole document at save time: every problem at once, each located.

A problem's location is where it is in the document (``pages[0].blocks[3].source``)
and, inside a template or an html source, the line:column there
(``pages[0].blocks[3].source:2:14: …``). Checked:

* the shape (:mod:`flowui_sandbox.sandbox.document.model`): types, required and unknown properties;
* ``block_id`` unique across the document, ``page_id`` unique, ``start_page_id``
  and every link's ``page_id`` an existing page;
* every template parses; every path (templates, ``field``, ``visible_when``,
  html ``fields``, data blocks' ``path``) obeys the grammar and is not frozen;
* every html ``source`` extracts cleanly (:func:`flowui_sandbox.sandbox.block.extract.extract_paths`);
* what a server writes stays unambiguous: no input ``field`` or html ``fields``
  entry is ``ui_action`` or under it, and on one page no two inputs write the
  same path or one inside another;
* select options have distinct values, a text input's ``pattern`` is in the subset (pattern.py).

The same walk collects the projection paths (:class:`PathRef`), so a report
has both.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from pydantic import ValidationError

from ..block.extract import MAX_SOURCE_BYTES, ExtractionError, extract_paths_many
from ..block.paths import path_problem
from ..block.templates import TemplateError, TooManyRefs, template_refs
from ..errors import SandboxError, UsageError
from .jsontext import SHOWN_CHARS, cut_repr
from .model import BLOCK_TYPES, INPUT_TYPES, UI_ACTION_FIELD, Document
from .patch import MAX_JSON_NODES, PatchError, check_json, json_key, json_nodes_over
from .pattern import PatternBudget
from .walk import Item, Loc, walk, walk_blocks, where

#: The html sources of one document together hold at most this many bytes of UTF-8; a source
#: that would pass it is reported as not checked, not parsed. The parser's cost grows with
#: tags x nesting depth, so sources of N bytes together cost at most what one source of N
#: bytes can, which the extractor bounds (a source over its GUARD_THRESHOLD is parsed in a
#: child stopped after PARSE_CPU_SECONDS of CPU time). A bound in bytes, not seconds: the
#: same document gets the same verdict on a quiet or a loaded machine (docs/DOCUMENT.md §2).
SOURCES_BYTES = 1024 * 1024


#: JSON values (objects, arrays, strings, numbers, booleans, null) and keys a document holds at
#: most. A large real one (hundreds of blocks, a select of 10,000 options) holds tens of thousands; a
#: hostile 8 MiB file holds millions, and its 4 million bad fields take 75 s and 5 GB to check
#: (pydantic builds every error first). Counted before anything else, up to the bound only.
MAX_DOCUMENT_VALUES = MAX_JSON_NODES

#: Path references (``{path}``, fallbacks included) a document's templates hold together. The value
#: bound counts a template as one value, and 2,000,000 ``{a}`` in one 8 MB text took 10 s to
#: check; a large real document holds a few thousand. Counted as the templates are parsed, and the
#: parse stops at the first one past it.
MAX_TEMPLATE_REFS = MAX_JSON_NODES

#: Problems one check reports at most; it stops looking after them and says so. Reporting
#: each of a document's 1.5 million bad fields takes 47 s and 2 GB; an author fixes the first
#: ones first, and a server refuses the document on the first.
MAX_PROBLEMS = 1000


@dataclass(frozen=True)
class Problem:
    """``loc``: where in the document; ``line``/``column``: inside the template or source (1-based)."""

    loc: Loc
    message: str
    line: int | None = None
    column: int | None = None

    @property
    def where(self) -> str:
        inner = f":{self.line}:{self.column}" if self.line is not None else ""
        return where(self.loc) + inner

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {"where": self.where, "message": self.message}


@dataclass(frozen=True)
class PathRef:
    """A projection path and where it came from. ``role``: ``template``, ``field``,
    ``visible_when``, ``fields`` (html), ``markup`` (html data-bind/data-show), ``data``."""

    path: str
    where: str
    role: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "where": self.where, "role": self.role}


@dataclass
class Report:
    """What :func:`check_document` found. ``document`` is the model when the shape is valid."""

    document: Document | None
    refs: list[PathRef] = field(default_factory=list)
    #: html block_id -> its own projection paths (fields, then markup paths), in order
    html: dict[str, list[str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        """The document's projection paths, first occurrence first."""
        return list(dict.fromkeys(ref.path for ref in self.refs))

    @property
    def ok(self) -> bool:
        return not self.problems


class _Enough(SandboxError):
    """Raised by :class:`_Problems` when a check has found MAX_PROBLEMS problems (never leaves this module)."""


class _Problems(list):
    """A check's problems: adding one past MAX_PROBLEMS raises :class:`_Enough`, which ends the check."""

    def append(self, problem: Problem) -> None:
        if len(self) >= MAX_PROBLEMS:
            raise _Enough
        super().append(problem)

    def extend(self, problems: Iterable[Problem]) -> None:
        for problem in problems:
            self.append(problem)


def _until_enough(report: Report, loc: Loc, check: Callable[[], None]) -> None:
    """Run ``check``, which adds to ``report.problems``, until it has found MAX_PROBLEMS; then
    one more problem says the check stopped."""
    report.problems = _Problems()
    try:
        check()
    except _Enough:
        report.problems = [*report.problems, Problem(loc, f"more problems were not looked for: the check stops after {MAX_PROBLEMS:,}")]
    report.problems = list(report.problems)


class DocumentError(UsageError):
    """A document with problems; :attr:`problems` lists them, the text has one per line."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(map(str, self.problems)))


def check_document(data: Any, *, frozen: Iterable[str] = ()) -> Report:
    """Every problem of ``data`` (a document as JSON) and its projection paths."""
    frozen = tuple(frozen)
    if not isinstance(data, dict):
        return Report(None, problems=[Problem((), f"a document is a JSON object, not {_kind(data)}")])
    if json_nodes_over(data, MAX_DOCUMENT_VALUES) is not None:
        return Report(None, problems=[Problem((), f"the document holds more than {MAX_DOCUMENT_VALUES:,} JSON values and keys; "
                                                   "it describes the page, and a page's data belongs in the state")])
    try:
        check_json(data, "document")
    except PatchError as exc:  # too deep for the walk, or not JSON: nothing else is checked
        return Report(None, problems=[Problem((), str(exc))])
    document, problems = _shape(data)
    report = Report(document)

    def check() -> None:
        report.problems.extend(problems)
        _semantics(data, walk(data), frozen, report)

    _until_enough(report, (), check)
    return report


def check_blocks(blocks: Any, *, frozen: Iterable[str] = (), loc: Loc = ("blocks",)) -> Report:
    """The same checks for blocks rendered at run time (a ui ``render`` event's ``blocks``)."""
    frozen = tuple(frozen)
    report = Report(None)
    if not isinstance(blocks, list):
        report.problems.append(Problem(loc, f"blocks is a JSON array, not {_kind(blocks)}"))
        return report
    if json_nodes_over(blocks, MAX_DOCUMENT_VALUES) is not None:
        report.problems.append(Problem(loc, f"the blocks hold more than {MAX_DOCUMENT_VALUES:,} JSON values and keys"))
        return report
    try:
        check_json(blocks, "blocks")
    except PatchError as exc:
        report.problems.append(Problem(loc, str(exc)))
        return report
    from .model import BLOCK_ADAPTER

    def check() -> None:
        for index, block in enumerate(blocks):
            try:
                BLOCK_ADAPTER.validate_python(block)
            except ValidationError as exc:
                report.problems.extend(_from_pydantic(exc, block, (*loc, index), at_block=True))
        _semantics({"pages": []}, walk_blocks(blocks, loc), frozen, report, check_pages=False)

    _until_enough(report, loc, check)
    return report


def load_document(data: Any, *, frozen: Iterable[str] = ()) -> Report:
    """:func:`check_document`, raising :class:`DocumentError` when there is any problem."""
    report = check_document(data, frozen=frozen)
    if report.problems:
        raise DocumentError(report.problems)
    return report


# ------------------------------------------------------------------------ shape


def _shape(data: dict) -> tuple[Document | None, list[Problem]]:
    try:
        return Document.model_validate(data), []
    except ValidationError as exc:
        return None, _from_pydantic(exc, data, ())


def _from_pydantic(exc: ValidationError, data: Any, base: Loc, *, at_block: bool = False) -> list[Problem]:
    """``at_block``: ``data`` is one block, so pydantic's loc starts with its union tag."""
    problems: dict[Problem, None] = {}  # in order, each once (a union's arms can say the same thing)
    for error in exc.errors(include_url=False):
        loc, node, parent = _real_loc(data, error["loc"], at_block)
        problems[Problem((*base, *loc), _message(error, node, parent))] = None
        if len(problems) > MAX_PROBLEMS:  # enough for the check to stop at
            break
    return list(problems)


def _real_loc(data: Any, loc: tuple, at_block: bool = False) -> tuple[Loc, Any, Any]:
    """pydantic's loc without the union tags it inserts after a block's index (or first, for
    one block: ``at_block``), the value found there and its parent object."""
    out: list = []
    node, parent = data, None
    previous_index = at_block
    for step in loc:
        if isinstance(node, dict) and previous_index and node.get("type") == step and step in BLOCK_TYPES:
            previous_index = False
            continue  # the discriminated union's tag
        if isinstance(step, str) and not isinstance(node, dict) and out:
            continue  # a union arm's tag ("int", "constrained-float") below a value that has no keys
        out.append(step)
        parent = node
        if isinstance(node, dict) and isinstance(step, str):
            node = node.get(step)
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            node = node[step]
        else:
            node = None
        previous_index = isinstance(step, int)
    return tuple(out), node, parent


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _owner(parent: Any, loc: tuple = ()) -> str:
    if isinstance(parent, dict) and isinstance(parent.get("type"), str) and parent["type"] in BLOCK_TYPES:
        return f"a {parent['type']} block"
    names = [step for step in loc[:-1] if isinstance(step, str) and step not in BLOCK_TYPES]
    if not names:
        return "the document"
    return {"pages": "a page", "options": "an option", "tabs": "a tab", "columns": "a column"}.get(names[-1], names[-1])


def _model_of(parent: Any, loc: tuple) -> Any:
    """The model class of the object holding an unknown property (for the list of known ones)."""
    from . import model

    if isinstance(parent, dict) and isinstance(parent.get("type"), str) and parent["type"] in BLOCK_TYPES:
        return BLOCK_TYPES[parent["type"]]
    names = [step for step in loc[:-1] if isinstance(step, str) and step not in BLOCK_TYPES]
    name = names[-1] if names else None
    return {None: model.Document, "pages": model.Page, "visible_when": model.VisibleWhen, "action": model.Action,
            "options": model.Option, "tabs": model.Tab}.get(name)


def _message(error: Mapping[str, Any], node: Any, parent: Any) -> str:
    kind, loc = error["type"], error["loc"]
    name = loc[-1] if loc else ""
    if kind == "extra_forbidden":
        cls = _model_of(parent, loc)
        known = f" (known: {', '.join(f for f in cls.model_fields if f != 'type')})" if cls else ""
        return f"unknown property {cut_repr(name)} of {_owner(parent, loc)}{known}"
    if kind == "missing":
        return f"{_owner(parent, loc)} needs the property {name!r}"
    if kind == "union_tag_invalid":
        tag = error.get("ctx", {}).get("tag", "")
        # (no type is longer than SHOWN_CHARS: a longer tag is compared with none)
        close = difflib.get_close_matches(str(tag), BLOCK_TYPES, n=1) if len(str(tag)) <= SHOWN_CHARS else []
        hint = f" (did you mean {close[0]!r}?)" if close else " (docs/DOCUMENT.md lists the block types)"
        return f"unknown block type {cut_repr(tag)}{hint}"
    if kind == "union_tag_not_found":
        return 'a block needs a "type"'
    if kind == "model_type" or kind == "model_attributes_type":
        return f"expected an object, not {_kind(node)}"
    message = error["msg"]
    if message.startswith("Value error, "):
        return message[len("Value error, "):]
    if kind.endswith("_type") or kind in ("literal_error",):
        return f"{message[0].lower()}{message[1:]} (got {_kind(error.get('input'))})"
    return f"{message[0].lower()}{message[1:]}"


# ------------------------------------------------------------------------ semantics


def _extract_sources(items: list[Item], frozen: tuple[str, ...]) -> dict[int, list[str] | ExtractionError | str]:
    """What each html source's markup binds (by the item's position), its extraction error, or
    why it was not checked. The sources share one byte budget (SOURCES_BYTES, in the order of
    the document) and one parse budget (:func:`extract_paths_many`)."""
    out: dict[int, list[str] | ExtractionError | str] = {}
    batch: list[tuple[int, str]] = []
    total = 0
    for position, item in enumerate(items):
        if item.kind != "source":
            continue
        size = len(item.value.encode("utf-8", "surrogatepass"))
        if size <= MAX_SOURCE_BYTES:  # (a larger one is refused by the extractor before parsing)
            if total + size > SOURCES_BYTES:
                out[position] = (f"not checked: with this source's {size:,} bytes the document's html sources "
                                 f"would hold more than {SOURCES_BYTES:,} bytes of UTF-8 together; make them smaller")
                continue
            total += size
        batch.append((position, item.value))
    results = extract_paths_many([source for _, source in batch], frozen=frozen)
    out.update((position, result) for (position, _), result in zip(batch, results))
    return out


def _semantics(data: dict, items: Iterable[Item], frozen: tuple[str, ...], report: Report, *, check_pages: bool = True) -> None:
    problems = report.problems
    page_ids: dict[str, Loc] = {}
    block_ids: dict[str, Loc] = {}
    links: list[tuple[Loc, str]] = []
    patterns = PatternBudget()  # the text inputs' patterns, bounded together
    writes: dict[int | None, list[tuple[str, Loc]]] = {}  # page -> written paths
    html_fields: dict[str, list[str]] = {}  # html block_id -> its fields, then its markup's paths
    html_markup: dict[str, list[str]] = {}
    html_blocks: dict[str, None] = {}  # in the order of the blocks

    def path_ok(path: str, loc: Loc, line: int | None = None, column: int | None = None) -> bool:
        why = path_problem(path, frozen)
        if why is not None:
            shown = path if len(path) <= 60 else path[:57] + "..."
            problems.append(Problem(loc, f"bad path {shown!r}: {why}", line, column))
            return False
        return True

    refs_left = MAX_TEMPLATE_REFS  # -1 once refused: no template is parsed after that
    items = list(items)
    extracted = _extract_sources(items, frozen)
    for position, item in enumerate(items):
        kind, loc, value = item.kind, item.loc, item.value
        if kind == "page":
            page_id = value.get("page_id")
            if isinstance(page_id, str):
                if page_id in page_ids:
                    problems.append(Problem((*loc, "page_id"), f"page_id {cut_repr(page_id)} is already used by {where(page_ids[page_id])}"))
                else:
                    page_ids[page_id] = loc
        elif kind == "block":
            _block_checks(item, block_ids, links, problems, patterns)
        elif kind == "template":
            if refs_left < 0:
                continue
            try:
                refs = template_refs(value, limit=refs_left)
            except TooManyRefs as exc:
                line, column = _text_position(value, exc.offset)
                problems.append(Problem(loc, f"the templates refer to paths more than {MAX_TEMPLATE_REFS:,} times together "
                                             "(counted in document order up to here); a document describes the page, "
                                             "and a page's data belongs in the state", line, column))
                refs_left = -1
                continue
            except TemplateError as exc:
                line, column = _text_position(value, exc.offset)
                problems.append(Problem(loc, exc.reason, line, column))
                continue
            refs_left -= len(refs)
            place = None
            positions = _Positions(value)
            for path, offset in refs:
                if path_problem(path, frozen) is None or path_ok(path, loc, *positions.at(offset)):
                    place = place or where(loc)
                    report.refs.append(PathRef(path, place, "template"))
        elif kind == "path":
            if not path_ok(value, loc):
                continue
            report.refs.append(PathRef(value, where(loc), item.role))
            block = item.block or {}
            if item.role == "field" and block.get("type") in INPUT_TYPES or item.role == "fields":
                if value == UI_ACTION_FIELD or value.startswith(UI_ACTION_FIELD + "."):
                    problems.append(Problem(loc, f"{value!r}: the server writes the ui-action at {UI_ACTION_FIELD!r}; a block cannot write there"))
                elif item.role == "field":
                    writes.setdefault(item.page, []).append((value, loc))
            if item.role == "fields" and isinstance(block.get("block_id"), str):
                html_fields.setdefault(block["block_id"], []).append(value)
                html_blocks.setdefault(block["block_id"])
        elif kind == "source":
            block_id = (item.block or {}).get("block_id")
            paths = extracted[position]
            if isinstance(paths, str):
                problems.append(Problem(loc, paths))
                continue
            if isinstance(paths, ExtractionError):
                for p in paths.problems:
                    text = str(p)
                    message = text.split(": ", 1)[1] if p.line is not None else text
                    problems.append(Problem(loc, message, p.line, p.column))
                continue
            for path in paths:
                report.refs.append(PathRef(path, where(loc), "markup"))
            if isinstance(block_id, str):
                html_markup.setdefault(block_id, []).extend(paths)
                html_blocks.setdefault(block_id)

    if check_pages:
        start = data.get("start_page_id")
        if isinstance(start, str) and page_ids and start not in page_ids:
            problems.append(Problem(("start_page_id",), f"start_page_id {cut_repr(start)} is not a page of the document ({_list(page_ids)})"))
    for loc, target in links:
        if check_pages and target not in page_ids:
            problems.append(Problem(loc, f"page_id {cut_repr(target)} is not a page of the document ({_list(page_ids)})"))
    for written in writes.values():
        _overlaps(written, problems)
    for block_id in html_blocks:
        # fields first, markup after, each once (as the generator orders them)
        report.html[block_id] = list(dict.fromkeys([*html_fields.get(block_id, ()), *html_markup.get(block_id, ())]))


def _block_checks(item: Item, block_ids: dict[str, Loc], links: list, problems: list[Problem], patterns: PatternBudget) -> None:
    block, loc = item.value, item.loc
    block_id = block.get("block_id")
    if isinstance(block_id, str):
        if block_id in block_ids:
            problems.append(Problem((*loc, "block_id"), f"block_id {cut_repr(block_id)} is already used by {where(block_ids[block_id])}"))
        else:
            block_ids[block_id] = loc
    kind = block.get("type")
    if not isinstance(kind, str):  # the shape check reports it; a list or object is unhashable below
        kind = None
    if kind == "link" and isinstance(block.get("page_id"), str):
        links.append(((*loc, "page_id"), block["page_id"]))
    elif kind == "select" and isinstance(block.get("options"), list):
        seen: set[Any] = set()  # JSON's equality, hashed: 1 and 1.0 are one value (linear in the options)
        for i, option in enumerate(block["options"]):
            if isinstance(option, dict) and type(option.get("value")) in (str, int, float, bool):  # (others: the shape check)
                value = option["value"]
                key = json_key(value)
                if key in seen:
                    problems.append(Problem((*loc, "options", i, "value"), f"the option value {cut_repr(value)} appears twice"))
                seen.add(key)
    elif kind in ("date_input", "datetime_input"):
        parse = date.fromisoformat if kind == "date_input" else datetime.fromisoformat
        for bound in ("min", "max"):
            if isinstance(block.get(bound), str):
                try:
                    parse(block[bound])
                except ValueError:
                    problems.append(Problem((*loc, bound), f"{cut_repr(block[bound])} is not a {'date' if kind == 'date_input' else 'date and time'} that exists"))
    if kind in _RANGES:  # cross-property checks a JSON Schema cannot say (the models leave them here)
        low_name, high_name = _RANGES[kind]
        low, high = block.get(low_name), block.get(high_name)
        if kind in ("date_input", "datetime_input"):
            if isinstance(low, str) and isinstance(high, str) and low > high:
                problems.append(Problem(loc, f"{low_name} {low} is above {high_name} {high}"))
        elif type(low) in (int, float) and type(high) in (int, float) and low > high:
            problems.append(Problem(loc, f"{low_name} {_number(low)} is above {high_name} {_number(high)}"))
    if kind == "text_input" and isinstance(block.get("pattern"), str):
        bad = patterns.problem(block["pattern"])  # the subset of ECMAScript both sides run (pattern.py)
        if bad is not None:
            problems.append(Problem((*loc, "pattern"), bad.reason, *_text_position(block["pattern"], bad.offset)))


_RANGES = {"text_input": ("min_length", "max_length"), "number_input": ("min", "max"), "slider": ("min", "max"),
           "date_input": ("min", "max"), "datetime_input": ("min", "max")}


def _number(value: int | float) -> str:
    return str(int(value)) if type(value) is float and value.is_integer() and abs(value) < 2**53 else str(value)


#: Inputs named in one "written by several inputs" problem; the rest are counted.
NAMED_INPUTS = 5


def _overlaps(written: list[tuple[str, Loc]], problems: list[Problem]) -> None:
    """Two inputs of one page writing the same path, or one inside the other, is ambiguous.
    Reported once per path written by several inputs (at the second, naming the others) and
    once per pair of distinct paths one inside the other (at the later), so 2,000 inputs on
    one path are one problem, not 2,000,000 (found through each path's prefixes: linear)."""
    by_path: dict[str, list[int]] = {}
    for i, (path, _) in enumerate(written):
        by_path.setdefault(path, []).append(i)
    found: list[tuple[int, int, Problem]] = []  # (later, earlier, problem)
    for path, indexes in by_path.items():
        if len(indexes) > 1:
            first, second = indexes[0], indexes[1]
            others = [where(written[i][1][:-1]) for i in indexes if i != second]
            named = ", ".join(others[:NAMED_INPUTS]) + (f" and {len(others) - NAMED_INPUTS} more inputs" if len(others) > NAMED_INPUTS else "")
            found.append((second, first, Problem(written[second][1], f"field {path!r} is the same as field {path!r} of {named} "
                                                                     "on the same page: the ui-action would write one path twice")))
        segments = path.split(".")
        for n in range(1, len(segments)):
            outer = ".".join(segments[:n])
            if outer not in by_path:
                continue
            i, j = by_path[outer][0], indexes[0]
            later, earlier = max(i, j), min(i, j)
            (b, b_loc), (a, a_loc) = written[later], written[earlier]
            what = "lies inside" if b.startswith(a + ".") else "contains"
            found.append((later, earlier, Problem(b_loc, f"field {b!r} {what} field {a!r} of {where(a_loc[:-1])} on the same page: "
                                                         "the ui-action would write one path twice")))
    problems.extend(problem for _, _, problem in sorted(found, key=lambda f: (f[0], f[1])))


class _Positions:
    """line:column of offsets of one text taken in increasing order, each character read once
    (1,000 frozen paths at the end of a 5 MB template took 3.6 s counted from the start each)."""

    def __init__(self, text: str):
        self.text, self.offset, self.line, self.start = text, 0, 1, 0

    def at(self, offset: int) -> tuple[int, int]:
        if offset < self.offset:
            self.offset, self.line, self.start = 0, 1, 0
        self.line += self.text.count("\n", self.offset, offset)
        newline = self.text.rfind("\n", self.offset, offset)
        if newline != -1:
            self.start = newline + 1
        self.offset = offset
        return self.line, offset - self.start + 1


def _text_position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _list(ids: dict) -> str:
    """The document's pages for a message: the first NAMED_PAGES, each cut, then how many (a
    message per bad link, each naming 10,000 pages, made gigabytes)."""
    if not ids:
        return "no pages"
    named = [cut_repr(page_id) for page_id in itertools.islice(ids, NAMED_PAGES)]
    return "pages: " + ", ".join(named) + (f", … ({len(ids):,} pages)" if len(ids) > NAMED_PAGES else "")


#: Pages named in a message that lists them.
NAMED_PAGES = 10


__all__ = ["check_document", "check_blocks", "load_document", "Report", "Problem", "PathRef", "DocumentError"]
