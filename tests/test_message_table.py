"""The message table (bridge.protocol.message_table, MESSAGES in bridge/contract.js) is derived from
the one list of models, and the host module's validation, driven by it, agrees with the models on
cases made from the table itself: every key missing, of the wrong type, beyond its limits, or null."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from pydantic import ValidationError

from flowui_sandbox.bridge import protocol
from flowui_sandbox.bridge.protocol import BLOCK_MESSAGES, HOST_MESSAGES, MESSAGES, REASONS, WINDOW_MESSAGES, message_table, parse_block_message

ROOT = Path(__file__).resolve().parent.parent
TABLE = message_table()
#: A valid value for keys whose host check needs more than their type (KeyRule.check).
SAMPLES = {"action": "submit", "field": "email", "url": "https://example.com/", "gesture": True}
FIELDS = ["email"]
#: What a value of each type is not.
WRONG = {"string": [5, None, ["x"]], "integer": [1.5, "1", True, None], "number": ["1", None, True],
         "boolean": ["yes", 1, None], "object": [[], "x"], "array": [{}, "x"], "json": []}


def test_every_model_is_in_the_table_once_and_the_groups_partition_the_list():
    assert set(MESSAGES) == {*WINDOW_MESSAGES, *BLOCK_MESSAGES, *HOST_MESSAGES}
    named = [name for entry in TABLE.values() for name in entry["model"].split("|")]
    assert sorted(named) == sorted(m.__name__ for m in MESSAGES)
    for model in MESSAGES:
        assert model.__name__ in protocol.__all__
    schema = protocol.json_schema()["$defs"]
    assert len(schema["BlockMessage"]["oneOf"]) == len(BLOCK_MESSAGES)
    assert len(schema["HostMessage"]["oneOf"]) == len(HOST_MESSAGES)


def test_requests_are_the_block_messages_with_an_id_and_their_reasons_are_known():
    for type_, entry in TABLE.items():
        if entry["from"] == "block" and entry["channel"] == "port":
            assert entry["request"] == ("id" in entry["keys"]), type_
            assert entry["budget"] == ("requests" if entry["request"] else protocol.MESSAGES[[m.__name__ for m in MESSAGES].index(entry["model"])].budget)
            assert set(entry["reasons"]) <= set(REASONS)
            assert ("rate-limited" in entry["reasons"]) == entry["request"]
            for key in entry["keys"].values():
                assert key.get("reason", "bad-message") in entry["reasons"]
        else:
            assert "request" not in entry
    assert TABLE["pong"]["budget"] is None, "liveness answers cost no token"


def _valid(entry: dict) -> dict:
    message = {}
    for name, key in entry["keys"].items():
        accepts = key["accepts"]
        if not key["required"] and name != "type":
            continue
        if "check" in key:
            message[name] = SAMPLES[key["check"]]
        elif "const" in accepts:
            message[name] = accepts["const"]
        elif "enum" in accepts:
            message[name] = accepts["enum"][0]
        else:
            message[name] = {"string": "x", "integer": max(accepts.get("minimum", 0), 0), "number": accepts.get("minimum", 0),
                             "boolean": False, "json": None, "object": {}, "array": []}[accepts["type"]]
    return message


def _cases() -> list[dict]:
    cases = []
    for type_, entry in TABLE.items():
        if entry["from"] != "block" or entry["channel"] != "port":
            continue
        valid = _valid(entry)
        cases.append({"name": f"{type_}: valid", "message": valid, "reason": None})
        cases.append({"name": f"{type_}: an unknown key", "message": {**valid, "extra": 1}, "reason": "bad-message"})
        for name, key in entry["keys"].items():
            if name == "type":
                continue
            reason = key.get("reason", "bad-message")
            if key["required"]:
                cases.append({"name": f"{type_}: no {name}", "message": {k: v for k, v in valid.items() if k != name}, "reason": "bad-message"})
            accepts = key["accepts"]
            wrong = list(WRONG.get(accepts.get("type"), [])) if "enum" not in accepts else ["other", None]
            if "maxLength" in accepts:
                start = valid.get(name, "x") if isinstance(valid.get(name), str) else "x"
                wrong.append(start + "a" * (accepts["maxLength"] + 1 - len(start)))
            if accepts.get("minLength"):
                wrong.append("x" * (accepts["minLength"] - 1))
            if "minimum" in accepts:
                wrong.append(accepts["minimum"] - 1)
            if "maximum" in accepts:
                wrong.append(accepts["maximum"] + 1)
            for value in wrong:
                cases.append({"name": f"{type_}: {name} = {json.dumps(value)[:20]}", "message": {**valid, name: value}, "reason": reason})
    return cases


CASES = _cases()
assert len({c["name"] for c in CASES}) == len(CASES), "case names must be unique"


@pytest.fixture(scope="module")
def host_verdicts() -> dict[str, dict]:
    script = (
        "import { validateBlockMessage } from './bridge/flow-ui-host.js';"
        "const cases = JSON.parse(process.argv[1]);"
        f"console.log(JSON.stringify(cases.map((c) => validateBlockMessage(c.message, {{ fields: {json.dumps(FIELDS)} }}))));"
    )
    out = subprocess.run(["node", "--input-type=module", "-e", script, json.dumps(CASES)],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return dict(zip((c["name"] for c in CASES), json.loads(out.stdout)))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_host_refuses_what_the_models_refuse_with_the_tables_reason(case, host_verdicts):
    verdict = host_verdicts[case["name"]]
    assert (None if verdict["ok"] else verdict["reason"]) == case["reason"], verdict.get("message")
    if case["reason"] is None:
        parse_block_message(case["message"])
    else:
        with pytest.raises(ValidationError):
            parse_block_message(case["message"])


def _object_keys(source: str, variable: str) -> list[str]:
    """The property names of the object literal assigned to ``variable`` (tree-sitter)."""
    import tree_sitter_javascript
    from tree_sitter import Language, Parser

    code = source.encode("utf-8")
    stack = [Parser(Language(tree_sitter_javascript.language())).parse(code).root_node]
    while stack:
        node = stack.pop()
        if node.type == "variable_declarator" and code[node.child_by_field_name("name").start_byte:node.child_by_field_name("name").end_byte] == variable.encode():
            value = node.child_by_field_name("value")
            return [code[p.child_by_field_name("key").start_byte:p.child_by_field_name("key").end_byte].decode()
                    for p in value.named_children if p.type == "pair"]
        stack.extend(node.children)
    raise AssertionError(f"no {variable} in the source")


def test_the_runtime_handles_each_host_message_of_the_table():
    runtime = (ROOT / "bridge" / "flow-ui-runtime.js").read_text(encoding="utf-8")
    host_types = [t for t, e in TABLE.items() if e["from"] == "host" and e["channel"] == "port"]
    assert sorted(_object_keys(runtime, "onHostMessage")) == sorted(host_types)
