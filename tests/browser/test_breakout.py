"""Breakout payloads in the source, the state, the title and the theme never run anything in the host.

The host page (served by the real local server, no CSP of its own so that an escaped script
WOULD run) sets traps: a global ``__trap(id)`` every payload calls on ``top``, its title and
``window.name``, and a log of the messages its iframes post. Every payload runs the same snippet:
``top.__trap(id)`` and ``top.document.title = ...`` (both throw from inside an opaque-origin
block) then ``parent.postMessage({ran: id})``. So a payload that escaped into the host is caught
by the trap; one that runs inside the block shows up as a message from that block.

Positive controls, so the test can fail:
* every block starts with a control script that posts back what the browser made of the
  document: the init JSON text and the first element of head; the host checks them against
  the generator's output, and checks each iframe's parsed srcdoc attribute byte for byte;
* a plain ``<script>`` payload must be seen running inside its block;
* a naive generator (srcdoc not escaped) on the same page machinery IS caught by the trap.
"""

from __future__ import annotations

import json

import pytest

from flowui_sandbox.sandbox.block.policy import CSP, REFERRER_POLICY, SANDBOX
from flowui_sandbox.sandbox.block.srcdoc import build_iframe, build_srcdoc
from flowui_sandbox.theme import LIGHT, Theme, ThemeError


def payload(tag: str) -> str:
    """JavaScript that reports where it runs: the host's trap, or a message from the block."""
    return (
        f"try{{top.__trap('{tag}')}}catch(e){{}};try{{top.document.title='pwned {tag}'}}catch(e){{}};"
        f"try{{top.name='pwned'}}catch(e){{}};try{{parent.postMessage({{ran:'{tag}'}},'*')}}catch(e){{}}"
    )


CONTROL = (
    "<script>(function(){var i=document.getElementById('flow-ui-init');var h=document.head.firstElementChild;"
    "parent.postMessage({control:true,init:i?i.textContent:null,first:h?h.outerHTML:null},'*')})()</script>"
)

SOURCE_PAYLOADS = {
    "plain-script": f"<script>{payload('plain-script')}</script>",
    "close-iframe": f"</iframe><script>{payload('close-iframe')}</script>",
    "close-attribute": f'"><script>{payload("close-attribute")}</script>',
    "close-attribute-and-iframe": f'"></iframe><script>{payload("close-attribute-and-iframe")}</script>',
    "onload-attribute": f'" onload="{payload("onload-attribute")}" x="',
    "single-quote": f"' onload='{payload('single-quote')}' x='",
    "entity-quote": f"&quot;><script>{payload('entity-quote')}</script>&quot;",
    "double-entity": f"&amp;quot;&gt;&lt;script&gt;{payload('double-entity')}&lt;/script&gt;",
    "raw-text-ends": f"</textarea></title></style></script></noscript></xmp></iframe><script>{payload('raw-text-ends')}</script>",
    "comment": f'<!--"><script>{payload("comment")}</script>-->',
    "crlf": f'\r\n\r"\r\n><script>{payload("crlf")}</script>',
    "nbsp": f'\u00a0&nbsp;"\u00a0><svg onload="{payload("nbsp")}">',
    "end-of-document": f"</body></html><script>{payload('end-of-document')}</script>",
    "nested-srcdoc": f'<iframe srcdoc="<script>{payload("nested-srcdoc")}</script>"></iframe>',
    "img-onerror": f'<img src="x:" onerror="{payload("img-onerror")}">',
    "plaintext": f'<plaintext>"><script>{payload("plaintext")}</script>',
    "unclosed-script": f"<script>{payload('unclosed-script')}",
    "fake-head": f'</head><head><meta http-equiv="Content-Security-Policy" content="script-src *"><script>{payload("fake-head")}</script>',
}

#: The source payloads whose script runs, inside the block (author code is allowed to run there).
RUN_INSIDE_THE_BLOCK = [
    "close-attribute", "close-attribute-and-iframe", "close-iframe", "crlf", "end-of-document", "entity-quote",
    "fake-head", "img-onerror", "nbsp", "plain-script", "raw-text-ends",
]

