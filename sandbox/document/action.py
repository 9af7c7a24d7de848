"""Validating an incoming ui-action message against the document and the current page.

The seed's form (section "Вверх: одно Message"): a Message with ``role: ROLE_USER``
whose parts are exactly one data part of media type
``application/vnd.platform.ui-action+json`` and nothing else. Its data
``{action, source, fields, payload}`` is checked against the page:

* ``source`` is a block on the page that can act: a button, an input with an
  ``action``, or an html block; when the state is given, it is visible (its
  ``visible_when`` and those of the layout blocks around it hold);
* ``action`` is the block's ``action.name``; an html block may send any name of the
  action grammar (its script decides; the server routes by name);
* ``payload`` of a button or input is its declared ``action.payload`` (absent or
  equal; the declared one is written); an html block's payload is its own;
* ``fields``: every key is the ``field`` of an input block of the page (visible,
  when the state is given) or, for an html source, one of its own ``fields``;
  every required input is present and not empty; each value has the type its
  input gives (text, number, option, boolean, date, file reference) and meets
  its constraints (pattern, length, range, options).

The result is the state writes as JSON Patch against the current state: each
field at its path (missing containers created), then ``ui_action`` =
``{name, source, payload}``. A refusal carries every problem, each with a
reason code (:data:`REASONS`) and where it is in the message.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from fractions import Fraction
from typing import Any

from pydantic import ValidationError

from flowui_sandbox.bridge.protocol import UI_ACTION_MEDIA_TYPE, UiAction, json_chars, json_depth

from ..block.jsonjs import MAX_DEPTH, MAX_SAFE_INTEGER
from ..block.paths import MAX_LENGTH, MAX_SEGMENTS, path_problem
from ..block.projection import MISSING, get_path, is_empty
from ..errors import UsageError
from .jsontext import cut, cut_json
from .model import DATE, DATETIME, INPUT_TYPES, TEXT_MAX_LENGTH, UI_ACTION_FIELD
from .patch import MAX_JSON_NODES, PatchError, check_json, escape, json_equal, json_key, json_nodes_over
from .pattern import compile_pattern, lone_surrogate, surrogate_at, utf16_length
from .projection import report_of
from .validate import DocumentError, Problem, check_blocks
from .walk import Loc, each_block
from .wire import MAX_UP_NODES, MAX_UP_PARTS, MAX_WIRE_CHARS

#: The role of a user message (A2A 1.0, as in the seed).
USER_ROLE = "ROLE_USER"
#: Largest ui-action data accepted, in characters of compact JSON.
MAX_ACTION_CHARS = 1_000_000
#: Most keys in a ui-action's ``fields`` (each costs tens of microseconds: 80,000 short keys
#: fit in MAX_ACTION_CHARS and took seconds; a form has tens).
MAX_FIELDS = 10_000
#: Most JSON values (objects, arrays, scalars, keys) in a ui-action's data: 300,000 empty
#: objects fit in MAX_ACTION_CHARS and took 1.7 s to check.
MAX_ACTION_NODES = MAX_JSON_NODES

REASONS: dict[str, str] = {
    "bad-message": "the message is not an object with a list of parts",
    "bad-role": f"the role of a user message is {USER_ROLE}",
    "no-ui-action": "the message carries no ui-action part",
    "two-ui-actions": "the message carries more than one ui-action part",
    "text-beside-action": "a ui-action message carries no text part",
    "extra-part": "a ui-action message carries exactly one part, the ui-action",
    "bad-ui-action": "the ui-action part does not have the protocol's shape",
    "too-large": f"the message has more than {MAX_UP_PARTS} parts, {MAX_UP_NODES} JSON values or {MAX_WIRE_CHARS} characters of JSON; "
                 f"the ui-action is longer than {MAX_ACTION_CHARS} characters of JSON or deeper than {MAX_DEPTH} levels, has more than "
                 f"{MAX_FIELDS} fields or {MAX_ACTION_NODES} JSON values, holds an integer "
                 f"beyond ±{MAX_SAFE_INTEGER:,}, or a write would nest the state deeper than {MAX_DEPTH} levels",
    "unknown-page": "the current page is not a page of the document",
    "unknown-source": "no block of the document has this block_id",
    "not-on-page": "the source block is not on the current page",
    "cannot-act": "the source block sends no actions",
    "source-hidden": "the source block is hidden (visible_when) in the current state",
    "wrong-action": "the action is not the source block's action.name",
    "payload-mismatch": "the payload is not the one the block declares",
    "unknown-field": "the key is not a field of an input block on the page (or of the html source)",
    "hidden-field": "the input block of this field is hidden (visible_when) in the current state",
    "required": "a required field is missing or empty",
    "wrong-type": "the value does not have the type its input gives, or holds an unpaired surrogate",
    "pattern-mismatch": "the text does not match the input's pattern",
    "too-short": "the text is shorter than min_length",
    "too-long": "the text is longer than the input allows",
    "out-of-range": "the value is outside the input's min and max",
    "step-mismatch": "the number is not the input's min (else 0) plus a whole number of its steps",
    "not-an-option": "the value is not one of the select's options",
    "state-conflict": "the field cannot be written at its path in the current state",
    "overlapping-fields": "two keys of the message are the same path or one lies inside the other",
    "inside-input": "the key lies inside the value of an input block; that input's field is written whole",
}


@dataclass(frozen=True)
class Refusal:
    code: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message} [{self.code}]"

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "where": self.where, "message": self.message}


class UiActionRefused(UsageError):
    """The message is refused; :attr:`refusals` lists why (at least one)."""

    def __init__(self, refusals: list[Refusal]):
        self.refusals = list(refusals)
        super().__init__("\n".join(map(str, self.refusals)))

    @property
    def codes(self) -> list[str]:
        return [r.code for r in self.refusals]


@dataclass(frozen=True)
class ActionResult:
    """An accepted ui-action: the model, the source block (JSON) and the state writes."""

    action: UiAction
    block: dict[str, Any]
    writes: list[dict[str, Any]]


def validate_ui_action(document: Any, page_id: str, message: Any, *, state: Any,
                       frozen: Iterable[str] = (), rendered: Iterable[Any] = ()) -> ActionResult:
    """Check ``message`` (an A2A user Message as JSON) sent on page ``page_id``.

    ``state``: the current state (a JSON object): visibility is judged in it and the writes
    are made against it. ``rendered``: what the agent rendered that this client shows, each a
    ui ``render`` event's data ``{kind, slot_id, blocks}`` (its blocks act on the page of its
    slot or conversation block; hidden with it) or a bare list of blocks (taken as on the
    current page). Raises :class:`UiActionRefused`.
    """
    return check_action(document, page_id, message, state=state, frozen=frozen, rendered=rendered)


def check_action(document: Any, page_id: str, message: Any, *, state: Any, frozen: Iterable[str] = (),
                 rendered: Iterable[Any] = (), rendered_checked: bool = False) -> ActionResult:
    """:func:`validate_ui_action`; ``rendered_checked``: the renders are known to check (a
    :class:`.session.Session` checked each when it was made), so they are not checked again."""
    if not isinstance(state, dict):
        raise TypeError(f"state: the current state is a JSON object, not {_type(state)}")
    data = _the_part(message)  # the message's bounds first, before any work on it
    report = report_of(document, frozen=frozen)
    _bounded(data, "message.parts[0].data", "data", MAX_ACTION_NODES, MAX_ACTION_CHARS)
    if isinstance(data.get("fields"), dict) and len(data["fields"]) > MAX_FIELDS:  # before any work per key
        raise UiActionRefused([Refusal("too-large", "message.parts[0].data.fields",
                                       f"{len(data['fields']):,} keys; at most {MAX_FIELDS:,}")])
    try:
        action = UiAction.model_validate(data)
    except ValidationError as exc:
        raise UiActionRefused([
            Refusal("bad-ui-action", "message.parts[0].data" + "".join(f"[{s}]" if isinstance(s, int) else f".{cut(str(s))}" for s in e["loc"]),
                    e["msg"]) for e in exc.errors(include_url=False)
        ]) from None

    raw = report.document.model_dump(mode="json", exclude_unset=True)  # type: ignore[union-attr]
    pages = {page["page_id"]: page for page in raw["pages"]}
    if page_id not in pages:
        raise UiActionRefused([Refusal("unknown-page", "page_id", f"{page_id!r} is not a page of the document ({', '.join(pages)})")])
    where = "message.parts[0].data"
    scopes, away = _scopes(pages, page_id, state, rendered, frozen, rendered_checked)  # the renders (latest first), then the page
    found = next(((scope, scope.blocks[action.source]) for scope in scopes if action.source in scope.blocks), None)
    if found is None:
        elsewhere = [p for p in pages if p != page_id and action.source in _page_blocks(pages[p], None)]
        if not elsewhere and action.source in away:
            elsewhere = [away[action.source]]
        if elsewhere:
            raise UiActionRefused([Refusal("not-on-page", f"{where}.source", f"block {action.source!r} is on page {elsewhere[0]!r}, not on {page_id!r}")])
        raise UiActionRefused([Refusal("unknown-source", f"{where}.source", f"no block {_quote(action.source)} in the document or in what was rendered on page {page_id!r}")])
    scope, (block, visible) = found
    kind = block["type"]
    acts = "any" if kind == "html" else "action" if block.get("action") is not None else None
    if acts is None:
        what = "an input without an action" if kind in INPUT_TYPES else f"a {kind} block"
        raise UiActionRefused([Refusal("cannot-act", f"{where}.source", f"block {action.source!r} is {what}; it sends no actions")])
    if not visible:
        raise UiActionRefused([Refusal("source-hidden", f"{where}.source", f"block {action.source!r} is hidden in the current state")])

    refusals: list[Refusal] = []
    payload = action.payload
    if acts == "action":
        declared = block["action"]
        if action.action != declared["name"]:
            refusals.append(Refusal("wrong-action", f"{where}.action", f"block {action.source!r} sends {declared['name']!r}, not {action.action!r}"))
        expected = declared.get("payload")
        if payload is not None and payload != {} and not json_equal(payload, expected):
            refusals.append(Refusal("payload-mismatch", f"{where}.payload", f"block {action.source!r} declares the payload {_short(expected)}"))
        payload = expected

    # every input of the page and of what was rendered on it, the page's first: (block, visible, scope index)
    inputs = [(b, vis, i) for i in [len(scopes) - 1, *range(len(scopes) - 1)]
              for b, vis in scopes[i].blocks.values() if b["type"] in INPUT_TYPES]
    by_field: dict[str, list[tuple[dict, bool]]] = {}
    under: dict[str, list[str]] = {}  # a path -> the input fields strictly inside it
    for b, vis, _ in inputs:
        if b["field"] not in by_field:
            for prefix in _prefixes(b["field"]):
                under.setdefault(prefix, []).append(b["field"])
        by_field.setdefault(b["field"], []).append((b, vis))
    own = set(block.get("fields", [])) if kind == "html" else set()
    if kind == "html" and surrogate_at(payload) is not None:  # written at ui_action, as the fields are
        refusals.append(Refusal("wrong-type", f"{where}.payload", "the payload holds a string with an unpaired surrogate (not Unicode text)"))
    values = action.fields
    listed: list[str] = []

    def known() -> str:
        """The page's fields, for an unknown-field refusal: made once, at most 20 named (a message
        of thousands of unknown keys on a page of hundreds of inputs made gigabytes of text)."""
        if not listed:
            names = sorted({*by_field, *own})
            listed.append(", ".join(names[:20]) + (f", … ({len(names)} fields)" if len(names) > 20 else "") if names else "it has none")
        return listed[0]

    refused: set[str] = set()  # fields (of inputs) already refused: no "required" on top

    def refuse(code: str, key: str, text: str, field: str | None = None) -> None:
        refusals.append(Refusal(code, f"{where}.fields[{_quote(key)}]", text))
        refused.add(field or key)

    # the grammar first (at most MAX_SEGMENTS segments): a key of 500,000 dots is refused at once,
    # never split into prefixes
    bad_paths = {key: why for key in values if (why := path_problem(key)) is not None}
    for key in values:
        if key in bad_paths:
            continue
        outer = next((p for p in _prefixes(key) if p in values), None)
        if outer is not None:
            refuse("overlapping-fields", key, f"{key!r} lies inside {outer!r}, also written by this message")
    for key, value in values.items():
        governing = [(b, vis) for b, vis in by_field.get(key, [])]
        shown = [b for b, vis in governing if vis]
        if governing and not shown:
            refuse("hidden-field", key, f"input {governing[0][0]['block_id']!r} is hidden in the current state")
            continue
        if not shown and not _at_or_under(key, own):
            refuse("unknown-field", key, f"{_quote(key)} is not a field of page {page_id!r}"
                   f"{' or of the html block (or under one of its fields)' if own else ''} ({known()})")
            continue
        if key in bad_paths:  # an html block's own path under one of its fields
            refuse("unknown-field", key, f"{_quote(key)}: {bad_paths[key]}")
            continue
        if surrogate_at(value) is not None:  # the event stream is UTF-8: such a string could never be sent down
            refuse("wrong-type", key, "the value holds a string with an unpaired surrogate (not Unicode text)")
            continue
        if len(key.split(".")) + json_depth(value) > MAX_DEPTH:  # the state root is level 1, each segment one more
            refuse("too-large", key, f"written at its path, the value would nest the state deeper than {MAX_DEPTH} levels")
            continue
        for b in shown:  # the value at the input's own path
            problems = _check_value(b, value, f"{where}.fields[{_quote(key)}]")
            refusals.extend(problems)
            if problems:
                refused.add(key)
        for field in _prefixes(key):
            if field in by_field:  # the write lands inside an input's value
                refuse("inside-input", key, f"{key!r} lies inside the value of input {by_field[field][0][0]['block_id']!r} "
                       f"({field!r}); write {field!r} whole", field)
        for field in under.get(key, ()):  # the write replaces the input's path with what the value holds there
            entries = by_field[field]
            inner = get_path(value, field[len(key) + 1:]) if value is not None else MISSING
            for b, vis in entries:
                if inner is MISSING:
                    continue  # the write clears it, as null would
                if not vis:
                    refuse("hidden-field", key, f"the value holds {field!r}, the field of input {b['block_id']!r}, "
                           "which is hidden in the current state", field)
                    continue
                problems = _check_value(b, inner, f"{where}.fields[{_quote(key)}]")
                refusals.extend(Refusal(p.code, p.where, f"at {field!r} (input {b['block_id']!r}): {p.message}") for p in problems)
                if problems:
                    refused.add(field)

    # required: the inputs the action validates (docs/DOCUMENT.md, section 6)
    if kind == "button" and not block.get("novalidate"):
        checked = [b for b, vis, i in inputs if vis and scopes[i] is scope]
    elif kind in INPUT_TYPES:
        checked = [block]
    else:
        checked = []
    for b in checked:
        field = b["field"]
        if not b.get("required") or field in refused:
            continue
        value = _value_for(field, values)
        if _blank(b, value):
            refusals.append(Refusal("required", f"{where}.fields[{_quote(field)}]", f"input {b['block_id']!r} is required"))
    if refusals:
        raise UiActionRefused(refusals)

    order: dict[str, int] = {}
    for b, _, _ in inputs:
        order.setdefault(b["field"], len(order))
    current: Any = dict(state)
    mine: set[int] = {id(current)}  # containers of `current` copied here, so changed in place
    writes: list[dict[str, Any]] = []
    for key in sorted(values, key=lambda k: (order.get(k, len(order)), k)):
        op = _write(current, key, values[key])
        if isinstance(op, Refusal):
            refusals.append(Refusal(op.code, f"{where}.fields[{_quote(key)}]", op.message))
        else:
            writes.append(op)
            _apply_in_place(current, op, mine)  # the next write sees this one
    if refusals:
        raise UiActionRefused(refusals)
    writes.append({"op": "add", "path": "/" + escape(UI_ACTION_FIELD),
                   "value": {"name": action.action, "source": action.source, "payload": payload}})
    return ActionResult(action, block, writes)


def _value_for(field: str, values: dict[str, Any]) -> Any:
    """The value this message gives ``field``: its own key, or inside a key written over it."""
    if field in values:
        return values[field]
    for key in _prefixes(field):
        if key in values:
            value = values[key]
            return get_path(value, field[len(key) + 1:]) if value is not None else MISSING
    return MISSING


def _at_or_under(key: str, paths: set[str]) -> bool:
    """Whether ``key`` is one of ``paths`` (valid paths) or lies under one: its own prefixes looked
    up in the set, so a message costs its keys, not keys x paths (40,000 html fields x 10,000 keys
    took 40 s). A path has at most MAX_SEGMENTS segments and MAX_LENGTH characters, so no longer
    prefix is looked up (a key of 500,000 dots costs as little)."""
    if key in paths:
        return True
    end, segments = key.find("."), 1
    while end != -1 and end <= MAX_LENGTH and segments <= MAX_SEGMENTS:
        if key[:end] in paths:
            return True
        end, segments = key.find(".", end + 1), segments + 1
    return False


def _prefixes(path: str) -> list[str]:
    """The paths strictly above ``path``: ``a.b.c`` -> ``a``, ``a.b``."""
    segments = path.split(".")
    return [".".join(segments[:n]) for n in range(1, len(segments))]


def _apply_in_place(root: dict, op: dict[str, Any], mine: set[int]) -> None:
    """Apply one add/replace that :func:`_write` made (so its path exists up to its parent),
    copying each container of the state on the way the first time it is touched (the state
    and the values of earlier operations are never changed)."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:]]
    node: Any = root
    for token in tokens[:-1]:
        key: Any = int(token) if isinstance(node, list) else token
        child = node[key]
        if id(child) not in mine:
            child = dict(child) if isinstance(child, dict) else list(child)
            mine.add(id(child))
            node[key] = child
        node = child
    last = tokens[-1]
    if isinstance(node, list):
        index = int(last)
        if index == len(node):
            node.append(op["value"])
        else:
            node[index] = op["value"]
    else:
        node[last] = op["value"]


