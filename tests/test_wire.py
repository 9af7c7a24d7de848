"""The wire around the document (sandbox/document/wire.py) and one client's session (session.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowui_sandbox.sandbox.block.projection import project
from flowui_sandbox.sandbox.document.action import UiActionRefused
from flowui_sandbox.sandbox.document.patch import parse_pointer
from flowui_sandbox.sandbox.document.session import Session, SessionError, replay
from flowui_sandbox.sandbox.document.wire import (
    NavigateEvent,
    PatchPart,
    RenderEvent,
    SnapshotPart,
    TextPart,
    UiPart,
    WireError,
    check_down,
    check_up,
)

FIXTURE = json.loads((Path(__file__).resolve().parent.parent / "fixtures" / "document" / "wire.json").read_text(encoding="utf-8"))
ACTION = "application/vnd.platform.ui-action+json"
UI = "application/vnd.platform.ui+json"

# The seed's downlink parts, in its order: snapshot, patch, render, navigate, text.
SEED_PARTS = [
    {"data": {"email": "a@b.c", "total": 1200}, "mediaType": "application/json"},
    {"data": [{"op": "replace", "path": "/total", "value": 1500}], "mediaType": "application/json-patch+json"},
    {"data": {"kind": "render", "slot_id": "result", "blocks": [{"block_id": "summary", "type": "text", "markdown": "Заявка **{email}** принята"}]}, "mediaType": UI},
    {"data": {"kind": "navigate", "page_id": "done"}, "mediaType": UI},
    {"text": "Готово"},
]
SEED_ACTION = {"data": {"action": "submit", "source": "send_button", "fields": {"email": "a@b.c", "agree": True}, "payload": {"plan": "pro"}},
               "mediaType": ACTION}


def event(artifact_id: str, *parts, **extra) -> dict:
    return {"taskId": "t1", "contextId": "c1", "artifact": {"artifactId": artifact_id, "parts": list(parts), **extra}}


def message(*parts, **extra) -> dict:
    return {"role": "ROLE_USER", "contextId": "c1", "parts": list(parts), **extra}


def problems_of(check, value) -> list[tuple[str, str]]:
    with pytest.raises(WireError) as caught:
        check(value)
    return caught.value.problems


# ----------------------------------------------------------------------------- down


@pytest.mark.parametrize("case", FIXTURE["down"], ids=lambda c: c["name"])
def test_downlink_fixture(case):
    # tests/js/wire.test.mjs holds bridge/flow-ui-wire.js to the same cases.
    if not case["problems"]:
        assert len(check_down(case["event"]).parts) == len(case["event"]["artifact"]["parts"])
    else:
        assert [where for where, _ in problems_of(check_down, case["event"])] == case["problems"]


@pytest.mark.parametrize("case", FIXTURE["up"], ids=lambda c: c["name"])
def test_uplink_fixture(case):
    if not case["problems"]:
        assert len(check_up(case["message"]).parts) == len(case["message"]["parts"])
    else:
        assert [where for where, _ in problems_of(check_up, case["message"])] == case["problems"]


def test_the_seed_parts_pass_in_their_artifacts():
    state = check_down(event("state", *SEED_PARTS[:2]))
    assert [type(p) for p in state.parts] == [SnapshotPart, PatchPart]
    ui = check_down(event("ui", *SEED_PARTS[2:4]))
    assert isinstance(ui.parts[0], UiPart) and isinstance(ui.parts[0].data, RenderEvent)
    assert isinstance(ui.parts[1].data, NavigateEvent) and ui.parts[1].data.page_id == "done"
    text = check_down(event("answer", SEED_PARTS[4], name="answer"))
    assert isinstance(text.parts[0], TextPart) and text.parts[0].text == "Готово"


@pytest.mark.parametrize(("artifact", "part", "where", "says"), [
    ("ui", {"data": {"kind": "close"}, "mediaType": UI}, "artifact.parts[0].data.kind", "kind must be one of render, navigate, not 'close'"),
    ("ui", {"data": {"page_id": "x"}, "mediaType": UI}, "artifact.parts[0].data.kind", "has a kind"),
    ("ui", {"data": {"kind": "navigate"}, "mediaType": UI}, "artifact.parts[0].data.page_id", "required"),
    ("ui", {"data": {"kind": "render", "slot_id": 3, "blocks": []}, "mediaType": UI}, "artifact.parts[0].data.slot_id", "string"),
    ("state", {"data": {}, "mediaType": "application/xml"}, "artifact.parts[0].mediaType", "not a downlink mediaType"),
    ("state", {"data": [{"op": "move", "path": "/a"}], "mediaType": "application/json-patch+json"}, "artifact.parts[0].data[0].op", "'add', 'replace' or 'remove'"),
    ("state", {"data": [{"op": "add", "path": "a"}], "mediaType": "application/json-patch+json"}, "artifact.parts[0].data[0].path", "must start with"),
    ("state", {"data": [{"op": "replace", "path": "/a"}], "mediaType": "application/json-patch+json"}, "artifact.parts[0].data[0].value", "needs a value"),
    ("state", {"data": [1], "mediaType": "application/json"}, "artifact.parts[0].data", "dictionary"),
    ("state", {"file": {"uri": "x"}}, "artifact.parts[0]", "text or data"),
    ("state", {"text": "hi"}, "artifact.parts[0]", "carries state snapshots and patches only"),
    ("ui", SEED_PARTS[0], "artifact.parts[0]", "carries ui events only"),
    ("answer", SEED_PARTS[3], "artifact.parts[0]", "carries text only"),
])
def test_a_bad_downlink_part_is_a_located_protocol_error(artifact, part, where, says):
    problems = problems_of(check_down, event(artifact, part))
    assert problems[0][0] == where and says in problems[0][1], problems


def test_every_downlink_problem_at_once_and_the_event_shape():
    problems = problems_of(check_down, event("ui", {"data": {"kind": "x"}, "mediaType": UI}, {"data": {}, "mediaType": "text/x"}))
    assert [w for w, _ in problems] == ["artifact.parts[0].data.kind", "artifact.parts[1].mediaType"]
    assert problems_of(check_down, {"contextId": "c", "artifact": {"artifactId": "state", "parts": []}})[0][0] == "taskId"
    assert problems_of(check_down, event("state"))[0] == ("artifact.parts", "an artifact has at least one part")
    assert problems_of(check_down, {**event("state", SEED_PARTS[0]), "extra": 1})[0] == ("extra", "unknown property")
    deep: dict = {}
    node = deep
    for _ in range(100):
        node["a"] = {}
        node = node["a"]
    assert "levels" in problems_of(check_down, event("state", {"data": deep, "mediaType": "application/json"}))[0][1]


# ----------------------------------------------------------------------------- up


def test_the_seed_messages_pass():
    action = check_up(message(SEED_ACTION, taskId="t1"))
    assert action.ui_action is not None and action.ui_action.source == "send_button" and action.taskId == "t1"
    text = check_up(message({"text": "hello"}, {"url": "https://example.com/a.pdf", "mediaType": "application/pdf"}, {"raw": "aGk=", "filename": "a.txt"}))
    assert text.ui_action is None and text.text == "hello" and len(text.parts) == 3


@pytest.mark.parametrize(("msg", "where", "says"), [
    ({**message(SEED_ACTION), "role": "user"}, "role", "ROLE_USER"),
    ({"role": "ROLE_USER", "parts": [SEED_ACTION]}, "contextId", "required"),
    ({**message(SEED_ACTION), "extra": 1}, "extra", "unknown property"),
    (message(), "parts", "at least one part"),
    (message(SEED_ACTION, SEED_ACTION), "parts[1]", "a message carries one"),
    (message({"text": "hi"}, SEED_ACTION), "parts[0]", "exactly one part, the ui-action"),
    (message(SEED_ACTION, {"url": "https://x"}), "parts[1]", "exactly one part, the ui-action"),
    (message({"data": {}, "mediaType": "application/json"}), "parts[0].mediaType", "the only data part"),
    (message({"data": {**SEED_ACTION["data"], "action": "Bad!"}, "mediaType": ACTION}), "parts[0].data.action", "pattern"),
    (message({"data": {"action": "a", "source": "b"}, "mediaType": ACTION}), "parts[0].data.fields", "required"),
    (message({"text": "a"}, {"text": "b"}), "parts", "all text"),
    (message({"url": "https://x"}), "parts", "one text part"),
    (message({"text": "a"}, {"raw": "x", "url": "https://x"}), "parts[1]", "exactly one of raw and url"),
    (message({"uri": "x"}), "parts[0]", "a part is text, a file"),
    (message({"text": 3}), "parts[0].text", "string"),
    # A client's numbers are JavaScript's: 2^60 cannot have come from one unrounded.
    (message({"data": {"action": "a", "source": "b", "fields": {"n": 2**60}}, "mediaType": ACTION}), "",
     "value/parts/0/data/fields/n: an integer beyond ±9,007,199,254,740,991"),
    # No UTF-8, so nothing the server could pass on (a text part's surrogate was accepted).
    (message({"text": "hi \ud800"}), "parts[0].text", "unpaired surrogate"),
    (message({"text": "hi", "metadata": {"k\udfff": 1}}), "parts[0].metadata", "unpaired surrogate"),
    # raw is base64, as the protobuf JSON mapping of bytes has it (anything was accepted).
    (message({"text": "a"}, {"raw": "not base64!"}), "parts[1].raw", "base64"),
])
def test_a_bad_upward_message_is_a_located_protocol_error(msg, where, says):
    problems = problems_of(check_up, msg)
    assert problems[0][0] == where and says in problems[0][1], problems


@pytest.mark.parametrize("raw", ["aGVsbG8=", "aGVsbG8", "-_-_", ""])
def test_a_file_s_raw_bytes_are_base64_in_either_alphabet_padded_or_not(raw):
    assert check_up(message({"text": "a"}, {"raw": raw, "mediaType": "image/png"})).text == "a"


@pytest.mark.parametrize("raw", ["+/+/=", "QQ=", "QQ===", "Q", "QQ==QQ==", "+_", "aGVs bG8=", "aGVsbG8=\n", "é"])
def test_a_file_s_raw_bytes_in_no_one_base64_form_are_refused(raw):
    """Padding that does not fill the last group of four, data after it, two alphabets mixed,
    a lone six-bit character, whitespace: base64 decoders that take them disagree on the bytes."""
    assert problems_of(check_up, message({"text": "a"}, {"raw": raw, "mediaType": "image/png"}))[0][0] == "parts[1].raw"


# ----------------------------------------------------------------------------- session

DOC = {"start_page_id": "main", "pages": [
    {"page_id": "main", "blocks": [
        {"block_id": "title", "type": "heading", "text": "Hi {?customer.name}"},
        {"block_id": "email", "type": "text_input", "field": "email"},
        {"block_id": "send", "type": "button", "label": "Send", "action": {"name": "submit", "payload": {"plan": "pro"}}},
        {"block_id": "card", "type": "html", "source": '<b data-bind="order.total"></b>', "fields": ["note"]},
        {"block_id": "gated", "type": "button", "label": "Go", "action": {"name": "go"}, "visible_when": {"path": "flag", "equals": True}},
        {"block_id": "result", "type": "slot"},
        {"block_id": "feed", "type": "conversation"}]},
    {"page_id": "done", "blocks": [
        {"block_id": "done_text", "type": "text", "markdown": "Thanks, {email} {?summary.status}"},
        {"block_id": "other", "type": "html", "source": "<i data-bind='receipt'></i>"}]}]}
# Written by hand, not computed: what a client on each page may hold.
PATHS = {"main": ["customer.name", "email", "note", "order.total", "flag"], "done": ["email", "summary.status", "receipt"]}
STATE = {"customer": {"name": "A", "password": "p"}, "email": "a@b.c", "order": {"total": 1, "card": "4111"},
         "note": "n", "summary": {"status": "ok"}, "receipt": "R", "secret": 1, "flag": False}


def session(**kw) -> Session:
    return Session(DOC, context_id="c1", task_id="t1", **kw)


def parts(events) -> list:
    return [p for e in events for p in check_down(e).parts]


def act(source: str, action: str = "submit", fields: dict | None = None, **kw) -> dict:
    return message({"data": {"action": action, "source": source, "fields": fields or {}}, "mediaType": ACTION}, **kw)


def test_a_snapshot_first_then_patches_of_the_projection_only():
    s = session()
    with pytest.raises(SessionError, match="start"):
        s.update(STATE)
    first = parts(s.start(STATE))
    assert len(first) == 1 and isinstance(first[0], SnapshotPart)
    assert first[0].data == project(STATE, PATHS["main"])
    assert "password" not in str(first[0].data) and "card" not in first[0].data["order"]
    # Changes outside the projection send nothing at all.
    assert s.update({**STATE, "secret": 2, "order": {"total": 1, "card": "5555"}, "summary": {"status": "x"}}) == []
    ops = parts(s.update({**STATE, "email": "b@c.d", "secret": 3}))
    assert len(ops) == 1 and [op.model_dump() for op in ops[0].data] == [{"op": "replace", "path": "/email", "value": "b@c.d"}]


def test_navigate_changes_the_projection():
    s = session()
    s.start(STATE)
    events = s.navigate("done")
    got = parts(events)
    assert isinstance(got[0], UiPart) and got[0].data.kind == "navigate" and isinstance(got[1], PatchPart)
    state, page, _ = replay([*session().start(STATE), *events])
    assert page == "done" and state == project(STATE, PATHS["done"])
    with pytest.raises(SessionError) as caught:
        s.navigate("nope")
    assert caught.value.wheres == ["page_id"]


def test_render_into_a_slot_replaces_into_the_conversation_adds():
    s = session()
    events = s.start(STATE)
    blocks = [{"block_id": "r1", "type": "text", "markdown": "{summary.status}"}]
    events += s.render("result", blocks)
    got = parts(events)
    assert isinstance(got[1], UiPart) and got[1].data.kind == "render" and got[2].data[0].path == "/summary"
    assert "summary.status" in s.paths()
    events += s.render("result", [{"block_id": "r2", "type": "text", "markdown": "plain"}])
    assert "summary.status" not in s.paths()  # the slot's content was replaced
    events += s.render("feed", [{"block_id": "c1", "type": "text", "markdown": "{receipt}"}])
    events += s.render("feed", [{"block_id": "c2", "type": "text", "markdown": "{secret}"}])
    assert {"receipt", "secret"} <= set(s.paths())
    state, _, rendered = replay(events)
    assert state == project(STATE, PATHS["main"] + ["receipt", "secret"])
    assert [b["block_id"] for b in rendered["feed"]] == ["c1", "c2"]


@pytest.mark.parametrize(("slot", "blocks", "where"), [
    ("title", [{"block_id": "x", "type": "divider"}], "slot_id"),
    ("result", [{"block_id": "email", "type": "divider"}], "blocks[0].block_id"),
    ("result", [{"block_id": "x", "type": "headng"}], "blocks[0]"),
    ("result", [{"block_id": "x", "type": "link", "label": "l", "page_id": "nowhere"}], "pages[0].blocks[7].page_id"),
])
def test_a_render_the_session_cannot_show_is_refused(slot, blocks, where):
    s = session()
    s.start(STATE)
    with pytest.raises(SessionError) as caught:
        s.render(slot, blocks)
    assert caught.value.wheres[0] == where, caught.value.problems
    assert s.rendered.get("result") is None and "nowhere" not in str(s.shown_document())


def test_actions_are_checked_against_what_the_client_was_shown():
    s = session()
    s.start(STATE)
    accepted = s.receive(act("send", fields={"email": "x@y.z"}, taskId="t1"))
    assert accepted.result is not None and accepted.result.writes[0] == {"op": "add", "path": "/email", "value": "x@y.z"}
    assert s.receive(message({"text": "hello"})).result is None

    def refused(msg) -> list[str]:
        with pytest.raises(UiActionRefused) as caught:
            s.receive(msg)
        return caught.value.codes

    assert refused(act("other", "save")) == ["not-on-page"]  # on another page
    assert refused(act("gated", "go")) == ["source-hidden"]  # not shown in this state
    assert refused(act("live", "save")) == ["unknown-source"]  # never rendered
    s.render("result", [{"block_id": "live", "type": "html", "source": "<b data-bind='pick'></b>", "fields": ["pick"]}])
    assert s.receive(act("live", "save", {"pick": 1})).result.writes[0] == {"op": "add", "path": "/pick", "value": 1}
    s.render("result", [{"block_id": "live2", "type": "divider"}])
    assert refused(act("live", "save")) == ["unknown-source"]  # replaced
    s.navigate("done")
    assert refused(act("card", "save")) == ["not-on-page"]
    assert s.receive(act("other", "save")).result is not None
    with pytest.raises(WireError) as caught:
        s.receive({**act("other", "save"), "contextId": "c2", "taskId": "t2"})
    assert caught.value.wheres == ["contextId", "taskId"]
    with pytest.raises(WireError) as caught:
        s.receive(act("other", "save", {}) | {"role": "user"})
    assert caught.value.wheres == ["role"]


def test_apply_writes_an_accepted_action_and_tells_the_projection():
    s = session()
    s.start(STATE)
    received = s.receive(act("card", "save", {"note": "typed"}))
    got = parts(s.apply(received.result.writes))
    assert [op.model_dump() for op in got[0].data] == [{"op": "replace", "path": "/note", "value": "typed"}]
    assert s.state["ui_action"] == {"name": "save", "source": "card", "payload": None}


def test_leak_tells_the_whole_state():
    s = session(leak=True)
    assert parts(s.start(STATE))[0].data == STATE


def test_a_session_needs_a_page_of_the_document():
    with pytest.raises(SessionError):
        session(page_id="nope")
    assert session(page_id="done").paths() == PATHS["done"]


# ----------------------------------------------------------------------------- property

KEYS = ["customer.name", "customer.password", "email", "order.total", "order.card", "note", "summary.status", "receipt", "secret", "flag"]
values = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b/c", "~"]), inner, max_size=3),
                      max_leaves=6)


@st.composite
def states(draw) -> dict:
    state: dict = {}
    for key in draw(st.lists(st.sampled_from(KEYS), unique=True)):
        head, _, tail = key.partition(".")
        if tail:
            node = state.setdefault(head, {})
            if isinstance(node, dict):
                node[tail] = draw(values)
        else:
            state[head] = draw(values)
    return state


steps = st.lists(st.one_of(
    st.tuples(st.just("update"), states()),
    st.tuples(st.just("navigate"), st.sampled_from(["main", "done"])),
    st.tuples(st.just("render"), st.sampled_from([[], ["receipt"], ["secret", "summary.status"]])),
), max_size=8)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(first=states(), page=st.sampled_from(["main", "done"]), steps=steps)
def test_the_parts_a_session_yields_reconstruct_exactly_the_clients_projection(first, page, steps):
    s = Session(DOC, context_id="c1", task_id="t1", page_id=page)
    events = s.start(first)
    state, rendered, n = first, [], 0
    paths = PATHS[page]
    for kind, arg in steps:
        if kind == "update":
            state = arg
            new = s.update(state)
        elif kind == "navigate":
            page = arg
            new = s.navigate(page)
        else:
            n += 1
            rendered = list(arg)
            new = s.render("result", [{"block_id": f"r{n}", "type": "text", "markdown": " ".join(f"{{?{p}}}" for p in arg) or "-"}])
        before, paths = paths, PATHS[page] + (rendered if page == "main" else [])
        for part in parts(new):
            if isinstance(part, PatchPart):  # a patch adds only inside the projection, removes only what was told
                for op in part.data:
                    tokens = parse_pointer(op.path)
                    within = before if op.op == "remove" else paths
                    assert any(tokens[:len(p.split("."))] == p.split(".")[:len(tokens)] for p in within), (op, within)
        events += new
        told, told_page, _ = replay(copy.deepcopy(events))
        assert told == project(state, paths)
        assert s.told == told


def test_the_live_command_refuses_bad_files_in_one_line(tmp_path, capsys):
    from flowui_sandbox.sandbox.document.live import main

    bad_doc, bad_state, good = tmp_path / "doc.json", tmp_path / "state.json", tmp_path / "ok.json"
    bad_doc.write_text('{"pages": 1}')
    bad_state.write_text("[1]")
    good.write_text("{}")
    for args, starts in [([str(bad_doc), str(good)], f"{bad_doc}: start_page_id: "),
                         ([str(good), str(good)], f"{good}: start_page_id"), ([str(bad_doc), str(bad_state)], f"{bad_state}: the state is"),
                         ([str(tmp_path / "none.json"), str(good)], f"{tmp_path / 'none.json'}: "), ([], "usage: ")]:
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.startswith(starts) and err.count("\n") == 1, err


def test_a_session_can_start_with_blocks_already_rendered():
    shown = {"result": [{"block_id": "r1", "type": "html", "source": "<b data-bind='summary.status'></b>", "fields": ["pick"]}]}
    s = session(rendered=shown)
    assert "summary.status" in s.paths() and "pick" in s.paths()
    assert parts(s.start(STATE))[0].data["summary"] == {"status": "ok"}
    assert s.receive(act("r1", "save", {"pick": "a"})).result is not None
    with pytest.raises(SessionError) as caught:
        session(rendered={"title": []})
    assert caught.value.wheres == ["slot_id"]


def test_the_live_server_answers_bad_messages_and_keeps_its_stream():
    """Plain json.loads of 200,000-deep nesting raised RecursionError (HTTP 500); 10**400 made the
    check raise OverflowError (500); a write nesting the state past 64 levels was accepted, then
    refused by Session.apply (500); a lone surrogate in the state broke the UTF-8 event stream for good."""
    import asyncio

    import aiohttp

    from flowui_sandbox.sandbox.document.live import LiveServer

    doc = {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": [
        {"block_id": "h", "type": "html", "fields": ["customer"], "source": "<b data-bind='customer.name'></b>"}]}]}

    def up(fields):
        return json.dumps({"role": "ROLE_USER", "contextId": "ctx-live", "parts": [
            {"mediaType": ACTION, "data": {"action": "x", "source": "h", "fields": fields}}]})

    nested: object = 1
    for _ in range(40):
        nested = [nested]

    async def scenario():
        server = await LiveServer(doc, {"customer": {"name": "A"}}).start()
        try:
            async with aiohttp.ClientSession() as client:
                events = await client.get(server.url + "events")
                assert (await events.content.readline()).startswith(b"data: ")
                await events.content.readline()
                answers = []
                for body in ("[" * 200_000 + "]" * 200_000, up({"customer.x": 10**400}),
                             up({"customer" + ".a" * 30: nested}), up({"customer.name": "\ud800"})):
                    async with client.post(server.url + "message", data=body) as response:
                        answers.append((response.status, await response.json()))
                assert [status for status, _ in answers] == [400, 400, 422, 400], answers
                assert "nested deeper than 64" in answers[0][1]["problems"][0] and "MAX_SAFE_INTEGER" in answers[1][1]["problems"][0]
                assert answers[2][1]["codes"] == ["too-large"]
                # a string that is not Unicode text is no message at all (the wire refuses it, anywhere in it)
                assert answers[3][1]["problems"] == ["parts[0].data.fields.customer.name: a string holds an unpaired surrogate (it is not Unicode text)"]
                await server.step({"customer": {"name": "\ud800"}})  # the agent's own state: sent as the JSON escape
                await server.step({"customer": {"name": "B"}})
                told = []
                for _ in range(2):
                    line = await asyncio.wait_for(events.content.readline(), 5)
                    told.append(json.loads(line[len(b"data: "):])["artifact"]["parts"][0]["data"])
                    await events.content.readline()
                assert told == [[{"op": "replace", "path": "/customer/name", "value": "\ud800"}],
                                [{"op": "replace", "path": "/customer/name", "value": "B"}]]
                events.close()
        finally:
            await server.stop()

    asyncio.run(scenario())


def test_the_live_command_reads_files_with_the_projects_json_reader(tmp_path, capsys):
    from flowui_sandbox.sandbox.document.live import main

    deep, good = tmp_path / "deep.json", tmp_path / "ok.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    good.write_text("{}")
    for args, line in [([str(deep), str(good)], f"{deep}:1:65: nested deeper than 64 objects and arrays"),
                       ([str(good), str(deep)], f"{deep}:1:65: nested deeper than 64 objects and arrays")]:
        assert main(args) == 2
        assert capsys.readouterr().err == line + "\n"


def test_an_upward_message_of_many_parts_or_values_is_refused_at_once():
    """300,000 parts (within MAX_WIRE_CHARS) took 4 s to check and made 25 MB of problems;
    2,000,000 empty objects in metadata 9 s; and the live server parsed 2,000,000 empty arrays for
    5 s before any check. Now more than MAX_UP_PARTS parts or MAX_UP_NODES values is one problem,
    and the live server counts the commas of the text before parsing it."""
    from flowui_sandbox.sandbox.document.wire import MAX_UP_NODES, MAX_UP_PARTS, text_over_nodes

    assert problems_of(check_up, message(*[{"text": "x"}] * 300_000)) == [("parts", f"300,000 parts; an upward message has at most {MAX_UP_PARTS}")]
    assert len(problems_of(check_up, message({"zz": 1}, *[{"zz": 1}] * MAX_UP_PARTS))) == 1
    assert len(problems_of(check_up, message({"text": "x"}, metadata={"a": [{}] * 2_000_000}))) == 1
    assert len(problems_of(check_up, message({"text": "x", "metadata": {"a": [[]] * MAX_UP_NODES}}))) == 1
    check_up(message({"text": "x" + ",[{" * 1_000_000}, {"raw": "QUJD" * 1_000_000, "mediaType": "text/plain"}))  # big strings are few values
    assert text_over_nodes(json.dumps([[]] * (MAX_UP_NODES + 2)))
    assert not text_over_nodes(json.dumps([',"\\",[' * MAX_UP_NODES]))  # commas inside a string, an escaped quote among them
    assert not text_over_nodes(json.dumps([[]] * MAX_UP_NODES)) and not text_over_nodes("[" * 200_000)
