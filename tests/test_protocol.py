"""flowui_sandbox.bridge.protocol: the models of every message, the ui-action rule, the limits and the exported schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from flowui_sandbox.bridge import protocol
from flowui_sandbox.bridge.protocol import (
    MAX_MESSAGE_CHARS,
    MAX_MESSAGE_DEPTH,
    UI_ACTION_MEDIA_TYPE,
    UiAction,
    UserMessage,
    parse_block_message,
    parse_host_message,
    user_message,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "bridge"
MESSAGES = json.loads((FIXTURES / "messages.json").read_text(encoding="utf-8"))
#: Refusals that depend on the block (its fields) or the moment (a gesture), not on the shape.
CONTEXT_REASONS = {"not-a-field", "no-gesture"}


SHAPE_CASES = [c for c in MESSAGES if c["reason"] not in CONTEXT_REASONS]


@pytest.mark.parametrize("case", SHAPE_CASES, ids=[c["name"] for c in SHAPE_CASES])
def test_the_models_agree_with_the_host_module_on_shape(case):
    """The same fixture the Node tests run through validateBlockMessage."""
    if case["reason"] is None:
        parse_block_message(case["message"])
    else:
        with pytest.raises(ValidationError):
            parse_block_message(case["message"])


def test_size_and_depth_limits():
    fits = "x" * (MAX_MESSAGE_CHARS - len('{"type":"send","id":1,"action":"a","payload":""}'))
    parse_block_message({"type": "send", "id": 1, "action": "a", "payload": fits})
    with pytest.raises(ValidationError, match="too-large"):
        parse_block_message({"type": "send", "id": 1, "action": "a", "payload": fits + "x"})
    # UTF-16 code units, as JavaScript counts: an astral character is two.
    with pytest.raises(ValidationError, match="too-large"):
        parse_block_message({"type": "send", "id": 1, "action": "a", "payload": "😀" * (MAX_MESSAGE_CHARS // 2)})
    deep: object = 1
    for _ in range(MAX_MESSAGE_DEPTH - 1):
        deep = [deep]
    parse_block_message({"type": "send", "id": 1, "action": "a", "payload": deep})
    with pytest.raises(ValidationError, match="too-deep"):
        parse_block_message({"type": "send", "id": 1, "action": "a", "payload": [deep]})


def test_host_messages():
    parse_host_message({"type": "state", "set": {"order": {"total": 2}}, "unset": ["customer"]})
    parse_host_message({"type": "reply", "id": 3, "ok": True, "value": {"saved": True}})
    parse_host_message({"type": "reply", "id": 3, "ok": False, "reason": "not-a-field", "message": "m"})
    with pytest.raises(ValidationError):
        parse_host_message({"type": "reply", "id": 3, "ok": False, "reason": "made-up", "message": "m"})
    with pytest.raises(ValidationError):
        parse_host_message({"type": "state", "set": {"order.total": 2}, "unset": []})
    from flowui_sandbox.theme import DARK

    parse_host_message({"type": "theme", "theme": DARK.to_json(), "css": DARK.to_css()})
    with pytest.raises(ValidationError, match="accent"):
        parse_host_message({"type": "theme", "theme": {"accent": "red;}"}, "css": ""})


def test_ui_action_and_the_user_message_rule():
    action = UiAction(action="submit", source="send_button", fields={"email": "a@b.c", "agree": True}, payload={"plan": "pro"})
    message = user_message(action, messageId="m1")
    # SPEC §3's example, exactly.
    assert message["parts"] == [{
        "data": {"action": "submit", "source": "send_button", "fields": {"email": "a@b.c", "agree": True}, "payload": {"plan": "pro"}},
        "mediaType": "application/vnd.platform.ui-action+json",
    }]
    assert UserMessage.model_validate(message).ui_action == action
    part = message["parts"][0]
    with pytest.raises(ValidationError, match="no text"):
        UserMessage.model_validate({"role": "ROLE_USER", "parts": [part, {"text": "also this"}]})
    with pytest.raises(ValidationError, match="exactly one part"):
        UserMessage.model_validate({"role": "ROLE_USER", "parts": [part, part]})
    with pytest.raises(ValidationError, match="exactly one part"):
        UserMessage.model_validate({"role": "ROLE_USER", "parts": []})
    with pytest.raises(ValidationError):
        UserMessage.model_validate({"role": "ROLE_USER", "parts": [{"data": {"action": "Bad", "source": "b", "fields": {}}, "mediaType": UI_ACTION_MEDIA_TYPE}]})
    with pytest.raises(ValidationError):
        UiAction(action="submit", source="b", fields={}, payload=float("nan"))


def test_the_user_message_takes_the_a2a_1_role_only():
    """The seed's wire form is A2A 1.0's ``role: "ROLE_USER"``; A2A 0.x's ``"user"`` is refused, as
    the document's ui-action check refuses it (issue 21 item 13)."""
    part = {"data": {"action": "submit", "source": "send_button", "fields": {}}, "mediaType": UI_ACTION_MEDIA_TYPE}
    seed = {"role": "ROLE_USER", "contextId": "c1", "taskId": "t1", "parts": [part]}
    assert UserMessage.model_validate(seed).ui_action.action == "submit"
    assert user_message(UiAction(action="submit", source="b", fields={}))["role"] == "ROLE_USER"
    for role in ("user", "ROLE_AGENT", "agent", "USER", ""):
        with pytest.raises(ValidationError):
            UserMessage.model_validate({"role": role, "parts": [part]})
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator({**protocol.json_schema(), "anyOf": [{"$ref": "#/$defs/UserMessage"}]})
    assert not list(validator.iter_errors(seed))
    assert list(validator.iter_errors({**seed, "role": "ROLE_AGENT"}))


def test_the_committed_schema_is_current():
    committed = (Path(protocol.__file__).parent / "protocol.schema.json").read_text(encoding="utf-8")
    assert committed == protocol.schema_text(), "bridge/protocol.schema.json is stale: run `flowui-sandbox generate`"


def test_the_schema_validates_what_the_models_accept():
    jsonschema = pytest.importorskip("jsonschema")
    schema = protocol.json_schema()
    validator = jsonschema.Draft202012Validator(schema)
    for case in MESSAGES:
        if case["reason"] is None:
            assert not list(validator.iter_errors(case["message"])), case["name"]
