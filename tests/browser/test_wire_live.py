"""The wire end to end in real browsers: one client's session (sandbox/document/session.py) streamed
by the live page server (sandbox/document/live.py) to a host page that mounts the document's html
blocks with the real host module, applies the patches and sends ui-actions back up as Messages.

Random state steps, navigations, renders into a slot and ui-actions from inside the blocks; at
checkpoints (and before every remount) the test reads, from inside each block's frame, every state
the block ever held, and from the host page the state it was told. Expected projections are written
out here by hand (not computed by the session). With the projection turned off (``leak=True``) the
same drive must report a leak.
"""

from __future__ import annotations

import copy
import json
import random
import time

from flowui_sandbox.sandbox.block.projection import MISSING, get_path, project
from flowui_sandbox.sandbox.document.live import LiveServer
from flowui_sandbox.sandbox.document.patch import json_equal
from flowui_sandbox.sandbox.engines import ScriptTimeout

# Each html block records every state it holds, from inside its own frame.
RECORDER = "<script>window.seen = []; flowUi.onChange(function (s) { window.seen.push(JSON.stringify(s)); });</script>"

DOCUMENT = {
    "start_page_id": "main",
    "pages": [
        {"page_id": "main", "title": "Order", "blocks": [
            {"block_id": "title", "type": "heading", "text": "Hello {?customer.name}"},
            {"block_id": "email", "type": "text_input", "field": "email", "label": "Email"},
            {"block_id": "card", "type": "html", "source": '<b data-bind="order.total"></b>' + RECORDER, "fields": ["note"]},
            {"block_id": "send", "type": "button", "label": "Send", "action": {"name": "submit"}},
            {"block_id": "result", "type": "slot", "title": "Result"},
        ]},
        {"page_id": "done", "title": "Done", "blocks": [
            {"block_id": "done_text", "type": "text", "markdown": "Thanks, {?email} {?summary.status}"},
            {"block_id": "receipt", "type": "html", "source": '<i data-bind="receipt.code"></i>' + RECORDER, "fields": ["rating"]},
        ]},
    ],
}

# Written by hand: what each page's client may hold, and each html block.
PAGE_PATHS = {"main": ["customer.name", "email", "note", "order.total"], "done": ["email", "summary.status", "rating", "receipt.code"]}
LIVE_PATHS = ["pick", "summary.status"]  # a block rendered into main's slot
BLOCK_PATHS = {"card": ["note", "order.total"], "receipt": ["rating", "receipt.code"]}
OWN_FIELD = {"card": ("note", "text"), "receipt": ("rating", "number")}


def live_block(n: int) -> dict:
    return {"block_id": f"live_{n}", "type": "html", "fields": ["pick"],
            "source": '<u data-bind="summary.status"></u>' + RECORDER}


SECRET_PATHS = ["customer.password", "order.card_number", "secret.token"]
PUBLIC = {
    "customer.name": lambda r: r.choice(["Anna", "Бо", "a/b~c", ""]),
    "email": lambda r: f"user{r.randrange(100)}@example.com",
    "note": lambda r: r.choice(["", "hi", "x" * r.randrange(1, 40)]),
    "order.total": lambda r: r.randrange(-5, 10_000),
    "summary.status": lambda r: r.choice(["ok", "sent", None, {"nested": [1, 2]}]),
    "rating": lambda r: r.randrange(1, 6),
    "receipt.code": lambda r: f"R-{r.randrange(10**6)}",
    "pick": lambda r: r.choice(["a", "b", ""]),
}