@dataclass(frozen=True)
class _Scope:
    """Blocks that act together: the page's own, or one render event's (``slot``: its slot or
    conversation block on the page)."""

    blocks: dict[str, tuple[dict, bool]]
    slot: str | None = None


def _scopes(pages: dict[str, dict], page_id: str, state: dict, rendered: Iterable[Any], frozen: Iterable[str],
            checked: bool = False) -> tuple[list[_Scope], dict[str, str]]:
    """The scopes of page ``page_id`` (its renders, the latest first, then the page), and the
    blocks rendered on other pages (block id -> that page). ``checked``: the renders are not
    checked again."""
    page = _page_blocks(pages[page_id], state)
    holders = {p: {bid: b for bid, (b, _) in _page_blocks(pg, None).items() if b["type"] in ("slot", "conversation")}
               for p, pg in pages.items()}
    scopes: list[_Scope] = []
    away: dict[str, str] = {}
    for index, event in enumerate(rendered):
        slot = event.get("slot_id") if isinstance(event, dict) else None
        blocks = event.get("blocks") if isinstance(event, dict) else event
        if not checked:
            if isinstance(event, dict) and not (isinstance(slot, str) and any(slot in h for h in holders.values())):
                raise DocumentError([Problem(("rendered", index, "slot_id"), f"{slot!r} is not a slot or conversation block of the document")])
            check = check_blocks(blocks, frozen=frozen, loc=("rendered", index, "blocks"))
            if check.problems:
                raise DocumentError(check.problems)
        if slot is not None and slot not in holders[page_id]:  # rendered on another page
            there = next(p for p, h in holders.items() if slot in h)
            away.update((bid, there) for bid in _page_blocks({"blocks": blocks}, None))
            continue
        shown = slot is None or page[slot][1]  # a slot hidden by its visible_when (or a section's) hides what it holds
        own = _page_blocks({"blocks": blocks}, state)
        scopes.append(_Scope({bid: (b, vis and shown) for bid, (b, vis) in own.items()}, slot))
    scopes.reverse()  # the latest render first
    scopes.append(_Scope(page))
    return scopes, away


