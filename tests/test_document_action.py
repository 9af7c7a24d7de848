"""ui-action messages against the document and the page (sandbox/document/action.py);
fixtures/document/actions.json is shared with tests/js/document.test.mjs."""

import json
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.document import REASONS, UiActionRefused, apply_patch, validate_ui_action

FIXTURES = Path(__file__).parent.parent / "fixtures" / "document"
ACTIONS = json.loads((FIXTURES / "actions.json").read_text(encoding="utf-8"))
DOCUMENTS = {c["name"]: c["document"] for c in json.loads((FIXTURES / "documents.json").read_text(encoding="utf-8"))}
DOCS = {key: ref if isinstance(ref, dict) else DOCUMENTS[ref.split("#")[1]] for key, ref in ACTIONS["documents"].items()}
MT = "application/vnd.platform.ui-action+json"


@pytest.mark.parametrize("case", ACTIONS["cases"], ids=[c["name"] for c in ACTIONS["cases"]])
def test_action_case(case):
    document = DOCS[case["document"]]
    if "refusals" in case:
        with pytest.raises(UiActionRefused) as info:
            validate_ui_action(document, case["page_id"], case["message"], state=case["state"], rendered=case.get("rendered", ()))
        assert [{"code": r.code, "where": r.where} for r in info.value.refusals] == case["refusals"]
        assert all(r.code in REASONS and r.message for r in info.value.refusals)
    else:
        result = validate_ui_action(document, case["page_id"], case["message"], state=case["state"], rendered=case.get("rendered", ()))
        assert result.writes == case["writes"]
        assert apply_patch(case["state"], result.writes) == case["result"]
        assert result.writes[-1]["path"] == "/ui_action"


def message(data, **extra):
    return {"role": "ROLE_USER", "parts": [{"data": data, "mediaType": MT}], **extra}


def page(*blocks):
    return {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": list(blocks)}]}


def refused(document, data, state=None, **options):
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(document, "p", message(data), state={} if state is None else state, **options)
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
    result = validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": good}), state={})
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
    ok = validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"code": "ABC"}}), state={})
    assert ok.writes[0] == {"op": "add", "path": "/code", "value": "ABC"}
    assert refused(doc, {"action": "send", "source": "send", "fields": {"code": "ABCD"}}) == ["pattern-mismatch"]  # a full match
    assert refused(doc, {"action": "send", "source": "send", "fields": {"code": "AB"}}) == ["too-short"]
    assert refused(doc, {"action": "send", "source": "send", "fields": {"code": "ABCDEF"}}) == ["too-long"]
    # an optional field may be cleared with null or left out
    assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"code": None}}), state={}).writes[0]["value"] is None
    assert len(validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {}}), state={}).writes) == 1


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
    # shown, the required input is required
    assert refused(doc, {"action": "send", "source": "send", "fields": {}}, state={"mode": "edit"}) == ["required"]


def test_writes_create_containers_and_respect_the_state():
    doc = page(SEND, {"block_id": "a", "type": "text_input", "field": "order.items.1.note"},
               {"block_id": "b", "type": "text_input", "field": "profile.name"})
    data = {"action": "send", "source": "send", "fields": {"order.items.1.note": "x", "profile.name": "Ann"}}
    state = {"order": {"items": [{"n": 0}, {"n": 1}]}, "profile": None}
    writes = validate_ui_action(doc, "p", message(data), state=state).writes
    assert writes[:2] == [{"op": "add", "path": "/order/items/1/note", "value": "x"},
                          {"op": "add", "path": "/profile", "value": {"name": "Ann"}}]  # null counts as absent
    assert apply_patch(state, writes)["order"]["items"][1] == {"n": 1, "note": "x"}
    assert refused(doc, data, state={"order": {"items": []}}) == ["state-conflict"]


