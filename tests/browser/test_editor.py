"""`flowui-sandbox edit`: the editor page driven with real keys in every engine.

Each test starts a real editor server (sandbox.editor.server, in process, on a free port of
127.0.0.1) over a block file in a temporary folder, and drives the page with the `page` fixture.
"""

from __future__ import annotations

import json
import urllib.parse

import pytest
from editor_driver import block_click, block_eval, block_wait, focus_editor, leave_to, press, type_text

from flowui_sandbox.sandbox.editor.server import EditorServer, EditorSession
from flowui_sandbox.sandbox.generator import build_srcdoc

BLOCK = """<style>
  body { color: var(--flow-ui-text); background: var(--flow-ui-surface); }
  h1 { color: var(--flow-ui-accent); }
</style>
<h1 id="title">Hello</h1>
<p id="name" data-bind="customer.name"></p>
<button id="go">go</button>
<script>
  document.getElementById('go').addEventListener('click', function () {
    flowUi.send('submit', { n: 1 }).catch(function () {});
    flowUi.setValue('draft.email', 'a@example.com').catch(function () {});
    flowUi.openUrl('https://example.com/next').catch(function () {});
    setTimeout(function () { undefinedFunctionCall(); }, 0);
  });
</script>
<img id="blocked" alt="" src="http://example.invalid/pixel.png">
"""
# undefinedFunctionCall() is on line 13 of BLOCK, column 30.
ERROR_LINE, ERROR_COLUMN = 13, 30
STATE = {"customer": {"name": "Anna"}, "draft": {"email": ""}, "secret": "never-sent"}
FIELDS = ["draft.email"]


@pytest.fixture
def editor(flowui_portal, tmp_path):
    file = tmp_path / "block.html"
    file.write_text(BLOCK, encoding="utf-8")
    server = flowui_portal.run(EditorServer(EditorSession(file=file, state=STATE, fields=FIELDS)).start())
    yield server
    flowui_portal.run(server.stop())


def open_editor(page, editor) -> None:
    page.goto(editor.url)
    # The first build is connected, and the block rendered its projection.
    page.wait_for("() => Number(document.querySelector('[data-testid=preview]').dataset.ready) >= 1", timeout=20)
    assert block_wait(page, "() => document.getElementById('name')?.textContent") == "Anna"


def preview_srcdoc(page) -> str:
    return page.evaluate(
        "() => document.querySelector('.preview-frame').contentDocument.querySelector('.block:not(.pending) iframe').contentDocument.querySelector('iframe').getAttribute('srcdoc')"
    )


def ready_generation(page) -> int:
    return int(page.evaluate("() => document.querySelector('[data-testid=preview]').dataset.ready"))


def show_tab(page, name: str) -> None:
    page.click(f'[role=tab][data-tab="{name}"]')


def test_typing_changes_the_preview_and_its_srcdoc_is_build_srcdoc(flowui_page, editor):
    open_editor(flowui_page, editor)
    assert preview_srcdoc(flowui_page) == build_srcdoc(BLOCK, block_id="block", fields=FIELDS, state=STATE, theme={"color-scheme": "light"})
    before = ready_generation(flowui_page)
    focus_editor(flowui_page, "source")
    # The HTML mode closes the tag and the quotes as they are typed (as for any author).
    type_text(flowui_page, '<p id="typed">typed here')
    assert block_wait(flowui_page, "() => document.getElementById('typed')?.textContent") == "typed here"
    assert ready_generation(flowui_page) > before
    source = flowui_page.evaluate("() => window.flowuiEditor.source()")
    assert source.endswith('<p id="typed">typed here</p>')
    # The preview is the generator's document for what is on the page, byte for byte.
    assert preview_srcdoc(flowui_page) == build_srcdoc(source, block_id="block", fields=FIELDS, state=STATE, theme={"color-scheme": "light"})
    # The editor page's own CSP was never violated (the editor component included).
    assert flowui_page.evaluate("() => window.flowuiEditor.cspViolations") == []