# ------------------------------------------------------------------------ the message


def _bounded(value: Any, where: str, name: str, nodes: int, chars: int) -> None:
    """Refuse ``value`` (``too-large`` at ``where``) past ``nodes`` JSON values, the depth and
    integer rules of :func:`check_json`, or ``chars`` characters of JSON: counted before any work
    per value, the walks bounded (never recursive)."""
    if json_nodes_over(value, nodes) is not None:
        raise UiActionRefused([Refusal("too-large", where, f"more than {nodes:,} JSON values")])
    try:
        check_json(value, name, safe_integers=True)
        size = json_chars(value)
    except (PatchError, ValueError) as exc:
        raise UiActionRefused([Refusal("too-large", where, str(exc))]) from None
    if size > chars:
        raise UiActionRefused([Refusal("too-large", where, f"{size:,} characters of JSON; at most {chars:,}")])


def _the_part(message: Any) -> Any:
    """The ui-action's data, after the whole message is held to the upward message's bounds
    (:func:`.wire.check_up`'s: parts, values, depth, size) and its parts are told apart."""
    if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
        raise UiActionRefused([Refusal("bad-message", "message", "expected an A2A Message: an object with role and parts")])
    parts = message["parts"]
    if len(parts) > MAX_UP_PARTS:  # before any work per part
        raise UiActionRefused([Refusal("too-large", "message.parts", f"{len(parts):,} parts; a message has at most {MAX_UP_PARTS}")])
    # (a role or metadata 200,000 levels deep is refused here, never walked recursively)
    _bounded(message, "message", "message", MAX_UP_NODES, MAX_WIRE_CHARS)
    refusals = []
    role = message.get("role")
    if role != USER_ROLE:
        refusals.append(Refusal("bad-role", "message.role", f"the role is {_describe(role)}; a user message has {USER_ROLE!r}"))
    actions = [i for i, p in enumerate(parts) if isinstance(p, dict) and p.get("mediaType") == UI_ACTION_MEDIA_TYPE]
    texts = [i for i, p in enumerate(parts) if isinstance(p, dict) and "text" in p]
    if not actions:
        refusals.append(Refusal("no-ui-action", "message.parts", f"no part has mediaType {UI_ACTION_MEDIA_TYPE}"))
    elif len(actions) > 1:
        refusals.append(Refusal("two-ui-actions", f"message.parts[{actions[1]}]", f"parts {actions} are all ui-actions; a message carries one"))
    for i in texts:
        if actions:
            refusals.append(Refusal("text-beside-action", f"message.parts[{i}]", "a text part beside the ui-action"))
    known = {*actions, *texts}  # a set: each part is looked up once
    for i, _ in enumerate(parts):
        if i not in known:
            refusals.append(Refusal("extra-part", f"message.parts[{i}]", "a part other than the ui-action"))
    if refusals:
        raise UiActionRefused(refusals)
    part = parts[actions[0]]
    extra = sorted(set(part) - {"data", "mediaType", "metadata"})
    if extra or not isinstance(part.get("data"), dict):
        named = ", ".join(_quote(key) for key in extra[:5]) + (f", … ({len(extra):,} keys)" if len(extra) > 5 else "")
        why = f"unknown keys {named}" if extra else "data must be an object"
        raise UiActionRefused([Refusal("bad-ui-action", f"message.parts[{actions[0]}]", why)])
    if actions[0] != 0:  # only possible with other parts, refused above
        raise UiActionRefused([Refusal("extra-part", "message.parts", "the ui-action must be the only part")])
    return part["data"]