def test_a_scalar_in_the_way_is_a_conflict_and_writes_keep_siblings():
    """Issue 21 item 6: a scalar where the path needs an object is ``state-conflict`` (it was
    overwritten), and the writes go to the leaf against the real state (``state`` is required),
    so ``order.qty`` keeps ``order``'s other members."""
    doc = page(SEND, {"block_id": "q", "type": "number_input", "field": "order.qty"},
               {"block_id": "b", "type": "text_input", "field": "profile.name"})
    assert refused(doc, {"action": "send", "source": "send", "fields": {"profile.name": "Ann"}}, state={"profile": "legacy"}) == ["state-conflict"]
    assert refused(doc, {"action": "send", "source": "send", "fields": {"order.qty": 2}}, state={"order": [1]}) == ["state-conflict"]
    state = {"order": {"qty": 1, "sku": "A-1"}}
    writes = validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"order.qty": 2}}), state=state).writes
    assert writes[0] == {"op": "add", "path": "/order/qty", "value": 2}
    assert apply_patch(state, writes)["order"] == {"qty": 2, "sku": "A-1"}
    with pytest.raises(TypeError):
        validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"order.qty": 2}}))  # type: ignore[call-arg]


def test_message_envelope_problems_are_all_reported():
    doc = page(SEND)
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "p", "not a message", state={})
    assert info.value.codes == ["bad-message"]
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "p", {"role": "ROLE_AGENT", "parts": [{"text": "a"}, {"data": {}, "mediaType": MT}]}, state={})
    assert info.value.codes == ["bad-role", "text-beside-action"]
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "nope", message({"action": "send", "source": "send", "fields": {}}), state={})
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
    assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"l": "Анна"}}), state={}).writes[0]["value"] == "Анна"


def test_lengths_are_utf16_units_as_in_the_browser():
    """Issue 21 item 13: ``maxlength``/``minlength`` count UTF-16 code units."""
    doc = page(SEND, {"block_id": "t", "type": "text_input", "field": "t", "min_length": 3, "max_length": 4})
    assert refused(doc, {"action": "send", "source": "send", "fields": {"t": "😀😀a"}}) == ["too-long"]  # 5 units
    assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"t": "😀a"}}), state={}).writes[0]["value"] == "😀a"
    assert refused(doc, {"action": "send", "source": "send", "fields": {"t": "\ud800"}}) == ["wrong-type"]


EMAIL = {"block_id": "email", "type": "text_input", "field": "customer.email", "required": True,
         "pattern": r"[^\s@]+@[^\s@]+\.[a-z]{2,}", "error_message": "an email"}
CARD = {"block_id": "card", "type": "html", "source": "<p></p>", "fields": ["customer"]}


def test_an_html_blocks_fields_do_not_bypass_an_inputs_checks():
    """Issue 21 item 1: an html block writing over (or on, or inside) an input's path is held
    to that input's rules."""
    doc = page(SEND, EMAIL, CARD, {"block_id": "tags", "type": "select", "field": "customer.tags", "multiple": True,
                                   "options": [{"value": "a", "label": "A"}]})
    go = {"action": "save", "source": "card"}
    assert refused(doc, {**go, "fields": {"customer": {"email": "NOT AN EMAIL", "role": "admin"}}}) == ["pattern-mismatch"]
    assert refused(doc, {**go, "fields": {"customer": {"email": 5}}}) == ["wrong-type"]
    assert refused(doc, {**go, "fields": {"customer.email": "NOT AN EMAIL"}}) == ["pattern-mismatch"]
    # the page's inputs are written at their own paths: not inside one, not twice in one message
    assert refused(doc, {**go, "fields": {"customer.tags.0": "zzz"}}) == ["inside-input"]
    assert refused(doc, {**go, "fields": {"customer": {"email": "a@b.cc", "tags": ["zzz"]}}}) == ["not-an-option"]
    assert refused(doc, {**go, "fields": {"customer": {}, "customer.email": "a@b.cc"}}) == ["overlapping-fields"]
    # keys outside the html block's fields and the page's inputs are refused; under its fields, its own
    assert refused(doc, {**go, "fields": {"role": "admin"}}) == ["unknown-field"]
    assert refused(doc, {**go, "fields": {"customer.Bad": 1}}) == ["unknown-field"]
    writes = validate_ui_action(doc, "p", message({**go, "fields": {"customer": {"email": "a@b.cc", "name": "Ann"}}}), state={}).writes
    assert writes[0] == {"op": "add", "path": "/customer", "value": {"email": "a@b.cc", "name": "Ann"}}
    writes = validate_ui_action(doc, "p", message({**go, "fields": {"customer.name": "Ann"}}), state={"customer": {"email": "x"}}).writes
    assert writes[0] == {"op": "add", "path": "/customer/name", "value": "Ann"}
    # a hidden input's path is not written through an object either
    hidden = page(SEND, {**EMAIL, "visible_when": {"path": "show"}}, CARD)
    assert refused(hidden, {**go, "fields": {"customer": {"email": "a@b.cc"}}}) == ["hidden-field"]
    assert validate_ui_action(hidden, "p", message({**go, "fields": {"customer": {"name": "Ann"}}}), state={}).writes[0]["path"] == "/customer"