def test_a_bad_state_shows_its_error_and_keeps_the_preview(flowui_page, editor):
    open_editor(flowui_page, editor)
    generation = ready_generation(flowui_page)
    show_tab(flowui_page, "state")
    focus_editor(flowui_page, "state")
    press(flowui_page, "Control+a")
    type_text(flowui_page, '{"customer": {"name": "Zed"')
    # closeBrackets completes the braces as it types: the text is valid JSON now.
    assert block_wait(flowui_page, "() => document.getElementById('name')?.textContent === 'Zed'")
    # A state push, not a reload: the same build, loaded once.
    assert ready_generation(flowui_page) == generation
    assert flowui_page.evaluate("() => document.querySelector('.preview-frame').contentWindow.flowuiPreview.status().loads") == 1
    focus_editor(flowui_page, "state")  # WebDriver's frame switches above may have moved the focus
    press(flowui_page, "Control+a")
    type_text(flowui_page, '{"customer": ')
    flowui_page.wait_for("(text) => window.flowuiEditor.stateText() === text", '{"customer": }')
    error = flowui_page.wait_for("() => { const e = document.querySelector('[data-testid=state-error]'); return !e.hidden && e.textContent; }")
    assert "line 1 column" in error
    # The last good preview stays, connected, with the last good state.
    assert block_eval(flowui_page, "() => document.getElementById('name').textContent") == "Zed"
    assert ready_generation(flowui_page) == generation


def test_a_theme_switch_recolors_the_block_without_reloading_it(flowui_page, editor):
    open_editor(flowui_page, editor)
    block_eval(flowui_page, "() => { window.stillHere = 'yes'; return true; }")
    light = block_eval(flowui_page, "() => getComputedStyle(document.getElementById('title')).color")
    flowui_page.evaluate("() => { const s = document.querySelector('[data-testid=scheme]'); s.value = 'dark'; s.dispatchEvent(new Event('change')); }")
    dark = block_wait(flowui_page, "(light) => { const c = getComputedStyle(document.getElementById('title')).color; return c !== light && c; }", light)
    assert dark != light
    assert block_eval(flowui_page, "() => [window.stillHere, getComputedStyle(document.documentElement).colorScheme]") == ["yes", "dark"]
    assert flowui_page.evaluate("() => document.documentElement.dataset.scheme") == "dark"
    # A token override is validated and applied, also without a reload; a bad one is refused.
    show_tab(flowui_page, "inputs")
    focus_editor(flowui_page, "theme")
    press(flowui_page, "Control+a")
    type_text(flowui_page, '{"accent": "#ff0000"')
    assert block_wait(flowui_page, "() => getComputedStyle(document.getElementById('title')).color === 'rgb(255, 0, 0)'")
    focus_editor(flowui_page, "theme")
    press(flowui_page, "Control+a")
    type_text(flowui_page, '{"accent": "nope"')
    flowui_page.wait_for("(text) => window.flowuiEditor.themeText() === text", '{"accent": "nope"}')
    error = flowui_page.wait_for("() => { const e = document.querySelector('[data-testid=theme-error]'); return !e.hidden && e.textContent.includes('nope') && e.textContent; }")
    assert "accent" in error and "nope" in error
    assert block_eval(flowui_page, "() => [window.stillHere, getComputedStyle(document.getElementById('title')).color]") == ["yes", "rgb(255, 0, 0)"]


def test_send_setvalue_openurl_and_errors_show_in_the_log_with_their_data(flowui_page, editor):
    open_editor(flowui_page, editor)
    show_tab(flowui_page, "log")
    block_click(flowui_page, "#go")
    entries = flowui_page.wait_for(
        "() => { const e = [...document.querySelectorAll('[data-testid=log] li')];"
        " const codes = e.map((li) => li.dataset.code);"
        " return ['action', 'value', 'block-error', 'csp-violation'].every((c) => codes.includes(c)) && codes.some((c) => c === 'refused' || c === 'no-gesture')"
        " && e.map((li) => ({code: li.dataset.code, text: li.textContent, line: li.dataset.line, column: li.dataset.column})); }",
        timeout=15,
    )
    by_code = {e["code"]: e for e in entries}
    action = by_code["action"]["text"]
    assert "application/vnd.platform.ui-action+json" in action
    ui_action = json.loads(action[action.index("{"):])
    assert ui_action == {"action": "submit", "source": "block", "fields": {"draft.email": "a@example.com"}, "payload": {"n": 1}} or \
        ui_action == {"action": "submit", "source": "block", "fields": {"draft.email": ""}, "payload": {"n": 1}}
    assert 'setValue draft.email = "a@example.com"' in by_code["value"]["text"]
    url_entry = next(e for e in entries if "https://example.com/next" in e["text"] and "verdict: refused" in e["text"])
    assert url_entry["code"] in ("refused", "no-gesture")
    error = by_code["block-error"]
    if flowui_page.name == "webkit":
        # WebKitGTK reports an opaque-origin frame's errors as "Script error." without a position
        # (bridge/PROTOCOL.md, Errors): the log says so rather than inventing one.
        assert "Script error." in error["text"] and "no position" in error["text"] and error["line"] == ""
    else:
        assert "undefinedFunctionCall" in error["text"]
        assert (int(error["line"]), int(error["column"])) == (ERROR_LINE, ERROR_COLUMN)
    csp = by_code["csp-violation"]["text"]
    assert "img-src" in csp and "http://example.invalid/pixel.png" in csp
    # The projection view shows what the block holds now: its value, and nothing outside its paths.
    show_tab(flowui_page, "projection")
    projection = json.loads(flowui_page.wait_for("() => { const t = document.querySelector('[data-testid=projection]').textContent; return t.includes('a@example.com') && t; }"))
    assert projection["state"] == {"customer": {"name": "Anna"}, "draft": {"email": "a@example.com"}}
    assert projection["fields"] == FIELDS and "customer.name" in projection["paths"]