# ------------------------------------------------------------------------ the page


def _page_blocks(page: dict, state: Any) -> dict[str, tuple[dict, bool]]:
    """Every block of the page by id, with whether it is visible (its own and every
    enclosing layout block's visible_when; always true without a state)."""
    out: dict[str, tuple[dict, bool]] = {}
    hidden: set[Loc] = set()  # locations of hidden blocks: the walk meets an enclosing block first
    for loc, block in each_block(page.get("blocks", []), ("blocks",)):
        visible = state is None or (
            _shown(block.get("visible_when"), state)
            and not any(loc[:k] in hidden for k in range(2, len(loc)))
        )
        if not visible:
            hidden.add(loc)
        out[block["block_id"]] = (block, visible)
    return out


def _shown(condition: Any, state: Any) -> bool:
    if not condition:
        return True
    value = get_path(state, condition["path"])
    if "equals" in condition:
        return value is not MISSING and json_equal(value, condition["equals"])
    return not is_empty(value)


# ------------------------------------------------------------------------ the values


def _blank(block: dict, value: Any) -> bool:
    if block["type"] in ("checkbox", "switch"):
        return value is not True
    return value is MISSING or value is None or value == "" or value == []


def _check_value(block: dict, value: Any, at: str) -> list[Refusal]:
    """The refusals for one input's value (``null`` clears an optional field)."""
    if value is None:
        return []
    kind = block["type"]
    bid = block["block_id"]

    def wrong(expected: str) -> list[Refusal]:
        return [Refusal("wrong-type", at, f"{kind} {bid!r} gives {expected}, not {_type(value)}")]

    if kind in ("text_input", "voice_input"):
        if not isinstance(value, str):
            return wrong("a string")
        if lone_surrogate(value):
            return wrong("text of Unicode characters (an unpaired surrogate)")
        length = utf16_length(value)  # as the browser counts: UTF-16 units
        limit = block.get("max_length") or TEXT_MAX_LENGTH
        if length > limit:
            return [Refusal("too-long", at, f"{length:,} UTF-16 units; at most {limit:,}")]
        if block.get("min_length") is not None and length < block["min_length"] and value != "":
            return [Refusal("too-short", at, f"{length} UTF-16 units; at least {block['min_length']}")]
        pattern = block.get("pattern")
        if pattern is not None and value != "" and not compile_pattern(pattern).fullmatch(value):
            message = block.get("error_message") or f"does not match the pattern {pattern!r}"
            return [Refusal("pattern-mismatch", at, message)]
        return []
    if kind in ("number_input", "slider"):
        if type(value) not in (int, float) or not math.isfinite(value):
            return wrong("a number")
        # 1e300 is integral as a double but no integer a client or a database holds exactly.
        if block.get("integer") and (value != int(value) or abs(value) > MAX_SAFE_INTEGER):
            return wrong(f"an integer within ±{MAX_SAFE_INTEGER:,}")
        return _range(block, value, at) or _step(block, value, at)
    if kind in ("checkbox", "switch"):
        return [] if type(value) is bool else wrong("a boolean")
    if kind == "select":
        options = [o["value"] for o in block["options"]]
        chosen = value if block.get("multiple") else [value]
        if block.get("multiple") and not isinstance(value, list):
            return wrong("an array of option values")
        keys = [json_key(c) for c in chosen]  # JSON's equality, hashed: 1 and 1.0 are one choice, true and 1 two
        if len(keys) != len(set(keys)):
            return [Refusal("not-an-option", at, "an option is chosen twice")]
        known = {json_key(o) for o in options}
        for choice, key in zip(chosen, keys):
            if key not in known:
                listed = ", ".join(map(_short, options[:10])) + (f", … ({len(options)} options)" if len(options) > 10 else "")
                return [Refusal("not-an-option", at, f"{_short(choice)} is not an option of {bid!r} ({listed})")]
        return []
    if kind == "date_input":
        if not isinstance(value, str) or not re.fullmatch(DATE[1:-1], value) or not _valid(date.fromisoformat, value):
            return wrong("a date YYYY-MM-DD")
        return _range(block, value, at)
    if kind == "datetime_input":
        if not isinstance(value, str) or not re.fullmatch(DATETIME[1:-1], value) or not _valid(datetime.fromisoformat, value):
            return wrong("a local date and time YYYY-MM-DDTHH:MM[:SS]")
        normal = value if len(value) == 19 else value + ":00"
        return _range(block, normal, at, normalize=lambda t: t if len(t) == 19 else t + ":00")
    if kind == "file_upload":
        files = value if block.get("multiple") else [value]
        if block.get("multiple") and not isinstance(value, list):
            return wrong("an array of file references")
        for file in files:
            problem = _file_problem(file, block)
            if problem:
                return [Refusal("wrong-type", at, problem)]
        return []
    return wrong("nothing")  # pragma: no cover - every input type is handled above


