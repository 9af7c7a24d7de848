"""The JavaScript of a block, parsed with tree-sitter (docs/REVIEW.md: the measurement).

All scripts of a block (inline ``<script>`` elements and event-handler attributes) share
one global scope in the browser, so they are analysed together:

* a flow-insensitive, name-based data flow (:class:`Flow`) labels every expression with
  where its value may come from: state (``flowUi.state.a.b``, ``flowUi.get('a.b')``, the
  first argument of an ``onChange`` callback), a bound element's text
  (``querySelector('[data-bind=a.b]').textContent``; the selector is matched against the
  block's lexbor tree) and absolute URL literals. Labels travel through declarations,
  destructuring, assignments, concatenation, template literals, conditionals, calls
  (arguments to parameters of functions declared in the scripts, returns back, and
  callbacks' parameters from their receiver), and object/array literals;
* every sink, bridge call, blocked API, obfuscation signal and busy loop is then read off
  the trees with the final labels.

What it does not follow (docs/REVIEW.md): scopes (one name is one variable), object
properties written and read back (a write taints the whole object), values through
storage, the DOM (other than bound text) or events, and code built at run time.
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

from ..paths import SEGMENT_PATTERN
from .urls import absolute_url, classify, host_of


@functools.cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_javascript.language()))


# Labels: ("state", path, object) state read at path ("" is the whole state; object: member
# access extends the path); ("url", literal) an absolute URL literal.
STATE = "state"
URL = "url"
ELEMENT = "element"   # ("element", path): a bound element; its text gives ("state", path, False)
INPUT = "input"       # ("input", name): what the user typed or chose (name: input:#email, input:keydown, ...)
CONTROL = "control"   # ("control", name): a form control or contenteditable element; its value gives ("input", name)
INPUT_EVENT = "inputevent"  # ("inputevent", name, control): an input event; key/data give input, target the control
CSS_TEXT = ("csstext",)  # the value holds CSS text that loads something (url(), @import, @font-face)
FLOWUI = ("flowui",)  # the flowUi object itself (aliases, destructuring, Reflect.get)
GETTER = ("getter",)  # flowUi.get as a value (bound, called through call/apply)
RTC = ("rtc",)        # a peer connection or one of its data channels

#: Events whose object carries what the user types (key, data, target.value).
INPUT_EVENTS = frozenset(("keydown", "keypress", "keyup", "input", "beforeinput", "change", "paste", "cut", "copy",
                          "compositionend", "compositionupdate", "textInput", "select", "selectionchange"))
#: Members of an input event that hold what was typed.
_EVENT_TEXT = frozenset(("key", "code", "data", "keyCode", "which", "charCode", "char", "clipboardData", "dataTransfer"))
_EVENT_TARGET = frozenset(("target", "currentTarget", "srcElement", "explicitOriginalTarget", "originalTarget"))
#: Members of a control that hold what the user entered.
_CONTROL_TEXT = frozenset(("value", "checked", "textContent", "innerText", "innerHTML", "outerText", "valueAsNumber",
                           "valueAsDate", "selectedOptions", "selectedIndex", "files", "selectionStart", "selectionEnd",
                           "nodeValue", "data", "wholeText"))
#: Receivers that a tainted argument does not taint (the generic "an object that takes a value holds it").
_NOT_CONTAINERS = frozenset(("console", "Math", "JSON", "Object", "Array", "Number", "String", "Promise", "Reflect",
                             "document", "navigator", "history", "performance", "crypto", "location", "flowUi"))

_SEGMENT = re.compile(rf"(?:{SEGMENT_PATTERN})\Z")
_TEXT_PROPS = frozenset(("textContent", "innerText", "innerHTML", "outerHTML", "value", "nodeValue", "data",
                         "outerText", "valueAsNumber", "title", "alt"))
_NOT_PATH = frozenset(("length", "constructor", "prototype", "__proto__"))
_GLOBALS = frozenset(("window", "self", "globalThis", "frames"))
_FLOWUI = "flowUi"

#: Properties whose assignment loads (or navigates to) a URL, by element use.
URL_PROPS = {"src": "img", "srcset": "img", "href": "navigation", "poster": "img", "data": "object",
             "action": "navigation", "formAction": "navigation", "background": "img", "ping": "connect"}
#: style properties that may hold url().
STYLE_PROPS = frozenset(("background", "backgroundImage", "cssText", "listStyle", "listStyleImage", "content",
                         "borderImage", "borderImageSource", "cursor", "mask", "maskImage", "webkitMaskImage",
                         "shapeOutside", "filter"))
URL_ATTRS = {"src": "img", "srcset": "img", "href": "navigation", "xlink:href": "img", "poster": "img",
             "data": "object", "style": "img", "background": "img", "action": "navigation", "ping": "connect",
             "formaction": "navigation"}
HTML_SINK_PROPS = frozenset(("innerHTML", "outerHTML"))


@dataclass
class Script:
    """One piece of JavaScript and where it sits in the source."""

    code: str
    at: Callable[[int], tuple[int, int]]   # char offset in code -> (line, column) in the source
    kind: str                                 # "script" or "handler:onclick" etc.
    tree: object = None
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
    return node.text.decode("utf-8", "replace") if node is not None else ""


def string_value(node: Node | None) -> str | None:
    """The value of a string literal (or a template without substitutions)."""
    if node is None:
        return None
    if node.type == "string":
        raw = text(node)[1:-1]
        if "\\" not in raw:
            return raw
        try:
            return raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
        except (UnicodeDecodeError, UnicodeEncodeError):
            return raw
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.children):
        return text(node)[1:-1]
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return string_value(node.named_children[0])
    return None


def _starts_with_literal(node: Node) -> bool:
    """Whether the value's text begins with a literal (a string, a template's first
    fragment, or the left end of a concatenation)."""
    while True:
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


def literal_fragments(node: Node) -> list[str]:
    """The literal parts of a string, template or concatenation (for hosts of a sink)."""
    out: list[str] = []
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


class TooComplex(Exception):
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
                         "field_definition", "new_expression"))


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




def callee_name(node: Node) -> str:
    """``a.b.c`` for a member chain of identifiers (window./globalThis. dropped), else ""."""
    if node is None:
        return ""
    if node.type == "identifier":
        return text(node)
    if node.type not in ("member_expression", "subscript_expression", "parenthesized_expression", "this"):
        return ""
    return _callee_name(node)


def _callee_name(node: Node) -> str:
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
            key = string_value(node.child_by_field_name("index"))
            if key is None:
                return ""
            parts.append(key)
            node = node.child_by_field_name("object")
            continue
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
            continue
        return ""
    parts.reverse()
    while len(parts) > 1 and parts[0] in _GLOBALS:
        parts.pop(0)
    return ".".join(parts)


class Flow:
    """Labels of expressions across all scripts of a block (see the module docstring)."""

    def __init__(self, scripts: list[Script], select: Callable[[str], list[str]], markup_paths: list[str],
                 deadline: float = float("inf"), controls: Callable[[str], list[str]] | None = None):
        self.deadline = deadline
        self.scripts = scripts
        # The flow is name-based and flow-insensitive, so a script repeated verbatim (the same
        # handler on every row) adds nothing: each distinct text is analysed once.
        self.unique = list({script.code: script for script in scripts}.values())
        _local.parents = {k: v for script in self.unique for k, v in script.parents.items()}
        self.select = select                  # CSS selector -> data-bind paths of matching elements
        self.controls = controls or (lambda selector: [])  # CSS selector -> names of the controls it matches
        self.markup_paths = markup_paths
        self.props: dict[str, frozenset] = {}     # property name -> labels written through this./class fields
        self.getters: set[str] = set()            # names of getters and methods (a member read runs them)
        self.events: dict[str, frozenset] = {}    # custom event type -> labels of its init (detail)
        self.dom: frozenset = frozenset()         # labels written into dataset / data-* attributes
        self.inputs_used = False                  # an input source is read somewhere
        self.constants: set[str] = set()          # names declared with a literal (const payload = '...')
        self.vars: dict[str, frozenset] = {}
        self.returns: dict[str, frozenset] = {}
        self.aliases = {_FLOWUI}              # names bound to window.flowUi
        self.functions: dict[str, list[Node]] = {}  # name -> parameter lists' nodes
        self.reads: dict[str, Node] = {}     # state paths read -> first node
        self.changed = True
        self._collect_functions()
        self._memo: dict[int, frozenset] = {}
        for _ in range(8):                    # to a fixed point (8 is far more than real blocks need)
            self.changed = False
            self._memo = {}
            for script in self.unique:
                self._propagate(script.flow_nodes)
            if not self.changed:
                break

    # -- set-up -----------------------------------------------------------------------
    def _collect_functions(self) -> None:
        for script in self.unique:
            if script.kind.startswith("handler:on") and script.kind[len("handler:on"):] in INPUT_EVENTS:
                # An event-handler attribute sees its event as `event`.
                self.vars["event"] = self.vars.get("event", frozenset()) | {(INPUT_EVENT, "input:" + script.kind[10:], "")}
            for node in script.nodes:
                if node.type == "method_definition":
                    name = node.child_by_field_name("name")
                    if name is not None and any(c.type == "get" for c in node.children):
                        self.getters.add(text(name))
                if node.type in ("function_declaration", "generator_function_declaration"):
                    name = node.child_by_field_name("name")
                    self.functions.setdefault(text(name), []).append(node)
                elif node.type == "variable_declarator":
                    value = node.child_by_field_name("value")
                    if value is not None and value.type in ("arrow_function", "function_expression", "function"):
                        self.functions.setdefault(text(node.child_by_field_name("name")), []).append(value)
                    elif value is not None and (_static_value(value) or value.type == "array" and all(
                            c.type in ("number", "string") for c in value.named_children)):
                        self.constants.add(text(node.child_by_field_name("name")))
                    elif value is not None and value.type == "call_expression":
                        # const g = f.bind(x): g is f
                        name = callee_name(value.child_by_field_name("function"))
                        head, _, method = name.rpartition(".")
                        if method == "bind" and head in self.functions:
                            self.functions.setdefault(text(node.child_by_field_name("name")), []).extend(self.functions[head])

    # -- the fixed point -----------------------------------------------------------------
    def _bind(self, name: str, labels: frozenset) -> None:
        if not labels:
            return
        old = self.vars.get(name, frozenset())
        if not labels <= old:
            self.vars[name] = old | labels
            self.changed = True

    def _bind_pattern(self, pattern: Node | None, labels: frozenset) -> None:
        if pattern is None:
            return
        kind = pattern.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            self._bind(text(pattern), labels)
        elif kind == "object_pattern":
            for child in pattern.named_children:
                if child.type == "shorthand_property_identifier_pattern":
                    self._bind(text(child), self._member(labels, text(child)))
                elif child.type == "pair_pattern":
                    key = child.child_by_field_name("key")
                    name = string_value(key) if key.type == "string" else text(key)
                    self._bind_pattern(child.child_by_field_name("value"), self._member(labels, name))
                elif child.type == "object_assignment_pattern":
                    left = child.child_by_field_name("left")
                    self._bind_pattern(left, self._member(labels, text(left)) | self.labels(child.child_by_field_name("right")))
                elif child.type == "rest_pattern":
                    self._bind_pattern(child.named_children[0] if child.named_children else None, labels)
        elif kind == "array_pattern":
            for child in pattern.named_children:
                self._bind_pattern(child, self._element(labels))
        elif kind == "assignment_pattern":
            self._bind_pattern(pattern.child_by_field_name("left"), labels | self.labels(pattern.child_by_field_name("right")))
        elif kind == "rest_pattern":
            self._bind_pattern(pattern.named_children[0] if pattern.named_children else None, labels)

    def _params(self, function: Node) -> list[Node]:
        single = function.child_by_field_name("parameter")
        if single is not None:
            return [single]
        params = function.child_by_field_name("parameters")
        return list(params.named_children) if params is not None else []

    def _propagate(self, nodes: list[Node]) -> None:
        for count, node in enumerate(nodes):
            if not count & 255 and time.monotonic() > self.deadline:
                raise TooComplex("time")
            kind = node.type
            if kind == "variable_declarator":
                value = node.child_by_field_name("value")
                if value is not None:
                    name = node.child_by_field_name("name")
                    if callee_name(value) in self.aliases and name.type == "identifier":
                        if text(name) not in self.aliases:
                            self.aliases.add(text(name))
                            self.changed = True
                    self._bind_pattern(name, self.labels(value))
            elif kind in ("assignment_expression", "augmented_assignment_expression"):
                left = node.child_by_field_name("left")
                labels = self.labels(node.child_by_field_name("right"))
                if left.type in ("identifier", "object_pattern", "array_pattern"):
                    self._bind_pattern(left, labels)
                elif left.type in ("member_expression", "subscript_expression"):
                    base = left
                    chain = []
                    while base.type in ("member_expression", "subscript_expression"):
                        if base.type == "member_expression":
                            chain.append(text(base.child_by_field_name("property")))
                        base = base.child_by_field_name("object")
                    flat = frozenset((STATE, label[1], False) if label[0] == STATE else label for label in labels)
                    if base.type == "identifier" and text(base) not in _GLOBALS and text(base) != "document":
                        # An object written taints the whole object (as a value: no path below it).
                        self._bind(text(base), flat)
                    if chain and base.type == "this":
                        self._bind_prop(chain[-1], flat)  # this.p = v: every read of .p may see it
                    if "dataset" in chain:
                        self._bind_dom(flat)             # el.dataset.k = v: any dataset read may see it
                    handler = chain[0] if left.type == "member_expression" else ""
                    if handler.startswith("on"):
                        self._listen(handler[2:], node.child_by_field_name("right"), base)
            elif kind == "call_expression":
                self._call(node)
                arguments = node.child_by_field_name("arguments")
                for arg in arguments.named_children if arguments is not None else ():
                    self.labels(arg)  # records the reads of arguments no assignment holds
            elif kind == "expression_statement" and node.named_child_count:
                self.labels(node.named_children[0])
            elif kind == "return_statement":
                function = _enclosing_function(node)
                if function is not None and node.named_child_count:
                    name = _function_name(function)
                    if name:
                        labels = self.labels(node.named_children[0])
                        old = self.returns.get(name, frozenset())
                        if labels and not labels <= old:
                            self.returns[name] = old | labels
                            self.changed = True
            elif kind == "arrow_function":
                body = node.child_by_field_name("body")
                name = _function_name(node)
                if body is not None and body.type != "statement_block" and name:
                    labels = self.labels(body)
                    old = self.returns.get(name, frozenset())
                    if labels and not labels <= old:
                        self.returns[name] = old | labels
                        self.changed = True
            elif kind in ("for_in_statement",):
                left = node.child_by_field_name("left")
                right = node.child_by_field_name("right")
                self._bind_pattern(left, self._element(self.labels(right)))
            elif kind == "field_definition":
                prop = node.child_by_field_name("property")
                value = node.child_by_field_name("value")
                if prop is not None and value is not None:
                    self._bind_prop(text(prop), self.labels(value))
            elif kind == "new_expression":
                ctor = callee_name(node.child_by_field_name("constructor"))
                arguments = node.child_by_field_name("arguments")
                args = list(arguments.named_children) if arguments is not None else []
                if ctor in ("CustomEvent", "Event", "MessageEvent") and len(args) >= 2:
                    kind_name = string_value(args[0]) or "?"
                    labels = self.labels(args[1])
                    old = self.events.get(kind_name, frozenset())
                    if labels and not labels <= old:
                        self.events[kind_name] = old | labels
                        self.changed = True

    def _bind_prop(self, name: str, labels: frozenset) -> None:
        if not labels:
            return
        old = self.props.get(name, frozenset())
        if not labels <= old:
            self.props[name] = old | labels
            self.changed = True

    def _bind_dom(self, labels: frozenset) -> None:
        if labels and not labels <= self.dom:
            self.dom = self.dom | labels
            self.changed = True

    def _listen(self, event: str, handler: Node | None, target: Node | None) -> None:
        """A listener for ``event`` on ``target``: its first parameter is the event."""
        if handler is None:
            return
        if event in INPUT_EVENTS:
            controls = sorted(label[1] for label in (self.labels(target) if target is not None else ())
                              if label[0] == CONTROL)
            labels = frozenset({(INPUT_EVENT, controls[0] if controls else "input:" + event, controls[0] if controls else "")})
        else:  # a custom event: its detail holds what was dispatched (as a value: no path below it)
            labels = frozenset((STATE, label[1], False) if label[0] == STATE else label
                               for label in self.events.get(event, frozenset()) | self.events.get("?", frozenset()))
        if not labels:
            return
        for fn in self._functions_of(handler):
            params = self._params(fn)
            if params:
                self._bind_pattern(params[0], labels)
    def _call(self, node: Node) -> None:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        args = list(arguments.named_children) if arguments is not None else []
        name = callee_name(function)
        head, _, method = name.rpartition(".")
        if not name and function is not None and function.type == "member_expression":  # a.b().c(...)
            method = text(function.child_by_field_name("property"))
        if method == "onChange" and head in self.aliases:
            for arg in args[:1]:
                for fn in self._functions_of(arg):
                    params = self._params(fn)
                    if params:
                        self._bind_pattern(params[0], frozenset({(STATE, "", True)}))
            return
        if method == "onTheme" and head in self.aliases:
            return
        receiver_node = function.child_by_field_name("object") if function is not None and function.type in (
            "member_expression", "subscript_expression") else None
        if method == "addEventListener" and len(args) >= 2:
            self._listen(string_value(args[0]) or "?", args[1], receiver_node)
        # A function declared in the scripts: arguments flow into its parameters (also through call/apply).
        called, passed = name, args
        if method in ("call", "apply") and head in self.functions:
            called, passed = head, args[1:]
            if method == "apply" and passed and passed[0].type == "array":
                passed = list(passed[0].named_children)
        for fn in self.functions.get(called, ()):
            for param, arg in zip(self._params(fn), passed):
                self._bind_pattern(param, self.labels(arg))
        arg_labels = frozenset().union(*(self.labels(arg) for arg in args if arg.type not in (
            "arrow_function", "function_expression", "function"))) if args else frozenset()
        flat = frozenset((STATE, label[1], False) if label[0] == STATE else label
                         for label in arg_labels if label[0] not in (FLOWUI[0], GETTER[0]))
        if name in ("Object.assign", "Reflect.set", "Object.defineProperty") and args:
            # Object.assign(target, {src: v}): the target holds the values.
            base = args[0]
            while base.type in ("member_expression", "subscript_expression"):
                base = base.child_by_field_name("object")
            if base.type == "identifier" and text(base) not in _GLOBALS:
                self._bind(text(base), flat)
        elif receiver_node is not None and flat:
            # The conservative rule: an object handed a value (push, set, add, append, a setter method)
            # holds it; reading it back (join, get, values, spread) gives it again.
            base = receiver_node
            while base.type in ("member_expression", "subscript_expression"):
                base = base.child_by_field_name("object")
            if method in ("setAttribute", "setAttributeNS") and args:
                attr = (string_value(args[-2]) if len(args) >= 2 else "") or ""
                if attr.lower().startswith("data-") or attr.lower() in ("value", "title", "alt", "aria-label"):
                    self._bind_dom(flat)
            if base.type == "identifier" and text(base) not in _GLOBALS and text(base) not in _NOT_CONTAINERS \
                    and text(base) not in self.aliases and method not in ("log", "warn", "error", "info", "debug"):
                self._bind(text(base), flat)
        # Callbacks (forEach, map, ...): their parameters get the receiver's labels; a promise of what
        # the user typed (navigator.clipboard.readText().then) gives it to its callback.
        if function is not None and function.type == "member_expression" and method != "addEventListener":
            receiver = self._element(self.labels(receiver_node))
            if method in ("then", "catch", "finally"):
                receiver = frozenset(label for label in receiver if label[0] == INPUT)
            if receiver:
                for arg in args:
                    for fn in self._functions_of(arg):
                        for param in self._params(fn)[:2]:
                            self._bind_pattern(param, receiver)

    def _functions_of(self, node: Node) -> list[Node]:
        if node.type in ("arrow_function", "function_expression", "function"):
            return [node]
        if node.type == "identifier":
            return self.functions.get(text(node), [])
        return []

    # -- labels of an expression -------------------------------------------------------------
    def _member(self, labels: frozenset, prop: str | None) -> frozenset:
        out = set()
        for label in labels:
            kind = label[0]
            if kind == FLOWUI[0]:
                if prop == "state":
                    out.add((STATE, "", True))
                elif prop == "get":
                    out.add(GETTER)
                continue
            if kind == GETTER[0]:
                if prop in ("bind", "call", "apply", None):
                    out.add(GETTER)
                continue
            if kind == INPUT_EVENT:
                if prop in _EVENT_TEXT:
                    out.add((INPUT, label[1]))
                    self.inputs_used = True
                elif prop in _EVENT_TARGET:
                    out.add((CONTROL, label[2] or label[1]))
                continue
            if kind == CONTROL:
                if prop in _CONTROL_TEXT:
                    out.add((INPUT, label[1]))
                    self.inputs_used = True
                elif prop in ("form", "elements", "children", "firstChild", "firstElementChild", "lastChild", "childNodes",
                              "parentNode", "parentElement", "options", "firstElementChild", "item", "namedItem"):
                    out.add(label)
                continue
            if label[0] == STATE and label[2]:
                if prop and _SEGMENT.match(prop) and prop not in _NOT_PATH:
                    out.add((STATE, f"{label[1]}.{prop}" if label[1] else prop, True))
                else:
                    out.add((STATE, label[1], False))
            elif label[0] == ELEMENT:
                if prop in _TEXT_PROPS:
                    out.add((STATE, label[1], False))
                elif prop in ("children", "firstChild", "firstElementChild", "lastChild", "childNodes", "parentNode",
                              "parentElement", "nextElementSibling", "previousElementSibling", "dataset", "attributes"):
                    out.add(label)
            else:
                out.add(label if label[0] != STATE else (STATE, label[1], False))
        return frozenset(out)

    def _property(self, prop: str | None) -> frozenset:
        """What a member read may see besides its object's labels: values written through
        ``this.prop`` or a class field, a getter's return, anything kept in a dataset."""
        if not prop:
            return frozenset()
        out = self.props.get(prop, frozenset())
        if prop in self.getters:
            out = out | self.returns.get(prop, frozenset())
        if prop == "dataset":
            out = out | self.dom
        return out

    def _element(self, labels: frozenset) -> frozenset:
        """Labels of an element of an array/iterable (paths get no index)."""
        return labels

    def labels(self, node: Node | None) -> frozenset:
        """Labels of ``node``, memoised for the current pass (the last pass changes nothing,
        so what it memoises is final)."""
        if node is None:
            return frozenset()
        key = node.id
        memo = self._memo
        if key in memo:
            return memo[key]
        labels = memo[key] = self._labels(node)
        return labels

    def _read(self, path: str, node: Node) -> None:
        self.reads.setdefault(path, node)

    def _labels(self, node: Node) -> frozenset:
        kind = node.type
        if kind == "identifier":
            name = text(node)
            if name == "undefined":
                return frozenset()
            if name in self.aliases:
                return self.vars.get(name, frozenset()) | {FLOWUI}
            return self.vars.get(name, frozenset())
        if kind in ("string", "template_string"):
            out = set()
            value = string_value(node)
            if value is not None:
                if absolute_url(value):
                    out.add((URL, value))
                elif _css_loads(value):
                    out.add(CSS_TEXT)
                    out.update((URL, u) for u in urls_in_text(value))
                return frozenset(out)
            for child in node.named_children:
                if child.type == "template_substitution":
                    for inner in child.named_children:
                        out |= self.labels(inner)
                elif child.type == "string_fragment":
                    if absolute_url(text(child)):
                        out.add((URL, text(child)))
                    elif _css_loads(text(child)):
                        out.add(CSS_TEXT)
                        out.update((URL, u) for u in urls_in_text(text(child)))
            return frozenset(out)
        if kind == "member_expression":
            obj = node.child_by_field_name("object")
            prop = text(node.child_by_field_name("property"))
            name = callee_name(obj)
            if prop == "state" and name in self.aliases:
                if _outermost(node):
                    self._read("", node)
                return frozenset({(STATE, "", True)})
            if name == "document" and prop == "body" or name == "document" and prop == "documentElement":
                return frozenset((ELEMENT, p) for p in self.markup_paths)
            if name == "document" and prop in ("forms", "activeElement"):
                return frozenset({(CONTROL, "input:form" if prop == "forms" else "input:focused")})
            if callee_name(node) in self.aliases:
                return frozenset({FLOWUI})
            labels = self._member(self._labels(obj), prop) | self._property(prop)
            if _outermost(node):
                for label in labels:
                    if label[0] == STATE:
                        self._read(label[1], node)
            return labels
        if kind == "subscript_expression":
            obj = self._labels(node.child_by_field_name("object"))
            index = node.child_by_field_name("index")
            key = string_value(index)
            if key is not None:
                labels = self._member(obj, key) | self._property(key)
                for label in labels if _outermost(node) else ():
                    if label[0] == STATE:
                        self._read(label[1], node)
                return labels
            return self._element(obj) | self._labels(index)
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            args = list(arguments.named_children) if arguments is not None else []
            name = callee_name(function)
            head, _, method = name.rpartition(".")
            getter = method == "get" and head in self.aliases
            if method == "bind" and function is not None and GETTER in self.labels(function):
                return frozenset({GETTER})  # flowUi.get.bind(flowUi): still the getter
            if not getter and function is not None and GETTER in self.labels(function):
                # flowUi.get through an alias, bind, call or apply: the path is the first argument after `this`.
                getter = True
                if method in ("call", "apply") and args:
                    args = args[1:]
                    if method == "apply" and args and args[0].type == "array":
                        args = list(args[0].named_children)
            if name == "Reflect.apply" and len(args) >= 3 and GETTER in self._labels(args[0]):
                getter, args = True, list(args[2].named_children) if args[2].type == "array" else []
            if getter:
                path = string_value(args[0]) if args else None
                if path is not None:
                    self._read(path, node)
                    return frozenset({(STATE, path, True)})
                return frozenset({(STATE, "?", False)})
            if name == "Reflect.get" and len(args) >= 2:
                key = string_value(args[1])
                if key in self.aliases and (args[0].type == "identifier" and text(args[0]) in _GLOBALS):
                    return frozenset({FLOWUI})
                return self._member(self._labels(args[0]), key) | (self._property(key) if key else frozenset())
            if method == "getSelection" or name in ("navigator.clipboard.readText", "navigator.clipboard.read"):
                self.inputs_used = True
                return frozenset({(INPUT, "input:selection" if method == "getSelection" else "input:clipboard")})
            if method in ("querySelector", "querySelectorAll", "getElementById", "getElementsByClassName", "closest",
                          "getElementsByTagName") and args:
                selector = string_value(args[0])
                if selector is not None:
                    if method == "getElementById":
                        selector = "#" + _css_ident(selector)
                    elif method == "getElementsByClassName":
                        selector = "." + ".".join(_css_ident(c) for c in selector.split())
                    return frozenset([*((ELEMENT, p) for p in self.select(selector)),
                                      *((CONTROL, c) for c in self.controls(selector))])
                return frozenset()
            if method in ("getAttribute", "getAttributeNS") and function.type == "member_expression":
                return self._member(self._labels(function.child_by_field_name("object")), "value") | self.dom
            if name in self.returns:
                return self.returns[name]
            out = set(self.returns.get(method, ())) if method and function.type == "member_expression" else set()
            if function is not None and function.type == "member_expression":
                out |= self._member(self._labels(function.child_by_field_name("object")), None)
            for arg in args:
                if arg.type not in ("arrow_function", "function_expression"):
                    out |= self.labels(arg)
            return frozenset((STATE, label[1], False) if label[0] == STATE else label for label in out
                             if label[0] not in (FLOWUI[0], CONTROL, INPUT_EVENT))
        if kind == "new_expression":
            ctor = callee_name(node.child_by_field_name("constructor"))
            arguments = node.child_by_field_name("arguments")
            inner = frozenset().union(*(self.labels(a) for a in arguments.named_children)) if arguments is not None \
                and arguments.named_child_count else frozenset()
            if ctor in ("FormData", "URLSearchParams"):
                named = {label[1] for label in inner if label[0] in (CONTROL, INPUT)}
                if ctor == "FormData" or named:
                    self.inputs_used = True
                    return frozenset((INPUT, n) for n in (named or {"input:form"}))
            if ctor in _WEBRTC:
                return inner | {RTC}
            return inner
        if kind in ("binary_expression", "ternary_expression", "parenthesized_expression", "sequence_expression",
                    "array", "spread_element", "await_expression", "unary_expression", "template_substitution",
                    "arguments", "as_expression", "non_null_expression"):
            out = frozenset()
            compare = False
            if kind == "binary_expression":
                op = node.child_by_field_name("operator")
                compare = op is not None and text(op) in ("===", "!==", "==", "!=", "<", ">", "<=", ">=", "instanceof", "in")
            condition = node.child_by_field_name("condition") if kind == "ternary_expression" else None
            for child in node.named_children:
                labels = self.labels(child)  # always computed: it records the reads
                if not compare and child != condition:
                    out |= labels
            return out
        if kind == "object":
            out = frozenset()
            for child in node.named_children:
                if child.type == "pair":
                    out |= self.labels(child.child_by_field_name("value"))
                elif child.type == "shorthand_property_identifier":
                    out |= self.vars.get(text(child), frozenset())
                elif child.type == "spread_element":
                    out |= self.labels(child)
            return out
        if kind in ("assignment_expression", "augmented_assignment_expression"):
            return self._labels(node.child_by_field_name("right"))
        return frozenset()


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


