"""Browser-exact path extraction: every ``data-bind`` and ``data-show`` value of a source.

The result is what ``document.querySelectorAll('[data-bind],[data-show]')`` finds in
the block document (docs/DESIGN.md): document order, within one element in
attribute order, duplicates dropped (first wins). The source is parsed with lexbor
(selectolax) exactly as the block document is: :data:`EXTRACTION_PREFIX` + source,
document mode, scripting flag on. docs/PARSER.md gives the measurements behind
the choice of parser; tests/browser/test_parity.py proves parity on every engine.

lexbor does not model declarative shadow DOM; :func:`_attaches_shadow_root`
applies the HTML standard's rule. Template content is never in the result (lexbor
keeps it out of the tree, as the DOM does). ``<selectedcontent>`` gets a copy of the
selected option's content in lexbor as in the browser.

Bad input (docs/PARSER.md, "Limits"): a source over :data:`MAX_SOURCE_BYTES`, NUL
characters and unpaired surrogates are refused with an :class:`ExtractionError`
that says where; a source over :data:`GUARD_THRESHOLD` is parsed in a forked child
that is stopped when nesting makes the parse slow (:mod:`flowui_sandbox.sandbox.block.cpu_limited`).
"""

from __future__ import annotations

import json
import re
import threading
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from html import unescape
from itertools import accumulate

from selectolax.lexbor import LexborCSSSelector, LexborHTMLParser, LexborNode

from ..errors import OptionError, UsageError
from ..files import display_name, read_text
from .cpu_limited import AVAILABLE as _CAN_FORK
from .cpu_limited import ChildStopped, call_cpu_limited
from .paths import MAX_LENGTH, MAX_SEGMENTS, SEGMENT_PATTERN, parse_path_list, path_problem

#: What precedes the author source in the block document, as far as the tree
#: builder cares: it is "in body" with frameset-ok off when the source begins.
EXTRACTION_PREFIX = "<!DOCTYPE html><html><head></head><body>"
SELECTOR = "[data-bind],[data-show]"
#: The same elements, each once: lexbor's css() yields an element once per selector
#: of a list it matches, querySelectorAll once.
_UNIQUE_SELECTOR = "[data-bind],[data-show]:not([data-bind])"
ATTRIBUTES = frozenset(("data-bind", "data-show"))

#: Largest source accepted, counted in UTF-8 bytes. A block travels inline (in the
#: A2A message and again, escaped, in the iframe's srcdoc) and is parsed by the
#: browser on every mount; 4 MiB is far above any hand-written block (the generator
#: has its own, lower limit) and a benign 4 MiB source parses in about 0.1-0.5 s
#: here, well inside the CPU budget below.
MAX_SOURCE_BYTES = 4 * 1024 * 1024

#: lexbor's tree builder walks the stack of open elements for scope checks, so its
#: cost grows with tags x nesting depth: 20,000 nested <div> take about 1 s, 1,000
#: nested <span> followed by 200,000 stray end tags take 1 s, 100,000 nested <div>
#: 13 s. Up to this many bytes no input gets near that (0.1-0.2 s at worst, see
#: bench/extraction.py), so the document is parsed in-process; a larger one is
#: parsed in a forked child stopped after PARSE_CPU_SECONDS of CPU time (docs/PARSER.md).
GUARD_THRESHOLD = 32 * 1024
PARSE_CPU_SECONDS = 1.5
#: The child's wall-clock limit: an answer or an error within 2 s, even when a loaded
#: machine starves the child of CPU (then a large source may be refused: the message
#: says why).
PARSE_WALL_SECONDS = 2.0


@dataclass(frozen=True)
class Problem:
    """One problem of a source. ``line``/``column`` are 1-based in the author source,
    ``None`` when no position could be found; ``element``/``attribute``/``value`` are
    ``None`` for a problem of the whole source (too large, too deep, a NUL)."""

    line: int | None
    column: int | None
    element: str | None
    attribute: str | None
    value: str | None
    reason: str

    def __str__(self) -> str:
        """``LINE:COL: message``, or ``message`` when the position is unknown."""
        where = f"{self.line}:{self.column}: " if self.line is not None else ""
        if self.element is None:
            return f"{where}{self.reason}"
        shown = json.dumps(self.value, ensure_ascii=False)
        if len(shown) > 60:
            shown = shown[:56] + '..."'
        tail = "" if self.line is not None else " (its position in the source could not be found)"
        return f"{where}<{self.element} {self.attribute}={shown}>: {self.reason}{tail}"

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in ("line", "column", "element", "attribute", "value", "reason")}