def test_rendered_blocks_act_on_the_page_of_their_slot():
    """Issue 21 item 3: the agent's ``ui_render`` into a slot or the conversation."""
    doc = {"start_page_id": "p", "pages": [
        {"page_id": "p", "blocks": [SEND, EMAIL, {"block_id": "result", "type": "slot"}, {"block_id": "feed", "type": "conversation"}]},
        {"page_id": "q", "blocks": [{"block_id": "other", "type": "slot"}]}]}
    card = [{"block_id": "note", "type": "text_input", "field": "note", "required": True},
            {"block_id": "ok", "type": "button", "label": "OK", "action": {"name": "ok"}}]
    data = {"action": "ok", "source": "ok", "fields": {"note": "hi"}}
    assert refused(doc, data) == ["unknown-source"]
    for rendered in ([{"kind": "render", "slot_id": "result", "blocks": card}], [{"kind": "render", "slot_id": "feed", "blocks": card}], [card]):
        result = validate_ui_action(doc, "p", message(data), state={}, rendered=rendered)
        assert [w["path"] for w in result.writes] == ["/note", "/ui_action"]  # the page's required email is another form's
    rendered = [{"kind": "render", "slot_id": "result", "blocks": card}]
    assert refused(doc, {**data, "fields": {}}, rendered=rendered) == ["required"]
    assert refused(doc, data, rendered=[{"kind": "render", "slot_id": "other", "blocks": card}]) == ["not-on-page"]  # as a Session says
    hidden = {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": [
        {"block_id": "result", "type": "slot", "visible_when": {"path": "done"}}]}]}
    assert refused(hidden, data, rendered=rendered) == ["source-hidden"]
    # the page's button sends the rendered input too, checked by its rules
    assert refused(doc, {"action": "send", "source": "send", "fields": {"customer.email": "a@b.cc", "note": 5}}, rendered=rendered) == ["wrong-type"]


def test_the_seeds_sdk_call_with_an_empty_payload():
    """Issue 21 item 4: the seed's JavaScript SDK sends ``payload: {}`` from send_button."""
    doc = {"start_page_id": "main", "pages": [{"page_id": "main", "blocks": [
        {"block_id": "email", "type": "text_input", "field": "email", "label": "Email", "required": True},
        {"block_id": "send_button", "type": "button", "label": "Send", "action": {"name": "submit", "payload": {"plan": "pro"}}}]}]}
    sdk = {"action": "submit", "source": "send_button", "fields": {"email": "a@b.c"}, "payload": {}}
    result = validate_ui_action(doc, "main", message(sdk), state={})
    assert result.writes[-1]["value"] == {"name": "submit", "source": "send_button", "payload": {"plan": "pro"}}
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "main", message({**sdk, "payload": {"plan": "free"}}), state={})
    assert info.value.codes == ["payload-mismatch"]


def test_which_actions_wait_for_the_required_inputs():
    """Issue 21 item 7: a button validates its form's required inputs unless ``novalidate``;
    an input's own action validates that input only; an html block's action none."""
    doc = page(SEND, EMAIL, CARD,
               {"block_id": "cancel", "type": "button", "label": "Cancel", "action": {"name": "cancel"}, "novalidate": True},
               {"block_id": "plan", "type": "select", "field": "plan", "required": True, "action": {"name": "plan_changed"},
                "options": [{"value": "pro", "label": "Pro"}, {"value": "free", "label": "Free"}]})
    assert refused(doc, {"action": "send", "source": "send", "fields": {"plan": "pro"}}) == ["required"]
    assert validate_ui_action(doc, "p", message({"action": "cancel", "source": "cancel", "fields": {"customer.email": ""}}), state={}).writes
    assert validate_ui_action(doc, "p", message({"action": "plan_changed", "source": "plan", "fields": {"plan": "free"}}), state={}).writes
    assert refused(doc, {"action": "plan_changed", "source": "plan", "fields": {}}) == ["required"]
    assert validate_ui_action(doc, "p", message({"action": "save", "source": "card", "fields": {}}), state={}).writes
    # what they carry is checked all the same
    assert refused(doc, {"action": "cancel", "source": "cancel", "fields": {"customer.email": "nope"}}) == ["pattern-mismatch"]


