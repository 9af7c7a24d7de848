"""ui-action messages against the document and the page (sandbox/document/action.py);
fixtures/document/actions.json is shared with tests/js/document.test.mjs."""

import json
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.document import REASONS, UiActionRefused, apply_patch, validate_ui_action

FIXTURES = Path(__file__).parent.parent / "fixtures" / "document"
ACTIONS = json.loads((FIXTURES / "actions.json").read_text(encoding="utf-8"))
DOCUMENTS = {c["name"]: c["document"] for c in json.loads((FIXTURES / "documents.json").read_text(encoding="utf-8"))}
DOCS = {key: DOCUMENTS[ref.split("#")[1]] for key, ref in ACTIONS["documents"].items()}
MT = "application/vnd.platform.ui-action+json"


@pytest.mark.parametrize("case", ACTIONS["cases"], ids=[c["name"] for c in ACTIONS["cases"]])
def test_action_case(case):
    document = DOCS[case["document"]]
    if "refusals" in case:
        with pytest.raises(UiActionRefused) as info:
            validate_ui_action(document, case["page_id"], case["message"], state=case["state"])
        assert [{"code": r.code, "where": r.where} for r in info.value.refusals] == case["refusals"]
        assert all(r.code in REASONS and r.message for r in info.value.refusals)
    else:
        result = validate_ui_action(document, case["page_id"], case["message"], state=case["state"])
        assert result.writes == case["writes"]
        assert apply_patch(case["state"], result.writes) == case["result"]
        assert result.writes[-1]["path"] == "/ui_action"


def message(data, **extra):
    return {"role": "ROLE_USER", "parts": [{"data": data, "mediaType": MT}], **extra}


def page(*blocks):
    return {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": list(blocks)}]}


def refused(document, data, state=None):
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(document, "p", message(data), state=state)
    return info.value.codes


SEND = {"block_id": "send", "type": "button", "label": "Send", "action": {"name": "send"}}


def test_each_input_kind_gives_its_type():
    doc = page(
        SEND,
        {"block_id": "dt", "type": "datetime_input", "field": "when", "min": "2026-01-01T00:00"},
        {"block_id": "f", "type": "file_upload", "field": "file", "accept": ["image/*"], "max_bytes": 100},
        {"block_id": "fs", "type": "file_upload", "field": "files", "multiple": True},
        {"block_id": "m", "type": "select", "field": "tags", "multiple": True, "options": [{"value": 1, "label": "one"}, {"value": "1", "label": "text one"}]},
        {"block_id": "v", "type": "voice_input", "field": "said"},
        {"block_id": "s", "type": "slider", "field": "level", "min": 0, "max": 10},
        {"block_id": "sw", "type": "switch", "field": "on"},
    )
    good = {"when": "2026-05-01T10:30", "file": {"name": "a.png", "media_type": "image/png", "size": 10},
            "files": [{"name": "a.txt", "media_type": "text/plain", "uri": "https://x.y/a"}], "tags": [1, "1"],
            "said": "hello", "level": 2.5, "on": False}
    result = validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": good}))
    assert [op["path"] for op in result.writes] == ["/when", "/file", "/files", "/tags", "/said", "/level", "/on", "/ui_action"]
    for field, value, code in [
        ("when", "2025-12-31T23:59", "out-of-range"), ("when", "2026-05-01 10:30", "wrong-type"), ("when", "2026-02-30T10:00", "wrong-type"),
        ("file", {"name": "a.pdf", "media_type": "application/pdf"}, "wrong-type"), ("file", {"name": "a.png", "media_type": "image/png", "size": 101}, "wrong-type"),
        ("file", {"name": "a.png", "media_type": "image/png", "path": "/etc/passwd"}, "wrong-type"),
        ("files", {"name": "a", "media_type": "text/plain"}, "wrong-type"), ("tags", [1, 1], "not-an-option"), ("tags", [True], "not-an-option"),
        ("tags", 1, "wrong-type"), ("said", 5, "wrong-type"), ("level", 11, "out-of-range"), ("level", "5", "wrong-type"), ("on", 1, "wrong-type"),
    ]:
        assert refused(doc, {"action": "send", "source": "send", "fields": {**good, field: value}}) == [code], (field, value)


def test_text_limits_and_pattern():
    doc = page(SEND, {"block_id": "t", "type": "text_input", "field": "code", "pattern": "[A-Z]{3}", "min_length": 3, "max_length": 5})
    ok = validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"code": "ABC"}}))
    assert ok.writes[0] == {"op": "add", "path": "/code", "value": "ABC"}
    assert refused(doc, {"action": "send", "source": "send", "fields": {"code": "ABCD"}}) == ["pattern-mismatch"]  # a full match
    assert refused(doc, {"action": "send", "source": "send", "fields": {"code": "AB"}}) == ["too-short"]
    assert refused(doc, {"action": "send", "source": "send", "fields": {"code": "ABCDEF"}}) == ["too-long"]
    # an optional field may be cleared with null or left out
    assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"code": None}})).writes[0]["value"] is None
    assert len(validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {}})).writes) == 1