class ExtractionError(UsageError):
    """Every problem of one source, reported at once (:attr:`problems`).

    The text is one line per problem, ``NAME:LINE:COL: message`` (``NAME: message``
    when the position is unknown), the form editors and CI problem matchers parse.
    """

    def __init__(self, problems: list[Problem], *, name: str = "source"):
        self.problems = list(problems)
        self.name = name
        super().__init__("\n".join(f"{name}:{p}" if p.line is not None else f"{name}: {p}" for p in self.problems))


# ----------------------------------------------------------------------------- API


def extract_paths(source: str, *, frozen: Iterable[str] = ()) -> list[str]:
    """The paths a block's markup binds, as a browser's DOM holds them.

    Raises :class:`ExtractionError` listing every invalid path and every path whose
    first segment is in ``frozen`` (with element, attribute and line:column), or the
    reason the source itself is refused.
    """
    document = _encode(source, allow_nul=False)
    paths, bad = _run(_check_paths, document, frozenset(frozen))
    if bad:
        raise ExtractionError(_locate(source, bad))
    return paths


def extract_paths_many(sources: list[str], *, frozen: Iterable[str] = ()) -> list[list[str] | ExtractionError]:
    """:func:`extract_paths` of each source, as a list of paths or the source's
    :class:`ExtractionError`, with one parse budget for all: when they hold more than
    GUARD_THRESHOLD bytes together, they are parsed in one child stopped after
    PARSE_CPU_SECONDS of CPU (a stop refuses every source the child had, saying so), so N
    bytes of sources cost what one source of N bytes can (a child each would let ten sources
    of 100 KB take 6.5 s of CPU)."""
    frozen_set = frozenset(frozen)
    out: list[list[str] | ExtractionError] = []
    documents: dict[int, bytes] = {}
    for index, source in enumerate(sources):
        try:
            documents[index] = _encode(source, allow_nul=False)
            out.append([])
        except ExtractionError as exc:
            out.append(exc)
    if sum(len(d) for d in documents.values()) > GUARD_THRESHOLD and _CAN_FORK:
        try:
            checked = call_cpu_limited(_check_many, documents, frozen_set, cpu_seconds=PARSE_CPU_SECONDS, wall_seconds=PARSE_WALL_SECONDS)
        except ChildStopped as exc:
            stopped = ExtractionError([Problem(None, None, None, None, None, _STOPPED_TOGETHER[exc.cause])])
            return [stopped if index in documents else result for index, result in enumerate(out)]
    else:
        checked = _check_many(documents, frozen_set)
    for index, (paths, bad) in checked.items():
        out[index] = ExtractionError(_locate(sources[index], bad)) if bad else paths
    return out


def _check_many(documents: dict[int, bytes], frozen: frozenset[str]) -> dict[int, tuple[list[str], list[tuple[str, str, str, str]]]]:
    return {index: _check_paths(document, frozen) for index, document in documents.items()}


def _check_paths(document: bytes, frozen: frozenset[str]) -> tuple[list[str], list[tuple[str, str, str, str]]]:
    """The unique values, and every occurrence of an invalid one (so each element is named)."""
    unique = list(dict.fromkeys(_values(document)))  # first occurrence wins
    if all(map(_VALID_PATH.match, unique)) and not (frozen and any(v.partition(".")[0] in frozen for v in unique)):
        return unique, []
    # The error path only: parse again, naming each offending element.
    return unique, [(tag, attribute, value, reason) for tag, attribute, value in _collect(document)
                    if (reason := path_problem(value, frozen)) is not None]


# The grammar of sandbox.block.paths, limits included, as one match (the fast path);
# path_problem says why a value fails.
_VALID_PATH = re.compile(
    rf"(?=.{{1,{MAX_LENGTH}}}\Z)(?:{SEGMENT_PATTERN})(?:\.(?:{SEGMENT_PATTERN})){{0,{MAX_SEGMENTS - 1}}}\Z"
)


