"""Property tests: whatever the source, state, title and theme, an HTML5 parser (html5lib, which
follows the standard's tree construction) sees exactly the iframe and the document that were built.

* the built iframe parses to exactly one iframe, with exactly its five attributes, whose srcdoc
  is the document;
* the document's head is exactly the seven elements of the design: the CSP meta first with the
  exact policy, the theme style holding exactly the theme's CSS, the init script whose text is
  JSON equal to the expected init (so no value closed the script or opened a comment), the runtime;
* a theme value the grammar refuses is refused by the generator (theme.ThemeError);
* the projection holds exactly the requested paths.
"""

from __future__ import annotations

import json
from unittest import mock

import html5lib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowui_sandbox.bridge import runtime_source
from flowui_sandbox.sandbox.block import srcdoc
from flowui_sandbox.sandbox.block.policy import CSP, REFERRER_POLICY, SANDBOX
from flowui_sandbox.sandbox.block.projection import get_path, project
from flowui_sandbox.sandbox.block.srcdoc import BLOCK_ID_PATTERN, build_iframe, build_srcdoc
from flowui_sandbox.theme import TOKENS, Theme, ThemeError

NS = "{http://www.w3.org/1999/xhtml}"
HEAD = ["meta", "meta", "meta", "style", "style", "script", "script"]

# Pieces that matter to an HTML parser, mixed into arbitrary text.
HOSTILE = [
    "</iframe>", "<iframe>", "<script>", "</script>", "</SCRIPT >", "<script/>", '"', "'", "`", "&quot;", "&amp;", "&", "&#0;",
    "&#x0d;", "&nbsp", "\r\n", "\r", "\n", "\x0c", "\u00a0", "\u2028", "\u2029", "<!--", "-->", "--!>", "<!-->", "<![CDATA[", "]]>",
    "<", ">", "</", "/>", "=", " srcdoc=", " onload=", "</head>", "<head>", "<body onload=x>", "<html lang=x>", "</html>",
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src *\">", "<base href=//evil>", "<plaintext>", "<textarea>",
    "<title>", "<style>", "</style>", "<noscript>", "<template>", "<svg>", "<math>", "<xmp>", "<frameset>", "<table>", "\\",
    "\\u003c", "</p>", "<p data-bind=\"a.b\">",
]
TEXT_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
SOURCE = st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(TEXT_CHARS, max_size=8)), max_size=12).map("".join)
TITLE = st.one_of(st.none(), SOURCE)
# State strings may hold anything JSON can, lone surrogates and NUL included.
ANY_TEXT = st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=6)), max_size=6).map("".join)
NAMES = ["a", "b", "items", "name", "0", "1", "2", "10", "constructor"]
KEYS = st.one_of(st.sampled_from(NAMES), ANY_TEXT)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**53 - 1), 2**53 - 1),
    st.floats(allow_nan=False, allow_infinity=False), ANY_TEXT,
)
JSON_VALUES = st.recursive(
    SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)), max_leaves=20
)
STATE = st.one_of(st.none(), st.dictionaries(KEYS, JSON_VALUES, max_size=5))
PATH = st.lists(st.sampled_from(NAMES[:-1] + ["x"]), min_size=1, max_size=4).map(".".join)
PATHS = st.lists(PATH, max_size=5)
VALID_VALUES = {
    "color": ["#fff", "#A1b2C3", "#11223344", "rgb(1 2 3 / 50%)", "rgba(0, 0, 0, .5)", "hsl(210deg 20% 90%)", "RebeccaPurple", "transparent"],
    "length": ["0", "4px", "1.5rem", "-2em", "50%"],
}
HOSTILE_VALUES = st.one_of(
    st.sampled_from(["red;}</style><script>alert(1)</script>", "red}", "url(x)", "red/**/", "#fff;x:y", "1px\n}", "expression(1)", "</style>"]),
    st.text(max_size=12),
)
THEME = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "color-scheme": st.one_of(st.sampled_from(["light", "dark"]), HOSTILE_VALUES),
            **{t: st.one_of(st.sampled_from(VALID_VALUES[kind]), HOSTILE_VALUES) for t, kind in TOKENS.items()},
        },
    ),
)


def parse(html: str):
    return html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=True)


