"""The author's source: lexbor's elements with their positions, and offset -> line:column.

The elements come from the same lexbor tree as extraction (sandbox/block/extract.py: the
block document's prefix, document mode, scripting on). lexbor gives no source
positions, so each element is matched to a start tag found by extract.py's
tokenizer (its error-path locator): by tag name and attribute names, in document
order. Script and style contents and attribute values are then located inside that
start tag, so a finding in JavaScript or CSS maps back to the author's line and
column.
"""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ..block.extract import _ATTRIBUTE, _FOREIGN_NAMES, _LOWER, _RAW_TEXT, _TOKEN, EXTRACTION_PREFIX, _raw_text_end


class Positions:
    """1-based line and column of a character offset (CR LF, CR and LF end a line, as
    the HTML input stream counts them)."""

    def __init__(self, text: str):
        starts = [0]
        i = 0
        find = text.find
        # Line starts: after every LF, and after every CR not followed by LF.
        while True:
            n = find("\n", i)
            if n < 0:
                break
            starts.append(n + 1)
            i = n + 1
        if "\r" in text:
            starts = sorted(set(starts) | {j + 1 for j, c in enumerate(text) if c == "\r" and text[j + 1:j + 2] != "\n"})
        self._starts = starts

    def at(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1

    def offset(self, line: int, column: int) -> int:
        """The character offset of 1-based ``line`` and ``column`` (the inverse of :meth:`at`)."""
        return self._starts[max(0, min(line, len(self._starts)) - 1)] + max(0, column - 1)


@dataclass
class Attr:
    name: str
    value: str            # as the DOM has it (lexbor)
    offset: int           # where the value (or the name, if valueless) starts in the source
    raw: str | None = None  # the value as written, when found


@dataclass
class Element:
    node: LexborNode
    tag: str
    offset: int           # the "<" of its start tag; -1 when not found
    attrs: dict[str, Attr] = field(default_factory=dict)
    content_offset: int = -1  # script/style: where the text starts in the source


class Document:
    """The parsed block: ``tree`` (lexbor), ``elements`` in document order with positions."""

    def __init__(self, source: str, deadline: float = float("inf")):
        self.deadline = deadline
        self.source = source
        self.positions = Positions(source)
        self.tree = LexborHTMLParser(EXTRACTION_PREFIX + source, scripting=True)
        self.elements: list[Element] = []
        self._locate()

    def at(self, offset: int) -> tuple[int, int]:
        return self.positions.at(max(0, offset))

    def _locate(self) -> None:
        """Match the elements that need a position to their start tags, by tag name and
        ordinal (the n-th <button> of the DOM is the n-th <button> start tag, except where
        the tree builder moves or copies elements: then by attribute names)."""
        body = self.tree.body
        if body is None:
            return
        wanted: list[tuple[LexborNode, str, int, dict]] = []
        ordinal: dict[str, int] = {}
        for node in body.traverse(include_text=False):
            if node is body:
                continue
            name = (node.tag or "").lower()  # an element always has its name (SVG keeps its case: feImage)
            index = ordinal.get(name, 0)
            ordinal[name] = index + 1
            attributes = node.attributes
            if name in INTERESTING_TAGS:
                wanted.append((node, name, index, attributes))
                continue
            for a in attributes:
                if a[:2] == "on" or a in INTERESTING_ATTRIBUTES:
                    wanted.append((node, name, index, attributes))
                    break
        if not wanted:
            return
        queues = _start_tags(self.source, {name for _, name, _, _ in wanted}, self.deadline)
        source = self.source
        for node, name, index, attributes in wanted:
            element = Element(node, name, -1)
            candidates = queues.get(name, ())
            names = set(attributes)
            hit = None
            parsed = None
            if index < len(candidates):
                parsed = _attr_matches(candidates[index])
                if {m.group(1).lower() for m in parsed} == names:
                    hit = index
            if hit is None:
                hit = next((i for i in range(len(candidates))
                            if {m.group(1).lower() for m in _attr_matches(candidates[i])} == names),
                           index if index < len(candidates) else None)
                parsed = _attr_matches(candidates[hit]) if hit is not None else None
            if hit is not None:
                tag = candidates[hit]
                element.offset = tag.start()
                attrs_at = tag.start("attrs")
                for match in parsed or ():
                    attr_name = match.group(1).lower()
                    if attr_name in element.attrs or attr_name not in attributes:
                        continue
                    group = next((g for g in (2, 3, 4) if match.group(g) is not None), None)
                    at = attrs_at + (match.start(group) if group else match.start(1))
                    element.attrs[attr_name] = Attr(attr_name, attributes[attr_name] or "", at,
                                                    match.group(group) if group else None)
                if name in ("script", "style"):
                    close = source.find(">", tag.end("attrs"))
                    element.content_offset = close + 1 if close >= 0 else -1
            for attr_name, value in attributes.items():
                if attr_name not in element.attrs:
                    element.attrs[attr_name] = Attr(attr_name, value or "", max(element.offset, 0))
            self.elements.append(element)


def _start_tags(source: str, names: set[str], deadline: float = float("inf")) -> dict[str, list]:
    """The start tags (regex matches of extract.py's tokenizer) of the tag ``names``, in
    source order. The same scan as extract.py's ``_tags`` (comments, bogus comments and
    raw text skipped; svg/math content has no raw text), keeping only what is asked for."""
    queues: dict[str, list] = {name: [] for name in names}
    search = _TOKEN.search
    length = len(source)
    pos = 0
    depth = 0
    count = 0
    while True:
        match = search(source, pos)
        if match is None:
            break
        count += 1
        if not count & 4095 and time.monotonic() > deadline:
            raise TimeoutError("the markup took longer than the time limit to read")
        pos = match.end()
        name, close, end_mark = match.group("name", "close", "end")
        if name is None:
            continue
        if close == "":
            break
        name = name.translate(_LOWER)
        end = end_mark == "/"
        if name in _FOREIGN_NAMES:
            depth = max(0, depth + (-1 if end else 0 if close == "/>" else 1))
        if end:
            continue
        queue = queues.get(name)
        if queue is not None:
            queue.append(match)
        if depth == 0:
            if name == "plaintext":
                break
            if name in _RAW_TEXT:
                pos = _raw_text_end(source, pos, name, length)
    return queues


#: Elements and attributes the static layer reports on or reads code from (others get no position).
INTERESTING_TAGS = frozenset(("script", "style", "link", "meta", "base", "iframe", "frame", "frameset", "object", "embed",
                              "portal", "fencedframe", "form", "a", "area", "img", "source", "video", "audio", "track",
                              "input", "image", "feimage", "button", "set", "animate"))
#: The attributes of an SVG animation (<set>, <animate>) that hold its values: URLs the engine
#: loads when it animates an href (Chromium and Firefox).
SVG_ANIMATION_VALUES = ("to", "from", "by", "values")
INTERESTING_ATTRIBUTES = frozenset(("style", "src", "srcset", "href", "xlink:href", "poster", "background", "lowsrc",
                                    "data", "action", "formaction", "target", "ping"))


def _attr_matches(tag) -> list:
    return list(_ATTRIBUTE.finditer(tag.group("attrs")))


def _attr_names(text: str) -> list[str]:
    return [m.group(1).lower() for m in _ATTRIBUTE.finditer(text)]


class Mapper:
    """Maps offsets in an embedded text (script, style, attribute value) to source positions.

    When the embedded text is the source's text at ``base`` (the usual case), offsets map
    exactly; otherwise (character references in an attribute) to ``base`` plus the offset,
    clamped to the raw length."""

    def __init__(self, document: Document, base: int, text: str, raw: str | None = None):
        self.document = document
        self.base = base
        exact = base >= 0 and document.source.startswith(text, base)
        self.limit = None if exact else (len(raw) if raw is not None else 0)

    def at(self, offset: int) -> tuple[int, int]:
        if self.base < 0:
            return 1, 1
        if self.limit is not None:
            offset = min(offset, self.limit)
        return self.document.at(self.base + offset)