def test_many_keys_under_an_html_field_are_written_once_each_without_touching_the_state():
    """Thousands of keys (the check is linear in them: bench/actions.py); the state and the
    values of earlier writes are not changed in place."""
    doc = page({"block_id": "card", "type": "html", "source": "<p></p>", "fields": ["bag"]})
    fields = {f"bag.k{i}": {"n": i} for i in range(5000)}
    state = {"bag": {"old": 1}, "other": [1]}
    writes = validate_ui_action(doc, "p", message({"action": "go", "source": "card", "fields": fields}), state=state).writes
    assert len(writes) == 5001 and writes[0] == {"op": "add", "path": "/bag/k0", "value": {"n": 0}}
    assert state == {"bag": {"old": 1}, "other": [1]}
    assert apply_patch(state, writes)["bag"] == {"old": 1, **{f"k{i}": {"n": i} for i in range(5000)}}
    nested = page({"block_id": "card", "type": "html", "source": "<p></p>", "fields": ["a"]})
    writes = validate_ui_action(nested, "p", message({"action": "go", "source": "card", "fields": {"a.b.c": 1, "a.b.d": 2}}), state={}).writes
    assert writes[:2] == [{"op": "add", "path": "/a", "value": {"b": {"c": 1}}}, {"op": "add", "path": "/a/b/d", "value": 2}]


HTML = {"block_id": "h", "type": "html", "source": "<p></p>", "fields": ["customer"]}


def test_a_key_of_many_dots_is_refused_by_the_grammar_at_once():
    """A key of 400,000 segments (800,000 characters, under the 1,000,000 limit) was split into
    every prefix before the grammar was checked: quadratic, hours. It is one short refusal."""
    key = ".".join(["a"] * 400_000)
    for source, action in (("h", "go"), ("send", "send")):
        with pytest.raises(UiActionRefused) as info:
            validate_ui_action(page(SEND, HTML), "p", message({"action": action, "source": source, "fields": {key: 1}}), state={})
        assert info.value.codes == ["unknown-field"]
        assert len(str(info.value)) < 500 and "(799,999 characters)" in str(info.value)
    # under an html block's field, the grammar's own reason
    assert "at most 256 are allowed" in str(pytest.raises(UiActionRefused, validate_ui_action, page(HTML), "p",
                                                       message({"action": "go", "source": "h", "fields": {"customer." + key: 1}}), state={}).value)


def test_integers_javascript_cannot_hold_are_refused_not_a_crash():
    """10**400 made math.isfinite raise OverflowError (HTTP 500 in the live server), and through an
    html block it was written and sent down; the JSON reader refuses such integers, so does the check."""
    doc = page(SEND, HTML, {"block_id": "n", "type": "number_input", "field": "amount"})
    for fields, payload in (({"amount": 10**400}, None), ({"amount": 2**53}, None), ({"customer": {"x": [-(10**400)]}}, None), ({}, 10**5000)):
        with pytest.raises(UiActionRefused) as info:
            validate_ui_action(doc, "p", message({"action": "send" if "amount" in fields else "go", "source": "send" if "amount" in fields else "h",
                                                  "fields": fields, "payload": payload}), state={})
        assert info.value.codes == ["too-large"] and "MAX_SAFE_INTEGER" in str(info.value)
    ok = validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"amount": 2**53 - 1}}), state={})
    assert ok.writes[0]["value"] == 2**53 - 1


def test_an_integer_field_holds_only_safe_integers_however_written():
    """1e300 and 9007199254740993.0 are integral doubles, written with an exponent or a point they
    pass the JSON reader's integer bound: an integer field refuses them as it refuses 2**53."""
    doc = page(SEND, {"block_id": "n", "type": "number_input", "field": "amount", "integer": True})
    for value in (1e300, -1e300, 2.0**53, 0.5):
        with pytest.raises(UiActionRefused) as info:
            validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"amount": value}}), state={})
        assert info.value.codes == ["wrong-type"] and "an integer within ±9,007,199,254,740,991" in str(info.value), value
    for value in (3.0, -(2**53 - 1), 2**53 - 1):
        assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"amount": value}}), state={}).writes


