"""JSON files as the document commands read them: bounded, strict, and located.

* :func:`load_json` is :func:`flowui_sandbox.sandbox.files.parse_json` (bounded depth, no NaN/Infinity,
  numbers JavaScript can hold, every problem at its line:column) that also refuses
  duplicate object keys.
* :func:`locate` finds the line:column of the value at a location such as
  ``("pages", 0, "blocks", 3, "source")`` in the text, for error messages; it
  skips the values it does not descend into with the C decoder, so it is fast
  on large files.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C scanner json uses; typeshed leaves it out
from typing import Any

from ..block.jsonjs import MAX_DEPTH
from ..errors import UsageError
from ..files import parse_json

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of ``offset``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class DuplicateKey(UsageError):
    """A key that appears twice in one object (refused in a document: the last would win silently)."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(f"the key {cut_json(key)} appears twice in one object")
            seen.add(key)
    return out


#: Characters of a key or a string a message shows; a longer one is cut and its length said (an
#: unknown key of 7,000,000 characters made an error line of 14 MB).
SHOWN_CHARS = 40


def cut(text: str) -> str:
    """``text`` as a message shows it: at most SHOWN_CHARS characters, then how many it has."""
    return text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]}… ({len(text):,} characters)"


def cut_json(key: str, longest: int = SHOWN_CHARS) -> str:
    """``key`` as JSON for a message; one longer than ``longest`` cut to SHOWN_CHARS characters
    inside its quotes, then how many it has."""
    if len(key) <= longest:
        return json.dumps(key, ensure_ascii=False)
    return json.dumps(key[:SHOWN_CHARS], ensure_ascii=False)[:-1] + f'…" ({len(key):,} characters)'


def cut_repr(value: Any) -> str:
    """``repr(value)`` as a message shows it: a long string cut inside its quotes, then how many
    characters it has; an integer too long to print (Python prints at most 4,300 digits) by its size."""
    if isinstance(value, str) and len(value) > SHOWN_CHARS:
        quoted = repr(value[:SHOWN_CHARS])
        return f"{quoted[:-1]}…{quoted[-1]} ({len(value):,} characters)"
    if type(value) is int and value.bit_length() > 256:
        return f"an integer of {value.bit_length():,} bits"
    return repr(value)