def test_hidden_inputs_and_sources_need_the_state():
    doc = page(
        {"block_id": "box", "type": "section", "visible_when": {"path": "mode", "equals": "edit"}, "blocks": [
            {"block_id": "name", "type": "text_input", "field": "name", "required": True},
            {"block_id": "save", "type": "button", "label": "Save", "action": {"name": "save"}}]},
        SEND,
    )
    data = {"action": "save", "source": "save", "fields": {"name": "Ann"}}
    assert validate_ui_action(doc, "p", message(data), state={"mode": "edit"}).writes[0]["value"] == "Ann"
    assert refused(doc, data, state={"mode": "view"}) == ["source-hidden"]
    # a hidden required input is not required, and cannot be written
    assert refused(doc, {"action": "send", "source": "send", "fields": {"name": "x"}}, state={}) == ["hidden-field"]
    assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {}}), state={}).writes[0]["path"] == "/ui_action"
    # without a state nothing is hidden: the required input is required
    assert refused(doc, {"action": "send", "source": "send", "fields": {}}) == ["required"]


def test_writes_create_containers_and_respect_the_state():
    doc = page(SEND, {"block_id": "a", "type": "text_input", "field": "order.items.1.note"},
               {"block_id": "b", "type": "text_input", "field": "profile.name"})
    data = {"action": "send", "source": "send", "fields": {"order.items.1.note": "x", "profile.name": "Ann"}}
    state = {"order": {"items": [{"n": 0}, {"n": 1}]}, "profile": "legacy"}
    writes = validate_ui_action(doc, "p", message(data), state=state).writes
    assert writes[:2] == [{"op": "add", "path": "/order/items/1/note", "value": "x"},
                          {"op": "add", "path": "/profile", "value": {"name": "Ann"}}]
    assert apply_patch(state, writes)["order"]["items"][1] == {"n": 1, "note": "x"}
    assert refused(doc, data, state={"order": {"items": []}}) == ["state-conflict"]


def test_message_envelope_problems_are_all_reported():
    doc = page(SEND)
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "p", "not a message")
    assert info.value.codes == ["bad-message"]
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "p", {"role": "ROLE_AGENT", "parts": [{"text": "a"}, {"data": {}, "mediaType": MT}]})
    assert info.value.codes == ["bad-role", "text-beside-action"]
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "nope", message({"action": "send", "source": "send", "fields": {}}))
    assert info.value.codes == ["unknown-page"]
    deep = {}
    node = deep
    for _ in range(100):
        node["a"] = {}
        node = node["a"]
    doc = page({"block_id": "h", "type": "html", "source": "<p></p>"})
    assert refused(doc, {"action": "go", "source": "h", "fields": {}, "payload": deep}) == ["too-large"]
    text = str(info.value)
    assert text.startswith("page_id: ") and "[unknown-page]" in text


def test_the_pattern_runs_in_linear_time_in_the_browsers_dialect():
    """Issue 21 items 2 and 5: ``(a+)+b`` on 10,000 characters is answered at once (Python's
    ``re`` would take ages), and ``\\w`` is ASCII as in ECMAScript."""
    doc = page(SEND, {"block_id": "t", "type": "text_input", "field": "t", "pattern": "(a+)+b"},
               {"block_id": "w", "type": "text_input", "field": "w", "pattern": r"\w+"},
               {"block_id": "l", "type": "text_input", "field": "l", "pattern": r"\p{L}+"})
    assert refused(doc, {"action": "send", "source": "send", "fields": {"t": "a" * 10_000}}) == ["pattern-mismatch"]
    assert refused(doc, {"action": "send", "source": "send", "fields": {"w": "абв"}}) == ["pattern-mismatch"]
    assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"l": "Анна"}})).writes[0]["value"] == "Анна"


def test_lengths_are_utf16_units_as_in_the_browser():
    """Issue 21 item 13: ``maxlength``/``minlength`` count UTF-16 code units."""
    doc = page(SEND, {"block_id": "t", "type": "text_input", "field": "t", "min_length": 3, "max_length": 4})
    assert refused(doc, {"action": "send", "source": "send", "fields": {"t": "😀😀a"}}) == ["too-long"]  # 5 units
    assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"t": "😀a"}})).writes[0]["value"] == "😀a"
    assert refused(doc, {"action": "send", "source": "send", "fields": {"t": "\ud800"}}) == ["wrong-type"]