def test_a_write_that_would_nest_the_state_too_deep_is_refused():
    """An accepted write could make the state deeper than 64 levels, which applying it then refused."""
    def nested(depth):
        value = 1
        for _ in range(depth):
            value = [value]
        return value

    doc = page(HTML)
    # 6 segments: the state root and five objects hold the value (the message, 5 levels above a
    # field's value, holds at most 64 levels too)
    deep = "customer" + ".a" * 5
    assert refused(doc, {"action": "go", "source": "h", "fields": {deep: nested(59)}}) == ["too-large"]
    writes = validate_ui_action(doc, "p", message({"action": "go", "source": "h", "fields": {deep: nested(58)}}), state={}).writes
    assert apply_patch({}, writes)["customer"]["a"]["a"]["a"]["a"]["a"] == nested(58)  # 64 levels: applied


def test_unpaired_surrogates_are_refused_in_every_write():
    """A text input refused "\\ud800" but an html block's field or payload wrote it, and the live
    server's UTF-8 event stream then broke for good."""
    doc = page(HTML)
    for fields in ({"customer.name": "\ud800"}, {"customer": {"tags": ["ok", "\udc00"]}}, {"customer": {"\ud800": 1}}):
        assert refused(doc, {"action": "go", "source": "h", "fields": fields}) == ["wrong-type"], fields
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "p", message({"action": "go", "source": "h", "fields": {}, "payload": {"x": "\ud800"}}), state={})
    assert [r.where for r in info.value.refusals] == ["message.parts[0].data.payload"]
    assert validate_ui_action(doc, "p", message({"action": "go", "source": "h", "fields": {"customer.name": "😀"}}), state={}).writes


def test_a_state_conflict_does_not_describe_the_state():
    """The refusal told the client what its projection does not hold (an array's length, a value's type)."""
    doc = page(SEND, {"block_id": "q", "type": "number_input", "field": "orders.5.qty"},
               {"block_id": "n", "type": "text_input", "field": "profile.nick"}, {"block_id": "k", "type": "text_input", "field": "list.key"})
    state = {"orders": [{"qty": 1}, {"qty": 2}, {"qty": 3}], "profile": "SECRET", "list": [1]}
    texts = []
    for field, value in (("orders.5.qty", 1), ("profile.nick", "x"), ("list.key", "x")):
        with pytest.raises(UiActionRefused) as info:
            validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {field: value}}), state=state)
        assert info.value.codes == ["state-conflict"]
        texts.append(info.value.refusals[0].message.replace(repr(field), "KEY"))
    assert len(set(texts)) == 1, texts  # one text whatever is in the way
    assert not any(word in texts[0] for word in ("3", "string", "SECRET", "/orders", "/profile"))


def test_multiple_choices_are_distinct_as_json_numbers_and_checked_in_linear_time():
    """[1, 1.0] passed (JSON has one number 1); each choice was compared with every option
    (10,000 x 10,000: 40 s); now one set of the options' JSON forms."""
    doc = page(SEND, {"block_id": "s", "type": "select", "field": "tags", "multiple": True,
                      "options": [{"value": 1, "label": "one"}, {"value": 2, "label": "two"}, {"value": "1", "label": "text"}]})
    assert refused(doc, {"action": "send", "source": "send", "fields": {"tags": [1, 1.0]}}) == ["not-an-option"]
    assert refused(doc, {"action": "send", "source": "send", "fields": {"tags": [True]}}) == ["not-an-option"]
    assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"tags": [1, "1", 2.0]}}), state={}).writes
    n = 10_000
    big = page(SEND, {"block_id": "s", "type": "select", "field": "tags", "multiple": True,
                      "options": [{"value": f"o{i}", "label": ""} for i in range(n)]})
    chosen = [f"o{n - 1 - i}" for i in range(n)]
    assert validate_ui_action(big, "p", message({"action": "send", "source": "send", "fields": {"tags": chosen}}), state={}).writes[0]["value"] == chosen


