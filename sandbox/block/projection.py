"""Lookup, projection, text and emptiness of state values: the Python twin of the block runtime.

One set of rules, checked on both sides by ``fixtures/projection.json``,
``fixtures/format.json`` and ``fixtures/emptiness.json``:

* **Lookup** (:func:`get_path`): from the top, each segment descends into an
  object through an *own* key equal to the segment (``customer.constructor`` is
  absent unless the state has that key), or into an array through an index
  segment below its length. A name segment on an array (``items.length``) and
  any segment on a string, number, boolean or null is absent. Absent is
  :data:`MISSING` here and ``undefined`` in JavaScript; ``null`` is a value.
* **Projection** (:func:`project`): a copy of the state holding exactly the
  given paths. A path to an object or array carries all of it. A missing path
  adds nothing, and a container is kept only when something under it was
  projected. Arrays stay arrays: an array reached through index segments holds
  the projected elements at their indexes, ``null`` at the other indexes
  below the highest projected one, and nothing after it (``items.1.name`` of
  ``[a, b, c]`` is ``[null, {"name": ...}]``). So every projected path is
  found in the projection by the same lookup; an unprojected index inside the
  padding reads as ``null`` (text ``""``, empty), never as another element's
  data. Objects keep the state's key order (JSON then orders them as
  JavaScript does, see :mod:`flowui_sandbox.sandbox.block.jsonjs`).
* **Text** (:func:`format_text`, ``data-bind``): strings as they are, numbers
  and booleans as JavaScript prints them, null or missing ``""``, objects and
  arrays as compact JSON (``JSON.stringify``).
* **Emptiness** (:func:`is_empty`, ``data-show``): missing, null, ``""``,
  ``false``, ``0`` (and ``-0``) and ``[]`` are empty; everything else, ``{}``
  included, is not.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..errors import UsageError
from .jsonjs import number_text, stringify
from .paths import path_problem


class _Missing:
    """The absent value (JavaScript's ``undefined``)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


class PathError(UsageError):
    """A path that does not follow the grammar of :mod:`flowui_sandbox.sandbox.block.paths`."""


def _segments(path: str) -> list[str]:
    why = path_problem(path)
    if why is not None:
        raise PathError(f"path {path!r}: {why}")
    return path.split(".")


def _child(value: Any, segment: str) -> Any:
    if isinstance(value, dict):
        return value.get(segment, MISSING)
    if isinstance(value, list) and segment.isdigit():
        index = int(segment)
        return value[index] if index < len(value) else MISSING
    return MISSING


def get_path(state: Any, path: str) -> Any:
    """The value at ``path`` in ``state``, or :data:`MISSING` (own keys only; arrays by index).

    >>> get_path({"items": [{"name": "pen"}]}, "items.0.name")
    'pen'
    >>> get_path({"items": []}, "items.0.name") is MISSING
    True
    """
    value = state
    for segment in _segments(path):
        value = _child(value, segment)
        if value is MISSING:
            break
    return value


class WriteError(UsageError):
    """A path that cannot be written in a state (see :func:`set_path`)."""


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def set_path(state: dict, path: str, value: Any) -> dict:
    """A copy of ``state`` with ``value`` at ``path``: the rule a block's ``setValue`` follows in the
    host (the JavaScript ``core.setIn``; shared cases in ``fixtures/bridge/set_value.json``).

    Missing (or null) containers on the way are created as objects; on an array a segment must
    be the index of an element or the one right after the last (it appends). An index past that,
    a word on an array, or a string, number or boolean on the way raises :class:`WriteError`:
    no write makes a sparse array or replaces a value the path only passes through. Untouched
    branches are shared, ``state`` is not modified.
    """
    segments = _segments(path)
    root: Any = dict(state) if isinstance(state, dict) else {}
    node: Any = root
    for i, segment in enumerate(segments):
        at = ".".join(segments[:i]) or "the state"
        key: Any = segment
        if isinstance(node, list):
            if not (segment == "0" or (segment.isdigit() and segment[0] != "0")):
                raise WriteError(f"{json.dumps(segment)} is not an index, but {at} is an array")
            key = int(segment)
            if key > len(node):
                raise WriteError(f"index {segment} is past the end of {at} (an array of {len(node)})")
        last = i == len(segments) - 1
        if last:
            if isinstance(node, list) and key == len(node):
                node.append(value)
            else:
                node[key] = value
            break
        nxt = _child(node, segment)
        if nxt is MISSING or nxt is None:
            nxt = {}
        elif isinstance(nxt, dict):
            nxt = dict(nxt)
        elif isinstance(nxt, list):
            nxt = list(nxt)
        else:
            raise WriteError(f"{'.'.join(segments[:i + 1])} is {_kind(nxt)}, not an object or array")
        if isinstance(node, list) and key == len(node):
            node.append(nxt)
        else:
            node[key] = nxt
        node = nxt
    return root


_WHOLE = object()  # trie marker: the path ends here, carry the whole value


def project(state: Any, paths: Iterable[str]) -> dict:
    """A copy of ``state`` holding exactly ``paths`` (see the module's rules).

    >>> state = {"customer": {"name": "Ann", "phone": "+1 555"}, "items": [{"name": "pen", "qty": 2}], "token": "x"}
    >>> project(state, ["customer.name", "items.0.qty"])
    {'customer': {'name': 'Ann'}, 'items': [{'qty': 2}]}
    """
    trie: dict = {}
    for path in paths:
        node = trie
        for segment in _segments(path):
            if _WHOLE in node:
                break
            node = node.setdefault(segment, {})
        else:
            node.clear()
            node[_WHOLE] = True
    if not isinstance(state, dict):
        return {}
    picked = _pick(state, trie)
    return {} if picked is MISSING else picked


def _pick(value: Any, node: dict) -> Any:
    if _WHOLE in node:
        return _copy(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in node and (sub := _pick(item, node[key])) is not MISSING:
                out[key] = sub
        return out or MISSING
    if isinstance(value, list):
        found = {}
        for segment, child in node.items():
            if segment.isdigit() and int(segment) < len(value):
                if (sub := _pick(value[int(segment)], child)) is not MISSING:
                    found[int(segment)] = sub
        if not found:
            return MISSING
        return [found.get(i) for i in range(max(found) + 1)]
    return MISSING


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def format_text(value: Any) -> str:
    """The text ``data-bind`` shows for ``value`` (:data:`MISSING` and ``None`` give ``""``).

    >>> format_text(3.0), format_text(None), format_text([1, "a"]), format_text({"a": 1})
    ('3', '', '[1,"a"]', '{"a":1}')
    """
    if value is MISSING or value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return number_text(value)
    return stringify(value)


def is_empty(value: Any) -> bool:
    """Whether ``data-show`` hides the element: missing, null, "", false, 0 or [].

    >>> [is_empty(value) for value in (MISSING, None, "", False, 0, [], {}, "0")]
    [True, True, True, True, True, True, False, False]
    """
    if value is MISSING or value is None:
        return True
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value == 0
    if isinstance(value, (str, list)):
        return len(value) == 0
    return False
