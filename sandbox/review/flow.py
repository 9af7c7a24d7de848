"""The data flow of a block's scripts: a flow-insensitive, name-based labelling of every
expression with where its value may come from (docs/REVIEW.md: what it follows).

Sources: state (``flowUi.state.a.b``, ``flowUi.get('a.b')`` and ``flowUi`` through aliases,
destructuring, ``Reflect``, ``bind``/``call``/``apply``; the first argument of an
``onChange`` callback; a bound element's text, its selector matched against the block's
lexbor tree), what the user types (input events, form controls, contenteditable text,
``FormData``, the selection, the clipboard; elements also found by HTML's named access, an
element's id as a global where no binding of the scripts shadows it, by an event-handler
attribute's ``this``, and a form's named controls) and absolute URL literals, also assembled from
pieces (:mod:`.pieces`: ``join``, ``concat``, ``String.raw``, an array filled with ``push``;
a scheme whose host is left to run time is a URL with no host). Labels travel
through declarations, destructuring, assignments, concatenation, template literals,
conditionals, calls (arguments to parameters, returns back, callbacks' parameters from
their receiver), object/array literals, and conservative over-approximations: an object
handed a value holds it, ``this.p``/class fields/getters by property name, datasets,
custom events' ``detail``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from tree_sitter import Node

from ..block.paths import SEGMENT_PATTERN
from .js import (
    _FUNCTIONS,
    _GLOBALS,
    _WEBRTC,
    Script,
    TooComplex,
    _block_of,
    _css_ident,
    _css_loads,
    _enclosing_function,
    _function_name,
    _local,
    _outermost,
    _pattern_names,
    _static_value,
    call_parts,
    callee_name,
    folded_string,
    parent_of,
    string_value,
    text,
    urls_in_text,
)
from .pieces import Pieces, scheme_token
from .urls import absolute_url

#: A label: (kind, ...) — ("state", path, object), ("url", literal), ("element", path), ("input", name),
#: ("control", name), ("inputevent", name, control), ("form", selector), or a one-element marker (CSS_TEXT, FLOWUI,
#: GETTER, RTC, FORMS).
Label = tuple[Any, ...]
Labels = frozenset[Label]

STATE = "state"
URL = "url"
ELEMENT = "element"   # ("element", path): a bound element; its text gives ("state", path, False)
INPUT = "input"       # ("input", name): what the user typed or chose (name: input:#email, input:keydown, ...)
CONTROL = "control"   # ("control", name): a form control or contenteditable element; its value gives ("input", name)
INPUT_EVENT = "inputevent"  # ("inputevent", name, control): an input event; key/data give input, target the control
FORM = "form"        # ("form", selector): a form (its named controls: form.q, form.elements.q, form.elements[i])
FORMS = ("forms",)    # document.forms (its members and items are forms)
CSS_TEXT = ("csstext",)  # the value holds CSS text that loads something (url(), @import, @font-face)
FLOWUI = ("flowui",)  # the flowUi object itself (aliases, destructuring, Reflect.get)
GETTER = ("getter",)  # flowUi.get as a value (bound, called through call/apply)
RTC = ("rtc",)        # a peer connection or one of its data channels

#: Events whose object carries what the user types (key, data, target.value).
INPUT_EVENTS = frozenset(("keydown", "keypress", "keyup", "input", "beforeinput", "change", "paste", "cut", "copy",
                          "compositionend", "compositionupdate", "textInput", "select", "selectionchange",
                          # a control's focus leaving or failing validation: its target holds what was typed
                          "blur", "focusout", "focus", "focusin", "invalid"))
#: Members of an input event that hold what was typed.
_EVENT_TEXT = frozenset(("key", "code", "data", "keyCode", "which", "charCode", "char", "clipboardData", "dataTransfer"))
_EVENT_TARGET = frozenset(("target", "currentTarget", "srcElement", "explicitOriginalTarget", "originalTarget"))
#: Array methods whose result holds what their callback returns.
_MAPPING = frozenset(("map", "flatMap", "reduce", "reduceRight"))
#: Array methods whose result holds (some of) the items of the array they are called on.
_SAME_ITEMS = frozenset(("filter", "find", "findLast", "slice", "sort", "toSorted", "reverse", "toReversed", "concat",
                         "at", "flat", "with", "toSpliced", "splice", "values", "entries", "map", "flatMap", "reduce",
                         "reduceRight"))
#: Members that lead from an element to its neighbours (a control's sibling, a form's children).
_NEIGHBOURS = frozenset(("nextElementSibling", "previousElementSibling", "nextSibling", "previousSibling", "children",
                         "firstElementChild", "lastElementChild", "childNodes", "firstChild", "lastChild", "labels"))
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
_FLOWUI = "flowUi"
#: Members of the document whose labels are known: its elements, its forms, the focused control.
_DOCUMENT_MEMBERS = frozenset(("body", "documentElement", "forms", "activeElement"))
#: The window's objects that describe the browser and the machine: a name bound to one (or to a
#: member of one) is read as that (``const n = navigator; n.webdriver`` is ``navigator.webdriver``).
_DEVICE_OBJECTS = frozenset(("navigator", "screen", "speechSynthesis", "performance"))
#: Expressions that may build a string from pieces (:mod:`.pieces`).
_BUILDERS = frozenset(("binary_expression", "template_string", "call_expression"))


class Flow:
    """Labels of expressions across all scripts of a block (see the module docstring)."""

    def __init__(self, scripts: list[Script], select: Callable[[str], list[str]], markup_paths: list[str],
                 deadline: float = float("inf"), controls: Callable[[str], list[str]] | None = None,
                 forms: Callable[[str], dict[str, list[str]]] | None = None, named: dict[str, str] | None = None):
        self.deadline = deadline
        self.scripts = scripts
        # The flow is name-based and flow-insensitive, so a script repeated verbatim (the same
        # handler on every row) adds nothing: each distinct text is analysed once.
        self.unique = list({script.code: script for script in scripts}.values())
        _local.parents = {k: v for script in self.unique for k, v in script.parents.items()}
        self.select = select                  # CSS selector -> data-bind paths of matching elements
        self.controls = controls or (lambda selector: [])  # CSS selector -> names of the controls it matches
        self.forms = forms or (lambda selector: {})      # CSS selector -> its forms' named controls ("" -> all)
        self.named = named or {}                  # the window's named access: an element's id -> its selector
        self.owners: dict[int, set[str]] = {}     # a handler attribute's program node id -> its elements' keys
        self.scopes: dict[str, set[int]] = {}     # a named-access name -> the scopes (node ids) that declare it
        self.global_names: set[str] = set()       # named-access names declared at a script's top level (global)
        self.window_names: set[str] = set()       # ... with `var` or a function declaration (a property of window)
        self._shadow: dict[tuple[str, int], bool] = {}
        self.markup_paths = markup_paths
        self.props: dict[str, Labels] = {}     # property name -> labels written through this./class fields
        self.getters: set[str] = set()            # names of getters and methods (a member read runs them)
        self.events: dict[str, Labels] = {}    # custom event type -> labels of its init (detail)
        self.dom: Labels = frozenset()         # labels written into dataset / data-* attributes
        self.inputs_used = False                  # an input source is read somewhere
        self.constants: set[str] = set()          # names declared with a literal (const payload = '...')
        self.const_strings: dict[str, str] = {}   # the one binding of a name is `const NAME = 'literal'`
        self.declarators: dict[str, Node] = {}    # names with one binding in the scripts -> its declarator
        self.assigned: set[str] = set()           # names assigned or updated somewhere (x = ..., x += ..., x++)
        self.vars: dict[str, Labels] = {}
        self.returns: dict[str, Labels] = {}
        self.aliases = {_FLOWUI}              # names bound to window.flowUi
        self.global_aliases = set(_GLOBALS)     # names bound to the global object (const w = globalThis)
        self.location_aliases = {"location", "document.location"}  # names bound to location (const L = location)
        self.document_aliases = {"document"}  # names bound to the document (const d = document, w.document)
        self.members: dict[str, str] = {}       # names bound to a member of the document or to a device object: name -> it (document.forms, navigator)
        self.openers: set[str] = set()          # names bound to flowUi.openUrl (bound, destructured, an alias)
        self.resolvers: set[str] = set()        # names of a Promise executor's resolve (new Promise((r) => r(v)))
        self.functions: dict[str, list[Node]] = {}  # name -> parameter lists' nodes
        self.methods: dict[str, list[Node]] = {}    # a method's name (class or object) -> its functions
        self.constructors: dict[str, list[Node]] = {}  # a class's name -> its constructor
        self.this: dict[int, Labels] = {}      # a listener function's node id -> what `this` is in it
        self.reads: dict[str, Node] = {}     # state paths read -> first node
        self.holding: dict[str, Labels] = {}  # names of objects others were put in (o[k] = el, {[k]: el}) -> those
        self.changed = True
        self._collect_functions()
        self._memo: dict[int, Labels] = {}
        self._mapping: set[int] = set()          # callbacks whose return is being read (a recursive map)
        for _ in range(8):                    # to a fixed point (8 is far more than real blocks need)
            self.changed = False
            self._memo = {}
            self._pass_methods()
            for script in self.unique:
                self._propagate(script.flow_nodes)
            if not self.changed:
                break

    # -- set-up -----------------------------------------------------------------------
    def _collect_functions(self) -> None:
        self._collect_const_strings()
        self._collect_scopes()
        for script in self.scripts:
            if script.owner and script.tree is not None:
                # An event-handler attribute: `this` at its top level is its element (scripts of the
                # same text share one tree, so one program node may stand for several elements).
                self.owners.setdefault(script.tree.root_node.id, set()).add(script.owner)
            if script.kind.startswith("handler:on") and script.kind[len("handler:on"):] in INPUT_EVENTS:
                # An event-handler attribute sees its event as `event` (its target: the control it is on).
                label = (INPUT_EVENT, "input:" + script.kind[10:], script.control)
                self.vars["event"] = self.vars.get("event", frozenset()) | {label}
        for script in self.unique:
            for node in script.nodes:
                if node.type == "method_definition":
                    name = node.child_by_field_name("name")
                    if name is not None and any(c.type == "get" for c in node.children):
                        self.getters.add(text(name))
                    elif name is not None and not any(c.type == "set" for c in node.children):
                        if text(name) == "constructor":
                            owner = parent_of(parent_of(node) or node)  # class_body -> class
                            named = _function_name(owner) if owner is not None and owner.type in ("class", "class_declaration") else ""
                            if named:
                                self.constructors.setdefault(named, []).append(node)
                        else:
                            self.methods.setdefault(text(name), []).append(node)
                elif node.type == "pair" and (value := node.child_by_field_name("value")) is not None \
                        and value.type in ("arrow_function", "function_expression", "function"):
                    self.methods.setdefault(property_key(node.child_by_field_name("key")), []).append(value)  # {go: (u) => ...}
                if node.type in ("function_declaration", "generator_function_declaration"):
                    name = node.child_by_field_name("name")
                    self.functions.setdefault(text(name), []).append(node)
                elif node.type == "variable_declarator":
                    value = node.child_by_field_name("value")
                    if value is not None and value.type in ("arrow_function", "function_expression", "function",
                                                            "generator_function"):
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
        # Strings built from pieces (joins, concat, String.raw, arrays filled with push).
        self.pieces = Pieces(self.unique, self.declarators, self.assigned, set(self.functions))
        # Names bound once to a new Map: m.get(k) gives what was put in it (flowUi too), never flowUi.get.
        self.maps = {name for name, declarator in self.declarators.items()
                     if (value := declarator.child_by_field_name("value")) is not None and value.type == "new_expression"
                     and callee_name(value.child_by_field_name("constructor")) in ("Map", "WeakMap")}

    def _collect_const_strings(self) -> None:
        """Names whose only binding in the scripts (declarations, parameters, catch clauses) is a
        ``const`` holding a string literal: every use of the name is that string."""
        bindings: dict[str, int] = {}
        strings: dict[str, str] = {}
        declarators: dict[str, Node] = {}
        for script in self.unique:
            for node in script.nodes:
                names: set[str] = set()
                if node.type in ("assignment_expression", "augmented_assignment_expression", "update_expression"):
                    target = node.child_by_field_name("left" if node.type != "update_expression" else "argument")
                    if target is not None and target.type in ("identifier", "object_pattern", "array_pattern"):
                        self.assigned.update(_pattern_names(target))  # x = ..., x += ..., x++, [x, y] = ...
                elif node.type == "variable_declarator":
                    target = node.child_by_field_name("name")
                    names = _pattern_names(target)
                    if target is not None and target.type == "identifier":
                        declarators[text(target)] = node
                    declaration = parent_of(node)
                    value = string_value(node.child_by_field_name("value")) if target is not None \
                        and target.type == "identifier" and node.child_by_field_name("value") is not None \
                        and node.child_by_field_name("value").type in ("string", "template_string") else None
                    if value is not None and declaration is not None and declaration.type == "lexical_declaration" \
                            and any(c.type == "const" for c in declaration.children):
                        strings[text(target)] = value
                elif node.type in ("formal_parameters", "catch_clause"):
                    names = _pattern_names(node if node.type == "formal_parameters" else node.child_by_field_name("parameter"))
                elif node.type in _FUNCTIONS:
                    names = {text(node.child_by_field_name("name"))} if node.type.endswith("declaration") else set()
                    single = node.child_by_field_name("parameter")
                    names |= _pattern_names(single) if single is not None else set()
                elif node.type == "for_in_statement":
                    names = _pattern_names(node.child_by_field_name("left"))
                for name in names:
                    bindings[name] = bindings.get(name, 0) + 1
        self.bindings = bindings  # name -> how many bindings the scripts give it
        self.const_strings = {name: value for name, value in strings.items() if bindings.get(name) == 1}
        self.declarators = {name: node for name, node in declarators.items() if bindings.get(name) == 1}

    def _collect_scopes(self) -> None:
        """Where the scripts declare a name the window's named access also gives (``const q``,
        ``function q``, a parameter ``q``): there, and below, ``q`` is that binding, not the element."""
        if not self.named:
            return
        for script in self.unique:
            for node in script.nodes:
                kind = node.type
                bound: list[tuple[set[str], Node | None, bool]] = []  # (names, scope, declares a property of window)
                if kind == "variable_declarator":
                    declaration = parent_of(node)
                    names = _pattern_names(node.child_by_field_name("name"))
                    if declaration is not None and declaration.type == "variable_declaration":
                        bound.append((names, _enclosing_function(node), True))
                    elif declaration is not None:
                        block = _block_of(declaration)
                        bound.append((names, None if block.type == "program" else block, False))
                elif kind in ("function_declaration", "generator_function_declaration", "class_declaration"):
                    declared = {text(node.child_by_field_name("name"))}
                    if kind == "class_declaration":
                        block = _block_of(node)
                        bound.append((declared, None if block.type == "program" else block, False))
                    else:
                        bound.append((declared, _enclosing_function(node), True))
                if kind in _FUNCTIONS and not kind.endswith("declaration") and kind != "method_definition":
                    # A named function or class expression binds its name inside itself.
                    bound.append(({text(node.child_by_field_name("name"))} - {""}, node, False))
                if kind in _FUNCTIONS and kind not in ("class_declaration", "class"):
                    params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
                    bound.append((_pattern_names(params), node, False))
                elif kind == "catch_clause":
                    bound.append((_pattern_names(node.child_by_field_name("parameter")), node, False))
                elif kind == "for_in_statement" and any(c.type in ("let", "const") for c in node.children):
                    bound.append((_pattern_names(node.child_by_field_name("left")), node, False))
                elif kind == "for_in_statement" and any(c.type == "var" for c in node.children):
                    bound.append((_pattern_names(node.child_by_field_name("left")), _enclosing_function(node), True))
                for names, scope, of_window in bound:
                    for name in names & self.named.keys():
                        if scope is None:
                            self.global_names.add(name)
                            if of_window:
                                self.window_names.add(name)
                        else:
                            self.scopes.setdefault(name, set()).add(scope.id)

    def _shadowed(self, name: str, node: Node) -> bool:
        """Whether ``name`` at ``node`` is a binding of the scripts (declared around it, or at a
        script's top level) rather than the window's named access. Memoised per node, so the
        walks up the tree of all uses together visit each node once per name."""
        if name in self.global_names:
            return True
        scopes = self.scopes.get(name)
        if not scopes:
            return False
        memo = self._shadow
        path: list[int] = []
        current: Node | None = node
        found = False
        while current is not None:
            key = (name, current.id)
            if key in memo:
                found = memo[key]
                break
            path.append(current.id)
            if current.id in scopes:
                found = True
                break
            current = parent_of(current)
        for node_id in path:
            memo[(name, node_id)] = found
        return found

    def all_controls(self) -> list[str]:
        """Every control of the block."""
        return self.controls("html")

    def _found(self, selector: str) -> Labels:
        """What the elements ``selector`` matches give: their bound text, the controls in them,
        and their forms' named controls."""
        labels: set[Label] = {*((ELEMENT, p) for p in self.select(selector)), *((CONTROL, c) for c in self.controls(selector))}
        if self.forms(selector):
            labels.add((FORM, selector))
        return frozenset(labels)

    # -- the fixed point -----------------------------------------------------------------
    def _grow(self, table: dict, key: Any, labels: Labels) -> None:
        """``table[key]`` holds ``labels`` too; a new label is a change of the fixed point."""
        if labels:
            old = table.get(key, frozenset())
            if not labels <= old:
                table[key] = old | labels
                self.changed = True

    def _bind(self, name: str, labels: Labels) -> None:
        self._grow(self.vars, name, labels)

    def _bind_pattern(self, pattern: Node | None, labels: Labels) -> None:
        if pattern is None:
            return
        kind = pattern.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            self._bind(text(pattern), labels)
        elif kind == "object_pattern":
            for child in pattern.named_children:
                if child.type == "shorthand_property_identifier_pattern":
                    self._bind(text(child), self._member(labels, text(child)) | self._property(text(child)))
                elif child.type == "pair_pattern":
                    name = property_key(child.child_by_field_name("key"), self.member_key)
                    self._bind_pattern(child.child_by_field_name("value"), self._member(labels, name) | self._property(name))
                elif child.type == "object_assignment_pattern":
                    left = child.child_by_field_name("left")
                    self._bind_pattern(left, self._member(labels, text(left)) | self._property(text(left))
                                       | self.labels(child.child_by_field_name("right")))
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
                    self._alias(name, value)
                    self._bind_pattern(name, self.labels(value))
                    if name is not None and name.type == "identifier" and value.type == "call_expression":
                        self._made_by(text(name), value)
                    if name is not None and name.type == "identifier" and (value.type == "object" or value.type == "call_expression"
                                                                            and self.name_of(value.child_by_field_name("function"))
                                                                            in _OBJECT_BUILDERS):
                        self._hold(text(name), _holders(self.labels(value)))
            elif kind in ("assignment_expression", "augmented_assignment_expression"):
                left = node.child_by_field_name("left")
                right = node.child_by_field_name("right")
                labels = self.labels(right)
                if left is None:
                    continue
                if left.type == "identifier" and text(left).startswith("on") and not self.bindings.get(text(left)):
                    self._listen(text(left)[2:], right, None)  # onmessage = f: the window's handler, by its bare name
                if left.type in ("identifier", "object_pattern", "array_pattern"):
                    if kind == "assignment_expression" and right is not None:
                        self._alias(left, right)  # let d; d = document
                        if left.type == "identifier" and right.type == "call_expression":
                            self._made_by(text(left), right)
                    self._bind_pattern(left, labels)
                elif left.type in ("member_expression", "subscript_expression"):
                    base: Node | None = left
                    chain = []
                    while base is not None and base.type in ("member_expression", "subscript_expression"):
                        if base.type == "member_expression":
                            chain.append(text(base.child_by_field_name("property")))
                        base = base.child_by_field_name("object")
                    if base is None:
                        continue
                    flat = _as_values(labels)
                    if left.type == "subscript_expression" and base.type == "identifier" and text(base) not in _GLOBALS \
                            and text(base) not in self.document_aliases:
                        # o[s] = 1: Object.keys(o), for…in give s back
                        self._bind(text(base), _as_values(self.labels(left.child_by_field_name("index"))))
                    if base.type == "identifier" and text(base) not in _GLOBALS and text(base) != "document":
                        # An object written taints the whole object (as a value: no path below it).
                        self._bind(text(base), flat)
                        self._hold(text(base), _holders(labels))
                    if base.type == "identifier" and text(base) in self.global_aliases and left.child_by_field_name("object") == base:
                        # globalThis.q = v, window['q'] = v, window.name = v: the global q holds v
                        key = chain[0] if chain else self.member_key(left.child_by_field_name("index"))
                        if key:
                            self._bind(key, labels)
                    if chain and base.type == "this":
                        self._bind_prop(chain[-1], flat)  # this.p = v: every read of .p may see it
                    if chain:
                        self._bind_prop(chain[0], _holders(labels))  # o.el = input: every read of .el may see it
                    if "dataset" in chain:
                        self._bind_dom(flat)             # el.dataset.k = v: any dataset read may see it
                    handler = chain[0] if left.type == "member_expression" else ""
                    if handler.startswith("on"):
                        self._listen(handler[2:], node.child_by_field_name("right"), left.child_by_field_name("object"))
            elif kind == "call_expression":
                self._call(node)
                arguments = node.child_by_field_name("arguments")
                for arg in arguments.named_children if arguments is not None else ():
                    self.labels(arg)  # records the reads of arguments no assignment holds
            elif kind == "expression_statement" and node.named_child_count:
                self.labels(node.named_children[0])
            elif kind in ("return_statement", "yield_expression"):
                function = _enclosing_function(node)
                if function is not None and node.named_child_count:
                    named = self._returns_name(function)
                    if named:
                        self._return(named, node.named_children[0])
            elif kind == "arrow_function":
                body = node.child_by_field_name("body")
                named = self._returns_name(node)
                if body is not None and body.type != "statement_block" and named:
                    self._return(named, body)
            elif kind in ("assignment_pattern", "object_assignment_pattern"):
                # function f(v = flowUi.get(p)), {a = s}: the name holds its default, called with it or not.
                self._bind_pattern(node.child_by_field_name("left"), self.labels(node.child_by_field_name("right")))
            elif kind == "throw_statement" and node.named_child_count:
                # What is thrown reaches a catch clause's parameter (any: the flow is flow-insensitive).
                self._bind("\0thrown", self.labels(node.named_children[0]))
            elif kind == "catch_clause":
                self._bind_pattern(node.child_by_field_name("parameter"), self.vars.get("\0thrown", frozenset()))
            elif kind in ("for_in_statement",):
                left = node.child_by_field_name("left")
                right = node.child_by_field_name("right")
                self._bind_pattern(left, self._element(self.labels(right)))
            elif kind == "pair" and (up := parent_of(node)) is not None and up.type == "object":
                # {el: input, f: flowUi}: an object kept under a key is what every read of that key
                # may see (values need not: an object's labels are its values').
                self._bind_prop(property_key(node.child_by_field_name("key"), self.member_key), _holders(self.labels(node.child_by_field_name("value"))))
            elif kind == "shorthand_property_identifier":  # {el}
                self._bind_prop(text(node), _holders(self.vars.get(text(node), frozenset())))
            elif kind == "field_definition":
                prop = node.child_by_field_name("property")
                value = node.child_by_field_name("value")
                if prop is not None and value is not None:
                    self._bind_prop(text(prop), self.labels(value))
            elif kind == "new_expression":
                ctor = callee_name(node.child_by_field_name("constructor"))
                arguments = node.child_by_field_name("arguments")
                args = list(arguments.named_children) if arguments is not None else []
                if ctor == "Promise" and args and not set(self._resolvers_of(args[0])) <= self.resolvers:
                    self.resolvers |= set(self._resolvers_of(args[0]))  # its calls are recorded from now on
                    self.changed = True
                # new Holder(q), new A(q): a function or class of the scripts gets its arguments.
                self._pass([*self.functions.get(ctor, ()), *self.constructors.get(ctor, ())], args)
                if ctor in ("CustomEvent", "Event", "MessageEvent") and len(args) >= 2:
                    self._grow(self.events, string_value(args[0]) or "?", self.labels(args[1]))

    def _returns_name(self, function: Node) -> str:
        """The key of what ``function`` returns in :attr:`returns`: its name, or for a function a
        named one returns (``function mk(v) { return () => v; }``) that one's name and ``()``."""
        named = _function_name(function)
        if named:
            return named
        up = parent_of(function)
        outer = _enclosing_function(up) if up is not None and up.type == "return_statement" \
            else up if up is not None and up.type == "arrow_function" else None
        outer_name = self._returns_name(outer) if outer is not None else ""
        return f"{outer_name}()" if outer_name else ""

    def _resolvers_of(self, executor: Node) -> list[str]:
        """The name of the resolve function a Promise's executor takes (its first parameter)."""
        return [text(params[0]) for fn in self._functions_of(executor)
                if (params := self._params(fn)) and params[0].type == "identifier"]

    def _made(self, call: Node) -> Labels:
        """What the function ``call`` returns gives when called: ``mk(v)``'s, ``o.mk(v)``'s (any
        method of the scripts named ``mk``, as methods are passed their arguments)."""
        _, name, _, method = self.call_parts(call)
        return self.returns.get(f"{name}()") or (self.returns.get(f"{method}()", frozenset()) if method else frozenset())

    def _made_by(self, name: str, call: Node) -> None:
        """``name = mk(...)``: calling ``name`` gives what the function ``mk`` returns gives."""
        self._grow(self.returns, name, self._made(call))

    def _return(self, named: str, value: Node) -> None:
        """``value`` is returned by the function whose key is ``named``."""
        self._grow(self.returns, named, self.labels(value))

    def _alias(self, name: Node | None, value: Node) -> None:
        """``name = value`` binds flowUi, the global object, the document, ``location`` or
        ``flowUi.openUrl`` under another name (``const w = globalThis``, ``const L = window.location``,
        ``const o = flowUi.openUrl.bind(flowUi)``, ``const {openUrl: o} = flowUi``,
        ``const {document: {defaultView: w}} = window``)."""
        if name is None:
            return
        bare: Node | None = value
        bound = value.child_by_field_name("function") if value.type == "call_expression" else None
        if bound is not None and callee_name(bound).endswith(".bind"):
            bare = bound.child_by_field_name("object")
        source = self.name_of(bare)
        if source:
            self._alias_as(name, source)

    def _alias_as(self, name: Node, source: str) -> None:
        """Binds the names of ``name`` (an identifier or a destructuring pattern) to the dotted
        name ``source`` (canonical) or its members."""
        if name.type == "assignment_pattern":  # {flowUi: f = null}: f is flowUi when there is one
            left = name.child_by_field_name("left")
            if left is not None:
                self._alias_as(left, source)
        elif name.type in ("identifier", "shorthand_property_identifier_pattern"):
            head, _, last = source.rpartition(".")
            aliased = False  # a name of the window, the document or location is that, not a member
            for names, hit in ((self.aliases, source in self.aliases),
                               (self.global_aliases, source in self.global_aliases or source == "document.defaultView"),
                               (self.document_aliases, source == "document"),
                               (self.location_aliases, source in self.location_aliases
                                or last == "location" and head in self.global_aliases | {"document"}),
                               (self.openers, source in self.openers or last == "openUrl" and head in self.aliases)):
                if hit and text(name) not in names:
                    names.add(text(name))
                    self.changed = True
                aliased = aliased or hit
            root = source.partition(".")[0]
            if not aliased and (root == "document" and head or root in _DEVICE_OBJECTS) and self.members.get(text(name)) != source:
                # const {forms} = document: forms is document.forms; const n = navigator: n.plugins is navigator.plugins
                self.members[text(name)] = source
                self.changed = True
        elif name.type == "array_pattern" and source.startswith("document."):
            self._bind_pattern(name, self._path_labels(source))  # const {forms: [f]} = document
        elif name.type == "object_pattern":
            for child in name.named_children:
                target: Node | None = child
                if child.type == "shorthand_property_identifier_pattern":
                    key = text(child)
                elif child.type == "object_assignment_pattern":  # {flowUi = null}
                    target = child.child_by_field_name("left")
                    key = text(target) if target is not None else ""
                elif child.type == "pair_pattern":
                    key = property_key(child.child_by_field_name("key"), self.member_key)
                    target = child.child_by_field_name("value")
                else:
                    continue
                if key and target is not None:
                    self._alias_as(target, self.canonical(f"{source}.{key}"))

    def _bind_prop(self, name: str, labels: Labels) -> None:
        if name:
            self._grow(self.props, name, labels)

    def _hold(self, name: str, labels: Labels) -> None:
        """``name`` holds the objects ``labels`` under some key: every member read below it may see them."""
        self._grow(self.holding, name, labels)

    def _held_by(self, node: Node | None) -> Labels:
        """The objects put in the object a member chain starts from (``reg`` of ``reg.x.y``, ``reg[k]``)."""
        if not self.holding:  # most blocks put no object in another: no walk down each chain
            return frozenset()
        while node is not None and node.type in ("member_expression", "subscript_expression"):
            node = node.child_by_field_name("object")
        return self.holding.get(text(node), frozenset()) if node is not None and node.type == "identifier" else frozenset()

    def _bind_this(self, function: Node, labels: Labels) -> None:
        self._grow(self.this, function.id, labels)

    def _bind_dom(self, labels: Labels) -> None:
        if labels and not labels <= self.dom:
            self.dom = self.dom | labels
            self.changed = True

    def _listen(self, event: str, handler: Node | None, target: Node | None) -> None:
        """A listener for ``event`` on ``target``: its first parameter is the event."""
        if handler is None:
            return
        controls: list[str] = []
        if event in INPUT_EVENTS:
            controls = sorted(label[1] for label in (self.labels(target) if target is not None else ())
                              if label[0] == CONTROL)
            labels = frozenset({(INPUT_EVENT, controls[0] if controls else "input:" + event, controls[0] if controls else "")})
        else:  # a custom event: its detail holds what was dispatched (as a value: no path below it)
            labels = _as_values(self.events.get(event, frozenset()) | self.events.get("?", frozenset()))
        if not labels:
            return
        for fn in self._functions_of(handler):
            params = self._params(fn)
            if params:
                self._bind_pattern(params[0], labels)
            if controls and fn.type != "arrow_function":
                self._bind_this(fn, frozenset((CONTROL, c) for c in controls))
    def _call(self, node: Node) -> None:
        args, name, head, method = self.call_parts(node)
        function = node.child_by_field_name("function")
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
        if name == "Reflect.apply" and len(args) >= 3 and args[0].type == "identifier":
            called, passed = text(args[0]), list(args[2].named_children) if args[2].type == "array" else []
        if method == "bind" and head in self.functions:
            called, passed = head, args[1:]  # f.bind(t, v): v is f's first argument whenever it is called
        if function is not None and function.type == "identifier" and args and text(function) in self.resolvers:
            self._bind(f"\0resolved:{text(function)}", self.labels(args[0]))  # resolve(v) in a Promise's executor
        if method == "postMessage" and args:
            # A message the block posts (to itself, a channel's port): a message listener's event holds it.
            self._grow(self.events, "message", self.labels(args[0]))
        targets = self.functions.get(called, ())
        if not targets and (called_now := _called_function(function)) is not None:
            targets = [called_now]  # (d => d.cookie)(document)
        if not targets and called == name and method in self.methods and function is not None \
                and function.type == "member_expression":
            # a.go(u): any method of the scripts named go. Kept per name and position and handed to the
            # methods once a pass (_pass_methods): n calls of n methods of one name cost n + n, not n * n.
            for position, arg in enumerate(passed):
                self._bind(_method_arg(method, position), self.labels(arg))
        self._pass(targets, passed)
        if name in ("setTimeout", "setInterval", "requestAnimationFrame") and len(args) > 2:
            # setTimeout(fn, delay, ...args): fn is called with args.
            for fn in self._functions_of(args[0]):
                for param, arg in zip(self._params(fn), args[2:]):
                    self._bind_pattern(param, self.labels(arg))
        arg_labels = frozenset().union(*(self.labels(arg) for arg in args if arg.type not in (
            "arrow_function", "function_expression", "function"))) if args else frozenset()
        flat = _as_values(frozenset(label for label in arg_labels if label[0] not in (FLOWUI[0], GETTER[0])))
        if name == "Object.defineProperty" and len(args) >= 3 and args[2].type == "object":
            # Object.defineProperty(o, 'v', {get: () => s}): every read of .v gives what the getter returns
            for part in args[2].named_children:
                key = part.child_by_field_name("key") if part.type == "pair" else part.child_by_field_name("name")
                getter = part.child_by_field_name("value") if part.type == "pair" else part
                if key is not None and text(key).strip("'\"") == "get" and getter is not None and getter.type in _FUNCTIONS:
                    prop = self.member_key(args[1]) or ""
                    self._bind_prop(prop, self._returned(getter))
                    if args[0].type == "identifier" and text(args[0]) in self.global_aliases and prop:
                        self._bind(prop, self._returned(getter))  # on the window: the bare global too
        if method == "set" and head in self.maps:
            self._bind(head, arg_labels)  # a map holds what is put in it, flowUi and controls too
        elif name in ("Object.assign", "Reflect.set", "Object.defineProperty") and args:
            # Object.assign(target, {src: v}): the target holds the values.
            target: Node | None = args[0]
            while target is not None and target.type in ("member_expression", "subscript_expression"):
                target = target.child_by_field_name("object")
            if target is not None and target.type == "identifier" and text(target) not in _GLOBALS:
                self._bind(text(target), flat)
                self._hold(text(target), _holders(arg_labels))  # Object.defineProperty(o, 'el', {value: q})
        elif receiver_node is not None and flat:
            # The conservative rule: an object handed a value (push, set, add, append, a setter method)
            # holds it; reading it back (join, get, values, spread) gives it again.
            base: Node | None = receiver_node
            while base is not None and base.type in ("member_expression", "subscript_expression"):
                base = base.child_by_field_name("object")
            if method in ("setAttribute", "setAttributeNS") and args:
                attr = (string_value(args[-2]) if len(args) >= 2 else "") or ""
                if attr.lower().startswith("data-") or attr.lower() in ("value", "title", "alt", "aria-label"):
                    self._bind_dom(flat)
            if method == "setProperty" and len(args) >= 2:
                self._bind_dom(flat)  # style.setProperty('--v', s): getComputedStyle(...).getPropertyValue('--v') reads it
            if base is not None and base.type == "identifier" and text(base) not in _GLOBALS and text(base) not in _NOT_CONTAINERS \
                    and text(base) not in self.aliases and method not in ("log", "warn", "error", "info", "debug"):
                self._bind(text(base), flat)
        if name == "Array.from" and len(args) >= 2:  # Array.from(list, fn): fn gets each item
            items = self._element(self.labels(args[0]))
            for fn in self._functions_of(args[1]):
                for param in self._params(fn)[:1]:
                    self._bind_pattern(param, items)
        # Callbacks (forEach, map, ...): their parameters get the receiver's labels; a promise of what
        # the user typed (navigator.clipboard.readText().then) gives it to its callback.
        if function is not None and function.type == "member_expression" and method != "addEventListener":
            receiver = self._element(self.labels(receiver_node))
            if method in ("then", "catch", "finally") and not self._own_promise(receiver_node):
                receiver = frozenset(label for label in receiver if label[0] == INPUT)
            if receiver:
                for arg in args:
                    for fn in self._functions_of(arg):
                        for param in self._params(fn)[:2]:
                            self._bind_pattern(param, receiver)

    def _pass_methods(self) -> None:
        """Each method of the scripts gets, per parameter, what every call of its name passes there."""
        for name, functions in self.methods.items():
            for fn in functions:
                for position, param in enumerate(self._params(fn)):
                    self._bind_pattern(param, self.vars.get(_method_arg(name, position), frozenset()))

    def _pass(self, functions: Iterable[Node], args: list[Node]) -> None:
        """A call of functions of the scripts: each argument flows into its parameter, and all into
        ``arguments`` (not an arrow's)."""
        for fn in functions:
            for param, arg in zip(self._params(fn), args):
                self._bind_pattern(param, self.labels(arg))
                if param.type == "identifier" and arg.type == "identifier" and text(arg) not in (
                        self.aliases | self.global_aliases | self.document_aliases | self.location_aliases):
                    # put(m) with m.set(k, s) in put: m holds what its parameter was given
                    self._bind(text(arg), _as_values(self.vars.get(text(param), frozenset())))
                if param.type == "identifier" and self.bindings.get(text(param)) == 1:
                    # The name's only binding receives the document, the window, flowUi, location: it is that.
                    self._alias(param, arg)
            if fn.type != "arrow_function":
                self._bind(f"arguments@{fn.id}", frozenset().union(*(self.labels(arg) for arg in args)))

    def _own_promise(self, node: Node | None) -> bool:
        """Whether a promise is the block's own (``Promise.resolve(v)``, ``Promise.all``, a call of a
        function of the scripts, a chain of ``then`` on one): what it resolves to is what it was given.
        A platform promise (``fetch``, ``img.decode()``, ``flowUi.send``) resolves to something else."""
        while node is not None and node.type == "call_expression":
            function = node.child_by_field_name("function")
            name = callee_name(function)
            if name in ("Promise.resolve", "Promise.all", "Promise.allSettled", "Promise.race", "Promise.any") \
                    or name in self.functions:
                return True
            if function is None or function.type != "member_expression" \
                    or text(function.child_by_field_name("property")) not in ("then", "catch", "finally"):
                return False
            node = function.child_by_field_name("object")
        return node is not None and node.type == "new_expression" \
            and callee_name(node.child_by_field_name("constructor")) == "Promise"

    def _returned(self, function: Node) -> Labels:
        """Labels of what an (anonymous) function returns: its expression body, or its return statements."""
        body = function.child_by_field_name("body")
        if body is None:
            return frozenset()
        if body.type != "statement_block":
            return self.labels(body)
        out: Labels = frozenset()
        stack = list(body.named_children)
        while stack:
            node = stack.pop()
            if node.type in _FUNCTIONS:
                continue
            if node.type == "return_statement" and node.named_child_count:
                out |= self.labels(node.named_children[0])
            stack.extend(node.named_children)
        return out

    def _functions_of(self, node: Node) -> list[Node]:
        if node.type in ("arrow_function", "function_expression", "function", "generator_function"):
            return [node]
        if node.type == "identifier":
            return self.functions.get(text(node), [])
        return []

    # -- labels of an expression -------------------------------------------------------------
    def _member(self, labels: Labels, prop: str | None) -> Labels:
        out: set[Label] = set()
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
            if kind == FORMS[0]:
                # document.forms.f, document.forms[0]: a form (by its id or name, or any of them).
                if not prop or prop.isdigit() or prop in ("item", "namedItem"):
                    out.add((FORM, "form"))
                elif prop in self.named:  # an id or a form's name of the block (others name no form)
                    out.add((FORM, f"form#{_css_ident(prop)}, form[name={_css_ident(prop)}]"))
                continue
            if kind == FORM:
                # A form's named controls (form.q, form.elements.q; any of them through a computed key,
                # item(i) or namedItem(name)).
                if prop in ("elements", None):
                    out.add(label)
                if prop in _NEIGHBOURS:
                    out.update((CONTROL, c) for c in self.forms(label[1]).get("", ()))
                    continue
                fields = self.forms(label[1])
                out.update((CONTROL, c) for c in fields.get("" if prop in ("item", "namedItem") else prop or "", ()))
                continue
            if kind == CONTROL:
                if prop == "form":
                    out.add((FORM, "form"))
                if prop in _NEIGHBOURS:  # a sibling, a child or a parent of a control: any control
                    out.update((CONTROL, c) for c in self.all_controls())
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

    def _property(self, prop: str | None) -> Labels:
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

    def _element(self, labels: Labels) -> Labels:
        """Labels of an element of an array/iterable (paths get no index; an item of
        ``document.forms`` is a form, of a form or its ``elements`` any of its controls)."""
        if not any(label[0] in (FORM, FORMS[0]) for label in labels):
            return labels
        out = set(labels)
        for label in labels:
            if label[0] == FORMS[0]:
                out.add((FORM, "form"))
            elif label[0] == FORM:
                out.update((CONTROL, c) for c in self.forms(label[1]).get("", ()))
        return frozenset(out)

    def _document_member(self, prop: str) -> Labels:
        """Labels of ``document.prop`` for a member in :data:`_DOCUMENT_MEMBERS`."""
        if prop in ("body", "documentElement"):
            return frozenset((ELEMENT, p) for p in self.markup_paths)
        return frozenset({(CONTROL, "input:form"), FORMS} if prop == "forms" else {(CONTROL, "input:focused")})

    def _path_labels(self, dotted: str) -> Labels:
        """Labels of a member chain of the document written as a dotted name (``document.forms.g``)."""
        parts = dotted.split(".")
        if parts[0] != "document" or len(parts) < 2:
            return frozenset()
        prop = parts[1]
        labels = self._document_member(prop) if prop in _DOCUMENT_MEMBERS else self._named_member("document", prop) or frozenset()
        for at in range(2, len(parts)):
            prop = parts[at]
            labels = self._named_member(".".join(parts[:at]), prop) or self._member(labels, prop) | self._property(prop)
        return labels

    def _named_member(self, holder: str, prop: str | None) -> Labels | None:
        """``window.q``, ``globalThis['q']``, ``document.all.q``, ``document.f``: the named access of
        the window (not where a `var` or function of the scripts' top level defines ``q``), of
        ``document.all`` (ids and names) and of the document (a form by its name); None when
        ``holder.prop`` is no such access."""
        if not prop:
            return None
        if holder == "document.all":
            return self._found(f"#{_css_ident(prop)}, [name={_css_ident(prop)}]")
        if holder == "document" and prop in self.named:
            # The document's named access: a form by its name (it overrides the document's own members).
            form = f"form[name={_css_ident(prop)}]"
            if self.forms(form):
                return self._found(form)
        if holder in self.global_aliases and prop in self.named and prop not in self.window_names:
            return self._found(self.named[prop])
        return None

    def name_of(self, node: Node | None) -> str:
        """:func:`callee_name` with the aliases of the global object dropped and those of the
        document written ``document``: ``w.document.forms``, ``d.forms``, ``(0, document).forms``,
        ``el.ownerDocument.forms`` and ``document.defaultView.document.forms`` all name ``document.forms``."""
        return self.canonical(callee_name(node, self.member_key))

    def member_key(self, index: Node | None) -> str | None:
        """The member a computed index names when its string is known: a literal, a name bound to
        one, literals joined (``flowUi[k]`` with ``const k = 'open' + 'Url'``)."""
        if index is None:
            return None
        literal = string_value(index)
        return literal if literal is not None or index.type == "number" else self.pieces.literal(index)

    def call_parts(self, node: Node) -> tuple[list[Node], str, str, str]:
        """:func:`call_parts` with the callee's name as :meth:`canonical` writes it."""
        args, name, head, method = call_parts(node, self.member_key)
        if name:
            name = self.canonical(name)
            head, _, method = name.rpartition(".")
        return args, name, head, method

    def canonical(self, name: str) -> str:
        """``name`` (a dotted name) as :meth:`name_of` writes it."""
        head = name.partition(".")[0]
        if head not in self.global_aliases and head not in self.document_aliases and head not in self.members \
                and "ownerDocument" not in name:
            return name
        parts = name.split(".")
        if head in self.members:  # const {all} = document: all.q is document.all.q
            parts[:1] = self.members[head].split(".")
        if "ownerDocument" in parts[1:]:  # every node of the block's document has it as its ownerDocument
            parts = ["document", *parts[len(parts) - parts[::-1].index("ownerDocument"):]]
        while len(parts) > 1:
            if parts[0] in self.global_aliases:
                parts.pop(0)
            elif parts[0] in self.document_aliases and parts[1] == "defaultView" and len(parts) > 2:
                del parts[:2]
            else:
                break
        if parts[0] in self.document_aliases:
            parts[0] = "document"
        return ".".join(parts)

    def labels(self, node: Node | None) -> Labels:
        """Labels of ``node``, memoised for the current pass (the last pass changes nothing,
        so what it memoises is final)."""
        if node is None:
            return frozenset()
        key = node.id
        memo = self._memo
        if key in memo:
            return memo[key]
        labels = self._labels(node)
        if node.type in _BUILDERS and self.pieces.builds(node):
            # A string built from pieces: the URLs its text holds once folded ('https:' + '//' + host,
            # ['https:', '', host].join('/')); a host left to run time is a URL with no host.
            built = {(URL, url) for url, _ in self.pieces.urls(node)}
            if not built <= labels:
                labels = labels | built
        memo[key] = labels
        return labels

    def _read(self, path: str, node: Node) -> None:
        self.reads.setdefault(path, node)

    def _labels(self, node: Node | None) -> Labels:
        if node is None:
            return frozenset()
        kind = node.type
        if kind == "this":
            # In a listener on a control (a function, not an arrow), `this` is the control; at the
            # top level of an event-handler attribute (and in its arrows), the element it is on.
            function = _enclosing_function(node)
            while function is not None and function.type == "arrow_function":
                function = _enclosing_function(function)
            if function is not None:
                return self.this.get(function.id, frozenset())
            if not self.owners:
                return frozenset()
            root: Node = node
            while (up := parent_of(root)) is not None:
                root = up
            return frozenset().union(*(self._found(owner) for owner in self.owners.get(root.id, ())))
        if kind == "identifier":
            name = text(node)
            if name == "undefined":
                return frozenset()
            if name == "arguments":
                function = _enclosing_function(node)
                while function is not None and function.type == "arrow_function":
                    function = _enclosing_function(function)
                if function is not None:
                    return self.vars.get(f"arguments@{function.id}", frozenset()) | self.vars.get(name, frozenset())
            if name in self.aliases:
                return self.vars.get(name, frozenset()) | {FLOWUI}
            if name in self.members:
                return self.vars.get(name, frozenset()) | self._path_labels(self.members[name])
            if name in self.named and not self._shadowed(name, node):
                # HTML's named access: an element's id is a global naming it (`q.value` for <input id=q>).
                return self.vars.get(name, frozenset()) | self._found(self.named[name])
            return self.vars.get(name, frozenset())
        if kind in ("string", "template_string"):
            out: set[Label] = set()
            value = string_value(node)
            if value is not None:
                if absolute_url(value):
                    out.add((URL, value))
                elif scheme_token(value):  # 'https:' alone: a URL's first piece, its host added elsewhere
                    out.add((URL, f"{scheme_token(value)}://"))
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
            name = self.name_of(obj)
            if prop == "state" and name in self.aliases:
                if _outermost(node):
                    self._read("", node)
                return frozenset({(STATE, "", True)})
            if name == "document" and prop in _DOCUMENT_MEMBERS:
                return self._document_member(prop)
            by_name = self._named_member(name, prop)
            if by_name is not None:
                return by_name
            if prop == "control":  # a <label>'s control: whichever its `for` names
                self.labels(obj)  # records what the object's expression reads
                return frozenset((CONTROL, c) for c in self.all_controls())
            if self.name_of(node) in self.aliases or prop == _FLOWUI and name in self.global_aliases:
                return frozenset({FLOWUI})
            if name in self.maps and prop == "get":
                return frozenset()  # a map's own get (its call gives what the map holds)
            labels = self._member(self._labels(obj), prop) | self._property(prop) | self._held_by(obj)
            if obj is not None and obj.type == "identifier" and text(obj) in self.global_aliases:
                labels |= self.vars.get(prop, frozenset())  # window.g: the global g (var g = v, window.g = v)
            if _outermost(node):
                for label in labels:
                    if label[0] == STATE:
                        self._read(label[1], node)
            return labels
        if kind == "subscript_expression":
            held = self._labels(node.child_by_field_name("object"))
            index = node.child_by_field_name("index")
            key = self.member_key(index)
            holder = self.name_of(node.child_by_field_name("object"))
            if key == _FLOWUI and holder in self.global_aliases:
                return frozenset({FLOWUI})  # w['flow' + 'Ui'] with const w = globalThis
            by_name = self._named_member(holder, key) if key is not None else None
            if by_name is not None:
                return by_name
            if key is not None:
                labels = self._member(held, key) | self._property(key) | self._held_by(node)
                for label in labels if _outermost(node) else ():
                    if label[0] == STATE:
                        self._read(label[1], node)
                return labels
            return self._element(held) | self._labels(index)
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            args, name, head, method = self.call_parts(node)  # a().closest(s): no name, the method closest
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
                          "getElementsByTagName", "getElementsByName") and args:
                selector = string_value(args[0])
                if selector is not None:
                    if method == "getElementById":
                        selector = "#" + _css_ident(selector)
                    elif method == "getElementsByClassName":
                        selector = "." + ".".join(_css_ident(c) for c in selector.split())
                    elif method == "getElementsByName":
                        selector = f"[name={_css_ident(selector)}]"
                    return self._found(selector)
                return frozenset()
            if method == "composedPath" and function is not None and function.type == "member_expression":
                # An input event's path: its first element is the control the user typed in.
                return frozenset((CONTROL, label[2] or label[1]) for label in self._labels(function.child_by_field_name("object"))
                                 if label[0] == INPUT_EVENT)
            if method in ("getAttribute", "getAttributeNS") and function is not None and function.type == "member_expression":
                return self._member(self._labels(function.child_by_field_name("object")), "value") | self.dom
            if method == "getPropertyValue" and function is not None and function.type == "member_expression":
                self._labels(function.child_by_field_name("object"))  # records what the receiver reads
                return self.dom
            called = text(function.child_by_field_name("property")) if function is not None \
                and function.type == "member_expression" else ""  # also after a call: name has no method then
            receiver: Labels | None = None  # computed once: a chain of calls would otherwise double per link
            if called in ("item", "namedItem") and function is not None:
                # A collection's item(i) or namedItem(name): what it holds (document.forms: forms; a
                # form or its elements: its controls; namedItem('q') as .q), which a call's result otherwise drops.
                key = string_value(args[0]) if called == "namedItem" and args else None
                receiver = self._labels(function.child_by_field_name("object"))
                held = self._member(receiver, key if key else called)
                if any(label[0] in (FORM, CONTROL) for label in held):
                    return held | self.returns.get(called, frozenset())
            if (called_now := _called_function(function)) is not None:
                return self._returned(called_now)  # (d => d.q.value)(document): what the function returns
            if function is not None and function.type == "call_expression" and (made := self._made(function)):
                return made  # mk(v)(): what the function mk returns gives
            if name in self.returns:
                return self.returns[name]
            out = set(self.returns.get(method, ())) if method and function is not None and function.type == "member_expression" \
                else set()
            if function is not None and function.type == "member_expression":
                if receiver is None:
                    receiver = self._labels(function.child_by_field_name("object"))
                out |= self._member(receiver, None)
                if called in _SAME_ITEMS:
                    out |= receiver  # the list's items as they are (controls too)
                elif called == "get" and head in self.maps:
                    return receiver  # what the map holds, as it is (controls, flowUi too)
            for arg in args:
                if arg.type not in ("arrow_function", "function_expression"):
                    out |= self.labels(arg)
            if called in _MAPPING or called in ("replace", "replaceAll") or name == "Array.from":
                # [...inputs].map(i => i.value), Array.from(inputs, i => i.value): what the callback returns.
                for arg in args:
                    for fn in self._functions_of(arg):
                        if fn.id not in self._mapping:  # value.map(sortKeys) inside sortKeys itself
                            self._mapping.add(fn.id)
                            try:
                                out |= self._returned(fn)
                            finally:
                                self._mapping.discard(fn.id)
            handed = args[1:] if method in ("call", "apply", "bind") else args  # `this` of a call: the getter's own case
            if name not in self.functions and not (method == "set" and head in self.maps) \
                    and any(FLOWUI in self.labels(arg) for arg in handed):
                # The bridge object handed to the platform (JSON.stringify(flowUi), Object.entries,
                # structuredClone): its enumerable `state` getter gives the whole state.
                self._read("", node)
                out.add((STATE, "", False))
            dropped = () if name in _OBJECT_BUILDERS else (FLOWUI[0], INPUT_EVENT) \
                if called in _SAME_ITEMS or name in ("Array.from", "Array.of") \
                else (FLOWUI[0], CONTROL, INPUT_EVENT)  # a filter or a copy of a list of controls still holds them
            return _as_values(frozenset(label for label in out if label[0] not in dropped))
        if kind == "new_expression":
            ctor = callee_name(node.child_by_field_name("constructor"))
            arguments = node.child_by_field_name("arguments")
            given: Labels = frozenset().union(*(self.labels(a) for a in arguments.named_children)) if arguments is not None \
                and arguments.named_child_count else frozenset()
            if ctor in ("FormData", "URLSearchParams"):
                named = {label[1] for label in given if label[0] in (CONTROL, INPUT)}
                if ctor == "FormData" or named:
                    self.inputs_used = True
                    return frozenset((INPUT, n) for n in (named or {"input:form"}))
            if ctor in _WEBRTC:
                return given | {RTC}
            if ctor == "Promise" and arguments is not None and arguments.named_child_count:
                # new Promise((resolve) => resolve(v)): it resolves to what its resolve was called with.
                for name in self._resolvers_of(arguments.named_children[0]):
                    given = given | self.vars.get(f"\0resolved:{name}", frozenset())
            if ctor == "Proxy" and arguments is not None and arguments.named_child_count >= 2:
                # new Proxy(target, {get(t, k) {...}}): every member read returns what the trap returns.
                handler = arguments.named_children[1]
                for child in handler.named_children if handler.type == "object" else ():
                    trap_name = child.child_by_field_name("key") if child.type == "pair" else child.child_by_field_name("name")
                    trap = child.child_by_field_name("value") if child.type == "pair" else child
                    if trap_name is not None and (string_value(trap_name) if trap_name.type == "string" else text(trap_name)) \
                            in ("get", "apply") and trap is not None and trap.type in _FUNCTIONS:
                        given = given | _as_values(self._returned(trap))
            return given
        if kind in ("binary_expression", "ternary_expression", "parenthesized_expression", "sequence_expression",
                    "array", "spread_element", "await_expression", "unary_expression", "template_substitution",
                    "arguments", "as_expression", "non_null_expression"):
            joined: Labels = frozenset()
            compare = guard = False
            if kind == "binary_expression":
                op = node.child_by_field_name("operator")
                compare = op is not None and text(op) in ("===", "!==", "==", "!=", "<", ">", "<=", ">=", "instanceof", "in")
                guard = op is not None and text(op) == "&&"
            condition = node.child_by_field_name("condition") if kind == "ternary_expression" else None
            left = node.child_by_field_name("left") if guard else None
            for child in node.named_children:
                labels = self.labels(child)  # always computed: it records the reads
                if child == left:
                    # `a && a.b` is `a` only when `a` is falsy: a value, never an object whose members are state paths.
                    labels = _as_values(labels)
                if not compare and child != condition:
                    joined |= labels
            return joined
        if kind == "object":
            values: Labels = frozenset()
            for child in node.named_children:
                if child.type == "pair":
                    values |= self.labels(child.child_by_field_name("value"))
                    computed = child.child_by_field_name("key")
                    if computed is not None and computed.type == "computed_property_name" and computed.named_children:
                        values |= _as_values(self.labels(computed.named_children[0]))  # {[s]: 1}: its keys hold s
                elif child.type == "shorthand_property_identifier":
                    values |= self.vars.get(text(child), frozenset())
                elif child.type == "spread_element":
                    values |= self.labels(child)
            return values
        if kind in ("assignment_expression", "augmented_assignment_expression"):
            return self._labels(node.child_by_field_name("right"))
        return frozenset()