def _range(block: dict, value: Any, at: str, normalize=lambda v: v) -> list[Refusal]:
    low, high = block.get("min"), block.get("max")
    if low is not None and value < normalize(low) or high is not None and value > normalize(high):
        return [Refusal("out-of-range", at, f"{_short(value)} is outside {_short(low)}..{_short(high)}")]
    return []


def _step(block: dict, value: int | float, at: str) -> list[Refusal]:
    """HTML's step mismatch: with a ``step``, the value is ``min`` (else 0) plus a whole number of
    steps. Counted exactly on the numbers' shortest decimal forms (as the browser's
    ``stepMismatch`` does: ``0.3`` is three steps of ``0.1``), never in binary floating point."""
    step = block.get("step")
    if step is None:
        return []
    base = block.get("min") or 0
    if (_decimal(value) - _decimal(base)) % _decimal(step) != 0:
        return [Refusal("step-mismatch", at, f"{_short(value)} is not {_short(base)} plus a whole number of steps of {_short(step)}")]
    return []


def _decimal(number: int | float) -> Fraction:
    return Fraction(number) if type(number) is int else Fraction(repr(number))


def _file_problem(file: Any, block: dict) -> str | None:
    if not isinstance(file, dict) or not isinstance(file.get("name"), str) or not isinstance(file.get("media_type"), str):
        return 'a file reference is an object with string "name" and "media_type" (and optional "size", "uri")'
    extra = set(file) - {"name", "media_type", "size", "uri"}
    if extra:
        return f"a file reference has no {sorted(extra)}"
    size = file.get("size")
    if size is not None and (type(size) is not int or size < 0):
        return "size is a number of bytes"
    if size is None and block.get("max_bytes"):  # no size, no check: the input says how large a file may be
        return f"a file reference for this input gives its size (at most {block['max_bytes']:,} bytes)"
    if size is not None and block.get("max_bytes") and size > block["max_bytes"]:
        return f"the file has {size:,} bytes; at most {block['max_bytes']:,}"
    if "uri" in file and not isinstance(file["uri"], str):
        return "uri is a string"
    accept = block.get("accept")
    if accept and not any(_media_match(file["media_type"], a) for a in accept):
        return f"the media type {file['media_type']!r} is not accepted ({', '.join(accept)})"
    return None