def set_path(state: dict, path: str, value) -> None:
    keys = path.split(".")
    node = state
    for key in keys[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    if value is MISSING:
        node.pop(keys[-1], None)
    else:
        node[keys[-1]] = value


def random_step(rng: random.Random, state: dict, n: int) -> dict:
    new = copy.deepcopy(state)
    for _ in range(rng.randrange(1, 4)):
        if rng.random() < 0.35:
            set_path(new, rng.choice(SECRET_PATHS), f"SECRET-{n}-{rng.randrange(10**6)}")
        else:
            path = rng.choice(list(PUBLIC))
            set_path(new, path, MISSING if rng.random() < 0.15 else PUBLIC[path](rng))
    return new


class Counted:
    """The page, counting the test's round trips into it (for the run's numbers)."""

    def __init__(self, page):
        self.page, self.trips = page, 0

    def evaluate(self, *args, **kw):
        self.trips += 1
        return self.page.evaluate(*args, **kw)

    def wait_for(self, *args, **kw):
        self.trips += 1
        return self.page.wait_for(*args, **kw)


class Drive:
    def __init__(self, page, portal, server: LiveServer):
        self.page, self.portal, self.server = Counted(page), portal, server
        self.findings: list[str] = []
        self.page_id = "main"
        self.live: int | None = None  # the live block shown in main's slot
        self.frames_checked = 0
        self.seen_states = 0

    def expected_paths(self) -> list[str]:
        return PAGE_PATHS[self.page_id] + (LIVE_PATHS if self.page_id == "main" and self.live is not None else [])

    def shown_blocks(self) -> dict[str, list[str]]:
        if self.page_id == "done":
            return {"receipt": BLOCK_PATHS["receipt"]}
        blocks = {"card": BLOCK_PATHS["card"]}
        if self.live is not None:
            blocks[f"live_{self.live}"] = LIVE_PATHS
        return blocks

    def caught_up(self, *blocks: str) -> None:
        """Wait until the page has taken every event sent and these blocks are connected."""
        self.page.wait_for("(a) => window.wire.events >= a.n && a.ids.every((id) => window.wire.handles[id] && window.wire.handles[id].status === 'connected')",
                           {"n": len(self.server.sent), "ids": list(blocks)}, timeout=20)

    def check(self) -> None:
        """The client's state is the server's projection, in the same sequence; every frame held only its own."""
        self.caught_up(*self.shown_blocks())
        client = self.page.evaluate("() => ({state: window.wire.state, told: window.wire.told, errors: window.wire.errors})")
        assert client["errors"] == [], client["errors"]
        expected = project(self.server.state, self.expected_paths())
        if not json_equal(client["state"], expected):
            extra = sorted(_leaves(client["state"]) - _leaves(expected))
            self.findings.append(f"the client holds {json.dumps(client['state'])} beyond its projection "
                                 f"{self.expected_paths()} (paths {extra})")
        told = [json.loads(t) for t in client["told"]]
        server_told = [json.loads(t) for t in self.server.told]
        if len(told) != len(server_told) or not all(json_equal(a, b) for a, b in zip(told, server_told)):
            self.findings.append("the client's states differ from what the server told it")
        for block, paths in self.shown_blocks().items():
            frame = f'iframe[data-block-id="{block}"]'
            try:  # the host has taken the last event; its push to the frame crosses a postMessage after that
                self.page.wait_for(FRAME_HOLDS, project(self.server.state, paths), frame=frame, timeout=5)
            except ScriptTimeout:
                pass  # still different: frame_findings names what the frame holds
            held = self.page.evaluate("() => ({seen: window.seen, now: flowUi.state})", frame=frame)
            self.frames_checked += 1
            self.seen_states += len(held["seen"])
            self.findings += frame_findings(block, paths, held["seen"], held["now"], self.server.state)

    def act(self, rng: random.Random, n: int) -> bool:
        """A ui-action from inside a block on the page: set its own field, send; True when accepted."""
        block = rng.choice(list(self.shown_blocks()))
        field, kind = OWN_FIELD.get(block, ("pick", "text"))
        value = rng.randrange(1, 6) if kind == "number" else f"typed {n}"
        self.caught_up(block)
        answer = self.page.evaluate(
            "async (a) => { await flowUi.setValue(a.field, a.value); return await flowUi.send('save', {n: a.n}); }",
            {"field": field, "value": value, "n": n}, frame=f'iframe[data-block-id="{block}"]', timeout=20)
        assert answer == {"accepted": True}, (block, answer)
        assert get_path(self.server.state, field) == value
        return True

    def forge(self, source: str) -> list[str]:
        """A Message from a block this client was not shown: refused, with the reason codes."""
        message = {"role": "ROLE_USER", "contextId": "ctx-live", "taskId": "task-live",
                   "parts": [{"mediaType": "application/vnd.platform.ui-action+json",
                              "data": {"action": "save", "source": source, "fields": {}}}]}
        answer = self.page.evaluate("(m) => window.wire.post(m)", message)
        assert answer["accepted"] is False, answer
        return answer["codes"]


#: Whether the frame's state is the given value (numbers as numbers, keys in any order).
FRAME_HOLDS = """(expected) => {
  const eq = (a, b) => a === b || (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null
    && Array.isArray(a) === Array.isArray(b) && Object.keys(a).length === Object.keys(b).length
    && Object.keys(a).every((k) => Object.prototype.hasOwnProperty.call(b, k) && eq(a[k], b[k])));
  return eq(flowUi.state, expected);
}"""


def frame_findings(block: str, paths: list[str], seen: list[str], now, server_state: dict) -> list[str]:
    """What is wrong with what a block's frame held: every state it saw (JSON texts) and its state now."""
    findings = []
    for text in seen:
        value = json.loads(text)
        if "SECRET" in text or not json_equal(project(value, paths), value):
            findings.append(f"block {block} held {text} outside its projection {paths}")
    if not json_equal(now, project(server_state, paths)):
        findings.append(f"block {block} holds {now!r}, not the server's {project(server_state, paths)!r}")
    return findings


def test_the_frame_check_finds_a_value_outside_the_projection():
    server = {"note": "n", "order": {"total": 1, "card_number": "SECRET-1"}, "email": "e"}
    good = json.dumps({"note": "n", "order": {"total": 1}})
    assert frame_findings("card", BLOCK_PATHS["card"], [good], json.loads(good), server) == []
    outside = json.dumps({"note": "n", "email": "e"})  # a path of the page, not of the block
    secret = json.dumps({"order": {"total": 1, "card_number": "SECRET-1"}})
    found = frame_findings("card", BLOCK_PATHS["card"], [good, outside, secret], {"note": "old"}, server)
    assert [f.split(" held ")[0].split(" holds ")[0] for f in found] == ["block card"] * 3, found


def _leaves(value, at: str = "") -> set[str]:
    if isinstance(value, dict) and value:
        return {leaf for key, child in value.items() for leaf in _leaves(child, f"{at}.{key}" if at else key)}
    return {at}


def drive(page, portal, *, leak: bool, steps: int, seed: int = 21) -> tuple[Drive, dict]:
    rng = random.Random(seed)
    state = {"customer": {"name": "Anna", "password": "SECRET-pw"}, "email": "a@b.c", "order": {"total": 1, "card_number": "SECRET-4111"},
             "secret": {"token": "SECRET-t"}, "receipt": {"code": "R-1"}}
    server = portal.run(LiveServer(DOCUMENT, state, leak=leak).start())
    counts = {"steps": 0, "actions": 0, "refused": 0, "navigates": 0, "renders": 0}
    try:
        started = time.perf_counter()
        page.goto(server.url)
        page.wait_for("() => window.wire && window.wire.ready === true && window.wire.events >= 1", timeout=20)
        d = Drive(page, portal, server)
        replaced: list[str] = []
        n = 0
        while counts["steps"] < steps:
            n += 1
            roll = rng.random()
            if roll < 0.06:
                d.check()  # every frame about to go away is read first
                d.page_id = "done" if d.page_id == "main" else "main"
                portal.run(server.navigate(d.page_id))
                counts["navigates"] += 1
            elif roll < 0.09 and d.page_id == "main":
                d.check()
                if d.live is not None:
                    replaced.append(f"live_{d.live}")
                d.live = n
                portal.run(server.render("result", [live_block(n)]))
                counts["renders"] += 1
            elif roll < 0.24:
                d.act(rng, n)
                counts["actions"] += 1
            elif roll < 0.27:
                # Blocks not shown to this client: the other page's html block, a replaced rendered block.
                other = "receipt" if d.page_id == "main" else "card"
                codes = d.forge(other)
                assert codes == ["not-on-page"], codes
                counts["refused"] += 1
                if replaced:
                    codes = d.forge(replaced[-1])
                    assert codes == ["unknown-source"], codes
                    counts["refused"] += 1
            else:
                state = random_step(rng, server.state, n)
                portal.run(server.step(state))
                counts["steps"] += 1
            if n % 50 == 0:
                d.check()
        d.check()
        counts["wall_s"] = round(time.perf_counter() - started, 2)
        counts["frames_checked"] = d.frames_checked
        counts["frame_states"] = d.seen_states
        counts["events"] = len(server.sent)
        counts["round_trips"] = d.page.trips
        return d, counts
    finally:
        portal.run(server.stop())


def test_one_client_over_the_wire_holds_only_its_projection(flowui_page, flowui_portal):
    d, counts = drive(flowui_page, flowui_portal, leak=False, steps=200)
    print(f"\nwire live {flowui_page.name}: {counts}")
    assert d.findings == []
    assert counts["steps"] >= 200 and counts["actions"] >= 20 and counts["refused"] >= 3, counts
    assert counts["navigates"] >= 2 and counts["renders"] >= 1 and counts["frame_states"] > 0, counts


def test_the_same_drive_without_the_projection_finds_the_leak(flowui_page, flowui_portal):
    d, counts = drive(flowui_page, flowui_portal, leak=True, steps=40)
    print(f"\nwire live, projection off, {flowui_page.name}: {counts}")
    assert any("the client holds" in f and "SECRET" in f for f in d.findings), d.findings
    # The frames stay clean even so: the host module gives each block only its own paths.
    assert not [f for f in d.findings if f.startswith("block ")], d.findings


def test_the_host_page_refuses_a_kind_or_media_type_it_does_not_know(flowui_page, flowui_portal):
    state = {"email": "a@b.c", "secret": {"token": "SECRET-t"}}
    server = flowui_portal.run(LiveServer(DOCUMENT, state).start())
    try:
        flowui_page.goto(server.url)
        flowui_page.wait_for("() => window.wire && window.wire.ready === true && window.wire.events >= 1", timeout=20)
        base = {"taskId": "task-live", "contextId": "ctx-live"}
        flowui_portal.run(server.push_raw({**base, "artifact": {"artifactId": "ui", "parts": [
            {"data": {"kind": "close"}, "mediaType": "application/vnd.platform.ui+json"}]}}))
        flowui_portal.run(server.push_raw({**base, "artifact": {"artifactId": "state", "parts": [
            {"data": {"email": "x"}, "mediaType": "text/x"}]}}))
        flowui_portal.run(server.step({**state, "email": "b@c.d"}))
        flowui_page.wait_for("() => window.wire.events >= 4", timeout=20)
        client = flowui_page.evaluate("() => ({errors: window.wire.errors, state: window.wire.state, page: window.wire.page})")
        assert client["errors"] == [
            "artifact.parts[0].data.kind: kind must be one of render, navigate, not \"close\"",
            "artifact.parts[0].mediaType: \"text/x\" is not a downlink mediaType (application/json, "
            "application/json-patch+json, application/vnd.platform.ui+json)",
        ]
        assert client["state"] == {"email": "b@c.d"} and client["page"] == "main"  # nothing of the bad parts was applied
    finally:
        flowui_portal.run(server.stop())