def test_a_page_s_blocks_are_found_without_entering_options_and_agree_with_the_walk():
    """Each ui-action walked the whole page, every option included (a select of 30,000 options:
    0.3 s a message); the blocks-only walk finds the same blocks, in the same order, nested in
    sections, columns and tabs, and a hidden layout block still hides what it holds."""
    from flowui_sandbox.sandbox.document.walk import each_block, walk_blocks

    inner = {"block_id": "deep", "type": "text_input", "field": "deep"}
    blocks = [
        {"block_id": "s", "type": "select", "field": "c", "options": [{"value": f"o{i}", "label": ""} for i in range(3000)]},
        {"block_id": "sec", "type": "section", "visible_when": {"path": "show"}, "blocks": [
            {"block_id": "cols", "type": "columns", "columns": [{"blocks": [{"block_id": "a", "type": "text", "markdown": "x"}]},
                                                                {"blocks": [{"block_id": "tabs", "type": "tabs", "tabs": [
                                                                    {"label": "T", "blocks": [inner]}]}]}]}]},
        SEND,
    ]
    found = [(loc, block["block_id"]) for loc, block in each_block(blocks, ("blocks",))]
    assert found == [(item.loc, item.value["block_id"]) for item in walk_blocks(blocks, ("blocks",)) if item.kind == "block"]
    assert [bid for _, bid in found] == ["s", "sec", "cols", "a", "tabs", "deep", "send"]
    doc = page(*blocks)
    assert refused(doc, {"action": "send", "source": "send", "fields": {"deep": "x"}}, state={"show": False}) == ["hidden-field"]
    assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {"deep": "x"}}), state={"show": True}).writes


def test_a_number_keeps_to_the_input_s_step_counted_in_decimal():
    """``step`` was never checked: 0.3 passed an input of step 0.5, 3 a slider of step 2 from 1
    (and an html block could write them over the input). Steps count from ``min`` (else 0), on
    the numbers' decimal forms as the browser's stepMismatch does (0.3 is three steps of 0.1)."""
    doc = page(SEND, {"block_id": "n", "type": "number_input", "field": "n", "step": 0.5},
               {"block_id": "d", "type": "number_input", "field": "d", "step": 0.1, "min": 0.2},
               {"block_id": "s", "type": "slider", "field": "s", "min": 1, "max": 9, "step": 2},
               {"block_id": "h", "type": "html", "source": "<p></p>", "fields": ["bag"]})
    send = lambda **f: {"action": "send", "source": "send", "fields": f}  # noqa: E731
    assert refused(doc, send(n=0.3)) == ["step-mismatch"]
    assert refused(doc, send(s=2)) == ["step-mismatch"]
    assert refused(doc, send(n=1e308 + 0.1, d=0.25)) == ["step-mismatch"]  # 1e308 is a whole number of 0.5s; 0.25 is not 0.2 + k*0.1
    assert refused(doc, {"action": "go", "source": "h", "fields": {"n": 1.25}}) == ["step-mismatch"]
    ok = validate_ui_action(doc, "p", message(send(n=-1.5, d=0.3, s=3)), state={}).writes
    assert [op["value"] for op in ok[:3]] == [-1.5, 0.3, 3]
    assert validate_ui_action(doc, "p", message(send(n=0, d=1e300, s=9)), state={}).writes


def test_a_file_for_an_input_with_max_bytes_gives_its_size():
    """A file reference without ``size`` passed an input of ``max_bytes``: left out, the limit
    was never checked."""
    doc = page(SEND, {"block_id": "f", "type": "file_upload", "field": "f", "max_bytes": 100},
               {"block_id": "g", "type": "file_upload", "field": "g"})
    assert refused(doc, {"action": "send", "source": "send", "fields": {"f": {"name": "a", "media_type": "a/b"}}}) == ["wrong-type"]
    assert validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {
        "f": {"name": "a", "media_type": "a/b", "size": 100}, "g": {"name": "a", "media_type": "a/b"}}}), state={}).writes


def test_many_keys_or_values_are_refused_at_once_and_refusals_stay_short():
    """60,000 unknown keys (under the 1,000,000-character limit) on a page of 300 inputs took 6 s
    and made 143 MB of refusal text (each listed every field); 300,000 empty objects took 1.7 s.
    Now more than MAX_FIELDS keys or MAX_ACTION_NODES values is one refusal, and an unknown-field
    refusal names at most 20 fields; a long unknown source is shown cut."""
    from flowui_sandbox.sandbox.document.action import MAX_ACTION_NODES, MAX_FIELDS

    doc = page(SEND, {"block_id": "h", "type": "html", "source": "<p></p>", "fields": ["bag"]},
               *({"block_id": f"i{i}", "type": "text_input", "field": f"f{i}"} for i in range(300)))
    assert refused(doc, {"action": "send", "source": "send", "fields": {f"k{i}": 1 for i in range(MAX_FIELDS + 1)}}) == ["too-large"]
    assert refused(doc, {"action": "go", "source": "h", "fields": {"bag": [{}] * MAX_ACTION_NODES}}) == ["too-large"]
    assert refused(doc, {"action": "go", "source": "h", "fields": {}, "payload": [[]] * 300_000}) == ["too-large"]
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "p", message({"action": "send", "source": "send", "fields": {f"k{i}": 1 for i in range(2000)}}), state={})
    assert len(info.value.refusals) == 2000 and max(len(r.message) for r in info.value.refusals) < 400
    assert "f0, f1, f10" in info.value.refusals[0].message and "(300 fields)" in info.value.refusals[0].message
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "p", message({"action": "send", "source": "s" * 500_000, "fields": {}}), state={})
    assert info.value.codes == ["unknown-source"] and len(str(info.value)) < 400


