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
from collections.abc import Sequence
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C scanner json uses; typeshed leaves it out
from typing import Any

from ..errors import UsageError
from ..files import parse_json
from ..jsonjs import MAX_DEPTH

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of ``offset``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class DuplicateKey(ValueError):
    """A key that appears twice in one object (refused in a document: the last would win silently)."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(f"the key {json.dumps(key, ensure_ascii=False)} appears twice in one object")
            seen.add(key)
    return out


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
    try:
        i = _skip_ws(text, 0)
        for step in location:
            ch = text[i:i + 1]
            if ch == "{" and isinstance(step, str):
                i = _skip_ws(text, i + 1)
                while text[i:i + 1] == '"':
                    key, end = scanstring(text, i + 1)
                    i = _skip_ws(text, _skip_ws(text, end) + 1)
                    if key == step:
                        break
                    i = _skip_ws(text, _end_of_value(text, i))
                    if text[i:i + 1] == ",":
                        i = _skip_ws(text, i + 1)
                else:
                    return position(text, max(0, i - 1)) if location else None
            elif ch == "[" and isinstance(step, int):
                i = _skip_ws(text, i + 1)
                for _ in range(step):
                    i = _skip_ws(text, _end_of_value(text, i))
                    if text[i:i + 1] != ",":
                        return position(text, i)
                    i = _skip_ws(text, i + 1)
            else:
                break
        return position(text, i)
    except (ValueError, IndexError):
        return None
