"""Property tests of the ui-action check (sandbox/document/action.py), issue 21: on random pages,
states and messages, an accepted action

* writes only paths its source may write: a visible input's field (of the page or of what was
  rendered on it), or, for an html source, one of its own ``fields`` or a path under one;
* leaves every input it lands on (on, or over, its path) with a value that input's rules allow,
  judged here by an independent oracle (Python ``re`` on patterns both dialects read alike);
* changes nothing in the state outside the paths it writes (and ``ui_action``);
* carries, from a button that validates, every visible required input of the page, not empty.
"""

from __future__ import annotations

import math
import re
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from flowui_sandbox.sandbox.block.projection import MISSING, get_path
from flowui_sandbox.sandbox.document import UiActionRefused, apply_patch, check_document, validate_ui_action

MT = "application/vnd.platform.ui-action+json"
SEGMENTS = ["a", "b", "c"]
paths = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3).map(".".join)
PATTERNS = [None, "[a-z]+", "[0-9]{2,4}", "(a+)+b", "x|xy"]
OPTIONS = ["x", 1, True, "1"]
texts = st.text(alphabet="ab01xy", max_size=8)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from([1.5, 2.0]), texts,
                    st.sampled_from(["2026-01-05", "2026-02-30", "x@y"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from([*SEGMENTS, "role"]), inner, max_size=3)), max_leaves=6)
states = st.dictionaries(st.sampled_from([*SEGMENTS, "v"]), values, max_size=4)


@st.composite
def inputs(draw, index: int, field: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text_input", "number_input", "select", "checkbox", "date_input"]))
    block: dict[str, Any] = {"block_id": f"in{index}", "type": kind, "field": field, "required": draw(st.booleans())}
    if draw(st.booleans()):
        block["visible_when"] = {"path": "v"}
    if kind == "text_input":
        if (pattern := draw(st.sampled_from(PATTERNS))) is not None:
            block["pattern"] = pattern
        if draw(st.booleans()):
            block["max_length"] = draw(st.integers(1, 6))
    elif kind == "number_input":
        block.update(min=0, max=draw(st.integers(0, 10)), integer=draw(st.booleans()))
    elif kind == "select":
        block["options"] = [{"value": v, "label": "o"} for v in draw(st.lists(st.sampled_from(OPTIONS), min_size=1, max_size=3, unique_by=repr))]
        block["multiple"] = draw(st.booleans())
    elif kind == "date_input":
        block.update(min="2026-01-01", max="2026-01-31")
    return block


def disjoint(candidates: list[str]) -> list[str]:
    chosen: list[str] = []
    for path in candidates:
        if not any(path == c or path.startswith(c + ".") or c.startswith(path + ".") for c in chosen):
            chosen.append(path)
    return chosen


@st.composite
def cases(draw):
    fields = disjoint(draw(st.lists(paths, max_size=4)))
    blocks = [draw(inputs(i, f)) for i, f in enumerate(fields)]
    prefixes = sorted({".".join(f.split(".")[:n]) for f in fields for n in range(1, f.count(".") + 2)})
    own = draw(st.lists(st.sampled_from(prefixes) if prefixes and draw(st.booleans()) else paths, max_size=2, unique=True))
    page = [*blocks,
            {"block_id": "send", "type": "button", "label": "Send", "action": {"name": "send"}, "novalidate": draw(st.booleans())},
            {"block_id": "card", "type": "html", "source": "<p></p>", "fields": own}]
    document = {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": page}]}
    source = draw(st.sampled_from(["send", "card"]))
    state = draw(states)
    # mostly values an input may take, and some anything, at input paths, html paths and elsewhere
    message_fields: dict[str, Any] = {}
    for block in blocks:
        if draw(st.integers(0, 3)):
            message_fields[block["field"]] = draw(st.one_of(good_value(block), values))
    for _ in range(draw(st.integers(0, 2))):
        key = draw(st.one_of(paths, st.sampled_from(own) if own else paths))
        under = [b for b in blocks if b["field"].startswith(key + ".")]
        if under and draw(st.booleans()):  # an object over inputs' paths, holding values for them
            value: dict[str, Any] = {}
            for block in under:
                if draw(st.booleans()):
                    put(value, block["field"][len(key) + 1:], draw(st.one_of(good_value(block), values)))
            message_fields[key] = value
        else:
            message_fields[key] = draw(values)
    return document, source, state, message_fields


def put(target: dict, path: str, value: Any) -> None:
    *head, last = path.split(".")
    for segment in head:
        target = target.setdefault(segment, {})
        if not isinstance(target, dict):
            return
    target[last] = value


def good_value(block: dict) -> st.SearchStrategy:
    kind = block["type"]
    if kind == "text_input":
        return st.sampled_from(["abc", "12", "aab", "x", "xy", ""])
    if kind == "number_input":
        return st.integers(0, 10)
    if kind == "select":
        options = [o["value"] for o in block["options"]]
        return st.lists(st.sampled_from(options), unique_by=repr, max_size=2) if block.get("multiple") else st.sampled_from(options)
    if kind == "checkbox":
        return st.booleans()
    return st.sampled_from(["2026-01-05", "2026-01-31"])


def allowed(block: dict, value: Any) -> bool:
    """The independent oracle: may ``value`` stand at ``block``'s field?"""
    if value is None:
        return True
    kind = block["type"]
    if kind == "text_input":
        if not isinstance(value, str):
            return False
        if len(value) > block.get("max_length", 10_000):
            return False
        return value == "" or "pattern" not in block or re.fullmatch(block["pattern"], value) is not None
    if kind == "number_input":
        return (type(value) in (int, float) and math.isfinite(value) and block["min"] <= value <= block["max"]
                and (not block["integer"] or value == int(value)))
    if kind == "select":
        options = [o["value"] for o in block["options"]]

        def one(v: Any) -> bool:
            return any(type(v) is type(o) and v == o or type(v) in (int, float) and type(o) in (int, float) and v == o for o in options)
        if block["multiple"]:
            return isinstance(value, list) and all(one(v) for v in value) and len({repr(v) for v in value}) == len(value)
        return one(value)
    if kind == "checkbox":
        return type(value) is bool
    return isinstance(value, str) and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value) is not None and "2026-01-01" <= value <= "2026-01-31" and value != "2026-02-30"


def shown(block: dict, state: dict) -> bool:
    return "visible_when" not in block or get_path(state, "v") not in (MISSING, None, "", False, 0, [])


def leaves(value: Any, prefix: str = ""):
    if isinstance(value, dict) and value:
        for key, child in value.items():
            yield from leaves(child, f"{prefix}.{key}" if prefix else key)
    elif prefix:
        yield prefix, value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cases())