def test_ctrl_s_saves_the_file(flowui_page, editor):
    open_editor(flowui_page, editor)
    focus_editor(flowui_page, "source")
    type_text(flowui_page, "saved text")
    flowui_page.wait_for("() => window.flowuiEditor.source().endsWith('saved text')")
    press(flowui_page, "Control+s")
    flowui_page.wait_for("() => !window.flowuiEditor.dirty()")
    assert editor.session.file.read_text(encoding="utf-8") == BLOCK + "saved text"
    assert not list(editor.session.file.parent.glob(".block.html.*"))  # no temporary file left


def test_a_stale_change_on_disk_is_detected_and_never_overwritten_silently(flowui_page, editor):
    open_editor(flowui_page, editor)
    file = editor.session.file
    # Without unsaved edits, a change on disk reloads the text.
    file.write_text(BLOCK + "<p>from disk</p>", encoding="utf-8")
    flowui_page.wait_for("() => window.flowuiEditor.source().endsWith('<p>from disk</p>')")
    assert flowui_page.evaluate("() => window.flowuiEditor.dirty()") is False
    # With unsaved edits, a change on disk is shown, and Ctrl-S does not overwrite it.
    focus_editor(flowui_page, "source")
    type_text(flowui_page, "mine")
    flowui_page.wait_for("() => window.flowuiEditor.source().endsWith('</p>mine')")
    file.write_text("<p>theirs</p>", encoding="utf-8")
    press(flowui_page, "Control+s")
    notice = flowui_page.wait_for("() => { const n = document.querySelector('[data-testid=notice]'); return !n.hidden && n.textContent; }")
    assert "changed on disk" in notice
    assert flowui_page.evaluate("() => document.querySelector('[data-testid=disk-text]').textContent") == "<p>theirs</p>"
    assert file.read_text(encoding="utf-8") == "<p>theirs</p>"
    # Both are offered: keeping mine writes it.
    flowui_page.click('[data-testid="keep-mine"]')
    flowui_page.wait_for("() => !window.flowuiEditor.dirty()")
    assert file.read_text(encoding="utf-8") == BLOCK + "<p>from disk</p>mine"


def test_requests_without_the_token_or_from_another_host_name_are_refused(flowui_page, editor):
    parts = urllib.parse.urlsplit(editor.url)
    flowui_page.goto(f"http://127.0.0.1:{editor.port}/")
    assert "token" in flowui_page.evaluate("() => document.body.textContent")
    flowui_page.goto(f"http://127.0.0.1:{editor.port}/{'x' * len(editor.token)}/")
    assert "token" in flowui_page.evaluate("() => document.body.textContent")
    # The same socket under another name (as a DNS-rebound site would reach it): refused.
    flowui_page.goto(f"http://localhost:{editor.port}{parts.path}")
    assert "Host must be" in flowui_page.evaluate("() => document.body.textContent")


