"""Text templates over state (SPEC §5): ``{path}``, ``{?path}``, ``{path|fallback}``, ``\\{``.

* ``{path}`` inserts the value's text (objects and arrays as compact JSON); when
  the value is absent (missing or null) the whole template does not render
  (:func:`render_template` returns ``None``) until it appears.
* ``{?path}`` inserts ``""`` when the value is absent.
* ``{path|fallback}`` inserts the fallback when the value is absent or ``""``;
  the fallback is itself a template (it may hold ``{other}``).
* ``\\{`` is a literal ``{`` (and ``\\}`` a literal ``}``).

Malformed templates (an unclosed brace, a bad path) raise :class:`TemplateError`
naming the column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from .paths import path_problem
from .projection import MISSING, format_text, get_path


class TemplateError(UsageError):
    """``offset`` is the 0-based index in the template where the problem starts; ``reason`` the text after it."""

    def __init__(self, offset: int, reason: str):
        self.offset = offset
        self.reason = reason
        super().__init__(f"column {offset + 1}: {reason}")


class TooManyRefs(TemplateError):
    """A template with more path references than its caller's ``limit``; ``offset`` is the first one past it."""


@dataclass(frozen=True)
class _Slot:
    path: str
    optional: bool
    fallback: tuple | None  # parsed fallback template, or None
    offset: int = 0  # where the path starts in the template


_SPECIAL = re.compile(r"[\\{}]")
_PATH_END = re.compile(r"[|}]")

#: Fallbacks nested deeper than this are refused (the parser recurses once per level).
MAX_NESTING = 32


def _parse(text: str, start: int = 0, *, nested: bool = False, depth: int = 0, left: list[int] | None = None) -> tuple[tuple, int]:
    """Parse from ``start``; in a fallback stop at the closing ``}``. Returns (parts, end index).
    ``left``: ``[references the parse may still make]``, counted down (fallbacks included)."""
    parts: list[str | _Slot] = []
    literal: list[str] = []
    i = start
    while i < len(text):
        special = _SPECIAL.search(text, i)  # jump over plain text at once
        if special is None:
            literal.append(text[i:])
            i = len(text)
            break
        if special.start() > i:
            literal.append(text[i:special.start()])
            i = special.start()
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in "{}\\":
            literal.append(text[i + 1])
            i += 2
            continue
        if ch == "}" and nested:
            break
        if ch != "{":
            literal.append(ch)
            i += 1
            continue
        if left is not None:
            left[0] -= 1
            if left[0] < 0:  # before the path is read: the rest is never parsed
                raise TooManyRefs(i, "more path references than the limit")
        if literal:
            parts.append("".join(literal))
            literal = []
        j = i + 1
        optional = text.startswith("?", j)
        j += optional
        found = _PATH_END.search(text, j)
        end = found.start() if found else len(text)
        if end >= len(text):
            raise TemplateError(i, "'{' is never closed (write \\{ for a literal brace)")
        path = text[j:end]
        if (why := path_problem(path)) is not None:
            raise TemplateError(j, f"bad path {path!r}: {why}")
        fallback = None
        if text[end] == "|":
            if depth >= MAX_NESTING:
                raise TemplateError(i, f"fallbacks nest deeper than {MAX_NESTING} levels")
            fallback, end = _parse(text, end + 1, nested=True, depth=depth + 1, left=left)
            if end >= len(text):
                raise TemplateError(i, "'{' is never closed (write \\{ for a literal brace)")
        parts.append(_Slot(path, optional, fallback, j))
        i = end + 1
    if literal:
        parts.append("".join(literal))
    return tuple(parts), i


def template_paths(template: str) -> list[str]:
    """Every path the template reads, fallbacks included, in order, without duplicates."""
    return list(dict.fromkeys(path for path, _ in template_refs(template)))


def template_refs(template: str, limit: int | None = None) -> list[tuple[str, int]]:
    """Every ``(path, offset)`` of the template in order, duplicates kept (offset: where the path starts).
    ``limit``: at most this many; one more raises :class:`TooManyRefs` at it, before the rest is parsed."""
    out: list[tuple[str, int]] = []

    def walk(parts: tuple) -> None:
        for part in parts:
            if isinstance(part, _Slot):
                out.append((part.path, part.offset))
                if part.fallback:
                    walk(part.fallback)

    walk(_parse(template, left=None if limit is None else [limit])[0])
    return out


def render_template(template: str, state: Any) -> str | None:
    """The rendered text, or ``None`` while a required ``{path}`` is absent."""

    def render(parts: tuple) -> str | None:
        out: list[str] = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value = get_path(state, part.path)
            absent = value is MISSING or value is None
            if part.fallback is not None:
                if absent or value == "":
                    text = render(part.fallback)
                    if text is None:
                        return None
                    out.append(text)
                else:
                    out.append(format_text(value))
            elif absent:
                if not part.optional:
                    return None
            else:
                out.append(format_text(value))
        return "".join(out)

    return render(_parse(template)[0])