def load_json(text: str, name: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """The value of JSON ``text`` (``name`` names it in errors), or :class:`UsageError`
    ``NAME:LINE:COL: message``: the project's one JSON reader (depth, NaN/Infinity, numbers
    JavaScript cannot hold), plus the refusal of duplicate keys."""
    try:
        return parse_json(text, name, max_depth=max_depth, object_pairs_hook=_pairs)
    except DuplicateKey as exc:  # find where with a second, plain pass (the error path only)
        raise UsageError(f"{name}:{_locate_problem(text)}: {exc}") from None


def _locate_problem(text: str) -> str:
    """line:column of the first duplicate key or non-JSON constant (the error path only)."""
    found = _scan_for_problem(text, _skip_ws(text, 0))
    if found is None:
        return "1:1"
    line, column = position(text, found)
    return f"{line}:{column}"


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    return i


def _scan_for_problem(text: str, i: int) -> int | None:
    """Offset of the first duplicate key or NaN/Infinity in the value at ``i``."""
    ch = text[i:i + 1]
    if ch == "{":
        i = _skip_ws(text, i + 1)
        seen: set[str] = set()
        if text[i:i + 1] == "}":
            return None
        while True:
            key, end = scanstring(text, i + 1)
            if key in seen:
                return i
            seen.add(key)
            i = _skip_ws(text, _skip_ws(text, end) + 1)
            found = _scan_for_problem(text, i)
            if found is not None:
                return found
            i = _skip_ws(text, _end_of_value(text, i))
            if text[i] == "}":
                return None
            i = _skip_ws(text, i + 1)
    if ch == "[":
        i = _skip_ws(text, i + 1)
        if text[i:i + 1] == "]":
            return None
        while True:
            found = _scan_for_problem(text, i)
            if found is not None:
                return found
            i = _skip_ws(text, _end_of_value(text, i))
            if text[i] == "]":
                return None
            i = _skip_ws(text, i + 1)
    if text.startswith(("NaN", "Infinity", "-Infinity"), i):
        return i
    return None


def _end_of_value(text: str, i: int) -> int:
    """Offset just after the JSON value starting at ``i`` (constants accepted: the error path)."""
    return _DECODER.raw_decode(text, i)[1]


def locate(text: str, location: Sequence[str | int]) -> tuple[int, int] | None:
    """Line and column of the value at ``location`` in JSON ``text`` (the deepest part found)."""
    return locate_all(text, [location])[0]


def locate_all(text: str, locations: Sequence[Sequence[str | int]]) -> list[tuple[int, int] | None]:
    """:func:`locate` of each location, in one pass over ``text``: every value is skipped or
    entered at most once, and line:column come from one table of line starts, so the cost
    is the text's length plus the locations', not their product (a document with 4,000
    problems is located in one read, not 4,000)."""
    trie: dict = {}
    ends = []
    for location in locations:
        node = trie
        for step in location:
            node = node.setdefault((type(step) is int, step), {})
        ends.append(node)
    if not ends:
        return []
    found: dict[int, int] = {}  # id(trie node) -> offset
    try:
        _walk(text, _skip_ws(text, 0), trie, found)
    except (ValueError, IndexError):
        pass  # not JSON after all: what was found stays found
    starts = [0, *accumulate(len(line) + 1 for line in text.split("\n"))]  # each line's first offset
    out: list[tuple[int, int] | None] = []
    for node in ends:
        offset = found.get(id(node))
        if offset is None:
            out.append(None)
        else:
            line = bisect_right(starts, offset)
            out.append((line, offset - starts[line - 1] + 1))
    return out


def _walk(text: str, i: int, node: dict, found: dict[int, int]) -> None:
    """Records the offset of the value at ``i`` for ``node`` and, for the steps below it, of
    theirs (a step not found: where :func:`locate` stops looking for it)."""
    found[id(node)] = i
    if not node:
        return
    ch = text[i:i + 1]
    container = ch in ("{", "[")
    steps = {}
    for (is_index, step), child in node.items():
        if container and is_index == (ch == "["):
            steps[step] = child
        else:  # a key on an array, an index on an object, anything on a scalar: the value itself
            _not_found(child, i, found)
    if ch == "{":
        i = _skip_ws(text, i + 1)
        while text[i:i + 1] == '"' and steps:
            key, end = scanstring(text, i + 1)
            i = _skip_ws(text, _skip_ws(text, end) + 1)
            child = steps.pop(key, None)
            if child is not None:
                _walk(text, i, child, found)
                if not steps:
                    return
            i = _skip_ws(text, _end_of_value(text, i))
            if text[i:i + 1] == ",":
                i = _skip_ws(text, i + 1)
        missing = max(0, i - 1)
        for child in steps.values():
            _not_found(child, missing, found)
    elif ch == "[":
        i = _skip_ws(text, i + 1)
        index = 0
        last = max(steps, default=-1)
        while index <= last:
            if text[i:i + 1] == "]":  # fewer elements: the steps past the end stop at the bracket
                for child in steps.values():
                    _not_found(child, i, found)
                return
            child = steps.pop(index, None)
            if child is not None:
                _walk(text, i, child, found)
            if index == last:
                break
            i = _skip_ws(text, _end_of_value(text, i))
            if text[i:i + 1] != ",":
                for child in steps.values():
                    _not_found(child, i, found)
                return
            i = _skip_ws(text, i + 1)
            index += 1


def _not_found(node: dict, offset: int, found: dict[int, int]) -> None:
    """A location whose step is not in the text stops at ``offset``, as do all below it."""
    stack = [node]
    while stack:
        current = stack.pop()
        found[id(current)] = offset
        stack.extend(current.values())