def test_a_key_under_an_html_blocks_fields_is_looked_up_not_compared_with_each():
    """Each key was compared with every field of the html block (40,000 fields x 10,000 keys:
    40 s); now each key looks up its own prefixes. Checked by the ratio of two sizes: sixteen
    times the fields took sixteen times as long; now about as long (the message is the same)."""
    import time

    from flowui_sandbox.sandbox.document.projection import report_of

    def seconds(fields: int) -> float:
        report = report_of(page({"block_id": "h", "type": "html", "source": "<p></p>", "fields": [f"f{i}" for i in range(fields)]}))
        keys = {f"f{fields - 1 - i % 1000}.k{i}": 1 for i in range(5_000)}  # under the last thousand fields
        best = float("inf")
        for _ in range(2):
            start = time.process_time()
            result = validate_ui_action(report, "p", message({"action": "go", "source": "h", "fields": keys}), state={})
            best = min(best, time.process_time() - start)
        assert len(result.writes) == len(keys) + 1
        return best

    small, large = seconds(1_000), seconds(16_000)
    assert large < 4 * small + 0.5, (small, large)  # was about 16 times


def test_the_message_is_bounded_before_any_work_and_its_parts_are_told_apart_in_linear_time():
    """60,000 parts took 13.4 s (each part looked up in two lists); a Session refused them (at most
    100 parts) but validate_ui_action did not. Now the whole message is held to the upward bounds
    first: parts, values, depth and size."""
    from flowui_sandbox.sandbox.document.wire import MAX_UP_NODES, MAX_UP_PARTS

    doc = page(SEND)
    data = {"action": "send", "source": "send", "fields": {}}

    def refusals(msg):
        with pytest.raises(UiActionRefused) as info:
            validate_ui_action(doc, "p", msg, state={})
        return [(r.code, r.where) for r in info.value.refusals], str(info.value)

    assert refusals({"role": "ROLE_USER", "parts": [{"mediaType": MT}] * 60_000})[0] == [("too-large", "message.parts")]
    assert refusals({"role": "ROLE_USER", "parts": [{"mediaType": MT}] * (MAX_UP_PARTS + 1)})[0] == [("too-large", "message.parts")]
    many = refusals({"role": "ROLE_USER", "parts": [{"mediaType": MT}] * MAX_UP_PARTS})[0]
    assert len(many) == 1 and many[0][0] == "two-ui-actions"
    assert refusals(message(data, metadata={"bag": [0] * MAX_UP_NODES}))[0] == [("too-large", "message")]
    assert refusals(message(data, metadata={"big": "x" * (16 * 1024 * 1024)}))[0] == [("too-large", "message")]
    parts = [{"text": "a"}, {"data": data, "mediaType": MT}, {"raw": "AA=="}]
    assert [code for code, _ in refusals({"role": "ROLE_USER", "parts": parts})[0]] == ["text-beside-action", "extra-part"]
    assert validate_ui_action(doc, "p", message(data, metadata={"bag": [0] * 1000}), state={}).writes