STATE_PAYLOADS = [
    f"</script><script>{payload('state-close-script')}</script>",
    f"</SCRIPT\t><script>{payload('state-upper')}</script>",
    f"<!--<script>{payload('state-comment')}</script>-->",
    f"\u2028\u2029</script><script>{payload('state-separators')}</script>",
    f"]]></script><script>{payload('state-cdata')}</script>",
    f'"><img src=x: onerror="{payload("state-attribute")}">',
    f"&lt;/script&gt;&#x3c;/script>&quot;<script>{payload('state-entities')}</script>",
    "<\\/script><\\u002fscript>",
]

TITLE_PAYLOAD = f'"><script>{payload("title")}</script><x title="'


def blocks() -> list[dict]:
    """Each block: its id, source, state, title and the document the generator made."""
    out = []
    for i, (tag, attack) in enumerate(SOURCE_PAYLOADS.items()):
        out.append({"id": f"src-{i}", "tag": tag, "source": CONTROL + attack, "state": {"n": i}, "paths": ["n"], "title": None})
    state = {"s": STATE_PAYLOADS, "k": {p: p for p in STATE_PAYLOADS}, "secret": STATE_PAYLOADS}
    out.append({
        "id": "state", "tag": "state", "source": CONTROL + '<p data-bind="s"></p><p data-bind="k"></p><p data-bind="s.0"></p>',
        "state": state, "paths": ["s", "k", "s.0"], "title": None,
    })
    out.append({"id": "title", "tag": "title", "source": CONTROL, "state": None, "paths": [], "title": TITLE_PAYLOAD})
    for block in out:
        block["srcdoc"] = build_srcdoc(block["source"], block_id=block["id"], state=block["state"], paths=block["paths"])
        block["iframe"] = build_iframe(
            block["source"], block_id=block["id"], state=block["state"], paths=block["paths"], title=block["title"]
        )
        block["init"] = block["srcdoc"].split('id="flow-ui-init">', 1)[1].split("</script>", 1)[0]
    return out


def host_page(iframes: str) -> str:
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>host</title></head><body>'
        "<script>"
        "window.name='host-window';window.__hits=[];window.__trap=function(id){window.__hits.push(String(id))};"
        "window.__messages=[];"
        "addEventListener('message',function(e){var f=document.querySelectorAll('iframe');"
        "for(var i=0;i<f.length;i++)if(e.source===f[i].contentWindow)"
        "window.__messages.push({block:f[i].getAttribute('data-block-id'),data:e.data});});"
        "</script>"
        f'<div id="blocks">{iframes}</div></body></html>'
    )


# Everything the host can observe after the blocks ran, compared in the page against the generator's output.
INSPECT = """(expected) => {
  const problems = [];
  const frames = [...document.querySelectorAll('#blocks > iframe')];
  if (document.body.children.length !== 2) problems.push('host body has ' + document.body.children.length + ' children');
  if (document.querySelectorAll('iframe').length !== expected.length) problems.push('iframe count ' + document.querySelectorAll('iframe').length);
  if (document.querySelectorAll('script').length !== 1) problems.push('host has ' + document.querySelectorAll('script').length + ' scripts');
  expected.forEach((block, i) => {
    const f = frames[i];
    if (!f) { problems.push(block.id + ': no iframe'); return; }
    const names = f.getAttributeNames().join(' ');
    if (names !== 'sandbox referrerpolicy title data-block-id srcdoc') problems.push(block.id + ': attributes ' + names);
    if (f.getAttribute('sandbox') !== block.sandbox) problems.push(block.id + ': sandbox ' + f.getAttribute('sandbox'));
    if (f.getAttribute('referrerpolicy') !== block.referrerPolicy) problems.push(block.id + ': referrerpolicy');
    if (f.getAttribute('title') !== block.title) problems.push(block.id + ': title ' + JSON.stringify(f.getAttribute('title')));
    if (f.getAttribute('data-block-id') !== block.id) problems.push(block.id + ': data-block-id');
    if (f.getAttribute('srcdoc') !== block.srcdoc) problems.push(block.id + ': srcdoc differs from the generated document');
    const control = window.__messages.find(m => m.block === block.id && m.data && m.data.control);
    if (!control) problems.push(block.id + ': no control message');
    else {
      if (control.data.init !== block.init) problems.push(block.id + ': init JSON text differs: ' + JSON.stringify(control.data.init).slice(0, 200));
      if (control.data.first !== block.first) problems.push(block.id + ': first head element ' + control.data.first);
    }
  });
  const ran = window.__messages.filter(m => m.data && m.data.ran).map(m => m.block + ':' + m.data.ran);
  return {problems, hits: window.__hits, title: document.title, name: window.name, ran};
}"""