def urls_in_text(fragment: str) -> list[str]:
    """Absolute URLs inside a literal fragment (``url(https://x/?``, ``<img src="https://x/``)."""
    out = []
    for marker in ("https://", "http://", "wss://", "ws://"):
        start = fragment.find(marker)
        while start >= 0:
            end = start + len(marker)
            while end < len(fragment) and fragment[end] not in "\"' )<>\n\t`":
                end += 1
            out.append(fragment[start:end])
            start = fragment.find(marker, end)
    return out


def _css_ident(value: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "\\" + c for c in value)


def _enclosing_function(node: Node) -> Node | None:
    node = parent_of(node)
    while node is not None:
        if node.type in ("function_declaration", "function_expression", "arrow_function", "method_definition",
                         "function", "generator_function_declaration"):
            return node
        node = parent_of(node)
    return None


def _function_name(function: Node) -> str:
    name = function.child_by_field_name("name")
    if name is not None:
        return text(name)
    parent = parent_of(function)
    if parent is not None and parent.type == "variable_declarator":
        return text(parent.child_by_field_name("name"))
    return ""


# ------------------------------------------------------------------------ inspection

_STORAGE = frozenset(("localStorage", "sessionStorage", "indexedDB", "caches", "BroadcastChannel", "openDatabase"))
_DIALOGS = frozenset(("alert", "confirm", "prompt", "print"))
_NETWORK_CALLS = frozenset(("fetch", "navigator.sendBeacon"))
_NETWORK_NEW = frozenset(("XMLHttpRequest", "WebSocket", "EventSource", "WebTransport"))
_WORKERS = frozenset(("Worker", "SharedWorker"))
_WEBRTC = frozenset(("RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel"))
_DECODERS = frozenset(("atob", "String.fromCharCode", "String.fromCodePoint", "unescape"))
_COMPUTED_ROOTS = frozenset(("window", "document", "globalThis", "self", "top", "parent", "frames", "navigator", "location"))
_TRUE = frozenset(("true", "1", "!0", "!false"))
_ENCODED_MIN = 80
#: Namespace names are identifiers, never loaded (createElementNS, setAttributeNS).
XML_NAMESPACES = frozenset(("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xhtml", "http://www.w3.org/1999/xlink",
                            "http://www.w3.org/1998/Math/MathML", "http://www.w3.org/XML/1998/namespace",
                            "http://www.w3.org/2000/xmlns"))