def raw_values(source: str) -> list[tuple[str, str, str]]:
    """Internal (the parity test compares it with the browser): ``(tag, attribute,
    value)`` for every data-bind/data-show attribute in DOM order, nothing validated
    or deduplicated. Unlike :func:`extract_paths` it accepts NUL characters, as a
    browser given the document as a string does."""
    return _run(_collect, _encode(source, allow_nul=True))


def _run(fn, document: bytes, *args):
    """``fn(document, *args)``, in a CPU-limited child when the document is large."""
    if len(document) > GUARD_THRESHOLD and _CAN_FORK:
        return _isolated(fn, document, *args)
    return fn(document, *args)


def _collect(document: bytes) -> list[tuple[str, str, str]]:
    """Parse the UTF-8 block document with lexbor and read what querySelectorAll finds."""
    tree = LexborHTMLParser(document, scripting=True)
    out: list[tuple[str, str, str]] = []
    append = out.append
    for node in _selector().find(_UNIQUE_SELECTOR, _root(tree)):
        attributes = node.attributes
        if node.tag_id == _TEMPLATE and _attaches_shadow_root(node):
            continue
        tag = node.tag or ""  # an element always has its name
        for name, value in attributes.items():
            if name in ATTRIBUTES:
                append((tag, name, value or ""))  # a valueless attribute is None here, "" in the DOM
    return out


def _values(document: bytes) -> list[str]:
    """The values of :func:`_collect` alone: the hot path, so it reads no tag names
    (this halves the Python cost per bound element; see bench/extraction.py)."""
    tree = LexborHTMLParser(document, scripting=True)
    out: list[str] = []
    append = out.append
    for node in _selector().find(_UNIQUE_SELECTOR, _root(tree)):
        attributes = node.attributes
        if node.tag_id == _TEMPLATE and _attaches_shadow_root(node):
            continue
        if len(attributes) == 1:  # the selector matched, so it is data-bind or data-show
            for value in attributes.values():
                append(value or "")
            continue
        for name, value in attributes.items():
            if name in ATTRIBUTES:
                append(value or "")
    return out


def _root(tree: LexborHTMLParser) -> LexborNode:
    root = tree.root
    assert root is not None  # a document parse always has its <html> element
    return root


_local = threading.local()
_template = LexborHTMLParser(b"<template></template>").css_first("template")
assert _template is not None
_TEMPLATE = _template.tag_id


def _selector() -> LexborCSSSelector:
    """One CSS engine per thread, reused: selectolax would set one up for every parse."""
    try:
        return _local.selector
    except AttributeError:
        _local.selector = LexborCSSSelector()
        return _local.selector


# ------------------------------------------------------------- declarative shadow DOM

_SHADOW_HOSTS = frozenset(
    "article aside blockquote body div footer h1 h2 h3 h4 h5 h6 header main nav p section span".split()
)
_RESERVED_CUSTOM = frozenset(
    "annotation-xml color-profile font-face font-face-src font-face-uri font-face-format font-face-name missing-glyph".split()
)
_CUSTOM_NAME = re.compile(r"[a-z][^A-Z\s/>]*-[^A-Z\s/>]*\Z")
_FOREIGN_ROOTS = frozenset(("svg", "math"))
_INTEGRATION_POINTS = frozenset(("foreignObject", "desc", "title", "mi", "mo", "mn", "ms", "mtext", "annotation-xml"))


def _attaches_shadow_root(template) -> bool:
    """Whether the browser turns this ``<template>`` into a declarative shadow root.

    Such a template is never inserted into the document (its content becomes the
    host's shadow root), so neither it nor its content is in querySelectorAll. The
    HTML standard: shadowrootmode is open or closed (ASCII case-insensitive), the
    host (the element the template is parsed into) is an HTML element that may
    have a shadow root (the list above or a valid custom element name), and is not
    a shadow host already (then the template stays an ordinary one).
    """
    mode = template.attributes.get("shadowrootmode")
    if mode is None or mode.lower() not in ("open", "closed") or not mode.isascii():
        return False
    host = template.parent
    if host is None or not _may_host(host):
        return False
    sibling = template.prev
    while sibling is not None:
        if sibling.tag == "template" and _attaches_shadow_root(sibling):
            return False
        sibling = sibling.prev
    return True