def test_breakout_payloads_never_run_in_the_host(flowui_page, flowui_server):
    built = blocks()
    url = flowui_server.add_page(host_page("".join(b["iframe"] for b in built)))
    flowui_page.goto(url)
    # Wait until every block reported, or until something ran in the host (then fail at once, below).
    flowui_page.wait_for(
        "(n) => window.__hits.length > 0 || window.__messages.filter(m => m.data && m.data.control).length >= n",
        len(built), timeout=30,
    )
    expected = [
        {
            "id": b["id"], "srcdoc": b["srcdoc"], "init": b["init"], "sandbox": SANDBOX, "referrerPolicy": REFERRER_POLICY,
            "title": b["title"] if b["title"] is not None else f"html block {b['id']}",
            "first": f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        }
        for b in built
    ]
    seen = flowui_page.evaluate(INSPECT, expected)
    assert seen["hits"] == [], f"{flowui_page.name}: payloads ran in the host: {seen['hits']}"
    assert seen["problems"] == []
    assert seen["title"] == "host"
    assert seen["name"] == "host-window"
    # The payloads are live JavaScript: these run, each inside its own block only (the same in
    # every engine). State and title payloads are data: they ran nowhere, not even in their block.
    assert sorted(r.split(":", 1)[1] for r in seen["ran"]) == sorted(RUN_INSIDE_THE_BLOCK)
    assert all(r.startswith("src-") for r in seen["ran"])


def test_the_trap_catches_a_naive_generator(flowui_page, flowui_server):
    """The same host and payload with the srcdoc left unescaped: the payload escapes and is caught."""
    attack = SOURCE_PAYLOADS["close-attribute-and-iframe"]
    naive = f'<iframe sandbox="{SANDBOX}" srcdoc="<p>block</p>{attack}"></iframe>'
    flowui_page.goto(flowui_server.add_page(host_page(naive)))
    hits = flowui_page.wait_for("() => window.__hits.length ? window.__hits : null", timeout=15)
    assert hits == ["close-attribute-and-iframe"]
    assert flowui_page.evaluate("() => document.title") == "pwned close-attribute-and-iframe"


HOSTILE_THEMES = [
    {"accent": "red;}</style><script>top.__trap('theme')</script><style>"},
    {"text": "red}body{background:url(https://canary.example/x)}"},
    {"radius": "1px;--x:expression(alert(1))"},
    {"border": "</style><img src=x: onerror=top.__trap('theme')>"},
    {"panel": "rgb(1,2,3)/*"},
    {"surface": "#fff\\3c /style\\3e"},
    {"page-background": "url(javascript:alert(1))"},
    {"color-scheme": "dark;}</style><script>alert(1)</script>"},
    {"accent": "red\n}"},
    {"<script>": "red"},
    {"accent": ["red"]},
]


@pytest.mark.parametrize("theme", HOSTILE_THEMES, ids=lambda t: next(iter(t)))
def test_hostile_theme_values_are_refused_before_any_html(theme):
    with pytest.raises(ThemeError):
        build_srcdoc("<p>x</p>", block_id="b", theme=theme, paths=[])
    with pytest.raises(ThemeError):
        build_iframe("<p>x</p>", block_id="b", theme=theme, paths=[])


def test_a_theme_cannot_be_smuggled_in_as_css():
    # A Theme built without validation (model_construct), or any other object, is checked again.
    forged = Theme.model_construct(color_scheme="light", tokens={**LIGHT.tokens, "accent": "red}</style><script>top.__trap(1)</script>"})
    with pytest.raises(ThemeError):
        build_iframe("", block_id="b", theme=forged, paths=[])
    with pytest.raises(ThemeError):
        build_iframe("", block_id="b", theme=":root{--flow-ui-text:red}</style><script>alert(1)</script>", paths=[])  # type: ignore[arg-type]
    # The only CSS that reaches the document is Theme.to_css() of a validated theme.
    doc = build_srcdoc("", block_id="b", theme={"accent": "#123456"}, paths=[])
    css = doc.split('<style id="flow-ui-theme">', 1)[1].split("</style>", 1)[0]
    assert css == Theme.parse({"accent": "#123456"}).to_css()
    assert json.loads(doc.split('id="flow-ui-init">', 1)[1].split("</script>", 1)[0])["theme"]["accent"] == "#123456"