def test_the_blocks_code_cannot_reach_the_editor(flowui_page, editor, tmp_path):
    probe = """<p id="out">probing</p><script>
      var results = {};
      function attempt(name, fn) { try { results[name] = 'reached: ' + String(fn()).slice(0, 80); } catch (e) { results[name] = 'blocked'; } }
      attempt('parent.document', function () { return parent.document.title; });
      attempt('top.document', function () { return top.document.title; });
      attempt('editor token', function () { return top.location.href; });
      attempt('editor api', function () { return parent.parent.flowuiEditor.source(); });
      attempt('cookie', function () { return document.cookie; });
      results.fetch = 'pending';
      try {
        fetch('http://127.0.0.1:' + PORT + '/' + TOKEN + '/api/session').then(
          function () { results.fetch = 'reached'; }, function () { results.fetch = 'blocked'; });
      } catch (e) { results.fetch = 'blocked'; }
      window.probeResults = results;
    </script>""".replace("PORT", str(editor.port)).replace("TOKEN", json.dumps(editor.token))
    editor.session.file.write_text(probe, encoding="utf-8")
    flowui_page.goto(editor.url)
    flowui_page.wait_for("() => Number(document.querySelector('[data-testid=preview]').dataset.ready) >= 1", timeout=20)
    results = block_wait(flowui_page, "() => window.probeResults && window.probeResults.fetch !== 'pending' && window.probeResults")
    assert results == {k: "blocked" for k in ("parent.document", "top.document", "editor token", "editor api", "cookie", "fetch")} | {
        "cookie": results["cookie"]
    }
    # The sandboxed frame has an opaque origin, so document.cookie throws or is empty.
    assert results["cookie"] in ("blocked", "reached: ")
    # The block runs in a sandboxed frame of the preview page, never in the editor's origin.
    assert flowui_page.evaluate(
        "() => document.querySelector('.preview-frame').contentDocument.querySelector('.block iframe').contentDocument.querySelector('iframe').getAttribute('sandbox')"
    ) == "allow-scripts"


def test_unsaved_text_survives_a_server_restart(flowui_page, editor, flowui_portal):
    open_editor(flowui_page, editor)
    focus_editor(flowui_page, "source")
    type_text(flowui_page, "kept")
    flowui_page.wait_for("() => window.flowuiEditor.source().endsWith('kept')")
    port, session = editor.port, editor.session
    flowui_portal.run(editor.stop())
    # The server is gone: a save fails, says so, and the text stays in the page.
    press(flowui_page, "Control+s")
    status = flowui_page.wait_for("() => { const s = document.querySelector('[data-testid=save-status]').textContent; return s.startsWith('not saved') && s; }")
    assert "stays" in status
    assert flowui_page.evaluate("() => window.flowuiEditor.source()").endswith("kept")
    # A new server on the same port (a new token): the page there gets the unsaved text back.
    again = flowui_portal.run(EditorServer(session, port=port).start())
    try:
        leave_to(flowui_page, again.url)
        flowui_page.wait_for("() => window.flowuiEditor && window.flowuiEditor.source().endsWith('kept')")
        assert flowui_page.evaluate("() => window.flowuiEditor.dirty()") is True
        assert session.file.read_text(encoding="utf-8") == BLOCK
    finally:
        flowui_portal.run(again.stop())


def test_the_cheatsheet_lists_the_api_and_every_token(flowui_page, editor):
    from flowui_sandbox.sandbox.editor.server import cheatsheet

    open_editor(flowui_page, editor)
    show_tab(flowui_page, "cheatsheet")
    text = flowui_page.wait_for("() => { const c = document.querySelector('[data-testid=cheatsheet]'); return c.textContent.includes('flowUi.send') && c.textContent; }")
    sheet = cheatsheet()
    assert all(a["member"] in text for a in sheet["api"])
    assert all(t["property"] in text for t in sheet["tokens"])


def test_static_review_findings_are_markers_at_their_lines_as_you_type(flowui_page, editor):
    open_editor(flowui_page, editor)
    focus_editor(flowui_page, "source")
    type_text(flowui_page, "<script>document.cookie")  # the HTML mode closes the script element
    finding = flowui_page.wait_for(
        "() => { const li = document.querySelector('[data-testid=findings] li[data-rule=\"blocked.cookie\"]'); return li && li.textContent; }",
        timeout=15,
    )
    assert finding.startswith(f"{BLOCK.count(chr(10)) + 1}:9 medium blocked.cookie: ")
    # The marker sits in the source, on that text, as a warning.
    assert flowui_page.wait_for(
        "() => [...document.querySelectorAll('[data-testid=source] .cm-lintRange-warning')].some((e) => e.textContent === 'd')"
    )
    assert flowui_page.evaluate("() => !document.querySelector('[data-testid=review-button]').hidden")
