"""The harnesses' host page scripts are files (sandbox/review/browser/host-page.js and
block-frame.js, sandbox/verify/host-page.js): the pages carry them whole, with their parameters
as JSON, and the Python side holds one-line calls."""

from __future__ import annotations

import json

import pytest
import tree_sitter_javascript
from selectolax.lexbor import LexborHTMLParser
from tree_sitter import Language, Parser

from flowui_sandbox.sandbox.errors import SandboxError
from flowui_sandbox.sandbox.review.browser import hostpage
from flowui_sandbox.sandbox.verify import host_page as verify_page
from flowui_sandbox.sandbox.verify.probes import load_catalogue

_JS = Parser(Language(tree_sitter_javascript.language()))
#: The calls into the host page and the block's frame the review harness makes.
_REVIEW_CALLS = ("LOADED", "MOUNT", "READY", "READ", "UNMOUNT", "FRAME_STATE", "CLIP", "SCROLL_END", "PAINTED", "RESIZED",
                 "SET_STATE", "SET_THEME", "TO_VIEWPORT")
_FRAME_CALLS = ("LIST_ACTIONS", "LOCATE", "FOCUS", "SELECT_LAST", "HAS_COLOR_SCHEME")


def _valid(code: str) -> bool:
    return not _JS.parse(code.encode("utf-8")).root_node.has_error


@pytest.mark.parametrize("path", [hostpage.HOST_SCRIPT, hostpage.FRAME_SCRIPT, verify_page.HOST_SCRIPT], ids=lambda p: p.name)
def test_each_script_file_is_javascript(path):
    assert _valid(path.read_text(encoding="utf-8"))


def test_the_review_host_page_runs_its_script_with_the_config_as_json():
    scripts = LexborHTMLParser(hostpage.host_page()).css("script")
    assert len(scripts) == 1 and scripts[0].attributes.get("type") == "module"
    code = scripts[0].text()
    assert hostpage.HOST_SCRIPT.read_text(encoding="utf-8") in code and _valid(code)
    call = code.rstrip().splitlines()[-1]
    assert call.startswith("start(mountHtmlBlock, ") and call.endswith(");")
    assert json.loads(call[len("start(mountHtmlBlock, "):-2]) == hostpage.config() == {
        "maxItems": hostpage.MAX_ITEMS, "maxChars": hostpage.MAX_CHARS, "frame": hostpage.FRAME}


def test_the_review_calls_are_one_line_and_the_frame_functions_come_from_the_file():
    for name in _REVIEW_CALLS:
        call = getattr(hostpage, name)
        assert "\n" not in call and len(call) < 80 and _valid(f"({call})"), name
    frame = hostpage.FRAME_SCRIPT.read_text(encoding="utf-8")
    for name in _FRAME_CALLS:
        function = getattr(hostpage, name)
        assert function in frame and function.startswith("(") and _valid(f"({function})"), name
    with pytest.raises(SandboxError, match="no function 'nope'"):
        hostpage.frame_function("nope")


def test_both_verify_host_pages_run_the_script_file():
    script = verify_page.HOST_SCRIPT.read_text(encoding="utf-8").rstrip("\n")
    kept = LexborHTMLParser(verify_page.kept_host_page()).css("script")
    assert [s.text() for s in kept] == [script]
    assert "\n" not in verify_page.MOUNT
    probe = next(p for p in load_catalogue() if p.bridge and not p.host_html)
    values = {"host_nonce": "n0", "secret_title": "t", "secret_dom": "d", "secret_local_storage": "l", "secret_session_storage": "s"}
    loaded = LexborHTMLParser(verify_page.host_page(probe, values, None, [{"source": "<p></p>"}])).css("script")
    start, bridge = loaded[0].text(), loaded[-1].text()
    assert start.startswith(script + "\n__hostStart(") and start.endswith(" addEventListener('load', __hostLoaded);")
    init = json.loads(start[len(script + "\n__hostStart("):-len("); addEventListener('load', __hostLoaded);")])
    assert init["nonce"] == "n0" and init["blocks"] == [{"source": "<p></p>"}]
    assert "\n" not in bridge and "window.__hostBridge(mountHtmlBlock)" in bridge


def test_a_script_that_would_end_its_element_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "host-page.js"
    bad.write_text("const x = '</script>';\n", encoding="utf-8")
    monkeypatch.setattr(hostpage, "HOST_SCRIPT", bad)
    hostpage.host_page.cache_clear()
    try:
        with pytest.raises(SandboxError, match="</script"):
            hostpage.host_page()
    finally:
        monkeypatch.undo()
        hostpage.host_page.cache_clear()
