"""The CSS of a block (``<style>`` elements and ``style`` attributes), parsed with tinycss2.

Yields every URL it loads (``url()``, ``image-set()``/``src()`` strings, ``@import``,
``@font-face`` sources) with what it is used as, and the attribute-value selectors that
load a URL (the CSS keylogger), and the rules that load a URL only with some state (a
``data-show`` marker, ``:empty``, a container query). Positions are tinycss2's (1-based line and column in
the CSS text), mapped back to the source by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

import tinycss2


@dataclass
class CssUrl:
    url: str
    use: str          # img, font, style (an @import)
    line: int         # in the CSS text
    column: int
    context: str


@dataclass
class CssSelectorLoad:
    selector: str
    urls: list[str]
    line: int
    column: int
    attributes: frozenset[str] = frozenset()   # the attribute names it matches values of
    state: str = ""   # what makes it apply with the state: [data-flow-ui-shown], :empty, :blank or @container
    subject: str = ""  # the selector without those conditions: the elements whose state decides ("" any)


@dataclass
class FontFace:
    """An @font-face rule: its family, unicode-range (if any) and source URLs."""

    family: str
    unicode_range: str
    urls: list[str]
    line: int
    column: int


_URL_FUNCTIONS = frozenset(("url", "src", "image-set", "-webkit-image-set", "image", "cross-fade"))


def urls_in(tokens, use: str, out: list[CssUrl]) -> None:
    """The URLs in ``tokens`` at any depth, in source order (a walk with a stack of its own: a style
    sheet can nest blocks deeper than Python's recursion goes)."""
    stack = [iter(tokens or ())]
    while stack:
        token = next(stack[-1], None)
        if token is None:
            stack.pop()
            continue
        kind = token.type
        if kind == "url":
            out.append(CssUrl(token.value, use, token.source_line, token.source_column, f"url({token.value})"))
        elif kind == "function":
            name = token.lower_name
            if name in _URL_FUNCTIONS:
                for arg in token.arguments:
                    if arg.type == "string":
                        out.append(CssUrl(arg.value, use, arg.source_line, arg.source_column, f"{name}({arg.value})"))
            stack.append(iter(token.arguments))
        elif kind in ("() block", "[] block", "{} block"):
            stack.append(iter(token.content))


def _attribute_selector(prelude) -> frozenset[str]:
    """The attributes a selector matches values of ([a=..], [a^=..], [a*=..], [a$=..], [a~=..], [a|=..])."""
    out: set[str] = set()
    for token in prelude or ():
        if token.type == "[] block":
            if any(t.type == "literal" and t.value in ("=", "^=", "*=", "$=", "~=", "|=") for t in token.content):
                name = next((t.lower_value for t in token.content if t.type == "ident"), "")
                out.add(name)
        elif token.type == "function":
            out |= _attribute_selector(token.arguments)
    return frozenset(out)


_STATE_PSEUDOS = frozenset(("empty", "blank"))


def _is_marker(token) -> bool:
    """``[data-flow-ui-shown]``: the runtime's mark of a data-show value that is not empty."""
    return token.type == "[] block" and any(t.type == "ident" and t.lower_value == "data-flow-ui-shown" for t in token.content)


def _state_condition(prelude, container: bool) -> str:
    """What makes a rule apply or not with the state, read by token at any depth (``:is()``,
    ``:has()``, ``:not()``; escapes and case as CSS reads them): the runtime's data-show marker,
    an element left empty or not by its bound text, a size query over its content; "" for none."""
    tokens = list(prelude or [])
    while tokens:
        token = tokens.pop()
        if _is_marker(token):
            return "[data-flow-ui-shown]"
        if token.type == "ident" and token.lower_value in _STATE_PSEUDOS and tokens and tokens[-1].type == "literal" \
                and tokens[-1].value == ":":
            return f":{token.lower_value}"
        if token.type == "function":
            tokens.extend(token.arguments)
        elif token.type in ("[] block", "() block"):
            tokens.extend(token.content)
    return "@container" if container else ""


def _state_subject(prelude) -> str:
    """The selector with the state's conditions on its own elements taken out (``[data-flow-ui-shown]``,
    ``:empty``, ``:blank``, ``:not(:empty)``), so it names the elements whose bound values decide
    whether the rule applies; "" when a condition is elsewhere (inside ``:has()``, ``:is()``): then
    any bound value may decide."""
    tokens = list(prelude or [])
    kept: list = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        after = tokens[i + 1] if i + 1 < len(tokens) and token.type == "literal" and token.value == ":" else None
        if _is_marker(token):
            i += 1
        elif after is not None and after.type == "ident" and after.lower_value in _STATE_PSEUDOS:
            i += 2
        elif after is not None and after.type == "function" and after.lower_name == "not" \
                and not _state_subject(after.arguments) and _state_condition(after.arguments, False):
            i += 2  # :not(:empty)
        else:
            if _state_condition([token], False):
                return ""
            kept.append(token)
            i += 1
    return tinycss2.serialize(kept).strip()


def loads_nothing(css: str) -> bool:
    """A fast path: CSS without these substrings (and without escapes, which could spell
    them) has no url(), image-set(), @import or @font-face to find."""
    lower = css.lower()
    return "\\" not in css and "url" not in lower and "@import" not in lower and "src" not in lower and "image" not in lower


def stylesheet(css: str, fonts: list[FontFace] | None = None) -> tuple[list[CssUrl], list[CssSelectorLoad]]:
    """URLs and attribute-selector loads of a style sheet; ``fonts`` (if given) receives its @font-face rules."""
    if loads_nothing(css):
        return [], []
    rules = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    urls: list[CssUrl] = []
    selectors: list[CssSelectorLoad] = []
    if _deepest(rules) > MAX_DEPTH:
        _read_flat(rules, urls, selectors)
    else:
        _rules(rules, urls, selectors, fonts if fonts is not None else [])
    return urls, selectors


#: Rules, blocks and functions nested in one another (``a { b { … } }``, ``:is(:is(…))``) that the
#: reading by rule follows; a style sheet nested deeper is read flat (:func:`_read_flat`): that
#: reading, tinycss2's own writing-out and the selector readers recurse, and thousands of levels
#: went past Python's limit. CSS authors nest a few levels.
MAX_DEPTH = 100


def _children(node) -> list:
    """What a parsed node holds: a rule's prelude and content, a block's content, a function's arguments."""
    if node.type == "function":
        return node.arguments
    return [*(getattr(node, "prelude", None) or ()), *(getattr(node, "content", None) or ())]


def _deepest(nodes: list) -> int:
    """How deep blocks, functions and rules nest in ``nodes`` (a walk with a stack of its own)."""
    deepest = 0
    stack = [(node, 1) for node in nodes]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_DEPTH:  # past it the answer is known
            stack += [(child, depth + 1) for child in _children(node) if hasattr(child, "type")]
    return deepest


def _read_flat(nodes: list, urls: list[CssUrl], selectors: list[CssSelectorLoad]) -> None:
    """A style sheet nested past :data:`MAX_DEPTH`, read as one rule: every URL it holds, and,
    when any attribute-value selector is in it too, one load on those attributes (the reading
    that errs towards a finding)."""
    found: list[CssUrl] = []
    for node in nodes:
        urls_in(_children(node), "img", found)
    urls.extend(found)
    everything = _flatten(nodes)
    attributes = _attribute_selector([t for t in everything if t.type == "[] block"])
    state = _any_state_condition(everything) if found else ""
    if found and (attributes or state):
        selectors.append(CssSelectorLoad(f"(a style sheet nested deeper than {MAX_DEPTH})", [u.url for u in found], found[0].line,
                                         found[0].column, attributes, state))


def _any_state_condition(nodes: list) -> str:
    """:func:`_state_condition` over every node of a flat reading, each looked at once: the marker,
    ``:empty``/``:blank`` anywhere, or a container query; "" for none."""
    for node in nodes:
        if node.type == "[] block" and _is_marker(node):
            return "[data-flow-ui-shown]"
        kids = _children(node)
        for colon, name in zip(kids, kids[1:]):
            if colon.type == "literal" and colon.value == ":" and name.type == "ident" and name.lower_value in _STATE_PSEUDOS:
                return f":{name.lower_value}"
    return "@container" if any(n.type == "at-rule" and n.lower_at_keyword == "container" for n in nodes) else ""


def _font_face(item, found: list[CssUrl]) -> FontFace:
    family = unicode_range = ""
    for decl in tinycss2.parse_blocks_contents(item.content or [], skip_comments=True, skip_whitespace=True):
        if decl.type != "declaration":
            continue
        value = tinycss2.serialize(decl.value).strip()
        if decl.lower_name == "font-family":
            family = value.strip("'\"").lower()
        elif decl.lower_name == "unicode-range":
            unicode_range = value
    return FontFace(family, unicode_range, [u.url for u in found], item.source_line, item.source_column)


def _rules(rules, urls: list[CssUrl], selectors: list[CssSelectorLoad], fonts: list[FontFace], container: bool = False) -> None:
    for item in rules:
        if item.type == "qualified-rule":
            _style_rule([list(item.prelude)], item.content, item.source_line, item.source_column, urls, selectors, container)
        elif item.type == "at-rule":
            keyword = item.lower_at_keyword
            if keyword == "import":
                before = len(urls)
                urls_in(item.prelude, "style", urls)
                if len(urls) == before:
                    for token in item.prelude:
                        if token.type == "string":
                            urls.append(CssUrl(token.value, "style", token.source_line, token.source_column, f"@import {token.value}"))
                            break
            elif keyword == "font-face":
                found: list[CssUrl] = []
                urls_in(item.content, "font", found)
                urls.extend(found)
                fonts.append(_font_face(item, found))
            elif item.content is not None:
                nested = tinycss2.parse_rule_list(item.content, skip_comments=True, skip_whitespace=True)
                if any(n.type == "qualified-rule" or n.type == "at-rule" for n in nested):
                    _rules(nested, urls, selectors, fonts, container or keyword == "container")
                else:
                    urls_in(item.content, "img", urls)


#: Characters of a nested rule's selector written out against its parents' (``&`` replaced); a
#: longer one (a list in a list in a list... doubles at each level) is read part by part instead.
MAX_SELECTOR = 4096


def _style_rule(chain: list[list], content, line: int, column: int, urls: list[CssUrl], selectors: list[CssSelectorLoad],
                container: bool, written: str | None = None) -> None:
    """A style rule: its declarations (and those of a conditional rule in it, ``@media … { background: … }``)
    load for its selector; a rule nested in it (``input { &[value^=a] { … } }``) for its own selector
    read against this one, as CSS nesting reads it (a keylogger split over two rules is one).
    ``chain``: the selectors from the outermost rule in; ``written``: the selector written out
    against its parents (None when past :data:`MAX_SELECTOR`). How deep rules nest is bounded
    before (:data:`MAX_DEPTH`)."""
    if written is None and len(chain) == 1:
        written = tinycss2.serialize(chain[0]).strip()
    found: list[CssUrl] = []
    for node in tinycss2.parse_blocks_contents(content or [], skip_comments=True, skip_whitespace=True):
        if node.type == "declaration":
            urls_in(node.value, "img", found)
        elif node.type == "qualified-rule":
            _style_rule([*chain, list(node.prelude)], node.content, node.source_line, node.source_column, urls, selectors,
                        container, _nested_selector(written, node.prelude))
        elif node.type == "at-rule" and node.content is not None:
            _style_rule(chain, node.content, line, column, urls, selectors, container or node.lower_at_keyword == "container",
                        written)
        elif node.type == "at-rule":  # no block: nothing CSS loads there, but a URL in it is shown
            urls_in(node.prelude, "img", found)
    urls.extend(found)
    if not found:
        return
    attributes = frozenset().union(*(_attribute_selector(part) for part in chain))
    state = next((c for c in (_state_condition(part, False) for part in chain) if c), "@container" if container else "")
    shown = written if written is not None else " { ".join(tinycss2.serialize(part).strip()[:100] for part in chain[:3]) + " { …"
    if attributes or state:
        subject = _state_subject(tinycss2.parse_component_value_list(written)) if state and written is not None else ""
        selectors.append(CssSelectorLoad(shown, [u.url for u in found], line, column, attributes, state, subject))


def _flatten(nodes: list) -> list:
    """Every node in ``nodes`` at any depth (:func:`_children`), with a stack of its own."""
    out: list = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        out.append(node)
        stack += reversed([child for child in _children(node) if hasattr(child, "type")])
    return out


def _nested_selector(parent: str | None, prelude) -> str | None:
    """A nested rule's selector written out against its parent's (``parent``: None when it was too
    long to write): each ``&`` stands for the parent (``:is(parent)`` when the parent is a list),
    and a selector without one is a descendant of it (``.x`` in ``p { .x { } }`` is ``p .x``);
    None past :data:`MAX_SELECTOR` characters."""
    if parent is None:
        return None
    whole = f":is({parent})" if "," in parent else parent
    parts: list[str] = []
    size = 0
    for part in _split_list(list(prelude)):
        amps = sum(1 for t in part if t.type == "literal" and t.value == "&")
        size += len(tinycss2.serialize(part)) + len(whole) * max(amps, 1)
        if size > MAX_SELECTOR:
            return None
        if amps:
            parts.append("".join(whole if t.type == "literal" and t.value == "&" else tinycss2.serialize([t]) for t in part).strip())
        else:
            parts.append(f"{whole} {tinycss2.serialize(part).strip()}")
    return ", ".join(parts)


def _split_list(tokens: list) -> list[list]:
    """A selector list's selectors (split at its top-level commas)."""
    parts: list[list] = [[]]
    for token in tokens:
        if token.type == "literal" and token.value == ",":
            parts.append([])
        else:
            parts[-1].append(token)
    return [part for part in parts if any(t.type != "whitespace" for t in part)]


def declarations(css: str) -> list[CssUrl]:
    """URLs of a ``style`` attribute (a declaration list)."""
    out: list[CssUrl] = []
    if loads_nothing(css):
        return out
    for item in tinycss2.parse_blocks_contents(css, skip_comments=True, skip_whitespace=True):
        if item.type == "declaration":
            urls_in(item.value, "img", out)
    return out
