"""The state-path grammar (SPEC §2): the single source of truth.

A path is snake_case segments joined by dots (``customer.name``); a segment
is ``[a-z][a-z0-9_]*`` or an array index ``0|[1-9][0-9]*``. At most
:data:`MAX_SEGMENTS` segments and :data:`MAX_LENGTH` characters. A path whose
first segment is a frozen system field is refused too.

The JavaScript side reads the same grammar from ``bridge/contract.js``,
which is generated from this module (see :mod:`flowui_sandbox.sandbox.contract`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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
                f"segment {number} {_quote(segment)} must be snake_case "
                "([a-z][a-z0-9_]*) or an array index (0 or a number without leading zeros)"
            )
    if segments[0] in frozen:
        return f"{_quote(segments[0])} is a frozen system field and cannot be used in a block"
    return None


def is_valid_path(path: object, frozen: Iterable[str] = ()) -> bool:
    return path_problem(path, frozen) is None


def split_path(path: str) -> list[str | int]:
    """Segments of a valid path, array indexes as ints.

    >>> split_path("items.0.name")
    ['items', 0, 'name']
    """
    return [int(s) if s[0].isdigit() else s for s in path.split(".")]


def _quote(text: str) -> str:
    shown = text if len(text) <= 40 else text[:37] + "..."
    return '"' + shown.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'


def parse_path_list(text: str, option: str, *, frozen: Iterable[str] = (), top_level: bool = False) -> tuple[list[str], list[str]]:
    """A comma-separated list of paths from the command line (``--fields``, ``--frozen``).

    Returns the paths (in order, duplicates dropped, blanks around commas ignored) and one
    problem sentence per bad item, each naming ``option``, the item and why. An empty text
    is the empty list; an empty item between commas is a problem. ``top_level``: each item
    must be one segment (frozen fields are top-level names: a dotted one would never match).

    >>> parse_path_list("order.total, draft.email,order.total", "--fields")
    (['order.total', 'draft.email'], [])
    >>> parse_path_list("run_id,,run_id.x", "--frozen", top_level=True)
    (['run_id'], ['--frozen: item 2 "": the path is empty', '--frozen: item 3 "run_id.x": a frozen field is a top-level name (one segment); paths under it are frozen with it'])
    """
    if text.strip() == "":
        return [], []
    paths: dict[str, None] = {}
    problems = []
    for number, raw in enumerate(text.split(","), 1):
        item = raw.strip()
        why = path_problem(item, frozen)
        if why is None and top_level and "." in item:
            why = "a frozen field is a top-level name (one segment); paths under it are frozen with it"
        if why is not None:
            problems.append(f"{option}: item {number} {_quote(item)}: {why}")
        else:
            paths.setdefault(item)
    return list(paths), problems
