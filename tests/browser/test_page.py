"""`build --page`: the self-contained host page mounts the block through the host module, in every engine."""

import json
from pathlib import Path

from flowui_sandbox.sandbox.block.srcdoc import build_page

ROOT = Path(__file__).resolve().parents[2]


def test_starter_page_mounts_and_answers_the_bridge(flowui_page, flowui_server):
    state = json.loads((ROOT / "examples" / "starter.state.json").read_text(encoding="utf-8"))
    html = build_page(
        (ROOT / "examples" / "starter.html").read_text(encoding="utf-8"),
        block_id="starter", state=state, fields=["order.items", "draft.email", "draft.agree"],
    )
    flowui_page.goto(flowui_server.add_page(html))
    # The host module connected the block, and its log reached the page.
    flowui_page.wait_for("() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('connected'))", timeout=20)
    # The block rendered its projection: the bound customer name is in the frame.
    assert flowui_page.wait_for(
        "() => document.querySelector('[data-bind=\"customer.name\"]')?.textContent", frame="#block iframe"
    ) == state["customer"]["name"]
    # A bridge call from inside the block comes back answered by the page's host.
    reply = flowui_page.evaluate("() => flowUi.send('preview_check', {n: 1})", frame="#block iframe")
    assert reply == {"received": "preview_check"}
    assert flowui_page.wait_for("() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('action preview_check'))")


def _starter_page(page, server):
    state = json.loads((ROOT / "examples" / "starter.state.json").read_text(encoding="utf-8"))
    html = build_page(
        (ROOT / "examples" / "starter.html").read_text(encoding="utf-8"),
        block_id="starter", state=state, fields=["order.items", "draft.email", "draft.agree"],
    )
    page.goto(server.add_page(html))
    page.wait_for("() => document.querySelector('#log li[data-code=connected]') !== null", timeout=20)


def _log_line(page, code: str, containing: str) -> str:
    return page.wait_for(
        "([code, text]) => [...document.querySelectorAll(`#log li[data-code=\"${code}\"]`)]"
        ".map((li) => li.textContent).find((t) => t.includes(text)) || null",
        [code, containing], timeout=15,
    )


def test_the_page_log_shows_the_data_of_actions_values_and_urls(flowui_page, flowui_server):
    """The bridge log shows what crossed the bridge, not only that something did."""
    _starter_page(flowui_page, flowui_server)
    frame = "#block iframe"
    flowui_page.evaluate("() => { const e = document.getElementById('email'); e.value = 'a@b.c';"
                  " e.dispatchEvent(new Event('input')); }", frame=frame)
    assert _log_line(flowui_page, "value", "draft.email") == 'info value: draft.email set to "a@b.c"'
    flowui_page.click("#agree", frame=frame)
    assert _log_line(flowui_page, "value", "draft.agree") == "info value: draft.agree set to true"
    flowui_page.click("#submit", frame=frame)
    line = _log_line(flowui_page, "action", "submit")
    assert line.startswith("info action: action submit from starter: fields {"), line
    assert '"draft.email":"a@b.c"' in line and '"draft.agree":true' in line and 'payload {"total":24.5}' in line, line
    # openUrl from a real click on the terms link: the target and the outcome. WebKitGTK's popup
    # blocker refuses a window opened from a frame's click, and the log says so, never "opened"
    # (bridge/PROTOCOL.md, probe bridge.openurl_outcome).
    flowui_page.click("#terms", frame=frame)
    if flowui_page.name == "webkit":
        line = _log_line(flowui_page, "popup-blocked", "popup blocker")
        assert line.startswith("warn popup-blocked: the browser's popup blocker refused"), line
        assert "https://example.com/terms" in line, line
    else:
        assert _log_line(flowui_page, "open-url", "example.com") == (
            "info open-url: opened https://example.com/terms (allowed by this page: a new tab, noopener, noreferrer)")


def test_the_starter_opened_on_its_own_says_how_to_preview_it(flowui_page, flowui_server):
    """No host, no window.flowUi: a visible message naming the command, not a ReferenceError."""
    source = (ROOT / "examples" / "starter.html").read_text(encoding="utf-8")
    errors = "<script>window.__errors = []; addEventListener('error', (e) => __errors.push(String(e.message)));</script>"
    flowui_page.goto(flowui_server.add_page("<!DOCTYPE html><html><head><meta charset=utf-8>" + errors + "</head><body>" + source))
    note = flowui_page.wait_for("() => { const n = document.getElementById('no-host');"
                         " return n && n.getBoundingClientRect().height > 0 ? n.textContent : null; }")
    assert "flowui-sandbox build examples/starter.html" in note and "--page" in note
    assert flowui_page.evaluate("() => window.__errors") == []
    assert "flowui-sandbox build examples/starter.html" in source.split("-->")[0]  # the comment at the top says it too