def test_an_accepted_action_writes_only_what_its_source_may_and_what_the_inputs_allow(case):
    document, source, state, fields = case
    assert not check_document(document).problems
    message = {"role": "ROLE_USER", "parts": [{"mediaType": MT, "data": {"action": "send", "source": source, "fields": fields}}]}
    inputs = [b for b in document["pages"][0]["blocks"] if "field" in b]
    if any(b["field"].startswith(k + ".") for k in fields for b in inputs):
        event("a key over an input's field")
    try:
        result = validate_ui_action(document, "p", message, state=state)
    except UiActionRefused as refused:
        event(f"refused: {refused.codes[0]}")
        return
    event("accepted")
    page = document["pages"][0]["blocks"]
    inputs = [b for b in page if "field" in b]
    visible = [b for b in inputs if shown(b, state)]
    own = page[-1]["fields"] if source == "card" else []
    writes = result.writes
    assert writes[-1] == {"op": "add", "path": "/ui_action", "value": {"name": "send", "source": source, "payload": None}}
    new = apply_patch(state, writes)
    written = list(fields)
    for key in written:  # each key is one its source may write
        assert any(key == b["field"] for b in visible) or any(key == f or key.startswith(f + ".") for f in own), key
        assert not any(key.startswith(b["field"] + ".") for b in inputs), key  # never inside an input's value
    assert len(writes) == len(written) + 1
    for block in inputs:  # every input landed on holds a value its rules allow; a hidden one, none
        field = block["field"]
        if any(field == k or field.startswith(k + ".") for k in written):
            value = get_path(new, field)
            assert value is MISSING or shown(block, state) and allowed(block, value), (field, value)
    for path, value in leaves(state):  # nothing else changed
        if not any(path == k or path.startswith(k + ".") or k.startswith(path + ".") for k in written) and path != "ui_action":
            assert get_path(new, path) == value, path
    if source == "send" and not page[-2]["novalidate"]:  # a validating button carried every required input
        for block in visible:
            if block.get("required"):
                value = carried(fields, block["field"])
                assert (value is True) if block["type"] == "checkbox" else value not in (MISSING, None, "", []), block["field"]


def carried(fields: dict[str, Any], field: str) -> Any:
    for key, value in fields.items():
        if key == field:
            return value
        if field.startswith(key + "."):
            return get_path(value, field[len(key) + 1:]) if value is not None else MISSING
    return MISSING


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(["a", "a.b"]), st.booleans())
def test_an_html_block_writing_over_an_input_is_held_to_its_rules(data, own, exact):
    """The html block's own field ``own`` contains (or is) the input's path ``a.b.c``: whatever
    value it writes there, an accepted write leaves ``a.b.c`` with a value the input allows."""
    block = data.draw(inputs(0, "a.b.c"))
    block.pop("visible_when", None)
    document = {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": [
        block, {"block_id": "card", "type": "html", "source": "<p></p>", "fields": [own]}]}]}
    value = data.draw(st.one_of(good_value(block), values))
    key = "a.b.c" if exact else own
    sent: Any = value
    if not exact:
        sent = {}
        put(sent, "a.b.c"[len(own) + 1:], value)
        sent["role"] = "admin"
    message = {"role": "ROLE_USER", "parts": [{"mediaType": MT, "data": {"action": "go", "source": "card", "fields": {key: sent}}}]}
    try:
        result = validate_ui_action(document, "p", message, state={})
    except UiActionRefused:
        assert not allowed(block, value)
        return
    assert allowed(block, value), value
    assert get_path(apply_patch({}, result.writes), "a.b.c") == value