def _media_match(media_type: str, accept: str) -> bool:
    if accept.endswith("/*"):
        return media_type.lower().startswith(accept[:-1].lower())
    return media_type.lower() == accept.lower()


def _valid(parse, text: str) -> bool:
    try:
        parse(text)
        return True
    except ValueError:
        return False




# ------------------------------------------------------------------------ the writes


def _write(state: dict, path: str, value: Any) -> dict[str, Any] | Refusal:
    """One operation writing ``value`` at ``path`` in ``state``, creating missing containers."""
    segments = path.split(".")
    node: Any = state
    for depth, segment in enumerate(segments):
        pointer = "/" + "/".join(escape(s) for s in segments[: depth + 1])
        rest = segments[depth + 1:]
        nested = value
        for s in reversed(rest):
            nested = {s: nested}
        if isinstance(node, list):
            if not segment.isdigit():
                return _conflict(path)
            index = int(segment)
            if index > len(node) or index == len(node) and rest:
                return _conflict(path)
            if index == len(node):
                return {"op": "add", "path": pointer, "value": nested}
            child = node[index]
            if not rest or child is None:
                return {"op": "replace", "path": pointer, "value": nested}
            if not isinstance(child, (dict, list)):
                return _conflict(path)
            node = child
            continue
        child = node.get(segment, MISSING)
        if not rest or child is MISSING or child is None:
            return {"op": "add", "path": pointer, "value": nested}  # add replaces an existing member
        if not isinstance(child, (dict, list)):
            return _conflict(path)
        node = child
    raise AssertionError("unreachable")  # pragma: no cover


def _conflict(path: str) -> Refusal:
    # one text whatever is in the way: the state there may be outside what the client was told
    return Refusal("state-conflict", "", f"{path!r} cannot be written in the current state (a value in the way "
                                         "is not an object or array, or an array is too short)")


def _type(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _describe(value: Any) -> str:
    """A value of the message for a refusal, bounded whatever it is: a string cut (:func:`_quote`),
    anything else by its kind, never its ``repr`` (unbounded in length, and recursive)."""
    return _quote(value) if isinstance(value, str) else _type(value)


def _short(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _quote(key: str) -> str:
    """``key`` as JSON, whole up to the longest path (no path is longer: a 1,000,000-character key
    is shown cut, in one short line)."""
    return cut_json(key, MAX_LENGTH)


__all__ = ["validate_ui_action", "check_action", "ActionResult", "Refusal", "UiActionRefused", "REASONS", "USER_ROLE"]