def _may_host(node) -> bool:
    tag = node.tag
    if tag in _SHADOW_HOSTS:
        return True
    if tag in _RESERVED_CUSTOM or not _CUSTOM_NAME.match(tag):
        return False
    # A custom element name in svg or math content is not an HTML element.
    parent = node.parent
    while parent is not None and parent.tag != "body":
        if parent.tag in _INTEGRATION_POINTS:
            return True
        if parent.tag in _FOREIGN_ROOTS:
            return False
        parent = parent.parent
    return True


# ------------------------------------------------------------------- source checks


def _encode(source: str, *, allow_nul: bool) -> bytes:
    """The block document as UTF-8 (what lexbor reads), or the reasons it is refused."""
    if not isinstance(source, str):
        raise ExtractionError([Problem(None, None, None, None, None, f"the source must be a str, not {type(source).__name__}")])
    try:
        document = (EXTRACTION_PREFIX + source).encode("utf-8")
        size = len(document) - len(EXTRACTION_PREFIX)
    except UnicodeEncodeError:  # an unpaired surrogate; reported below with its position
        document = b""
        size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        raise ExtractionError([Problem(None, None, None, None, None,
                                       f"the source is {size:,} bytes of UTF-8; at most {MAX_SOURCE_BYTES:,} (4 MiB) are accepted")])
    problems = []
    if not allow_nul and "\0" in source:
        line, column = _position(source, source.index("\0"))
        problems.append(Problem(line, column, None, None, None,
                                f"a NUL character (U+0000){_count_more(source.count(chr(0)))}: a block source cannot contain one"))
    if not document:
        surrogate = _SURROGATE.search(source)
        assert surrogate is not None  # what made the encoding fail
        line, column = _position(source, surrogate.start())
        problems.append(Problem(line, column, None, None, None,
                                f"an unpaired surrogate U+{ord(surrogate.group()):04X}: the source is not valid Unicode text"))
    if problems:
        raise ExtractionError(problems)
    return document


_SURROGATE = re.compile("[\ud800-\udfff]")


def _count_more(count: int) -> str:
    return "" if count == 1 else f" (and {count - 1:,} more)"