_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
_HEX = frozenset("0123456789abcdefABCDEF")
_FUNCTIONS = frozenset(("function_declaration", "function_expression", "arrow_function", "method_definition", "function",
                        "generator_function_declaration", "generator_function", "class_declaration", "class"))


class Inspector:
    """Reads findings off the parsed scripts, with the labels of a :class:`Flow`."""

    def __init__(self, flow: Flow, fields: list[str]):
        self.flow = flow
        self.fields = fields
        self.events: list[Event] = []
        self._seen: set[tuple[str, str]] = set()
        # Names holding the flowUi object (const f = flowUi; const api = Reflect.get(window, 'flowUi')).
        flow.aliases |= {name for name, labels in flow.vars.items() if FLOWUI in labels}
        #: Attributes a script writes what the user types into (the CSS keylogger's mirror): attr -> input names.
        self.mirrors: dict[str, set[str]] = {}
        #: Where the scripts can reach a host outside the platform (for exfil.possible-flow).
        self.reach: list[tuple[Script, Node, str]] = []
        self._rtc: list[tuple[Script, Node]] = []
        copies: dict[str, list[Script]] = {}
        for script in flow.scripts:
            copies.setdefault(script.code, []).append(script)
        for script in flow.unique:
            start = len(self.events)
            self._script(script)
            # A verbatim copy has the same findings at its own position (once-per-block ones excepted).
            found = self.events[start:]
            for other in copies[script.code]:
                if other is not script:
                    self.events.extend(Event(e.rule, other, e.node, e.message, e.paths, e.hosts, e.evidence, e.context)
                                       for e in found if not e.once)
        self._webrtc()
        self._possible_flow()

    def _webrtc(self) -> None:
        """One channel.webrtc per peer connection, naming what its configuration, data channels'
        labels and sends carry (every call on a peer connection or a channel of it)."""
        if not self._rtc:
            return
        carried: set = set()
        for script in self.flow.unique:
            for node in script.nodes:
                if node.type in ("call_expression", "new_expression"):
                    holder = node.child_by_field_name("function")
                    if holder is not None and holder.type == "member_expression":
                        receiver = self.flow.labels(holder.child_by_field_name("object"))
                        if RTC not in receiver:
                            continue
                    elif node.type != "new_expression" or callee_name(node.child_by_field_name("constructor")) not in _WEBRTC:
                        continue
                    arguments = node.child_by_field_name("arguments")
                    for arg in arguments.named_children if arguments is not None else ():
                        carried |= self.flow.labels(arg)
                elif node.type == "variable_declarator" and RTC in self.flow.labels(node.child_by_field_name("name")):
                    carried |= self.flow.labels(node.child_by_field_name("name"))
        paths = _named(carried)
        for script, node in self._rtc:
            ctor = callee_name(node.child_by_field_name("constructor"))
            self.emit("channel.webrtc", script, node, f"new {ctor}(): STUN packets leave outside the Content-Security-Policy"
                      + (f", carrying {', '.join(paths)} (server credentials, channel labels or sends)" if paths else ""),
                      paths=paths)

    def _possible_flow(self) -> None:
        """A block that reads state or input and can reach another host, with no flow proved:
        at least a manual review (the data flow is an approximation; docs/REVIEW.md)."""
        proved = {"exfil.state-to-url", "exfil.input-to-url", "url.relative", "channel.webrtc"}
        if not self.reach or any(e.rule in proved and e.paths for e in self.events):
            return
        reads = sorted(p or "(the whole state)" for p in self.flow.reads if p != "?")
        if not reads and not self.flow.inputs_used:
            return
        script, node, how = self.reach[0]
        what = ", ".join(reads[:4]) if reads else "what the user types"
        self.once("exfil.possible-flow", "block", script, node,
                  f"reads {what} and can reach another host ({how}); no flow between them is proved: review by hand",
                  paths=reads if reads else [], evidence={"reach": [r[2] for r in self.reach[:5]]})
    def emit(self, rule: str, script: Script, node: Node, message: str, **extra) -> None:
        extra.setdefault("context", text(node)[:200])
        self.events.append(Event(rule, script, node, message, **extra))

    def once(self, rule: str, key: str, script: Script, node: Node, message: str, **extra) -> None:
        """At most one finding of ``rule`` per ``key`` per block (storage, cookies: one is enough)."""
        if (rule, key) in self._seen:
            return
        self._seen.add((rule, key))
        self.emit(rule, script, node, message, once=True, **extra)

    # -- a sink -----------------------------------------------------------------------
    def sink(self, script: Script, node: Node, value: Node | None, sink: str, kind: str, *, html: bool = False) -> None:
        if value is None:
            return
        labels = self.flow.labels(value)
        paths = sorted({label[1] or "(the whole state)" for label in labels if label[0] == STATE})
        inputs = sorted({label[1] for label in labels if label[0] == INPUT})
        if not paths and not inputs:
            if kind != "open" and not _static_value(value):
                self.reach.append((script, node, f"{sink} set at run time"))
            return
        if not paths:
            return self._input_sink(script, node, value, labels, inputs, sink, kind, html=html)
        if inputs:
            self._input_sink(script, node, value, labels, inputs, sink, kind, html=html)
        fragments = literal_fragments(value)
        has_url = any(label[0] == URL for label in labels)
        if kind == "csstext":  # text that is CSS only in a <style>: it loads with url(), @import or @font-face in it
            if CSS_TEXT not in labels and not any(_css_loads(f) for f in fragments):
                return
            kind = "css"
        if html and not has_url and not any(("://" in f or "src" in f.lower() or "url(" in f.lower() or "href" in f.lower())
                                            for f in fragments):
            return
        lowered = [f.lower() for f in fragments]
        if kind == "css" and not has_url and not any("url(" in f or "image" in f or "\\" in f for f in lowered):
            return  # a CSS value from the state (a color, a width) loads nothing
        first = lowered[0].lstrip() if lowered and _starts_with_literal(value) else ""
        if first.startswith(("mailto:", "tel:", "sms:", "#", "data:", "blob:", "about:")):
            return  # no request leaves
        if not has_url and first and not first.startswith("//") and not urls_in_text(first) \
                and first[:1] in "/.?" + "abcdefghijklmnopqrstuvwxyz0123456789_-" and ":" not in first.split("/")[0]:
            shown = [p if p != "?" else "(a path computed at run time)" for p in paths]
            self.emit("url.relative", script, node, f"state {', '.join(shown)} flows into {sink} with the relative URL "
                      f"{fragments[0].strip()[:40]!r}: requested from the host page's own origin",
                      paths=shown, evidence={"sink": sink, "kind": kind})
            return
        bare = value
        while bare.type == "parenthesized_expression" and bare.named_child_count == 1:
            bare = bare.named_children[0]
        direct = bare.type in ("member_expression", "subscript_expression") or (
            bare.type == "call_expression" and callee_name(bare.child_by_field_name("function")).rpartition(".")[::2]
            in {(alias, "get") for alias in self.flow.aliases})
        # The value is a state read as it is (no concatenation, no variable that may hold one).
        if direct and not fragments and not any(label[0] == URL for label in labels) and not html:
            shown = [p if p != "?" else "(a path computed at run time)" for p in paths]
            self.emit("url.from-state", script, node, f"{sink} loads the URL held by {', '.join(shown)}: the request goes "
                      "wherever the state points", paths=shown, evidence={"sink": sink, "kind": kind})
            return
        urls = sorted({label[1] for label in labels if label[0] == URL} | {u for f in fragments for u in urls_in_text(f)}
                      | {f.strip() for f in fragments if absolute_url(f.strip())})
        hosts = sorted({host_of(u.strip()) for u in urls} - {""})
        paths = [p if p != "?" else "(a path computed at run time)" for p in paths]
        where = ", ".join(hosts) if hosts else "a host computed at run time, or the host page's own origin"
        self.emit("exfil.state-to-url", script, node,
                  f"state {', '.join(paths)} flows into {sink} (to {where})",
                  paths=paths, hosts=hosts, evidence={"sink": sink, "kind": kind})

    def _input_sink(self, script: Script, node: Node, value: Node, labels: frozenset, inputs: list[str], sink: str,
                    kind: str, *, html: bool = False) -> None:
        """What the user typed reaches a URL sink: exfil.input-to-url, unless no request carries it."""
        fragments = literal_fragments(value)
        lowered = [f.lower() for f in fragments]
        has_url = any(label[0] == URL for label in labels)
        if kind == "csstext":
            if CSS_TEXT not in labels and not any(_css_loads(f) for f in fragments):
                return
            kind = "css"
        if html and not has_url and not any(("://" in f or "src" in f or "url(" in f or "href" in f) for f in lowered):
            return
        if kind == "css" and not has_url and not any("url(" in f or "image" in f or "\\" in f for f in lowered):
            return
        first = lowered[0].lstrip() if lowered and _starts_with_literal(value) else ""
        if first.startswith(("mailto:", "tel:", "sms:", "#", "data:", "blob:", "about:")):
            return
        bare = value
        while bare.type == "parenthesized_expression" and bare.named_child_count == 1:
            bare = bare.named_children[0]
        if not has_url and bare.type in ("member_expression", "subscript_expression", "identifier", "call_expression"):
            return  # the user's own URL, loaded as typed (a preview): nothing of the block's leaves with it
        urls = sorted({label[1] for label in labels if label[0] == URL} | {u for f in fragments for u in urls_in_text(f)}
                      | {f.strip() for f in fragments if absolute_url(f.strip())})
        hosts = sorted({host_of(u.strip()) for u in urls} - {""})
        where = ", ".join(hosts) if hosts else "a host computed at run time, or the host page's own origin"
        self.emit("exfil.input-to-url", script, node, f"what the user types ({', '.join(inputs)}) flows into {sink} (to {where})",
                  paths=inputs, hosts=hosts, evidence={"sink": sink, "kind": kind})

    # -- the walk -------------------------------------------------------------------------
    def _script(self, script: Script) -> None:
        root = script.tree.root_node
        if root.has_error:
            bad = next((n for n in walk(root) if n.is_error or n.is_missing), root)
            self.emit("source.script-syntax", script, bad,
                      f"{'handler ' + script.kind.split(':', 1)[1] if script.kind.startswith('handler') else 'script'}"
                      f" does not parse near {text(bad)[:40]!r}: the browser drops the whole script",
                      context=script.code[:200])
        aliases = self.flow.aliases
        deadline = self.flow.deadline
        for count, node in enumerate(script.nodes):
            if not count & 255 and time.monotonic() > deadline:
                raise TooComplex("time")
            kind = node.type
            if kind == "assignment_expression" or kind == "augmented_assignment_expression":
                self._assignment(script, node)
            elif kind == "call_expression":
                self._call(script, node)
            elif kind == "new_expression":
                self._new(script, node)
            elif kind == "member_expression":
                name = callee_name(node)
                if name == "document.cookie":
                    self.once("blocked.cookie", name, script, node, "document.cookie: the block's origin is opaque, so it throws")
                elif name.split(".")[0] in _STORAGE and name.count(".") >= 0 and name.split(".")[0] == name.split(".")[0]:
                    root_name = name.split(".")[0]
                    self.once("blocked.storage", root_name, script, node, f"{root_name}: the block's origin is opaque; storage throws or holds nothing")
                elif name.split(".")[0] in ("top", "parent", "opener") and name.count(".") == 1 and name.split(".")[1] not in (
                        "postMessage",):
                    self.once("blocked.top-navigation", name, script, node, f"{name}: reaches into the host page; the sandbox blocks it")
                elif name.startswith("WebAssembly.") and name.count(".") == 1:
                    self.once("blocked.eval", name, script, node, f"{name}: WebAssembly without 'wasm-unsafe-eval' "
                              "(refused by Chromium and Firefox; WebKitGTK compiles it)")
                elif name in ("history.back", "history.go", "history.forward"):
                    self.once("blocked.top-navigation", name, script, node,
                              f"{name}(): in Firefox and WebKitGTK this moves the host page's history (navigation.history_back)")
            elif kind == "identifier":
                name = text(node)
                parent = parent_of(node)
                if name in _STORAGE and not (parent is not None and parent.type == "member_expression"
                                             and parent.child_by_field_name("property") == node):
                    self.once("blocked.storage", name, script, node, f"{name}: the block's origin is opaque; storage throws or holds nothing")
            elif kind == "subscript_expression":
                obj = node.child_by_field_name("object")
                index = node.child_by_field_name("index")
                base = callee_name(obj)
                if (base in _COMPUTED_ROOTS or base in aliases or obj.type in ("identifier",) and text(obj) in _GLOBALS) \
                        and string_value(index) is None and index.type != "number":
                    self.emit("obfuscation.computed-global", script, node,
                              f"{text(obj)}[{text(index)[:40]}]: a member chosen at run time, hidden from review")
                    self.reach.append((script, node, "a member of a global chosen at run time"))
            elif kind in ("string", "template_string"):
                self._string(script, node)
            elif kind in ("while_statement", "do_statement", "for_statement"):
                self._loop(script, node)
            elif kind == "import" and (up := parent_of(node)) is not None and up.type == "call_expression":
                self.emit("blocked.eval", script, up, "import(): loads code at run time; script-src refuses it")

    def _assignment(self, script: Script, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        name = callee_name(left)
        if left.type == "identifier" and text(left) != "location":
            within = _enclosing_with(node)
            if within is not None:  # with (img) { src = ... }
                prop = text(left)
                if prop in URL_PROPS:
                    self.sink(script, node, right, f"with ({_short(within)}) {prop}", URL_PROPS[prop])
                elif prop in STYLE_PROPS:
                    self.sink(script, node, right, f"with ({_short(within)}) {prop}", "css")
            return
        parts = name.split(".") if name else []
        if left.type == "identifier" and text(left) == "location" or parts[-2:] in (["document", "location"],) \
                or name in ("location", "location.href", "document.location.href"):
            self.emit("navigation.self", script, node, "assigns location: the block navigates itself away (the bridge closes)")
            self.sink(script, node, right, "location", "navigation")
            return
        if parts[:1] in (["top"], ["parent"]) and "location" in parts:
            self.once("blocked.top-navigation", name, script, node, f"{name} = ...: navigating the host page; the sandbox blocks it")
            return
        if left.type == "subscript_expression":
            key = string_value(left.child_by_field_name("index"))
            if key is None:
                obj = left.child_by_field_name("object")
                if not _static_value(right) and any(label[0] in (URL, STATE, INPUT) for label in self.flow.labels(right)):
                    self.reach.append((script, node, f"{_short(obj)}[{_short(left.child_by_field_name('index'))}] set at run time"))
                return
            prop = key
        elif left.type != "member_expression":
            return
        else:
            prop = text(left.child_by_field_name("property"))
        obj = left.child_by_field_name("object")
        if obj.type == "member_expression" and text(obj.child_by_field_name("property")) == "style" \
                or obj.type == "subscript_expression" and string_value(obj.child_by_field_name("index")) == "style":
            if prop in STYLE_PROPS:
                self.sink(script, node, right, f"style.{prop}", "css")
            return
        if prop == "defaultValue":  # the value attribute: what CSS attribute selectors see
            self._mirror(script, node, "value", right)
        if prop in ("textContent", "innerText", "nodeValue", "data", "text"):
            self.sink(script, node, right, f"{_short(obj)}.{prop}", "csstext")  # a <style>'s text
            return
        if prop == "style":
            self.sink(script, node, right, "style", "css")
        elif prop in URL_PROPS:
            target = "new Image().src" if obj.type == "new_expression" else f"{_short(obj)}.{prop}"
            self.sink(script, node, right, target, URL_PROPS[prop])
        elif prop in HTML_SINK_PROPS:
            self.sink(script, node, right, f"{_short(obj)}.{prop}", "img", html=True)
        elif prop == "onclick" or prop.startswith("on"):
            pass

    def _mirror(self, script: Script, node: Node, attr: str, value: Node) -> None:
        """A script writes what the user types into an attribute (CSS attribute selectors see it)."""
        inputs = {label[1] for label in self.flow.labels(value) if label[0] == INPUT}
        if inputs and attr:
            self.mirrors.setdefault(attr, set()).update(inputs)

    def _prop_sink(self, script: Script, node: Node, target: str, prop: str, value: Node | None, how: str) -> None:
        """A property written by name through Object.assign / Reflect.set / defineProperty."""
        if value is None:
            return
        if target == "style" and prop in STYLE_PROPS:
            self.sink(script, node, value, f"{how} style.{prop}", "css")
        elif prop in URL_PROPS:
            self.sink(script, node, value, f"{how} {prop}", URL_PROPS[prop])
        elif prop in ("href",) or target == "location" and prop in ("href", ""):
            self.sink(script, node, value, f"{how} location", "navigation")

    def _call(self, script: Script, node: Node) -> None:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        args = list(arguments.named_children) if arguments is not None else []
        name = callee_name(function)
        head, _, method = name.rpartition(".")
        if not name and function is not None and function.type == "member_expression":  # a.b().c(...)
            method = text(function.child_by_field_name("property"))
        aliases = self.flow.aliases
        if head in aliases and method in ("send", "setValue", "openUrl"):
            return self._bridge(script, node, method, args)
        if method in ("setAttribute", "setAttributeNS") and len(args) >= 2:
            if method == "setAttributeNS":
                args = args[1:]
            attr = (string_value(args[0]) or "").lower() if len(args) >= 2 else ""
            attr = attr.rpartition(":")[2] if attr.startswith("xlink:") else attr
            if attr in URL_ATTRS:
                self.sink(script, node, args[1], f"{method}('{attr}')", "css" if attr == "style" else URL_ATTRS[attr])
            elif len(args) >= 2:
                self._mirror(script, node, attr, args[1])
        elif name in ("Object.assign", "Reflect.set", "Object.defineProperty") and len(args) >= 2:
            target = callee_name(args[0]).rpartition(".")[2]
            if name == "Object.assign":
                for source in args[1:]:
                    for pair in source.named_children if source.type == "object" else ():
                        key = pair.child_by_field_name("key") if pair.type == "pair" else pair
                        prop = (string_value(key) if key is not None and key.type == "string" else text(key)) or ""
                        item = pair.child_by_field_name("value") if pair.type == "pair" else pair
                        self._prop_sink(script, node, target, prop, item, "Object.assign")
            elif len(args) >= 3:
                prop = string_value(args[1]) or ""
                item = args[2]
                if name == "Object.defineProperty" and item.type == "object":
                    item = next((p.child_by_field_name("value") for p in item.named_children if p.type == "pair"
                                 and text(p.child_by_field_name("key")) == "value"), item)
                self._prop_sink(script, node, target, prop, item, name)
        elif method in ("insertRule", "replaceSync", "replace", "appendRule", "createTextNode", "appendData") and args \
                and function is not None and function.type == "member_expression" and not head.endswith("location"):
            # CSSOM rules and text that ends up in a <style> (loads only with url()/@import in it).
            self.sink(script, node, args[0], f"{method}()", "csstext")
        elif method == "setProperty" and head.endswith("style") and len(args) >= 2:
            self.sink(script, node, args[1], "style.setProperty", "css")
        elif method in ("insertAdjacentHTML",) and len(args) >= 2:
            self.sink(script, node, args[1], "insertAdjacentHTML", "img", html=True)
        elif name in ("document.write", "document.writeln") and args:
            self.sink(script, node, args[0], name, "img", html=True)
        elif name.endswith("location.assign") or name.endswith("location.replace") or name in ("location.reload",):
            if name.startswith(("top.", "parent.")):
                self.once("blocked.top-navigation", name, script, node, f"{name}(): navigating the host page; the sandbox blocks it")
            else:
                self.emit("navigation.self", script, node, f"{name}(): the block navigates itself away (the bridge closes)")
                if args:
                    self.sink(script, node, args[0], name, "navigation")
        if name in ("open", "window.open"):
            self.emit("blocked.popup", script, node, f"{name}(): the sandbox has no allow-popups; nothing opens")
        elif name in _DIALOGS:
            self.once("blocked.dialog", name, script, node, f"{name}(): the sandbox has no allow-modals; it returns at once and shows nothing")
        elif name in ("eval", "Function"):
            self.emit("blocked.eval", script, node, f"{name}(): code from a string; script-src has no 'unsafe-eval'")
        elif name in ("setTimeout", "setInterval") and args and (
                args[0].type in ("string", "template_string", "binary_expression")
                or args[0].type == "identifier" and any(label[0] == URL for label in self.flow.labels(args[0]))):
            self.emit("blocked.eval", script, node, f"{name} with a string: code from a string; script-src has no 'unsafe-eval'")
        elif name in _NETWORK_CALLS:
            self.emit("blocked.network-api", script, node, f"{name}(): connect-src is 'none'; nothing is sent")
        elif (name in _DECODERS or method in ("fromCharCode", "fromCodePoint") and head == "String") \
                and _literal_args(args, self.flow.constants):
            # Decoding literals hides a string from review; decoding data (an entity or code-point
            # converter, a base64 tool) is the tool's job and is not reported.
            self.emit("obfuscation.decode", script, node, f"{name}(): builds strings at run time, hidden from review")
            self.reach.append((script, node, f"{name}() on literals"))
        elif name == "navigator.serviceWorker.register":
            self.emit("blocked.worker", script, node, "a service worker: the opaque origin has none")
        elif method in ("submit", "requestSubmit") and head:
            self.emit("blocked.form", script, node, f"{name}(): the sandbox has no allow-forms; nothing is submitted")
        if name == "setInterval" and len(args) >= 2 and args[1].type == "number":
            try:
                delay = float(text(args[1]).replace("_", ""))
            except ValueError:
                delay = 1000
            if delay < 50:
                self.emit("cpu.fast-timer", script, node, f"setInterval every {text(args[1])} ms keeps the CPU busy")

    def _new(self, script: Script, node: Node) -> None:
        ctor = callee_name(node.child_by_field_name("constructor"))
        arguments = node.child_by_field_name("arguments")
        args = list(arguments.named_children) if arguments is not None else []
        if ctor in _WORKERS:
            self.emit("blocked.worker", script, node, f"new {ctor}(): the policy loads no worker script")
        elif ctor in _NETWORK_NEW:
            self.emit("blocked.network-api", script, node, f"new {ctor}(): connect-src is 'none'; nothing is sent")
        elif ctor in _WEBRTC:
            self._rtc.append((script, node))  # emitted by _webrtc, with what it carries
        elif ctor == "Function":
            self.emit("blocked.eval", script, node, "new Function(): code from a string; script-src has no 'unsafe-eval'")
        elif ctor == "Audio" and args:
            self.sink(script, node, args[0], "new Audio()", "media")
        elif ctor == "FontFace" and len(args) >= 2:
            self.sink(script, node, args[1], "new FontFace()", "font")

    def _bridge(self, script: Script, node: Node, method: str, args: list[Node]) -> None:
        first = args[0] if args else None
        literal = string_value(first)
        if method == "send":
            labels = self.flow.labels(args[1]) if len(args) > 1 else frozenset()
            paths = sorted({label[1] or "(the whole state)" for label in labels if label[0] == STATE})
            action = literal if literal is not None else "(computed)"
            self.emit("bridge.send", script, node, f"sends action {action!r}" + (f" with {', '.join(paths)}" if paths else ""),
                      paths=paths, evidence={"kind": "send", "target": action, "dynamic": literal is None},
                      context=f"send {action} {' '.join(paths)}")
        elif method == "setValue":
            path = literal if literal is not None else "(computed)"
            outside = literal is not None and self.fields is not None and literal not in self.fields
            self.emit("bridge.set-value", script, node, f"writes {path}", paths=[path] if literal else [],
                      evidence={"kind": "setValue", "target": path, "dynamic": literal is None},
                      context=f"setValue {path}")
            if outside:
                self.emit("bridge.set-value-outside-fields", script, node,
                          f"setValue('{literal}'): not in fields ({', '.join(self.fields) or 'none'}); the host refuses it",
                          paths=[literal], context=f"setValue {path}")
        elif method == "openUrl":
            labels = self.flow.labels(first) if first is not None else frozenset()
            state = any(label[0] == STATE for label in labels)
            if literal is not None:
                host = host_of(literal)
                verdict = classify(literal, "open")
                self.emit("bridge.open-url", script, node, f"asks the host to open {literal}" +
                          ("" if verdict.status == "external" else " (the host refuses anything but https)"),
                          hosts=[host] if host else [], evidence={"kind": "openUrl", "target": literal, "dynamic": False},
                          context=f"openUrl {literal}")
            else:
                urls = sorted({label[1] for label in labels if label[0] == URL} | {f for f in literal_fragments(first) if absolute_url(f)})
                hosts = sorted({host_of(u) for u in urls} - {""})
                target = ", ".join(hosts) if hosts else "(computed)"
                if state:
                    self.sink(script, node, first, "flowUi.openUrl", "open")
                else:
                    self.emit("bridge.open-url-dynamic", script, node, f"asks the host to open a URL computed at run time ({target})",
                              hosts=hosts, evidence={"kind": "openUrl", "target": target, "dynamic": True})

    def _string(self, script: Script, node: Node) -> None:
        if node.type == "string":
            value = string_value(node) or ""
            pieces = [(node, value)]
        else:
            pieces = [(c, text(c)) for c in node.children if c.type == "string_fragment"]
        for piece, value in pieces:
            found = [u for u in urls_in_text(value) if u.rstrip("/") not in XML_NAMESPACES]
            if value.strip().startswith("//") and absolute_url(value.strip()):
                found.insert(0, value.strip())
            for stripped in found:
                verdict = classify(stripped, "string")
                host = host_of(stripped)
                up = parent_of(node)
                call = parent_of(up) if up is not None and up.type == "arguments" else None
                if call is None or not callee_name(call.child_by_field_name("function")).endswith("openUrl"):
                    self.reach.append((script, piece, f"{host or stripped} in a script string"))
                if verdict.status == "external":
                    self.emit("url.external", script, piece, f"{host} in a script string ({_shorten(stripped)})",
                              hosts=[host], evidence={"url": stripped, "use": "script"})
                else:
                    self.emit("url.blocked-scheme", script, piece,
                              f"{verdict.scheme}: URL in a script string ({_shorten(stripped)}): blocked by the policy; only https leaves",
                              hosts=[host] if host else [], evidence={"url": stripped, "use": "script"})
            if not found and len(value) >= _ENCODED_MIN and " " not in value:
                chars = set(value)
                raw = text(piece)
                escapes = raw.count("\\x") + raw.count("\\u")
                if chars <= _HEX or chars <= _B64 and sum(c.isdigit() for c in value) > len(value) // 20 or escapes * 4 > len(raw) // 2:
                    self.emit("obfuscation.encoded-string", script, piece,
                              f"a {len(value)}-character encoded string literal ({_shorten(value)})")
                    self.reach.append((script, piece, "an encoded string"))

    def _loop(self, script: Script, node: Node) -> None:
        if node.type == "for_statement":
            condition = node.child_by_field_name("condition")
            if condition is not None and condition.type not in ("empty_statement",) and text(condition).strip("; ") not in _TRUE:
                return
        else:
            condition = node.child_by_field_name("condition")
            inner = condition.named_children[0] if condition is not None and condition.named_child_count else condition
            if inner is None or text(inner).replace(" ", "") not in _TRUE:
                return
        body = node.child_by_field_name("body")
        if body is None or _has_exit(body, node):
            return
        self.emit("cpu.unbounded-loop", script, node, f"{text(node).split('{')[0].strip()[:40]} has no break, return, throw or await:"
                  " it never ends and freezes the block (and the host page in Firefox and WebKitGTK)",
                  context=text(node)[:200])


def _css_loads(value: str) -> bool:
    """Whether a text is CSS that loads something (url(, @import, @font-face)."""
    lowered = value.lower()
    return "url(" in lowered or "@import" in lowered or "@font-face" in lowered or "image-set(" in lowered


def _named(labels) -> list[str]:
    """The state paths and input names of ``labels``, for a finding's ``paths``."""
    return sorted({label[1] or "(the whole state)" for label in labels if label[0] == STATE and label[1] != "?"}
                  | {label[1] for label in labels if label[0] == INPUT})


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


def _literal_args(args: list[Node], constants: set[str]) -> bool:
    """Arguments that are all literals (numbers, strings, an array/spread of them, or a name
    declared with one)."""
    if not args:
        return False
    for arg in args:
        node = arg.named_children[0] if arg.type == "spread_element" and arg.named_child_count else arg
        if node.type == "identifier" and text(node) in constants:
            continue
        if node.type == "array":
            if not all(c.type in ("number", "string") for c in node.named_children):
                return False
        elif node.type not in ("number", "string") and not (node.type == "template_string" and _static_value(node)):
            return False
    return True


def _enclosing_with(node: Node) -> Node | None:
    """The object of the ``with`` statement around ``node`` (not crossing a function)."""
    node = parent_of(node)
    while node is not None and node.type not in _FUNCTIONS:
        if node.type == "with_statement":
            return node.child_by_field_name("object")
        node = parent_of(node)
    return None


def _has_exit(body: Node, loop: Node) -> bool:
    stack = [body]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("return_statement", "throw_statement", "await_expression", "yield_expression"):
            return True
        if kind == "break_statement":
            if node.named_child_count or _nearest_breakable(node) == loop:
                return True
        if kind in _FUNCTIONS:
            continue
        stack.extend(node.children)
    return False


def _nearest_breakable(node: Node) -> Node | None:
    node = parent_of(node)
    while node is not None:
        if node.type in ("while_statement", "do_statement", "for_statement", "for_in_statement", "switch_statement"):
            return node
        node = parent_of(node)
    return None


def _short(node: Node) -> str:
    value = text(node)
    return value if len(value) <= 30 else value[:27] + "..."


def _shorten(value: str) -> str:
    return value if len(value) <= 60 else value[:57] + "..."
