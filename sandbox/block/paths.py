"""The state-path grammar on the sandbox's side: the command line's path lists.

The grammar itself (SPEC §2) is :mod:`flowui_sandbox.bridge.grammar`, its single source of truth,
re-exported here with :func:`parse_path_list`, which reads ``--fields`` and ``--frozen``.
"""

from __future__ import annotations

from collections.abc import Iterable

from flowui_sandbox.bridge.grammar import MAX_LENGTH, MAX_SEGMENTS, PATH_PATTERN, SEGMENT_PATTERN, is_valid_path, path_problem, quoted, split_path


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
            problems.append(f"{option}: item {number} {quoted(item)}: {why}")
        else:
            paths.setdefault(item)
    return list(paths), problems


__all__ = [
    "MAX_SEGMENTS", "MAX_LENGTH", "SEGMENT_PATTERN", "PATH_PATTERN", "path_problem", "is_valid_path", "split_path",
    "parse_path_list",
]
