"""The block document, its iframe, the host page, the goldens and the `build` command."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import html5lib
import pytest

from flowui_sandbox.bridge import runtime_source
from flowui_sandbox.sandbox.block.jsonjs import JSONValueError
from flowui_sandbox.sandbox.block.policy import CSP, REFERRER_POLICY, SANDBOX
from flowui_sandbox.sandbox.block.srcdoc import BASE_CSS, GeneratorError, build_iframe, build_page, build_srcdoc, escape_attribute, iframe_for
from flowui_sandbox.sandbox.cli import main
from flowui_sandbox.sandbox.derived.goldens import GOLDEN_DIR, from_golden, load_cases, render
from flowui_sandbox.sandbox.errors import SandboxError
from flowui_sandbox.theme import LIGHT, Theme, ThemeError

NS = "{http://www.w3.org/1999/xhtml}"
ROOT = Path(__file__).resolve().parent.parent


def parse(html: str):
    return html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=True)


def head_children(srcdoc: str) -> list:
    return list(parse(srcdoc).find(f"{NS}head"))


def init_of(srcdoc: str) -> dict:
    script = next(e for e in head_children(srcdoc) if e.get("id") == "flow-ui-init")
    return json.loads(script.text)


# --- the document ------------------------------------------------------------------


def test_document_layout_is_exactly_the_design():
    state = {"customer": {"name": "Ann", "email": "a@b.c"}, "token": "secret"}
    doc = build_srcdoc("<p data-bind='customer.name'></p>", block_id="b1", state=state, paths=["customer.name"])
    assert doc.startswith(
        f'<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f'<meta name="referrer" content="{REFERRER_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<style id="flow-ui-theme">{LIGHT.to_css()}</style><style id="flow-ui-base">{BASE_CSS}</style>'
        '<script type="application/json" id="flow-ui-init">{"blockId":"b1","paths":["customer.name"],"fields":[],'
        '"state":{"customer":{"name":"Ann"}},"theme":'
    )
    assert doc.endswith(f'<script id="flow-ui-runtime">{runtime_source()}</script></head><body><p data-bind=\'customer.name\'></p>')
    head = head_children(doc)
    assert [e.tag.removeprefix(NS) for e in head] == ["meta", "meta", "meta", "style", "style", "script", "script"]
    assert head[0].attrib == {"http-equiv": "Content-Security-Policy", "content": CSP}
    assert head[6].text == runtime_source()
    assert "secret" not in doc and "a@b.c" not in doc


def test_init_holds_block_id_paths_fields_projection_and_theme():
    state = {"items": [{"name": "a"}, {"name": "b", "x": 1}], "draft": {"email": "e"}, "other": 1}
    doc = build_srcdoc(
        "", block_id="cart", fields=["draft.email", "items.1.name", "draft.email"], paths=["items.0.name"],
        state=state, theme={"color-scheme": "dark", "accent": "#ff6600"},
    )
    init = init_of(doc)
    assert list(init) == ["blockId", "paths", "fields", "state", "theme"]
    assert init["blockId"] == "cart"
    assert init["paths"] == ["items.0.name"]
    assert init["fields"] == ["draft.email", "items.1.name"]  # duplicates dropped, order kept
    assert init["state"] == {"items": [{"name": "a"}, {"name": "b"}], "draft": {"email": "e"}}
    assert init["theme"]["color-scheme"] == "dark" and init["theme"]["accent"] == "#ff6600"
    assert "--flow-ui-accent:#ff6600;" in doc and "color-scheme:dark;" in doc


def test_state_values_cannot_close_the_script():
    hostile = "</script><script>parent.document.title='x'</script><!--\u2028\u2029&amp;"
    doc = build_srcdoc("", block_id="b", state={"s": hostile, hostile: 1}, paths=["s"], fields=[])
    init_text = doc.split('id="flow-ui-init">', 1)[1].split("</script>", 1)[0]
    assert not re.search("[<>&\u2028\u2029]", init_text)
    assert init_of(doc)["state"] == {"s": hostile}


def test_source_follows_body_verbatim():
    source = "</head><body class=x><script>1</script>\r\n\u00a0&amp; <!-- unclosed"
    doc = build_srcdoc(source, block_id="b", paths=[])
    assert doc.endswith("</head><body>" + source)


def test_extraction_gives_the_paths_by_default():
    doc = build_srcdoc(
        '<section data-show="order"><b data-bind="order.total"></b><i data-bind=\'customer.name\'></i></section>',
        block_id="b", state={"order": {"total": 3, "id": 1}, "customer": {"name": "A", "pin": 1234}},
    )
    init = init_of(doc)
    assert init["paths"] == ["order", "order.total", "customer.name"]
    assert init["state"] == {"order": {"total": 3, "id": 1}, "customer": {"name": "A"}}


# --- refusals ------------------------------------------------------------------------


@pytest.mark.parametrize("block_id", ["", "1abc", "a b", "a\"b", "a" * 65, "блок", None, 3])
def test_bad_block_id(block_id):
    with pytest.raises(GeneratorError, match="block id"):
        build_srcdoc("", block_id=block_id, paths=[])


def test_good_block_ids():
    for block_id in ("a", "A-1_b", "x" * 64):
        assert f'"blockId":"{block_id}"' in build_srcdoc("", block_id=block_id, paths=[])


def test_bad_fields_are_all_named():
    with pytest.raises(GeneratorError) as err:
        build_srcdoc("", block_id="b", fields=["ok", "Bad", "a..b", "sys.x"], paths=[], frozen=["sys"])
    message = str(err.value)
    assert "fields[1] 'Bad'" in message and "fields[2] 'a..b'" in message and "fields[3] 'sys.x'" in message
    assert "frozen" in message and "fields[0]" not in message


def test_fields_must_be_a_list():
    with pytest.raises(GeneratorError, match="fields: expected a list of paths, got str"):
        build_srcdoc("", block_id="b", fields="a,b", paths=[])


def test_bad_paths_are_named():
    with pytest.raises(GeneratorError, match=r"paths\[0\] 'X'"):
        build_srcdoc("", block_id="b", paths=["X"])


@pytest.mark.parametrize(
    "state, message",
    [
        ({"customer": {"tags": ["a", "b", "c", float("nan")]}}, r"state\.customer\.tags\[3\]: NaN is not JSON"),
        ({"n": 2**53}, r"state\.n: the integer 9007199254740992 is beyond JavaScript's safe range"),
        ({"d": {"when": object()}}, r"state\.d\.when: a object is not JSON"),
        ([1, 2], r"state: expected a JSON object at the top, got list"),
        ("text", r"state: expected a JSON object at the top, got str"),
    ],
)
def test_bad_state_is_named(state, message):
    with pytest.raises(SandboxError, match=message):
        build_srcdoc("", block_id="b", state=state, paths=[])


def test_unprojected_bad_state_is_still_refused():
    # The whole state is checked, not only the projection: bad input is never silently ignored.
    with pytest.raises(JSONValueError, match=r"state\.secret: Infinity"):
        build_srcdoc("", block_id="b", state={"a": 1, "secret": float("inf")}, paths=["a"])


def test_too_deep_state():
    deep: dict = {}
    node = deep
    for _ in range(200):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(JSONValueError, match="nested deeper than 64"):
        build_srcdoc("", block_id="b", state=deep, paths=[])


def test_too_large_projection():
    with pytest.raises(GeneratorError, match="state: the block's projection makes 1000\\d+ characters of JSON; at most 1000000"):
        build_srcdoc("", block_id="b", state={"a": "x" * 1_000_001}, paths=["a"])
    # Counted in characters (code points), as the host module counts: an astral character is one.
    build_srcdoc("", block_id="b", state={"a": "😀" * 900_000}, paths=["a"])


@pytest.mark.parametrize(
    "source, where",
    [
        ("ab\x00", "source line 1 column 3: U+0000: a NUL character cannot be carried"),
        ("a\nb\nxy\ud800", "source line 3 column 3: U+D800: a surrogate code point is not text"),
    ],
)
def test_source_that_is_not_text(source, where):
    with pytest.raises(GeneratorError, match=re.escape(where)):
        build_srcdoc(source, block_id="b", paths=[])


def test_source_too_large():
    from flowui_sandbox.sandbox.block.extract import MAX_SOURCE_BYTES

    build_srcdoc("é" * (MAX_SOURCE_BYTES // 2), block_id="b", paths=[])
    with pytest.raises(GeneratorError, match="source: 4194306 bytes of UTF-8; at most 4194304"):
        build_srcdoc("é" * (MAX_SOURCE_BYTES // 2 + 1), block_id="b", paths=[])


@pytest.mark.parametrize(
    "theme",
    [
        {"accent": "red;}</style><script>alert(1)</script>"},
        {"text": "url(https://evil.example/x)"},
        {"radius": "1px;background:red"},
        {"color-scheme": "dark;x"},
        {"unknown-token": "red"},
        {"accent": 5},
        "accent: red",
    ],
)
def test_bad_theme_is_refused(theme):
    with pytest.raises(ThemeError):
        build_srcdoc("", block_id="b", theme=theme, paths=[])


def test_an_unchecked_theme_object_is_checked_again():
    forged = Theme.model_construct(color_scheme="light", tokens={**LIGHT.tokens, "accent": "red}</style><script>alert(1)</script>"})
    with pytest.raises(ThemeError, match="accent"):
        build_srcdoc("", block_id="b", theme=forged, paths=[])
    forged_scheme = Theme.model_construct(color_scheme="light;}</style>", tokens=dict(LIGHT.tokens))
    with pytest.raises(ThemeError, match="color-scheme"):
        build_srcdoc("", block_id="b", theme=forged_scheme, paths=[])


def test_a_runtime_that_would_end_its_script_is_refused(monkeypatch):
    import flowui_sandbox.sandbox.block.srcdoc as generator

    for bad in ("x = '</script>'", "// <!-- a", "s='<SCRIPT>'"):
        monkeypatch.setattr(generator, "runtime_source", lambda bad=bad: bad)
        with pytest.raises(GeneratorError, match="flow-ui-runtime.js contains"):
            build_srcdoc("", block_id="b", paths=[])


def test_the_real_runtime_is_accepted():
    assert runtime_source() in build_srcdoc("", block_id="b", paths=[])


# --- the iframe and the page --------------------------------------------------------------


def test_escape_attribute():
    assert escape_attribute('a&b"c<d>e\u00a0f\rg\'h') == "a&amp;b&quot;c&lt;d&gt;e&nbsp;f&#13;g'h"


def test_iframe_attributes_are_exact_and_srcdoc_round_trips():
    source = '</iframe><script>top.x=1</script>" onload="x" &quot; \r\n\r \u00a0 <!--'
    srcdoc = build_srcdoc(source, block_id="b-1", paths=[])
    html = build_iframe(source, block_id="b-1", paths=[], title='T "quoted" & <b>')
    assert html.startswith('<iframe sandbox="allow-scripts" referrerpolicy="no-referrer" title="T &quot;quoted&quot; &amp; &lt;b&gt;" data-block-id="b-1" srcdoc="')
    assert html.endswith('"></iframe>')
    iframes = list(parse(html).iter(f"{NS}iframe"))
    assert len(iframes) == 1
    assert iframes[0].attrib == {
        "sandbox": SANDBOX, "referrerpolicy": REFERRER_POLICY, "title": 'T "quoted" & <b>', "data-block-id": "b-1", "srcdoc": srcdoc,
    }


def test_iframe_default_title_and_bad_title():
    assert 'title="html block b"' in build_iframe("", block_id="b", paths=[])
    with pytest.raises(GeneratorError, match="title line 1 column 2: U\\+0000"):
        build_iframe("", block_id="b", paths=[], title="a\x00")


def test_iframe_for_a_given_document():
    srcdoc = build_srcdoc("<p>x</p>", block_id="b", paths=[])
    assert iframe_for(srcdoc, block_id="b") == build_iframe("<p>x</p>", block_id="b", paths=[])


def test_page_mounts_the_block_and_loads_nothing():
    page = build_page("<p>hi</p>", block_id="b", paths=[], theme={"color-scheme": "dark"}, title="Demo <1>")
    tree = parse(page)
    assert tree.find(f"{NS}head/{NS}title").text == "Demo <1>"
    scripts = {s.get("type"): s for s in tree.iter(f"{NS}script")}
    assert set(scripts) == {"importmap", "application/json", "module"}
    config = json.loads(scripts["application/json"].text)
    assert config["srcdoc"] == build_srcdoc("<p>hi</p>", block_id="b", paths=[], theme={"color-scheme": "dark"})
    imports = json.loads(scripts["importmap"].text)["imports"]
    # The host module's whole graph, each module under a bare name; every import names one of them
    # (a data: module resolves no relative specifier).
    from flowui_sandbox.bridge import BRIDGE_DIR
    from flowui_sandbox.sandbox.block.srcdoc import _module_specifiers

    modules = [BRIDGE_DIR / "contract.js", *sorted((BRIDGE_DIR / "host").glob("*.js"))]
    assert set(imports) == {"flowui-host"} | {f"flowui-bridge/{p.relative_to(BRIDGE_DIR).as_posix()}" for p in modules}
    assert all(url.startswith("data:text/javascript;base64,") for url in imports.values())
    for name, url in imports.items():
        code = base64.b64decode(url.split(",", 1)[1])
        assert {s for _, _, s in _module_specifiers(code, name)} <= set(imports), name
    for element in tree.iter():
        assert element.tag.removeprefix(NS) not in ("iframe", "link", "img", "object", "embed")
        assert not {"src", "href"} & set(element.attrib), element.tag
    assert "color-scheme:dark" in page


# --- goldens --------------------------------------------------------------------------


@pytest.mark.parametrize("case", load_cases(), ids=lambda c: c["name"])
def test_golden_document(case):
    golden = GOLDEN_DIR / case["golden"]
    assert golden.exists(), f"missing {golden.name}; run `flowui-sandbox generate`"
    expected = from_golden(golden.read_bytes().decode("utf-8"))
    actual = render(case)
    assert actual == expected, f"fixtures/srcdoc/{case['golden']} is stale; run `flowui-sandbox generate`"


@pytest.mark.parametrize("case", load_cases(), ids=lambda c: c["name"])
def test_golden_paths_are_what_extraction_finds(case):
    from flowui_sandbox.sandbox.block.extract import extract_paths

    assert extract_paths(case["source"]) == case["paths"]


def test_no_stray_goldens():
    named = {c["golden"] for c in load_cases()}
    assert {p.name for p in GOLDEN_DIR.glob("*.html")} == named


# --- the build command ---------------------------------------------------------------------


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["build", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "block.html").write_text('<b data-bind="order.total"></b>', encoding="utf-8")
    (tmp_path / "state.json").write_text('{"order": {"total": 5, "id": 1}, "secret": 1}', encoding="utf-8")
    (tmp_path / "theme.json").write_text('{"color-scheme": "dark", "accent": "#123456"}', encoding="utf-8")
    return tmp_path


def test_build_prints_the_iframe(capsys, files):
    code, out, err = run(capsys, files / "block.html", "--state", files / "state.json", "--theme", files / "theme.json",
                         "--fields", "secret", "--block-id", "demo")
    assert (code, err) == (0, "")
    expected = build_iframe('<b data-bind="order.total"></b>', block_id="demo", fields=["secret"],
                            state={"order": {"total": 5, "id": 1}, "secret": 1}, theme={"color-scheme": "dark", "accent": "#123456"})
    assert out == expected + "\n"


def test_build_page_to_a_file(capsys, files):
    out_file = files / "out" / "deeper" / "page.html"
    code, out, err = run(capsys, files / "block.html", "--page", "-o", out_file)
    assert (code, out, err) == (0, "", "")
    assert out_file.read_text(encoding="utf-8") == build_page('<b data-bind="order.total"></b>', block_id="block") + "\n"


@pytest.mark.parametrize(
    "setup, argv, message",
    [
        (None, ["missing.html"], "missing.html: no such file"),
        (("block.html", b"<p>\xff\xfe</p>"), ["block.html"], "block.html:1:4: not UTF-8 (byte 0xFF at offset 3)"),
        (("s.json", b"{nope"), ["ok.html", "--state", "s.json"], "s.json:1:2: not JSON: Expecting property name enclosed in double quotes"),
        (("s.json", b'{"a": NaN}'), ["ok.html", "--state", "s.json"], "s.json:1:7: not accepted: NaN is not JSON"),
        (("s.json", b"[1]"), ["ok.html", "--state", "s.json"], "s.json:1:1: the state must be a JSON object, not an array"),
        (("s.json", b'{"a": {"b": 12345678901234567890}}'), ["ok.html", "--state", "s.json"], "s.json:1:13: not accepted: the integer 12345678901234567890 is beyond"),
        (("t.json", b'{"accent": "red;}"}'), ["ok.html", "--theme", "t.json"], "t.json:1:2: theme token 'accent': value 'red;}' is not a color"),
        (("t.json", b'"dark"'), ["ok.html", "--theme", "t.json"], "t.json:1:1: the theme must be a JSON object, not a string"),
        (None, ["ok.html", "--fields", "a,Bad"], 'flowui-sandbox build: error: --fields: item 2 "Bad": segment 1'),
        (None, ["ok.html", "--block-id", "9x"], "flowui-sandbox build: error: --block-id: block id '9x'"),
        (("block.html", b"<p>\x00</p>"), ["block.html"], "block.html:1:4: a NUL character"),
        (None, ["."], ".: is a directory"),
    ],
)
def test_build_errors_name_the_file(capsys, tmp_path, monkeypatch, setup, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.html").write_text("<p>ok</p>", encoding="utf-8")
    if setup:
        (tmp_path / setup[0]).write_bytes(setup[1])
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    # A file's problem is located (FILE:LINE:COL: or FILE: without a position); an option's is named.
    assert err.startswith(message), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_build_cannot_write(capsys, files):
    (files / "file").write_text("x")
    code, _, err = run(capsys, files / "block.html", "-o", files / "file" / "page.html")
    assert code == 2 and "cannot write" in err