def _position(source: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset``; CR LF, CR and LF each end a line, as
    the HTML input stream counts them."""
    return _Lines(source).position(offset)


class _Lines:
    """Where each line of a source starts, so that locating many problems (20,000 bad
    ``data-bind`` values) costs one pass and a bisection each, not a pass each."""

    def __init__(self, source: str):
        # Same length, every line end one LF: CR LF -> " LF" (its line starts after the LF), CR -> LF.
        lines = source.replace("\r\n", " \n").replace("\r", "\n").split("\n")
        self.starts = list(accumulate((len(line) + 1 for line in lines), initial=0))

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


# ------------------------------------------------------------ the tokenizer (scans)
#
# A linear, regex-driven approximation of the HTML tokenizer, used on the error path
# only, to find the start tags of offending elements. It skips comments,
# doctype/bogus comments and the content of raw text elements (script data escapes
# included), and reads attributes with their quoting rules.

_TOKEN = re.compile(
    r"""
    <!--(?:-?>|.*?(?:--!?>|\Z))                         # comment (<!--> and <!---> end at once)
  | <(?:[!?]|/(?![A-Za-z]))[^>]*+>?                     # doctype, bogus comment, CDATA outside foreign content
  | <(?P<end>/?)(?P<name>[A-Za-z][^\t\n\f\r />]*+)
      (?P<attrs>(?:[\t\n\f\r ]++|/(?!>)
          |[^\t\n\f\r />][^\t\n\f\r />=]*+
           (?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*+(?:"|\Z)|'[^']*+(?:'|\Z)|[^\t\n\f\r >]*+))?+
      )*+)
      (?P<close>/?>|\Z)
    """,
    re.S | re.X,
)
_ATTRIBUTE = re.compile(
    r"""([^\t\n\f\r />][^\t\n\f\r />=]*)
        (?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:"([^"]*)"?|'([^']*)'?|([^\t\n\f\r >]*)))?""",
    re.S | re.X,
)
_RAW_TEXT = frozenset("script style xmp iframe noembed noframes noscript textarea title".split())
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass
class _Tag:
    offset: int
    end: bool
    name: str  # ASCII-lowercased
    attrs: str
    self_closing: bool


def _tags(source: str, foreign: list[bool]) -> Iterator[_Tag]:
    """Start and end tags in source order. ``foreign[0]`` is read after each start
    tag: when true (svg or math content) raw text elements are ordinary elements."""
    pos = 0
    length = len(source)
    find = source.find
    while True:
        lt = find("<", pos)
        if lt < 0:
            return
        match = _TOKEN.match(source, lt)
        if match is None:
            pos = lt + 1
            continue
        pos = match.end()
        name = match.group("name")
        if name is None:
            continue
        if match.group("close") == "":  # end of file inside a tag: the parser drops it
            return
        name = name.translate(_LOWER)
        end = match.group("end") == "/"
        tag = _Tag(lt, end, name, match.group("attrs"), match.group("close") == "/>")
        yield tag
        if end or foreign[0]:
            continue
        if name == "plaintext":
            return
        if name in _RAW_TEXT:
            pos = _raw_text_end(source, pos, name, length)


def _raw_text_end(source: str, pos: int, name: str, length: int) -> int:
    """Where the raw text element that starts at ``pos`` ends (its end tag's ``<``)."""
    closing = re.compile(r"</" + name + r"[\t\n\f\r />]", re.I)
    if name != "script":
        found = closing.search(source, pos)
        return found.start() if found else length
    # Script data: inside "<!--", "<script" starts a double-escaped section where
    # "</script" does not end the element (HTML standard, script data escape states).
    escaped = re.compile(r"<!--|</script[\t\n\f\r />]|<script[\t\n\f\r />]|-->", re.I)
    state = 0  # 0 script data, 1 escaped, 2 double-escaped
    while True:
        found = escaped.search(source, pos)
        if found is None:
            return length
        token = found.group().lower()
        pos = found.end()
        if token == "<!--":
            state = state or 1
        elif token == "-->":
            state = 0
        elif token.startswith("</"):
            if state != 2:
                return found.start()
            state = 1
        elif state == 1:
            state = 2
        else:
            pos = found.start() + 1


def _attributes(text: str) -> dict[str, str]:
    """Attribute names (lowercased) and values, first occurrence wins, character
    references decoded (the usual case; a locate falls back to the raw text)."""
    out: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        name = match.group(1).translate(_LOWER)
        if name in out:
            continue
        value = next((v for v in match.group(2, 3, 4) if v is not None), "")
        out[name] = value
    return out


# ----------------------------------------------------------------- error positions


def _locate(source: str, bad: list[tuple[str, str, str, str]]) -> list[Problem]:
    """Match each offending DOM value to a start tag of the source, in DOM order.

    DOM order is source order except where the tree builder moves or copies
    elements (foster parenting, formatting-element clones, selectedcontent), so a
    value is first looked for after the previous match, then anywhere.
    """
    candidates: list[tuple[int, str, dict[str, str]]] = []
    foreign = [False]
    depth = 0
    for tag in _tags(source, foreign):
        if tag.name in _FOREIGN_NAMES:  # enough for raw-text decisions here
            depth = max(0, depth + (-1 if tag.end else 0 if tag.self_closing else 1))
            foreign[0] = depth > 0
        if tag.end or "data-" not in tag.attrs.lower():
            continue
        candidates.append((tag.offset, tag.name, _attributes(tag.attrs)))
    problems = []
    lines = _Lines(source)
    after = 0
    for element, attribute, value, reason in bad:
        hit = _find(candidates, after, element, attribute, value)
        if hit is None:
            hit = _find(candidates, 0, element, attribute, value)
        if hit is None:
            problems.append(Problem(None, None, element, attribute, value, reason))
            continue
        after = hit + 1
        line, column = lines.position(candidates[hit][0])
        problems.append(Problem(line, column, element, attribute, value, reason))
    return problems


_FOREIGN_NAMES = frozenset(("svg", "math"))


def _find(candidates, start: int, tag: str, attribute: str, value: str) -> int | None:
    tag = tag.translate(_LOWER)
    for index in range(start, len(candidates)):
        _, name, attrs = candidates[index]
        raw = attrs.get(attribute)
        if raw is None or name != tag and not (tag == "img" and name == "image"):
            continue
        if raw == value or unescape(raw).replace("\r\n", "\n").replace("\r", "\n") == value:
            return index
    return None


# --------------------------------------------------------------- large sources


def _isolated(fn, *args):
    """``fn(*args)`` in a child stopped after :data:`PARSE_CPU_SECONDS` of CPU or
    :data:`PARSE_WALL_SECONDS` of wall time (:mod:`flowui_sandbox.sandbox.block.cpu_limited`); a stop is an
    :class:`ExtractionError` that says why."""
    try:
        return call_cpu_limited(fn, *args, cpu_seconds=PARSE_CPU_SECONDS, wall_seconds=PARSE_WALL_SECONDS)
    except ChildStopped as exc:
        raise ExtractionError([Problem(None, None, None, None, None, _STOPPED[exc.cause])]) from None


_TOO_SLOW = (
    f"the HTML parser needed more than {PARSE_CPU_SECONDS} s of CPU time for this source and was stopped: "
    "its cost grows with the number of tags times the nesting depth; browsers stop nesting elements "
    "at depth 512, so keep the markup far shallower"
)
_TOO_LATE = (
    f"the HTML parser did not finish within {PARSE_WALL_SECONDS:g} s and was stopped: either the machine is "
    "overloaded or the markup is nested too deeply (browsers stop nesting elements at depth 512)"
)
_STOPPED = {"cpu": _TOO_SLOW, "wall": _TOO_LATE, "failed": "the HTML parser failed on this source (out of memory?)"}
#: The same, for the html sources of one document parsed together (:func:`extract_paths_many`).
_STOPPED_TOGETHER = {
    "cpu": f"not checked: the HTML parser needed more than {PARSE_CPU_SECONDS} s of CPU time for the document's html "
           "sources together and was stopped; their cost grows with the number of tags times the nesting depth, "
           "so keep the markup far shallower (browsers stop nesting elements at depth 512)",
    "wall": f"not checked: the HTML parser did not finish the document's html sources within {PARSE_WALL_SECONDS:g} s "
            "and was stopped: either the machine is overloaded or the markup is nested too deeply",
    "failed": "not checked: the HTML parser failed on the document's html sources (out of memory?)",
}


# ------------------------------------------------------------------ files (`paths`)


def print_paths(files: Sequence[str], *, frozen: str = "", as_json: bool = False) -> int:
    """What ``paths`` does: print the paths of each source file (``-``: standard input), one
    per line (each file under ``==> NAME <==`` when there are several), or with ``as_json``
    one object ``{"FILE": [paths]}``. ``frozen`` is the comma-separated list of frozen fields
    (a bad one is an :class:`OptionError`). The files' problems are raised together, after
    the output, as one :class:`UsageError` (one located line each)."""
    frozen_fields, problems = parse_path_list(frozen, "--frozen", top_level=True)
    if problems:
        raise OptionError("\n".join(problems))
    results: dict[str, list[str]] = {}
    errors: list[str] = []
    for name in files:
        try:
            results[name] = extract_paths(read_text(name, limit=MAX_SOURCE_BYTES), frozen=frozen_fields)
        except ExtractionError as exc:
            errors.append(str(ExtractionError(exc.problems, name=display_name(name))))
        except UsageError as exc:
            errors.append(str(exc))
    if as_json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        for name, paths in results.items():
            if len(files) > 1:
                print(f"==> {name} <==")
            for path in paths:
                print(path)
    if errors:
        raise UsageError("\n".join(errors))
    return 0


__all__ = ["extract_paths", "extract_paths_many", "ExtractionError", "Problem", "EXTRACTION_PREFIX", "MAX_SOURCE_BYTES", "print_paths"]