#: Labels of objects rather than values: a member read of an object drops them unless the member is
#: one the object has (a control's value, flowUi's state), so an object kept in another object's
#: property is found through the property's name (:meth:`Flow._property`).
_HOLDER_KINDS = frozenset((FLOWUI[0], GETTER[0], CONTROL, INPUT_EVENT, FORM, FORMS[0], RTC[0], ELEMENT))


#: Calls that make an object of their arguments' objects (Object.create(flowUi) is flowUi's like).
_OBJECT_BUILDERS = frozenset(("Object.fromEntries", "Object.assign", "Object.create", "Object.freeze", "Object.seal",
                              "Object.setPrototypeOf"))


def _method_arg(method: str, position: int) -> str:
    """The variable that holds what calls of methods named ``method`` pass at ``position``."""
    return f"\0arg{position}.{method}"


def _as_values(labels: Labels) -> Labels:
    """Labels of values kept inside something else: the state's as a value (no path below it)."""
    return frozenset((STATE, label[1], False) if label[0] == STATE else label for label in labels)


def _holders(labels: Labels) -> Labels:
    return frozenset(label for label in labels if label[0] in _HOLDER_KINDS)


def _called_function(callee: Node | None) -> Node | None:
    """The function an immediately called expression calls (``(d => ...)(document)``), else None."""
    while callee is not None and callee.type == "parenthesized_expression" and callee.named_child_count == 1:
        callee = callee.named_children[0]
    return callee if callee is not None and callee.type in ("arrow_function", "function_expression", "function") else None


def property_key(node: Node | None, fold: Callable[[Node | None], str | None] = folded_string) -> str:
    """The name a property key gives (``el``, ``'el'``, ``1``, ``['e' + 'l']``), or '' when computed
    at run time; ``fold`` gives a computed key's string (the flow's :meth:`Flow.member_key` also
    knows names bound to strings)."""
    if node is None:
        return ""
    if node.type == "computed_property_name":
        return (fold(node.named_children[0]) if node.named_child_count else None) or ""
    if node.type == "string":
        return string_value(node) or ""
    return text(node)


def _named(labels) -> list[str]:
    """The state paths and input names of ``labels``, for a finding's ``paths``."""
    return sorted({label[1] or "(the whole state)" for label in labels if label[0] == STATE and label[1] != "?"}
                  | {label[1] for label in labels if label[0] == INPUT})
