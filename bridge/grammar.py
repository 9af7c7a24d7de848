"""The grammars of the names a block and its host exchange: the single source of truth.

A state path (SPEC §2) is snake_case segments joined by dots (``customer.name``); a segment
is ``[a-z][a-z0-9_]*`` or an array index ``0|[1-9][0-9]*``. At most
:data:`MAX_SEGMENTS` segments and :data:`MAX_LENGTH` characters. A path whose
first segment is a frozen system field is refused too.

A block id (:data:`BLOCK_ID_PATTERN`) is a letter, then up to 63 letters, digits, ``_`` or ``-``.

The JavaScript side reads the same grammars from ``bridge/contract.js``,
which is generated from this module (see :mod:`flowui_sandbox.sandbox.derived.contract`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A block id: a letter, then up to 63 letters, digits, ``_`` or ``-``.
BLOCK_ID_PATTERN = r"[A-Za-z][A-Za-z0-9_-]{0,63}"

MAX_SEGMENTS = 32
MAX_LENGTH = 256
#: One segment: a snake_case name or an array index without leading zeros.
SEGMENT_PATTERN = r"[a-z][a-z0-9_]*|0|[1-9][0-9]*"
#: A whole path (the grammar without the length limits).
PATH_PATTERN = rf"(?:{SEGMENT_PATTERN})(?:\.(?:{SEGMENT_PATTERN}))*"

_SEGMENT = re.compile(rf"(?:{SEGMENT_PATTERN})\Z")
# The whole grammar, limits included, as one match: the fast path of path_problem.
_VALID = re.compile(rf"(?=.{{1,{MAX_LENGTH}}}\Z)(?:{SEGMENT_PATTERN})(?:\.(?:{SEGMENT_PATTERN})){{0,{MAX_SEGMENTS - 1}}}\Z")


def path_problem(path: object, frozen: Iterable[str] = ()) -> str | None:
    """Why ``path`` is not a valid path, or ``None`` when it is.

    The reason is a short sentence meant for an author:

    >>> path_problem("customer.name") is None
    True
    >>> path_problem("customer.Name")
    'segment 2 "Name" must be snake_case ([a-z][a-z0-9_]*) or an array index (0 or a number without leading zeros)'
    >>> path_problem("run_id.step", frozen=["run_id"])
    '"run_id" is a frozen system field and cannot be used in a block'
    """
    frozen = tuple(frozen)
    if isinstance(path, str) and _VALID.match(path) and path.partition(".")[0] not in frozen:
        return None
    if not isinstance(path, str):
        return f"a path must be a string, not {type(path).__name__}"
    if path == "":
        return "the path is empty"
    if len(path) > MAX_LENGTH:
        return f"the path has {len(path)} characters; at most {MAX_LENGTH} are allowed"
    segments = path.split(".")
    if len(segments) > MAX_SEGMENTS:
        return f"the path has {len(segments)} segments; at most {MAX_SEGMENTS} are allowed"
    for number, segment in enumerate(segments, 1):
        if segment == "":
            return f"segment {number} is empty (a leading, trailing or doubled dot)"
        if not _SEGMENT.match(segment):
            return (
                f"segment {number} {quoted(segment)} must be snake_case "
                "([a-z][a-z0-9_]*) or an array index (0 or a number without leading zeros)"
            )
    if segments[0] in frozen:
        return f"{quoted(segments[0])} is a frozen system field and cannot be used in a block"
    return None


def is_valid_path(path: object, frozen: Iterable[str] = ()) -> bool:
    return path_problem(path, frozen) is None


def split_path(path: str) -> list[str | int]:
    """Segments of a valid path, array indexes as ints.

    >>> split_path("items.0.name")
    ['items', 0, 'name']
    """
    return [int(s) if s[0].isdigit() else s for s in path.split(".")]


def quoted(text: str) -> str:
    """``text`` in double quotes for a message, escaped, cut to 40 characters."""
    shown = text if len(text) <= 40 else text[:37] + "..."
    return '"' + shown.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'


__all__ = [
    "BLOCK_ID_PATTERN", "MAX_SEGMENTS", "MAX_LENGTH", "SEGMENT_PATTERN", "PATH_PATTERN",
    "path_problem", "is_valid_path", "split_path", "quoted",
]