def test_a_deep_or_large_role_or_metadata_is_refused_in_a_short_line_never_a_crash():
    """A role nested 200,000 deep made the bad-role text's repr() raise RecursionError, and a
    metadata 200,000 deep on the ui-action part was accepted unchecked."""
    doc = page(SEND)
    data = {"action": "send", "source": "send", "fields": {}}
    good = message(data)["parts"][0]
    for depth, why in ((200_000, "more than 100,000 JSON values"), (1_000, "deeper than 64 levels")):
        deep: list = []
        node = deep
        for _ in range(depth):
            node.append([])
            node = node[0]
        for msg in ({"role": deep, "parts": [good]}, {"role": "ROLE_USER", "parts": [{**good, "metadata": deep}]}):
            with pytest.raises(UiActionRefused) as info:
                validate_ui_action(doc, "p", msg, state={})
            assert info.value.codes == ["too-large"] and why in str(info.value) and len(str(info.value)) < 400
    for role, shown in (([["user"]] * 1000, "an array"), ({"a": 1}, "an object"), ("u" * 1_000_000, '"uuuu'), (None, "null")):
        with pytest.raises(UiActionRefused) as info:
            validate_ui_action(doc, "p", {"role": role, "parts": [good]}, state={})
        assert info.value.codes == ["bad-role"] and shown in str(info.value) and len(str(info.value)) < 400, role
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "p", {"role": "ROLE_USER", "parts": [{**good, **{f"k{i}" + "x" * 1000: 1 for i in range(99)}}]}, state={})
    assert info.value.codes == ["bad-ui-action"] and "(99 keys)" in str(info.value) and len(str(info.value)) < 600
    with pytest.raises(UiActionRefused) as info:
        validate_ui_action(doc, "p", message({**data, "k" * 500_000: 1}), state={})
    assert info.value.codes == ["bad-ui-action"] and "(500,000 characters)" in str(info.value) and len(str(info.value)) < 300


def test_a_block_rendered_into_a_hidden_slot_is_hidden_in_both_paths():
    """validate_ui_action(rendered=...) refused an action from a block rendered into a slot whose
    section is hidden, and a write to an input rendered there; Session.receive accepted both (it
    put rendered blocks at the top of the page). Both now judge a render as its own event, on the
    page of its slot and hidden with it."""
    from flowui_sandbox.sandbox.document.session import Session

    doc = page({"block_id": "go", "type": "button", "label": "Go", "action": {"name": "go"}},
               {"block_id": "gate", "type": "section", "visible_when": {"path": "show"}, "blocks": [{"block_id": "box", "type": "slot"}]})
    danger = [{"block_id": "danger", "type": "button", "label": "Delete", "action": {"name": "delete_all"}}]
    amount = [{"block_id": "amount", "type": "number_input", "field": "refund.amount", "required": True},
              {"block_id": "ok", "type": "button", "label": "OK", "action": {"name": "ok"}}]
    cases = [(danger, {"action": "delete_all", "source": "danger", "fields": {}}, "source-hidden"),
             (amount, {"action": "go", "source": "go", "fields": {"refund.amount": 1000}}, "hidden-field")]
    for blocks, data, code in cases:
        for show in (False, True):
            state = {"show": show}
            session = Session(doc, context_id="c", task_id="t")
            session.start(state)
            session.render("box", blocks)
            envelope = {**message(data), "contextId": "c"}
            rendered = [{"kind": "render", "slot_id": "box", "blocks": blocks}]
            if show:
                direct = validate_ui_action(doc, "p", message(data), state=state, rendered=rendered).writes
                assert session.receive(envelope).result.writes == direct
                continue
            assert refused(doc, data, state=state, rendered=rendered) == [code]
            with pytest.raises(UiActionRefused) as info:
                session.receive(envelope)
            assert info.value.codes == [code]
    # a render is its own form in both paths: the page's button does not wait for its required input
    session = Session(doc, context_id="c", task_id="t")
    session.start({"show": True})
    session.render("box", amount)
    assert session.receive({**message({"action": "go", "source": "go", "fields": {}}), "contextId": "c"}).result.writes
    with pytest.raises(UiActionRefused) as info:
        session.receive({**message({"action": "ok", "source": "ok", "fields": {}}), "contextId": "c"})
    assert info.value.codes == ["required"]
    # a block rendered on another page is not on this one, in both paths
    two = {"start_page_id": "p", "pages": [*page(SEND)["pages"], {"page_id": "q", "blocks": [{"block_id": "other", "type": "slot"}]}]}
    session = Session(two, context_id="c", task_id="t")
    session.start({})
    session.render("other", danger)
    data = {"action": "delete_all", "source": "danger", "fields": {}}
    with pytest.raises(UiActionRefused) as info:
        session.receive({**message(data), "contextId": "c"})
    assert info.value.codes == ["not-on-page"]
    assert refused(two, data, rendered=[{"kind": "render", "slot_id": "other", "blocks": danger}]) == ["not-on-page"]
