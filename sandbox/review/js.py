"""The JavaScript of a block, parsed with tree-sitter (docs/REVIEW.md: the measurement).

All scripts of a block (inline ``<script>`` elements and event-handler attributes) share
one global scope in the browser, so they are analysed together, in two parts:

* :mod:`.flow`: a flow-insensitive, name-based data flow (:class:`~.flow.Flow`) that labels
  every expression with where its value may come from (state, what the user types, URL
  literals);
* :mod:`.inspector`: every sink, bridge call, blocked API, obfuscation signal and busy loop
  read off the trees with the final labels (:class:`~.inspector.Inspector`).

This module parses the scripts and holds the syntax helpers both use.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser, Tree

from ..errors import SandboxError


@functools.cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_javascript.language()))


# Labels: ("state", path, object) state read at path ("" is the whole state; object: member


_GLOBALS = frozenset(("window", "self", "globalThis", "frames"))
_FUNCTIONS = frozenset(("function_declaration", "function_expression", "arrow_function", "method_definition", "function",
                        "generator_function_declaration", "generator_function", "class_declaration", "class"))
_WEBRTC = frozenset(("RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel"))

@dataclass
class Script:
    """One piece of JavaScript and where it sits in the source."""

    code: str
    at: Callable[[int], tuple[int, int]]   # char offset in code -> (line, column) in the source
    kind: str                                 # "script" or "handler:onclick" etc.
    owner: str = ""                           # a handler: the key of its element (``this``), for the flow's look-ups
    control: str = ""                         # a handler on a form control: its name (input:#id), the event's target
    tree: Tree | None = None
    data: bytes = b""
    nodes: list = field(default_factory=list)
    flow_nodes: list = field(default_factory=list)
    parents: dict = field(default_factory=dict)

    def position(self, node: Node) -> tuple[int, int]:
        return self.at(len(self.data[:node.start_byte].decode("utf-8", "replace")))


@dataclass
class Event:
    """Something found in the scripts, before it becomes a finding."""

    rule: str
    script: Script
    node: Node
    message: str
    paths: list[str] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    evidence: dict = field(default_factory=dict)
    context: str = ""
    once: bool = False


def text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def string_value(node: Node | None) -> str | None:
    """The value of a string literal (or a template without substitutions)."""
    if node is None:
        return None
    if node.type == "string":
        raw = text(node)[1:-1]
        if "\\" not in raw:
            return raw
        decoded = literal_text(node)
        if decoded is not None:
            return decoded
        try:
            return raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
        except (UnicodeDecodeError, UnicodeEncodeError):
            return raw
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.children):
        return text(node)[1:-1]
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return string_value(node.named_children[0])
    return None


def unescape(raw: str) -> str | None:
    """The character(s) of one JavaScript escape sequence (``\\x2f``, ``\\u{2f}``, ``\\n``)."""
    body = raw[1:]
    if not body:
        return None
    head = body[0]
    try:
        if head == "x" and len(body) == 3:
            return chr(int(body[1:], 16))
        if head == "u" and body[1:2] == "{":
            return chr(int(body[2:-1], 16))
        if head == "u" and len(body) == 5:
            return chr(int(body[1:], 16))
    except ValueError:
        return None
    if head in "\r\n\u2028\u2029":
        return ""
    if head.isdigit():
        return "\0" if body == "0" else None  # octal escapes: not in templates, rare in strings
    return {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}.get(head, head)


def literal_text(node: Node) -> str | None:
    """The value of a string literal, its escape sequences decoded the way JavaScript does."""
    out = []
    for child in node.children:
        if child.type == "string_fragment":
            out.append(text(child))
        elif child.type == "escape_sequence":
            value = unescape(text(child))
            if value is None:
                return None
            out.append(value)
        elif child.type not in ('"', "'"):
            return None
    return "".join(out)


def folded_string(node: Node | None) -> str | None:
    """The value of a string literal, or of literals joined with ``+`` (``'sr' + 'c'``)."""
    if node is not None and node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        if op is None or text(op) != "+":
            return None
        left = folded_string(node.child_by_field_name("left"))
        right = folded_string(node.child_by_field_name("right")) if left is not None else None
        return left + right if left is not None and right is not None else None
    if node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        return folded_string(node.named_children[0])
    return string_value(node)


def _starts_with_literal(node: Node | None) -> bool:
    """Whether the value's text begins with a literal (a string, a template's first
    fragment, or the left end of a concatenation)."""
    while node is not None:
        if node.type in ("string",):
            return True
        if node.type == "template_string":
            return bool(node.children) and len(node.children) > 1 and node.children[1].type == "string_fragment"
        if node.type == "binary_expression":
            node = node.child_by_field_name("left")
            continue
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
            continue
        return False
    return False


def literal_fragments(node: Node | None) -> list[str]:
    """The literal parts of a string, template or concatenation (for hosts of a sink)."""
    out: list[str] = []
    if node is None:
        return out
    if node.type == "string":
        value = string_value(node)
        if value is not None:
            out.append(value)
    elif node.type == "template_string":
        out.extend(text(c) for c in node.children if c.type == "string_fragment")
    for child in node.named_children:
        if node.type != "string":
            out.extend(literal_fragments(child))
    return out


_local = threading.local()


class TooComplex(SandboxError):
    """The static analysis stopped: out of time, or nesting deeper than Python's recursion."""