def js_string(text: str) -> str:
    """``text`` as a JavaScript string holds it: UTF-16 code units, so a surrogate pair is one character."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def as_js(value):
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, list):
        return [as_js(v) for v in value]
    if isinstance(value, dict):
        return {js_string(k): as_js(v) for k, v in value.items()}
    return value


# The runtime is the same 27 KB in every document, and parsing it twice an example was most of the
# property's cost. The property runs with this short stand-in holding every character the
# escaping must carry; the real runtime is checked after each hostile piece below.
STAND_IN_RUNTIME = "window.x = {a: \"&amp; <b> 'c' \\u2028\", d: 1 < 2 && 3 > 2};\n"


@settings(max_examples=max(1200, settings.default.max_examples), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    source=SOURCE, state=STATE, fields=PATHS, paths=PATHS, theme=THEME, title=TITLE,
    block_id=st.from_regex(rf"\A{BLOCK_ID_PATTERN}\Z"),
)
def test_the_parser_sees_exactly_what_was_built(source, state, fields, paths, theme, title, block_id):
    with mock.patch.object(srcdoc, "runtime_source", lambda: STAND_IN_RUNTIME):
        assert_parsed_as_built(source, state, fields, paths, theme, title, block_id, STAND_IN_RUNTIME)


@pytest.mark.parametrize("piece", HOSTILE)
def test_the_real_runtime_is_seen_exactly_after_a_hostile_piece(piece):
    assert_parsed_as_built(piece, {"a": piece, piece: [piece]}, ["a"], ["a.b"], None, piece, "b1", runtime_source())


def assert_parsed_as_built(source, state, fields, paths, theme, title, block_id, runtime):
    try:
        expected_theme = Theme.parse(theme)
    except ThemeError:
        try:
            build_srcdoc(source, block_id=block_id, fields=fields, paths=paths, state=state, theme=theme)
        except ThemeError:
            return
        raise AssertionError(f"theme {theme!r} was refused by Theme.parse but accepted by the generator") from None

    doc = build_srcdoc(source, block_id=block_id, fields=fields, paths=paths, state=state, theme=theme)
    html = build_iframe(source, block_id=block_id, fields=fields, paths=paths, state=state, theme=theme, title=title)

    iframes = list(parse(html).iter(f"{NS}iframe"))
    assert len(iframes) == 1
    assert iframes[0].attrib == {
        "sandbox": SANDBOX,
        "referrerpolicy": REFERRER_POLICY,
        "title": f"html block {block_id}" if title is None else title,
        "data-block-id": block_id,
        "srcdoc": doc,
    }

    head = list(parse(doc).find(f"{NS}head"))
    assert [e.tag.removeprefix(NS) for e in head] == HEAD
    assert head[0].attrib == {"http-equiv": "Content-Security-Policy", "content": CSP}
    assert head[3].get("id") == "flow-ui-theme" and head[3].text == expected_theme.to_css()
    assert head[5].attrib == {"type": "application/json", "id": "flow-ui-init"}
    fields_once = list(dict.fromkeys(fields))
    paths_once = list(dict.fromkeys(paths))
    # Numbers as JavaScript reads them: every JSON number is a double.
    assert json.loads(head[5].text, parse_int=float) == {
        "blockId": block_id,
        "paths": paths_once,
        "fields": fields_once,
        "state": as_js(project(state or {}, fields_once + paths_once)),
        "theme": expected_theme.to_json(),
    }
    assert head[6].attrib == {"id": "flow-ui-runtime"} and head[6].text == runtime


def _leaves(value, prefix=()):
    """(segments, value) of every leaf; an empty object or array is a leaf."""
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from _leaves(v, (*prefix, k))
    elif isinstance(value, list) and value:
        for i, v in enumerate(value):
            yield from _leaves(v, (*prefix, str(i)))
    else:
        yield prefix, value


def _at(value, segments):
    for segment in segments:
        value = value[int(segment)] if isinstance(value, list) else value[segment]
    return value


@settings(max_examples=max(1000, settings.default.max_examples), deadline=None)
@given(state=st.dictionaries(st.sampled_from(NAMES + ["x", "", "x y", "</script>", "\ud800"]), JSON_VALUES, max_size=5), paths=PATHS)
def test_the_projection_holds_exactly_the_paths(state, paths):
    projected = project(state, paths)
    for path in paths:
        assert get_path(projected, path) == get_path(state, path)
    wanted = [tuple(p.split(".")) for p in paths]
    for leaf, value in _leaves(projected) if projected else ():
        covered = any(leaf[: len(w)] == w for w in wanted)
        # An array reached through an index segment is padded with null below the highest index.
        padding = value is None and leaf[-1].isdigit() and any(len(w) >= len(leaf) and w[: len(leaf) - 1] == leaf[:-1] for w in wanted)
        assert covered or padding, (leaf, value, paths)
        if covered:
            assert _at(state, leaf) == value
    assert project(projected, paths) == projected