def parent_of(node: Node) -> Node | None:
    """The parent of a node of the scripts being analysed (recorded by :func:`parse`)."""
    return _local.parents.get(node.id)


def walk(node: Node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


_FLOW_TYPES = frozenset(("variable_declarator", "assignment_expression", "augmented_assignment_expression", "call_expression",
                         "return_statement", "arrow_function", "for_in_statement", "expression_statement",
                         "field_definition", "new_expression", "yield_expression",
                         "throw_statement", "catch_clause", "pair", "shorthand_property_identifier",
                         "assignment_pattern", "object_assignment_pattern"))


def parse(script: Script, cache: dict | None = None, deadline: float = float("inf")) -> Script:
    """Parse ``script`` (``cache``: code -> an already parsed Script of the same text)."""
    if cache is not None:
        done = cache.get(script.code)
        if done is not None:
            script.data, script.tree, script.nodes, script.flow_nodes = done.data, done.tree, done.nodes, done.flow_nodes
            script.parents = done.parents
            return script
        cache[script.code] = script
    script.data = script.code.encode("utf-8", "surrogatepass")
    script.tree = _parser().parse(script.data)
    # One walk: every pass below reads these lists. Parents are recorded here because
    # tree-sitter's Node.parent searches down from the root (quadratic in a long script).
    nodes: list[Node] = []
    parents: dict[int, Node] = {}
    stack = [script.tree.root_node]
    while stack:
        current = stack.pop()
        nodes.append(current)
        if not len(nodes) & 1023 and time.monotonic() > deadline:
            raise TooComplex("time")
        children = current.children
        for child in children:
            parents[child.id] = current
        stack.extend(reversed(children))
    script.nodes = nodes
    script.parents = parents
    script.flow_nodes = [n for n in script.nodes if n.type in _FLOW_TYPES]
    return script



def call_parts(node: Node, key: Callable[[Node | None], str | None] | None = None) -> tuple[list[Node], str, str, str]:
    """A call's arguments, its callee's dotted name, the name's head and its last member
    (``a.b().c(...)``: no name, the member ``c``). ``key``: as for :func:`callee_name`."""
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    args = list(arguments.named_children) if arguments is not None else []
    if arguments is not None and arguments.type == "template_string":
        # A tagged template, tag`a${x}b`: the tag gets the strings (the template stands for them),
        # then each substitution's value.
        args = [arguments, *(c.named_children[0] for c in args if c.type == "template_substitution" and c.named_children)]
    name = callee_name(function, key)
    head, _, method = name.rpartition(".")
    if not name and function is not None and function.type == "member_expression":
        method = text(function.child_by_field_name("property"))
    return args, name, head, method


def callee_name(node: Node | None, key: Callable[[Node | None], str | None] | None = None) -> str:
    """``a.b.c`` for a member chain of identifiers (window./globalThis. dropped), else "".
    ``key``: the string a computed member's index is known to hold (default: a string literal's;
    the flow also knows names bound to strings and strings built from pieces)."""
    if node is None:
        return ""
    if node.type == "identifier":
        return text(node)
    if node.type not in ("member_expression", "subscript_expression", "parenthesized_expression", "this"):
        return ""
    return _callee_name(node, key or string_value)


def _callee_name(node: Node | None, key: Callable[[Node | None], str | None]) -> str:
    parts = []
    while node is not None:
        if node.type == "identifier" or node.type == "this":
            parts.append(text(node))
            break
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            parts.append(text(prop))
            node = node.child_by_field_name("object")
            continue
        if node.type == "subscript_expression":  # a['b'] is a.b
            index = node.child_by_field_name("index")
            member = key(index)
            if member is None:
                return ""
            parts.append(member)
            node = node.child_by_field_name("object")
            continue
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
            continue
        if node.type == "sequence_expression" and node.named_child_count:
            node = node.named_children[-1]  # (0, document): the value of a sequence is its last
            continue
        return ""
    parts.reverse()
    while len(parts) > 1 and parts[0] in _GLOBALS:
        parts.pop(0)
    return ".".join(parts)

def _outermost(node: Node) -> bool:
    """Whether a member access is the end of its chain (``a.b`` in ``a.b.c`` is not; in
    ``a.b.trim()`` it is: a method call reads the value)."""
    parent = parent_of(node)
    if parent is None or parent.type not in ("member_expression", "subscript_expression"):
        return True
    if parent.child_by_field_name("object") != node:
        return True
    grand = parent_of(parent)
    return grand is not None and grand.type == "call_expression" and grand.child_by_field_name("function") == parent


#: Where an absolute URL begins in a literal text: a network scheme, in any case.
_URL_MARKERS = ("https://", "http://", "wss://", "ws://")
#: What a protocol-relative URL (``//host/...``) follows in CSS or markup text.
_RELATIVE_AFTER = ("url(", "src=", "href=", "srcset=", "poster=", "@import")
_URL_END = "\"' )<>\n\t`"


def _url_end(fragment: str, start: int) -> int:
    """Where a URL that begins at ``start`` ends: the first quote, space, bracket, tab, newline
    or backtick after it."""
    end = start
    size = len(fragment)
    while end < size and fragment[end] not in _URL_END:
        end += 1
    return end


def url_spans(fragment: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each absolute URL inside a literal fragment: a scheme's
    (``url(https://x/?``, ``<img src="https://x/``, ``HTTPS://x``), and a protocol-relative one
    where CSS ``url(``/``@import`` or a markup ``src=``/``href=`` begins (``url(//x/a.png)``)."""
    out: list[tuple[int, int]] = []
    if "//" not in fragment:
        return out  # every absolute URL has one
    lowered = fragment.lower()
    for marker in _URL_MARKERS:
        start = lowered.find(marker)
        while start >= 0:
            end = _url_end(fragment, start + len(marker))
            out.append((start, end))
            start = lowered.find(marker, end)
    for before in _RELATIVE_AFTER:
        at = lowered.find(before)
        while at >= 0:
            start = at + len(before)
            while start < len(fragment) and fragment[start] in " \t\n\"'":
                start += 1
            if fragment.startswith("//", start) and start + 2 < len(fragment) and fragment[start + 2] not in "/ " + _URL_END:
                out.append((start, _url_end(fragment, start + 2)))
            at = lowered.find(before, at + len(before))
    return out


def urls_in_text(fragment: str) -> list[str]:
    """Absolute URLs inside a literal fragment (:func:`url_spans`)."""
    return [fragment[start:end] for start, end in url_spans(fragment)]


def _css_ident(value: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "\\" + c for c in value)


def _enclosing_function(node: Node) -> Node | None:
    current = parent_of(node)
    while current is not None:
        if current.type in ("function_declaration", "function_expression", "arrow_function", "method_definition",
                            "function", "generator_function_declaration", "generator_function"):
            return current
        current = parent_of(current)
    return None


def _function_name(function: Node) -> str:
    name = function.child_by_field_name("name")
    if name is not None:
        return text(name)
    parent = parent_of(function)
    if parent is not None and parent.type == "variable_declarator":
        return text(parent.child_by_field_name("name"))
    return ""


def _css_loads(value: str) -> bool:
    """Whether a text is CSS that loads something (url(, @import, @font-face)."""
    lowered = value.lower()
    return "url(" in lowered or "@import" in lowered or "@font-face" in lowered or "image-set(" in lowered


def _static_value(node: Node | None) -> bool:
    """Whether a value is written in the source (a literal, or literals joined): nothing computed."""
    if node is None:
        return True
    if node.type in ("string", "number", "true", "false", "null", "undefined", "regex"):
        return True
    if node.type == "template_string":
        return not any(c.type == "template_substitution" for c in node.children)
    if node.type in ("binary_expression", "parenthesized_expression"):
        return all(_static_value(c) for c in node.named_children)
    return False


def enclosing_with(node: Node, memo: dict[int, Node | None]) -> Node | None:
    """The object of the ``with`` statement around ``node`` (not crossing a function). ``memo``
    (one per review) keeps each walked ancestor's answer, so that the walks up from every
    assignment of a deeply nested script visit each ancestor once, not once per assignment."""
    path: list[int] = []
    found: Node | None = None
    current = parent_of(node)
    while current is not None and current.type not in _FUNCTIONS:
        if current.id in memo:
            found = memo[current.id]
            break
        path.append(current.id)
        if current.type == "with_statement":
            found = current.child_by_field_name("object")
            break
        current = parent_of(current)
    for node_id in path:
        memo[node_id] = found
    return found


def _pattern_names(pattern: Node | None) -> set[str]:
    """The names a binding pattern binds (``a``, ``{a, b: c}``, ``[d, ...e]``, ``f = 1``)."""
    out: set[str] = set()
    stack: list[Node | None] = [pattern]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.type in ("identifier", "shorthand_property_identifier_pattern"):
            out.add(text(node))
        elif node.type == "pair_pattern":
            stack.append(node.child_by_field_name("value"))
        elif node.type in ("assignment_pattern", "object_assignment_pattern"):
            stack.append(node.child_by_field_name("left"))
        elif node.type in ("object_pattern", "array_pattern", "rest_pattern", "formal_parameters"):
            stack.extend(node.named_children)
    return out


#: The browser's names for window objects: a local bound from one of them (``const parent =
#: window.parent``, ``const {top} = window``) is that window again, not a harmless local.
_WINDOW_NAMES = frozenset({"window", "self", "globalThis", "frames", "parent", "top", "opener"})


def _names_a_window(value: Node | None) -> bool:
    stack = [value] if value is not None else []
    while stack:
        node = stack.pop()
        if node.type == "identifier" and text(node) in _WINDOW_NAMES:
            return True
        stack.extend(node.children)
    return False


def _declares(scope: Node, name: str, ancestors: set[int], *, lexical_only: bool = False) -> bool:
    """Whether ``scope`` (a function or the program) declares ``name`` where a use whose
    ancestors are ``ancestors`` sees it: ``var`` and function declarations anywhere in the
    function, ``let``/``const``/``class`` in a block around the use, catch and for-of/in
    bindings around it; nested functions are their own scopes."""
    stack = list(scope.children)
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("variable_declarator",):
            declaration = parent_of(node)
            is_var = declaration is not None and declaration.type == "variable_declaration"
            if name in _pattern_names(node.child_by_field_name("name")) and not (lexical_only and is_var) \
                    and (is_var or declaration is not None and _block_of(declaration).id in ancestors) \
                    and not _names_a_window(node.child_by_field_name("value")):
                return True
        elif kind in ("function_declaration", "generator_function_declaration", "class_declaration"):
            if text(node.child_by_field_name("name")) == name and not lexical_only \
                    and (kind != "class_declaration" or _block_of(node).id in ancestors):
                return True
            continue  # its own scope
        elif kind == "catch_clause" or kind == "for_in_statement":
            binding = node.child_by_field_name("parameter" if kind == "catch_clause" else "left")
            if node.id in ancestors and name in _pattern_names(binding) and (
                    kind == "catch_clause" or any(c.type in ("const", "let", "var") for c in node.children)):
                return True
        if kind in _FUNCTIONS and kind not in ("class_declaration", "class"):
            continue
        stack.extend(node.children)
    return False


def _block_of(node: Node) -> Node:
    """The block a lexical declaration is scoped to (the statement block, loop or program around it)."""
    current = parent_of(node)
    while current is not None and current.type not in ("statement_block", "program", "for_statement", "for_in_statement",
                                                       "switch_body", "class_body") and current.type not in _FUNCTIONS:
        current = parent_of(current)
    return current if current is not None else node


def bound_locally(node: Node, name: str) -> bool:
    """Whether ``name``, used at ``node``, names a binding of the scripts (a parameter or a
    declaration of a function around it, or a top-level ``let``/``const``/``class``), not the
    browser's global of that name (``function add(parent, child) { parent.append(child) }``)."""
    ancestors: set[int] = set()
    current = parent_of(node)
    while current is not None:
        ancestors.add(current.id)
        if current.type in _FUNCTIONS and current.type not in ("class_declaration", "class"):
            params = current.child_by_field_name("parameters") or current.child_by_field_name("parameter")
            if name in _pattern_names(params) or _declares(current, name, ancestors):
                return True
        elif current.type == "program":
            return _declares(current, name, ancestors, lexical_only=True)
        current = parent_of(current)
    return False
