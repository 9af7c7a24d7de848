"""Strings a block builds from pieces (docs/REVIEW.md: what the data flow follows).

A URL written as one literal names its host; the same URL built at run time from literal
pieces hides it from a scan of literals: ``['https:', '', 'collect.example', 'k', v].join('/')``,
``'https://'.concat(host)``, ``String.raw`…```, a template with escapes, an array filled with
``push``. :class:`Pieces` folds such an expression into its text: literal runs and holes (a
value known only at run time), read off the tree-sitter tree, never off the source text.

What it folds: string and template literals (escapes decoded), ``+``, ``concat`` (of strings
and of arrays), ``join`` (with a literal separator or none), ``String.raw`` (tagged, and with
``{raw: [...]}``), ``String(x)``, ``toString()``, array literals with spreads and elisions,
``Array.of``/``Array.from``, ``split`` of a literal, ``reverse``/``toReversed``/``slice()``, the
``call`` form of ``join``/``concat``, the decoders (``atob``, ``String.fromCharCode``,
``decodeURIComponent``, ...) and string methods (``toLowerCase``, ``slice``, ``replace``, ...) of
known text, as :mod:`.jsstrings` computes them, arithmetic on known numbers and ``charCodeAt``/
``codePointAt``, a ``map`` (or ``Array.from``'s map, a ``replace`` with ``/./g``) whose callback is
one expression of its element and index, evaluated per element
(``[102, 119].map(c => String.fromCharCode(c - 1))``), a ``reduce`` whose callback is one
expression and whose result is a string, and names: a ``const`` (or a ``let`` never assigned) with
one binding in the scripts is its value, and an array declared so and then filled with ``push``/
``unshift`` statements right in its block is followed in statement order when nothing can read
it in between (otherwise its order is unknown). Where the order of the pieces is unknown (a
``map`` or ``reduce`` not evaluated, ``filter``, ``sort``, a ``push`` in a loop or a callback), a scheme among them
(``'https:'``) still makes the value a URL whose host is unknown.

A URL is reported where its string is whole: not where it is a piece of a longer one (an
operand of ``+``, an element, a ``concat`` argument), whose end may not be its host's end, nor
at a name read only as such a piece; and a host a literal or a name's declaration already names
(:attr:`Fold.known`) is not named again where the pieces are put together.

Cost: every node is folded once (memoised); a fold keeps at most :data:`MAX_PIECES` pieces
and :data:`MAX_TEXT` characters of literal text (what follows is a hole, its schemes kept), an
array at most :data:`MAX_ITEMS` elements, names resolve at most :data:`MAX_NAMES` deep, and a
block gets :data:`MAX_WORK` units of work: past a limit a string is unknown, which
:attr:`Pieces.exhausted` records (the inspector counts it as a way out to review by hand).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from tree_sitter import Node

from . import jsstrings
from .js import _RELATIVE_AFTER, _url_end, callee_name, parent_of, string_value, text, unescape, url_spans
from .urls import absolute_url, host_of

#: Pieces, literal characters and array elements a fold keeps (the rest is a hole).
MAX_PIECES = 64
MAX_TEXT = 1024
MAX_ITEMS = 1024
#: ``push``/``unshift`` statements followed in order on one array.
MAX_MUTATIONS = 64
#: Reads of one array filled with push/unshift placed against them (more: the order is unknown).
MAX_REFERENCES = 512
#: Names resolved one inside another (``const b = a + x``, ``const c = b + y``, ...).
MAX_NAMES = 64
#: Work for one block (pieces, elements and uses read): past it, every string not folded yet
#: is unknown and :attr:`Pieces.exhausted` says so (a way out the review cannot follow).
MAX_WORK = 50_000

_SCHEMES = ("https", "http", "wss", "ws")
#: Array methods that read the array without changing it.
_READS = frozenset(("join", "concat", "slice", "map", "filter", "reduce", "reduceRight", "forEach", "some", "every",
                    "find", "findIndex", "findLast", "findLastIndex", "includes", "indexOf", "lastIndexOf", "at",
                    "entries", "keys", "values", "flat", "flatMap", "toString", "toLocaleString", "toReversed",
                    "toSorted", "toSpliced", "with"))
#: Array methods that give the array's elements in an order this module does not follow.
_SHUFFLES = frozenset(("map", "filter", "flat", "flatMap", "sort", "toSorted", "splice", "toSpliced", "with", "slice",
                       "fill", "copyWithin", "reduce", "reduceRight"))
_HOISTED = frozenset(("function_declaration", "generator_function_declaration"))
#: The last member of a call this module folds into a string.
_STRING_METHODS = frozenset(("join", "concat", "raw", "call", "apply", "toString", "valueOf", "reduce", "reduceRight"))
#: What a call's callee may end with for the fold to read it (one set lookup for the calls it does not).
_FOLDED_METHODS = _STRING_METHODS | jsstrings.TEXT_METHODS
_FOLDED_MEMBERS = _FOLDED_METHODS | {d.rpartition(".")[2] for d in jsstrings.DECODERS}
_FOLDED_FUNCTIONS = frozenset({"String"} | {d for d in jsstrings.DECODERS if "." not in d})


class Fold(NamedTuple):
    """A string as literal runs (``str``, never two in a row, never empty) and holes (``None``);
    ``schemes``: URL schemes named by literal text whose place in the string is unknown;
    ``known``: hosts already named where they are written (a literal holding a whole URL, or a
    name's declaration), not to be reported again where the pieces are put together."""

    pieces: tuple[str | None, ...]
    schemes: frozenset[str] = frozenset()

    known: frozenset[str] = frozenset()
    #: Every scheme its literal text names, wherever it stands (set by :func:`concat`; a fold
    #: made otherwise holds no scheme in its text).
    hints: frozenset[str] = frozenset()

    @property
    def literal(self) -> str | None:
        """The whole string, when it is known."""
        if self.schemes or None in self.pieces:
            return None
        return "".join(p for p in self.pieces if p is not None)


class Items(NamedTuple):
    """An array's elements in order (``None``: not known), and the schemes its literals name."""

    items: tuple[Fold, ...] | None
    schemes: frozenset[str] = frozenset()


UNKNOWN = Fold((None,))
EMPTY = Fold(())
_COMMA = Fold((",",))


def scheme_token(value: str) -> str | None:
    """The scheme a literal names when it is nothing but a network scheme (``'https:'``,
    ``'https:/'``, ``'wss:'``): a piece of a URL whose host comes from elsewhere."""
    lowered = value.strip().lower()
    for scheme in _SCHEMES:
        if lowered in (scheme + ":", scheme + ":/"):
            return scheme
    return None


def schemes_in(value: str) -> frozenset[str]:
    """The network URL schemes a text names (``https:``, ``wss:``), each at a word's start."""
    if ":" not in value:
        return frozenset()
    lowered = value.lower()
    found = set()
    for scheme in _SCHEMES:
        start = lowered.find(scheme + ":")
        while start >= 0:
            if start == 0 or not lowered[start - 1].isalnum():
                found.add(scheme)
                break
            start = lowered.find(scheme + ":", start + 1)
    return frozenset(found)


def concat(*folds: Fold) -> Fold:
    """The folds one after the other (merged, and cut to the limits: once they are reached,
    what follows is one hole, its schemes kept)."""
    out: list[str | None] = []
    schemes: set[str] = set()
    known: set[str] = set()
    size = 0
    full = False
    for fold in folds:
        schemes |= fold.schemes
        known |= fold.known
        if full:
            schemes |= fold.hints
            continue
        for index, piece in enumerate(fold.pieces):
            if size >= MAX_TEXT or len(out) >= MAX_PIECES:
                full = True
                schemes |= fold.hints if index == 0 else frozenset().union(
                    *(schemes_in(p) for p in fold.pieces[index:] if p is not None))
                if out[-1] is not None:
                    out.append(None)
                break
            if piece is None:
                if not out or out[-1] is not None:
                    out.append(None)
            elif piece:
                kept = piece[:MAX_TEXT - size]
                size += len(kept)
                if out and out[-1] is not None:
                    out[-1] += kept
                else:
                    out.append(kept)
                if len(kept) < len(piece):
                    schemes |= schemes_in(piece[max(0, len(kept) - 8):])
                    out.append(None)
    hints = set(schemes)
    for piece in out:
        if piece is not None:
            hints |= schemes_in(piece)
    return Fold(tuple(out), frozenset(schemes), frozenset(known), frozenset(hints))


def join(items: Items, separator: Fold) -> Fold:
    """``items.join(separator)``."""
    if items.items is None:
        return Fold((None,), items.schemes | separator.schemes | _schemes_of(separator))
    parts: list[Fold] = []
    for index, item in enumerate(items.items):
        if index:
            parts.append(separator)
        parts.append(item)
    joined = concat(*parts)
    return joined._replace(schemes=joined.schemes | items.schemes) if items.schemes else joined


def _schemes_of(fold: Fold) -> frozenset[str]:
    """The schemes a fold's text names anywhere."""
    return fold.hints | fold.schemes


@functools.lru_cache(maxsize=4096)
def urls(fold: Fold, *, continued: bool = False) -> tuple[tuple[str, str], ...]:
    """The URLs a fold's text holds, as ``(url, host)``; ``host`` is ``""`` where the text
    leaves it to run time (``'https://' + h``, ``'https:' + x``, ``'https://cdn.' + tld``, a
    scheme whose place is unknown): such a URL is given as its scheme and ``://``.
    ``continued``: the string is a piece of a longer one (``'https://' + 'cdn'`` in
    ``'https://' + 'cdn' + '.example/'``), so its end may not be the end of a host."""
    out: list[tuple[str, str]] = []
    pieces = fold.pieces
    for index, piece in enumerate(pieces):
        if piece is None or ":" not in piece and "//" not in piece:
            continue  # no scheme, no URL
        open_end = index + 1 < len(pieces) or continued  # a hole follows (runs are merged)
        spans = url_spans(piece)
        if piece.startswith("//") and (absolute_url(piece) or piece == "//" and open_end):
            # The whole value protocol-relative, or `//host` after a value known at run time (a scheme).
            spans.append((0, _url_end(piece, 2)))
        if open_end:  # `url(//` or `src="//` just before a hole: a host chosen at run time
            lowered = piece.lower()
            spans.extend((len(piece) - 2, len(piece)) for before in _RELATIVE_AFTER
                         if lowered.rstrip("/ \t\"'").endswith(before) and piece.endswith("//"))
        for start, end in spans:
            url = piece[start:end]
            marker = url.find("//") + 2
            authority = url[marker:]
            complete = end < len(piece) or not open_end or any(c in authority for c in "/?#")
            host = host_of(url) if complete else ""
            scheme = url[:marker - 3].lower() if marker > 2 else "https"
            out.append((url, host) if host else (scheme + "://", ""))
        if open_end:
            lowered = piece.lower()
            for scheme in _SCHEMES:
                for tail in (":", ":/"):
                    cut = len(lowered) - len(scheme) - len(tail)
                    if lowered.endswith(scheme + tail) and (cut == 0 or not lowered[cut - 1].isalnum()):
                        out.append((scheme + "://", ""))
    out.extend((scheme + "://", "") for scheme in sorted(fold.schemes))
    return tuple(out)


class Pieces:
    """Folds expressions of a block's scripts (see the module docstring)."""

    def __init__(self, scripts: list, declarators: dict[str, Node], assigned: set[str], functions: set[str]):
        #: Names with one binding in the scripts, declared by ``const``, or by ``let`` and never assigned.
        self.values: dict[str, Node] = {}
        #: Of those, the arrays declared with ``const`` or ``let``: name -> declarator.
        self.arrays: dict[str, Node] = {}
        for name, declarator in declarators.items():
            declaration = parent_of(declarator)
            value = declarator.child_by_field_name("value")
            if value is None or declaration is None or declaration.type != "lexical_declaration":
                continue
            if name in assigned:
                continue
            self.values[name] = value
            if value.type in ("array", "call_expression", "new_expression"):
                self.arrays[name] = declarator
        self._scripts = scripts
        self.functions = functions  # names of the functions declared in the scripts
        self._references: dict[str, list[Node]] | None = None
        self._folds: dict[int, tuple[Fold, bool]] = {}
        self._items: dict[int, Items | None] = {}
        self._named_items: dict[str, Items | None] = {}
        self._pieces_only: dict[str, bool] = {}  # name -> every use of it is a piece of a longer string
        self._urls: dict[int, tuple[tuple[str, str], ...]] = {}  # node id -> urls of its text
        self._busy: set[int] = set()        # nodes being folded (a name defined through itself)
        self._busy_items: set[int] = set()  # nodes being read as arrays
        #: A callback's parameters while its body is evaluated for one element (nothing is memoised then).
        self._bound: dict[str, str | float] = {}
        self._number_memo: dict[int, float | None] = {}
        self._depth = 0  # numbers being read, one inside another
        self._names = 0                     # names being resolved, one inside another
        self.work = 0
        #: Whether a string was left unknown for the limits (:data:`MAX_WORK`, :data:`MAX_NAMES`).
        self.exhausted = False

    # -- strings -----------------------------------------------------------------------
    def fold(self, node: Node | None) -> Fold:
        """The text of ``node`` as literal runs and holes."""
        return self._entry(node)[0] if node is not None else UNKNOWN

    def builds(self, node: Node | None) -> bool:
        """Whether ``node`` builds a string from pieces (``+``, a template, ``join``, ``concat``, ...)."""
        return node is not None and self._entry(node)[1]

    def literal(self, node: Node | None) -> str | None:
        """The value of ``node`` when it is a string known in full (a literal, or literals joined)."""
        return self.fold(node).literal if node is not None else None

    def urls(self, node: Node) -> tuple[tuple[str, str], ...]:
        """The URLs of a building expression's text (:func:`urls`; its end open when the
        expression is itself a piece of a longer string, or the value of a name used only so)."""
        done = self._urls.get(node.id)
        if done is None:
            fold, built = self._entry(node)
            done = self._urls[node.id] = urls(fold, continued=continued(node) or self._piece_of_a_name(node)) \
                if built else ()
        return done

    def assembled(self, node: Node) -> list[tuple[str, str]]:
        """The URLs (``(url, host)``) of a whole string built from pieces (not itself a piece of
        a longer one, nor the value of a name used only as one) whose host no literal in it, and
        no name it reads, names by itself: where a host is assembled; and a scheme left with no
        host (``host`` ``""``), once."""
        fold, built = self._entry(node)
        if not built or continued(node) or self._piece_of_a_name(node):
            return []
        seen = set(fold.known)
        out = []
        unknown = False
        for url, host in self.urls(node):
            if host and host not in seen:
                out.append((url, host))
                seen.add(host)
            elif not host and not unknown:
                out.append((url, ""))
                unknown = True
        return out

    def _piece_of_a_name(self, node: Node) -> bool:
        """Whether ``node`` is the value of a name whose every use is a piece of a longer string
        (``const base = 'https://' + 'api'`` read only in ``base + '.example/'``): the URL is
        the longer string's."""
        up = parent_of(node)
        while up is not None and up.type == "parenthesized_expression":
            node, up = up, parent_of(up)
        if up is None or up.type != "variable_declarator" or up.child_by_field_name("value") != node:
            return False
        name = up.child_by_field_name("name")
        return name is not None and name.type == "identifier" and self._only_pieces(text(name))

    def _only_pieces(self, name: str) -> bool:
        """Whether every use of the name ``name`` (one binding) is a piece of a longer string."""
        if name not in self._pieces_only:
            value = self.values.get(name)
            declarator = parent_of(value) if value is not None else None
            own = declarator.child_by_field_name("name") if declarator is not None else None
            uses = [ref for ref in self._refs(name) if own is None or ref.id != own.id]
            self.work += len(uses)
            self._pieces_only[name] = bool(uses) and all(continued(ref) for ref in uses)
        return self._pieces_only[name]

    def _entry(self, node: Node) -> tuple[Fold, bool]:
        key = node.id
        done = self._folds.get(key) if not self._bound else None
        if done is not None:
            return done
        if key in self._busy:  # a name defined through itself
            return UNKNOWN, False
        if node.type == "binary_expression":  # `a + b + c + ...`: the left spine first, without recursion
            spine = []
            left = node.child_by_field_name("left")
            while left is not None and left.type == "binary_expression" and left.id not in self._folds:
                spine.append(left)
                left = left.child_by_field_name("left")
            for inner in reversed(spine):
                self._entry(inner)
        if self.work > MAX_WORK:
            self.exhausted = True
            entry: tuple[Fold, bool] = (UNKNOWN, False)
        else:
            self._busy.add(key)
            try:
                entry = self._fold(node)
            finally:
                self._busy.discard(key)
            self.work += 1 + len(entry[0].pieces)
        if not self._bound:
            self._folds[key] = entry
        return entry

    def _fold(self, node: Node) -> tuple[Fold, bool]:
        kind = node.type
        if kind == "string":
            value = string_value(node)
            return _closed(value) if value is not None else UNKNOWN, False
        if kind == "template_string":
            up = parent_of(node)
            if up is not None and up.type == "call_expression" and up.child_by_field_name("arguments") == node:
                return UNKNOWN, False  # a tagged template: what the tag makes of it (String.raw: below)
            parts = self._template(node, raw=False)
            built = any(c.type in ("template_substitution", "escape_sequence") for c in node.children)
            return concat(*parts), built
        if kind == "number":
            value = text(node)
            return (Fold((value,)) if value.isdigit() and (value == "0" or value[0] != "0") and len(value) < 16
                    else UNKNOWN), False
        if kind in ("parenthesized_expression", "sequence_expression") and node.named_child_count:
            return _through(self.fold(node.named_children[-1]))
        if kind == "assignment_expression" and node.child_by_field_name("right") is not None:
            return _through(self.fold(node.child_by_field_name("right")))
        if kind == "binary_expression":
            op = node.child_by_field_name("operator")
            if op is None or text(op) != "+":
                return UNKNOWN, False
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None:
                return UNKNOWN, False
            total = self.number(node)  # two numbers: their sum
            if total is not None or left.type == "number" and right.type == "number":
                spelled = jsstrings.number_to_string(total, 10.0) if total is not None else None
                return (Fold((spelled,)) if spelled is not None else UNKNOWN), False
            parts = [self.fold(left), self.fold(right)]
            return concat(*parts), True
        if kind == "ternary_expression":
            branches = [self.fold(node.child_by_field_name(f)) for f in ("consequence", "alternative")]
            return Fold((None,), frozenset().union(*(b.schemes | _schemes_of(b) for b in branches))), False
        if kind == "identifier" and text(node) in self._bound:  # a callback's parameter
            param = self._bound[text(node)]
            param_text = param if isinstance(param, str) else jsstrings.number_to_string(param, 10.0)
            return (Fold((param_text,)) if param_text is not None else UNKNOWN), False
        if kind == "identifier":
            bound = self.values.get(text(node))
            if bound is None:
                return UNKNOWN, False
            if self._names >= MAX_NAMES:
                self.exhausted = True
                return UNKNOWN, False
            self._names += 1
            try:
                reported = not self._only_pieces(text(node))  # its declaration named its hosts
                if text(node) in self.arrays:
                    items = self.array(node)
                    if items is not None:
                        return _named(join(items, _COMMA), reported)
                return _named(self.fold(bound), reported)
            finally:
                self._names -= 1
        if kind == "array":
            items = self.array(node)
            return join(items, _COMMA) if items is not None else UNKNOWN, False
        if kind == "call_expression":
            return self._call(node)
        return UNKNOWN, False

    def _template(self, node: Node, *, raw: bool) -> list[Fold]:
        parts: list[Fold] = []
        for child in node.children:
            if child.type == "string_fragment":
                parts.append(_closed(text(child)))
            elif child.type == "escape_sequence":
                value = text(child) if raw else unescape(text(child))
                parts.append(Fold((value,)) if value is not None else UNKNOWN)
            elif child.type == "template_substitution":
                parts.append(self.fold(child.named_children[0]) if child.named_child_count == 1 else UNKNOWN)
        return parts

    def _call(self, node: Node) -> tuple[Fold, bool]:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None:
            return UNKNOWN, False
        if function.type == "member_expression":
            prop = text(function.child_by_field_name("property"))
            if prop == "decode" and arguments.type == "arguments":  # new TextDecoder().decode(new Uint8Array([...]))
                return self._text_decoder(function.child_by_field_name("object"), _args(arguments))
            if prop not in _FOLDED_MEMBERS:
                return UNKNOWN, False  # most calls: nothing this module folds (the name is not even read)
        elif function.type != "identifier" or text(function) not in _FOLDED_FUNCTIONS:
            return UNKNOWN, False
        name = callee_name(function)
        if function.type == "member_expression" and prop not in _FOLDED_METHODS and name not in jsstrings.DECODERS:
            return UNKNOWN, False  # x.atob(...) of an object of the block's
        if name == "String.raw":
            if arguments.type == "template_string":
                parts = self._template(arguments, raw=True)
                return concat(*parts), True
            args = _args(arguments)
            raw = _raw_strings(args[0]) if args else None
            items = self.array(raw) if raw is not None else None
            if items is None or items.items is None:
                return Fold((None,), items.schemes if items is not None else frozenset()), True
            parts = []
            for index, item in enumerate(items.items):
                parts.append(item)
                if index + 1 < len(items.items) and index + 1 < len(args):
                    parts.append(self.fold(args[index + 1]))
            return concat(*parts), True
        if arguments.type != "arguments":
            return UNKNOWN, False  # another tag: its function decides
        args = _args(arguments)
        if name == "String" and len(args) == 1:
            return _through(self.fold(args[0]))
        if name in jsstrings.DECODERS:  # atob('d2ViZHJpdmVy'), String.fromCharCode(119, 101)
            values = self._values(args)
            decoded = jsstrings.decode(name, values) if values is not None else None
            return (_computed(decoded) if decoded is not None else UNKNOWN), True
        if function.type != "member_expression":
            return UNKNOWN, False
        method = text(function.child_by_field_name("property"))
        receiver = function.child_by_field_name("object")
        if method in ("call", "apply") and receiver is not None and args and (
                receiver.type == "member_expression" or callee_name(receiver) in jsstrings.DECODERS):
            # Array.prototype.join.call(a, '/'), ''.concat.call(s, x), [].join.apply(a, ['/'])
            inner = text(receiver.child_by_field_name("property")) if receiver.type == "member_expression" else ""
            given = args[1:]
            if method == "apply":
                if len(args) == 2 and args[1].type == "array" and _plain(args[1]):
                    given = list(args[1].named_children)
                elif len(args) > 1:
                    return UNKNOWN, False
            if inner in ("join", "concat"):
                return self._method(args[0], inner, given)
            if callee_name(receiver) in jsstrings.DECODERS:
                values = self._values(given)  # String.fromCharCode.apply(null, [119, 101]), atob.call(null, s)
                decoded = jsstrings.decode(callee_name(receiver), values) if values is not None else None
                return (_computed(decoded) if decoded is not None else UNKNOWN), True
            return UNKNOWN, False
        if receiver is None or any(a.type == "spread_element" for a in args):
            return UNKNOWN, False
        return self._method(receiver, method, args)

    def _method(self, receiver: Node, method: str, args: list[Node]) -> tuple[Fold, bool]:
        if method == "join" and len(args) <= 1:
            items = self.array(receiver)
            if items is None:
                return UNKNOWN, False
            separator = _COMMA if not args or args[0].type == "identifier" and text(args[0]) == "undefined" \
                else self.fold(args[0])
            self.work += len(items.items or ())
            return join(items, separator), True
        if method == "concat":
            items = self.array(receiver)
            if items is not None:  # an array's concat: an array (`.join` reads it); as text, its schemes
                whole = self.array_of_call(receiver, "concat", args)
                return Fold((None,), _all_schemes(whole) if whole is not None else frozenset()), False
            parts = [self.fold(receiver), *(self.fold(a) for a in args)]
            return concat(*parts), True
        if method in ("toString", "valueOf") and not args:
            return _through(self.fold(receiver))
        if method == "toString" and len(args) == 1:  # (694029).toString(36) is 'evil'
            number, radix = self.number(receiver), self.number(args[0])
            spelled = jsstrings.number_to_string(number, radix) if number is not None and radix is not None else None
            return (_computed(spelled) if spelled is not None else UNKNOWN), True
        if method in ("replace", "replaceAll") and len(args) == 2 and _every_character(args[0]):
            # 'fwjm'.replace(/./g, c => String.fromCharCode(c.charCodeAt(0) - 1)): the callback per character
            chars = self.fold(receiver).literal
            if chars is None or any(ord(c) > 0xFFFF or c in "\n\r\u2028\u2029" for c in chars) or len(chars) > MAX_ITEMS:
                return UNKNOWN, False  # unknown text, a character `.` skips, or one JavaScript counts twice
            mapped = self._mapped(list(chars), args[1], frozenset())
            return (join(mapped, EMPTY), True) if mapped is not None else (UNKNOWN, False)
        if method in jsstrings.TEXT_METHODS:  # 'WEBDRIVER'.toLowerCase(), 'x-evil.example'.slice(2)
            if method in ("slice", "at") and self.array(receiver) is not None:
                return UNKNOWN, False  # an array's: an array, or an element
            given = self.fold(receiver)
            values = self._values(args)
            if given.literal is not None and values is not None:
                changed = jsstrings.method(given.literal, method, values)
                return (_computed(changed, given.known) if changed is not None else UNKNOWN), True
            if method in jsstrings.CASE_METHODS and not (args and method.startswith("toLocale")):
                cased = [Fold((jsstrings.change_case(p, method),)) if p is not None else UNKNOWN for p in given.pieces]
                return concat(*cased)._replace(schemes=given.schemes, known=given.known), True
            return UNKNOWN, False
        if method in ("reduce", "reduceRight"):
            items = self.array(receiver)
            if items is not None:
                folded = self._reduced(receiver, method, args) if len(args) == 2 else None
                if folded is not None:
                    return _computed(folded), True
                schemes = _all_schemes(items)
                return Fold((None,), schemes), bool(schemes)
        return UNKNOWN, False

    def _reduced(self, receiver: Node, method: str, args: list[Node]) -> str | None:
        """``receiver.reduce((acc, c, i) => expr, initial)`` spelled out, when the elements' types are
        known (:meth:`_element_values`), the callback is one expression and the initial value a
        known string or number, and what it gives at the end is a string."""
        values = self._element_values(receiver)
        params, body = _callback(args[0], most=3)
        number = self.number(args[1])
        # a string or a number to start from: an array's text is not the array ([].reduce((a, c) => a.concat(c), []))
        acc: str | float | None = number if number is not None else self.literal(args[1]) if self.array(args[1]) is None else None
        if values is None or body is None or acc is None or len(params) < 2 or any(p in self._bound for p in params):
            return None
        order = list(enumerate(values))
        for index, element in reversed(order) if method == "reduceRight" else order:
            if element is None:
                return None
            value = self._apply(params, (acc, element, float(index)), body)
            acc = value if isinstance(value, float) else value.literal
            if acc is None or isinstance(acc, str) and len(acc) > MAX_TEXT or self.work > MAX_WORK:
                return None
        return acc if isinstance(acc, str) else None

    def _apply(self, params: list[str], args: tuple[str | float, ...], body: Node) -> float | Fold:
        """A callback's ``body`` with its ``params`` bound to ``args``: a number, or its fold (past
        :data:`MAX_WORK`, :attr:`exhausted` is set, and the caller stops)."""
        self._bound.update(zip(params, args))
        try:
            value = self.number(body)
            return value if value is not None else self.fold(body)
        finally:
            for p in params:
                self._bound.pop(p, None)
            if self.work > MAX_WORK:
                self.exhausted = True

    def _values(self, args: list[Node]) -> list[str | float] | None:
        """The arguments' values when each is a number or a string known in full (``...[119, 101]``
        spreads an array of them)."""
        out: list[str | float] = []
        for arg in args:
            if arg.type == "spread_element" and arg.named_child_count == 1 and arg.named_children[0].type == "array" \
                    and _plain(arg.named_children[0]):
                inner = self._values(list(arg.named_children[0].named_children))
                if inner is None:
                    return None
                out.extend(inner)
                continue
            number = self.number(arg)
            if number is not None:
                out.append(number)
                continue
            value = self.literal(arg)
            if value is None:
                return None
            out.append(value)
        return out

    def _text_decoder(self, decoder: Node | None, args: list[Node]) -> tuple[Fold, bool]:
        """``new TextDecoder().decode(bytes)`` (UTF-8, the default) of bytes known in full."""
        if decoder is None or decoder.type != "new_expression" or callee_name(decoder.child_by_field_name("constructor")) \
                != "TextDecoder" or len(args) != 1:
            return UNKNOWN, False
        given = decoder.child_by_field_name("arguments")
        label = _args(given) if given is not None else []
        if label and (len(label) > 1 or (self.literal(label[0]) or "").strip().lower() not in ("utf-8", "utf8", "unicode-1-1-utf-8")):
            return UNKNOWN, False
        values = self._byte_values(args[0])
        decoded = jsstrings.utf8_decode(values) if values is not None else None
        return (_computed(decoded) if decoded is not None else UNKNOWN), True

    def _byte_values(self, node: Node) -> list[float] | None:
        """The numbers of ``new Uint8Array([...])``, ``Uint8Array.of(...)``, ``Uint8Array.from([...])``
        (or a ``const`` bound to one)."""
        if node.type == "identifier" and text(node) in self.values:
            node = self.values[text(node)]
        if node.type == "new_expression" and callee_name(node.child_by_field_name("constructor")) == "Uint8Array":
            given = node.child_by_field_name("arguments")
            args = _args(given) if given is not None else []
            if len(args) == 1 and args[0].type == "array" and _plain(args[0]):
                return self._numbers(list(args[0].named_children))
        elif node.type == "call_expression" and (given := node.child_by_field_name("arguments")) is not None:
            args = _args(given)
            name = callee_name(node.child_by_field_name("function"))
            if name == "Uint8Array.of":
                return self._numbers(args)
            if name == "Uint8Array.from" and len(args) == 1 and args[0].type == "array" and _plain(args[0]):
                return self._numbers(list(args[0].named_children))
        return None

    def _numbers(self, nodes: list[Node]) -> list[float] | None:
        out = [self.number(n) for n in nodes]
        return None if any(v is None for v in out) else [v for v in out if v is not None]

    def number(self, node: Node) -> float | None:
        """A number's value: a literal (``0x77``, ``1_000``, ``-1``, ``(1)``), a ``const`` bound to one,
        arithmetic on numbers, ``charCodeAt``/``codePointAt`` of known text, a callback's parameter
        (memoised outside callbacks; a chain deeper than :data:`MAX_NAMES` is unknown)."""
        if self._bound:
            return self._number(node)
        key = node.id
        if key not in self._number_memo:
            if self._depth >= MAX_NAMES:
                self.exhausted = True
                return None
            self._depth += 1
            try:
                self._number_memo[key] = self._number(node)
            finally:
                self._depth -= 1
        return self._number_memo[key]

    def _number(self, node: Node) -> float | None:
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            return self.number(node.named_children[0])
        if node.type == "unary_expression" and text(node.child_by_field_name("operator")) == "-":
            argument = node.child_by_field_name("argument")
            inner = self.number(argument) if argument is not None else None
            return -inner if inner is not None else None
        if node.type == "identifier" and text(node) in self._bound:
            value = self._bound[text(node)]
            return value if isinstance(value, float) else None
        if node.type == "identifier" and text(node) in self.values and self.values[text(node)].type == "number":
            node = self.values[text(node)]
        if node.type == "binary_expression":
            op, left, right = (node.child_by_field_name(f) for f in ("operator", "left", "right"))
            if op is None or left is None or right is None or text(op) not in jsstrings.ARITHMETIC:
                return None
            a = self.number(left)
            b = self.number(right) if a is not None else None
            return jsstrings.arithmetic(text(op), a, b) if a is not None and b is not None else None
        if node.type == "call_expression":  # 'h'.charCodeAt(0), s.codePointAt(i)
            function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            if function is None or function.type != "member_expression" or arguments is None or arguments.type != "arguments":
                return None
            name = text(function.child_by_field_name("property"))
            if name not in ("charCodeAt", "codePointAt"):
                return None
            receiver = function.child_by_field_name("object")
            coded = self.literal(receiver) if receiver is not None else None
            args = self._values(_args(arguments)) if coded is not None else None
            return jsstrings.code_at(coded, name, args) if coded is not None and args is not None else None
        if node.type != "number":
            return None
        written = text(node).replace("_", "").lower()
        try:
            if written[:2] in ("0x", "0o", "0b"):
                return float(int(written, 0))
            if len(written) > 1 and written[0] == "0" and written.isdigit():  # sloppy mode's 017 is 15, 019 is 19
                return float(int(written, 8)) if set(written) <= set("01234567") else float(written)
            return float(written)
        except ValueError:
            return None  # a BigInt (1n): not followed

    # -- arrays -------------------------------------------------------------------------------
    def array(self, node: Node | None) -> Items | None:
        """The elements of ``node`` when it is an array this module follows, else ``None``."""
        if node is None:
            return None
        key = node.id
        if key in self._items and not self._bound:
            return self._items[key]
        if key in self._busy_items:
            return None
        if self.work > MAX_WORK:
            self.exhausted = True
            items: Items | None = None
        else:
            self._busy_items.add(key)
            try:
                items = self._array(node)
            finally:
                self._busy_items.discard(key)
            self.work += 1 + (len(items.items or ()) if items is not None else 0)
        if not self._bound:
            self._items[key] = items
        return items

    def _array(self, node: Node) -> Items | None:
        kind = node.type
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self.array(node.named_children[0])
        if kind == "array":
            return self._literal_array(node)
        if kind == "identifier":
            name = text(node)
            if name not in self.arrays:
                return None
            if name not in self._named_items:
                if self._names >= MAX_NAMES:
                    self.exhausted = True
                    return None
                self._named_items[name] = None  # while it is being followed (a name defined through itself)
                self._names += 1
                try:
                    self._named_items[name] = self._declared(name)
                finally:
                    self._names -= 1
            return self._named_items[name]
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if function is None or arguments is None or arguments.type != "arguments":
                return None
            args = _args(arguments)
            name = callee_name(function)
            if name == "Array.of":
                return self._elements(args)
            if name == "Array.from" and args:
                spread = self._spread(args[0])
                if len(args) == 1 or spread.items is None:
                    return spread
                values = self._element_values(args[0]) if len(args) == 2 else None
                mapped = self._mapped(values, args[1], _all_schemes(spread)) if values is not None else None
                return mapped if mapped is not None else Items(None, _all_schemes(spread))
            if function.type != "member_expression":
                return None
            receiver = function.child_by_field_name("object")
            if text(function.child_by_field_name("property")) == "call" and len(args) == 2 and _array_map(receiver):
                # Array.prototype.map.call('fwjm', c => ...): a string's characters mapped
                values = self._element_values(args[0])
                return self._mapped(values, args[1], frozenset()) if values is not None else None
            return self.array_of_call(receiver, text(function.child_by_field_name("property")), args)
        return None

    def array_of_call(self, receiver: Node | None, method: str, args: list[Node]) -> Items | None:
        """The array ``receiver.method(args)`` returns, when ``method`` returns one."""
        if receiver is None:
            return None
        if method == "split":
            whole = self.fold(receiver).literal
            separator = self.fold(args[0]).literal if args else None
            if whole is None or separator is None or len(args) > 1:
                return Items(None, _schemes_of(self.fold(receiver)))
            parts = list(whole) if separator == "" else whole.split(separator)
            rest = parts[MAX_ITEMS + 1:]
            return _capped([concat(Fold((p,))) for p in parts[:MAX_ITEMS + 1]], schemes_in(separator.join(rest)))
        items = self.array(receiver)
        if items is None:
            return None
        if method == "concat":
            if items.items is None:
                return Items(None, items.schemes.union(*(self._spread(a).schemes for a in args)))
            out = list(items.items)
            schemes = set(items.schemes)
            for arg in args:
                spliced = self.array(arg)
                if spliced is None:
                    out.append(self.fold(arg))
                elif spliced.items is None:
                    out.append(UNKNOWN)
                    schemes |= spliced.schemes
                else:
                    out.extend(spliced.items)
                    schemes |= spliced.schemes
            return _capped(out, frozenset(schemes))
        if method in ("reverse", "toReversed") and not args:
            return Items(tuple(reversed(items.items)), items.schemes) if items.items is not None else items
        if method == "map" and len(args) == 1 and items.items is not None:
            values = self._element_values(receiver)
            mapped = self._mapped(values, args[0], _all_schemes(items)) if values is not None else None
            if mapped is not None:
                return mapped
        if method == "slice" and not args:
            return items
        if method in _SHUFFLES:
            return Items(None, _all_schemes(items))
        return None

    def _mapped(self, values: list[str | float | None], callback: Node, schemes: frozenset[str]) -> Items | None:
        """What ``callback`` returns for each element (``values``, :meth:`_element_values`) when it is
        one expression of its element and index (``c => String.fromCharCode(c - 1)``,
        ``function (c, i) { return ... }``, or a ``const`` bound to one); ``None`` when it is not."""
        if callback.type == "identifier" and text(callback) in self.values:
            callback = self.values[text(callback)]
        params, body = _callback(callback)
        if body is None or any(p in self._bound for p in params):
            return None
        out: list[Fold] = []
        for index, element in enumerate(values):
            if element is None:
                out.append(UNKNOWN)
                continue
            value = self._apply(params, (element, float(index)), body)
            if isinstance(value, float):  # its text, where the fold spells it (a fraction: unknown)
                spelled = jsstrings.number_to_string(value, 10.0)
                value = Fold((spelled,)) if spelled is not None else UNKNOWN
            out.append(value)
            if self.work > MAX_WORK:
                return None
        return _capped(out, schemes)

    def _element_values(self, node: Node) -> list[str | float | None] | None:
        """The elements of ``node`` as a callback gets them, each a number or a string (``None``: one
        not known), where their types are known: a literal array's (or a ``const`` bound to one, not
        filled since), a string's characters (``'ab'``, ``[...'ab']``, ``'ab'.split('')``, any
        ``split``: strings); else ``None`` (``[1, 2].reverse()``: its elements are numbers a fold
        would spell as text)."""
        while node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        if node.type == "identifier" and text(node) in self.values:
            declared = self.values[text(node)]
            items = self.array(node)
            if declared.type != "array" or items is None or items.items is None \
                    or len(items.items) != len(declared.named_children):
                return None  # filled with push/unshift since, or not an array literal
            node = declared
        if node.type == "array":
            children = [c for c in node.named_children if c.type != "comment"]
            if len(children) == 1 and children[0].type == "spread_element" and children[0].named_child_count == 1:
                whole = self.literal(children[0].named_children[0])  # [...'abc']
                return list(whole) if whole is not None and len(whole) <= MAX_ITEMS and \
                    self.array(children[0].named_children[0]) is None else None
            if not _plain(node) or len(children) > MAX_ITEMS:
                return None
            out: list[str | float | None] = []
            for child in children:
                number = self.number(child)
                # an element that is an array is not its text to a callback ([[104]].map(c => c.length))
                out.append(number if number is not None else self.literal(child) if self.array(child) is None else None)
            return out
        if node.type == "call_expression":  # 'a,b'.split(','): strings
            function = node.child_by_field_name("function")
            if function is not None and function.type == "member_expression" and text(function.child_by_field_name("property")) == "split":
                items = self.array(node)
                return [item.literal for item in items.items] if items is not None and items.items is not None else None
            return None
        whole = self.literal(node)  # Array.from('abc', f)
        return list(whole) if whole is not None and len(whole) <= MAX_ITEMS else None

    def _spread(self, node: Node) -> Items:
        """The elements ``[...node]`` gives: an array's, or a known string's characters."""
        items = self.array(node)
        if items is not None:
            return items
        fold = self.fold(node)
        whole = fold.literal
        if whole is not None and len(whole) <= MAX_ITEMS:
            return Items(tuple(Fold((c,)) for c in whole))
        return Items(None, fold.schemes | _schemes_of(fold))

    def _elements(self, nodes: list[Node]) -> Items:
        out: list[Fold] = []
        schemes: set[str] = set()
        for node in nodes:
            if node.type == "spread_element":
                spread = self._spread(node.named_children[0]) if node.named_child_count else Items(None)
                schemes |= spread.schemes
                if spread.items is None:
                    out.append(UNKNOWN)  # a hole where its elements and their separators go
                else:
                    out.extend(spread.items)
            else:
                out.append(self._element(node))
        return _capped(out, frozenset(schemes))

    def _element(self, node: Node) -> Fold:
        """An element as ``join`` writes it (``undefined`` and ``null`` are empty)."""
        if node.type == "null" or node.type in ("identifier", "undefined") and text(node) == "undefined":
            return EMPTY
        return self.fold(node)

    def _literal_array(self, node: Node) -> Items:
        elements: list[Node | None] = []
        filled = False
        for child in node.children:
            if child.type == ",":
                if not filled:
                    elements.append(None)  # an elision: an empty element
                filled = False
            elif child.is_named and child.type != "comment":
                elements.append(child)
                filled = True
        present = [e for e in elements if e is not None]
        if len(present) == len(elements):
            return self._elements(present)
        out: list[Fold] = []
        schemes: set[str] = set()
        for element in elements:
            if element is None:
                out.append(EMPTY)
                continue
            one = self._elements([element])
            schemes |= one.schemes
            out.extend(one.items or (UNKNOWN,))
        return _capped(out, frozenset(schemes))

    def _declared(self, name: str) -> Items | None:
        """The elements of the array declared as ``name``: its initial elements, then its
        ``push``/``unshift`` statements in order when the order is certain (each is a statement
        of the declaration's own block, after it, and every other use of the array is a read
        after the last of them, outside any function declaration, which is hoisted); otherwise
        ``Items(None)`` with the schemes of everything put into it."""
        declarator = self.arrays[name]
        initial = self.array(declarator.child_by_field_name("value"))
        if initial is None:
            return None
        declaration = parent_of(declarator)
        block = parent_of(declaration) if declaration is not None else None
        own = declarator.child_by_field_name("name")
        refs = self._refs(name)
        self.work += len(refs)
        ordered = initial.items is not None and block is not None and declaration is not None
        mutations: list[tuple[int, str, list[Node]]] = []  # (where, push or unshift, arguments)
        reads: list[Node] = []
        put: list[Node] = []
        for ref in refs:
            if own is not None and ref.id == own.id:
                continue
            use, method, args, statement = _use(ref, self.functions)
            if use == "mutate":
                put.extend(args)
                if statement is None or block is None or declaration is None or parent_of(statement) != block \
                        or statement.start_byte < declaration.end_byte:
                    ordered = False
                else:
                    mutations.append((statement.start_byte, method, args))
            elif use == "read":
                reads.append(ref)
            else:
                ordered = False
        schemes = set(initial.schemes)
        for arg in put:
            spread = self._spread(arg.named_children[0]) if arg.type == "spread_element" and arg.named_child_count \
                else Items((self._element(arg),))
            schemes |= _all_schemes(spread)
        if ordered and mutations:
            last = max(start for start, _, _ in mutations)
            ordered = len(mutations) <= MAX_MUTATIONS and len(reads) <= MAX_REFERENCES and not any(
                ref.start_byte < last or not _same_tree(ref, declarator) or _in_hoisted(ref, block) for ref in reads)
        if not ordered:
            schemes |= _all_schemes(initial)
            return Items(None, frozenset(schemes))
        out = list(initial.items or ())
        loose = set(initial.schemes)
        for _, method, args in sorted(mutations, key=lambda m: m[0]):
            added = self._elements(args)
            if added.items is None or len(out) + len(added.items) > MAX_ITEMS:
                return Items(None, frozenset(schemes))
            loose |= added.schemes
            out = list(added.items) + out if method == "unshift" else out + list(added.items)
        return Items(tuple(out), frozenset(loose))

    def _refs(self, name: str) -> list[Node]:
        """The identifiers naming ``name`` in the scripts (its declaration's included)."""
        if self._references is None:
            wanted = set(self.values)
            found: dict[str, list[Node]] = {}
            for script in self._scripts:
                for node in script.nodes:
                    if node.type in ("identifier", "shorthand_property_identifier") and text(node) in wanted:
                        found.setdefault(text(node), []).append(node)
            self._references = found
        return self._references.get(name, [])


def continued(node: Node) -> bool:
    """Whether the string ``node`` is a piece of a longer one: an operand of ``+``, a template's
    substitution, an array's element, a ``concat``'s receiver or argument."""
    up = parent_of(node)
    while up is not None and up.type == "parenthesized_expression":
        node, up = up, parent_of(up)
    if up is None:
        return False
    if up.type == "binary_expression":
        return text(up.child_by_field_name("operator")) == "+"
    if up.type in ("template_substitution", "array", "spread_element"):
        return True
    if up.type == "member_expression" and up.child_by_field_name("object") == node:
        return text(up.child_by_field_name("property")) == "concat"
    if up.type == "arguments":
        call = parent_of(up)
        function = call.child_by_field_name("function") if call is not None else None
        return function is not None and function.type == "member_expression" \
            and text(function.child_by_field_name("property")) in ("concat", "push", "unshift")
    return False


def _through(fold: Fold) -> tuple[Fold, bool]:
    """The entry of an expression that is another's value as it is (``String(x)``, parentheses)."""
    return fold, False


def _named(fold: Fold, reported: bool) -> tuple[Fold, bool]:
    """The entry of a name: its value, whose hosts were named where it was declared (when
    ``reported``)."""
    if not reported:
        return fold, False
    return fold._replace(known=fold.known | {host for _, host in urls(fold) if host}), False


def _closed(value: str) -> Fold:
    """A literal's text: the hosts of the whole URLs in it are named by the literal itself."""
    fold = concat(Fold((value,)))
    if "//" not in value:
        return fold
    return fold._replace(known=frozenset(host for _, host in urls(Fold((value,))) if host))


def _computed(value: str, named: frozenset[str] = frozenset()) -> Fold:
    """Text a function computed (decoded, sliced): its hosts are named here, unless a literal
    already named them (``named``)."""
    fold = concat(Fold((value,)))
    return fold._replace(known=named & {host for _, host in urls(fold) if host}) if named else fold


def _array_map(node: Node | None) -> bool:
    """Whether ``node`` is ``Array.prototype.map`` or ``[].map``."""
    if node is None or node.type != "member_expression" or text(node.child_by_field_name("property")) != "map":
        return False
    owner = node.child_by_field_name("object")
    return callee_name(node) == "Array.prototype.map" or owner is not None and owner.type == "array" and not owner.named_child_count


def _every_character(node: Node) -> bool:
    """Whether ``node`` is a regular expression literal matching every character once, globally
    (``/./g``, ``/[\\s\\S]/g``, ``/[^]/gu``)."""
    if node.type != "regex":
        return False
    pattern, flags = node.child_by_field_name("pattern"), node.child_by_field_name("flags")
    return pattern is not None and text(pattern) in (".", "[\\s\\S]", "[\\S\\s]", "[^]") and flags is not None \
        and "g" in text(flags) and set(text(flags)) <= set("gimsu")


def _callback(node: Node, most: int = 2) -> tuple[list[str], Node | None]:
    """A callback's parameter names (at most ``most``: a map's element and index; a reduce's
    accumulator, element and index) and the one expression it returns: ``(c, i) => expr``,
    ``c => { return expr; }``, ``function (c) { return expr; }``."""
    if node.type not in ("arrow_function", "function_expression", "function") or any(c.type == "async" for c in node.children):
        return [], None  # an async callback returns promises
    single = node.child_by_field_name("parameter")
    if single is not None:
        params = [single]
    else:
        given = node.child_by_field_name("parameters")
        params = [c for c in given.named_children if c.type != "comment"] if given is not None else []
    if len(params) > most or any(p.type != "identifier" for p in params):
        return [], None
    body = node.child_by_field_name("body")
    if body is not None and body.type == "statement_block":
        statements = [c for c in body.named_children if c.type != "comment"]
        if len(statements) != 1 or statements[0].type != "return_statement" or statements[0].named_child_count != 1:
            return [], None
        body = statements[0].named_children[0]
    return [text(p) for p in params], body


def _args(arguments: Node) -> list[Node]:
    return [c for c in arguments.named_children if c.type != "comment"]


def _plain(array: Node) -> bool:
    """An array literal with no spread and no elision."""
    return not any(c.type == "spread_element" for c in array.named_children) and \
        sum(c.type == "," for c in array.children) < max(1, array.named_child_count)


def _raw_strings(node: Node) -> Node | None:
    """The ``raw`` array of ``String.raw({raw: [...]}, ...)``."""
    if node.type != "object":
        return None
    for pair in node.named_children:
        if pair.type == "pair":
            key = pair.child_by_field_name("key")
            if key is not None and (string_value(key) if key.type == "string" else text(key)) == "raw":
                return pair.child_by_field_name("value")
    return None


def _all_schemes(items: Items) -> frozenset[str]:
    """The schemes an array's text names anywhere."""
    return items.schemes.union(*(_schemes_of(i) for i in items.items or ()))


def _capped(out: list[Fold], schemes: frozenset[str]) -> Items:
    """At most :data:`MAX_ITEMS` elements: the first ones, then one unknown element standing for
    the rest (their schemes kept)."""
    if len(out) > MAX_ITEMS:
        rest = out[MAX_ITEMS - 1:]
        return Items((*out[:MAX_ITEMS - 1], UNKNOWN), schemes.union(*(i.schemes | _schemes_of(i) for i in rest)))
    return Items(tuple(out), schemes)


def _same_tree(one: Node, other: Node) -> bool:
    a, b = one, other
    while (up := parent_of(a)) is not None:
        a = up
    while (up := parent_of(b)) is not None:
        b = up
    return a.id == b.id


def _in_hoisted(node: Node, block: Node | None) -> bool:
    """Whether ``node`` sits in a function declaration inside ``block`` (hoisted: it may run
    before the statements written above it)."""
    current = parent_of(node)
    while current is not None and current != block:
        if current.type in _HOISTED:
            return True
        current = parent_of(current)
    return False


def _use(ref: Node, functions: set[str]) -> tuple[str, str, list[Node], Node | None]:
    """How a reference to an array uses it: ``("mutate", method, args, statement)`` for a
    ``push``/``unshift`` call (``statement``: the expression statement it is, else ``None``),
    ``"read"`` for a use that copies or reads it, ``"other"`` for anything else (it escapes, or
    changes in a way not followed)."""
    parent = parent_of(ref)
    if parent is None:
        return "other", "", [], None
    if parent.type == "member_expression" and parent.child_by_field_name("object") == ref:
        prop = text(parent.child_by_field_name("property"))
        up = parent_of(parent)
        if up is not None and up.type == "call_expression" and up.child_by_field_name("function") == parent:
            arguments = up.child_by_field_name("arguments")
            if prop in ("push", "unshift"):
                statement = parent_of(up)
                args = _args(arguments) if arguments is not None and arguments.type == "arguments" else []
                return "mutate", prop, args, statement if statement is not None and statement.type == "expression_statement" \
                    else None
            if prop not in _READS or any(_may_change(arg, prop, functions) for arg in (
                    _args(arguments) if arguments is not None and arguments.type == "arguments" else ())):
                return "other", "", [], None
            return "read", "", [], None
        if _written(parent):
            return "other", "", [], None
        return ("read" if prop == "length" else "other"), "", [], None
    if parent.type == "subscript_expression" and parent.child_by_field_name("object") == ref:
        return ("other" if _written(parent) else "read"), "", [], None
    if parent.type in ("spread_element", "template_substitution") \
            or parent.type == "for_in_statement" and parent.child_by_field_name("right") == ref:
        return "read", "", [], None
    if parent.type == "binary_expression" and text(parent.child_by_field_name("operator")) == "+":
        return "read", "", [], None
    if parent.type == "arguments":
        call = parent_of(parent)
        if call is not None and callee_name(call.child_by_field_name("function")) in ("Array.from", "String"):
            return "read", "", [], None
    return "other", "", [], None


def _may_change(callback: Node, method: str, functions: set[str]) -> bool:
    """Whether a callback handed to an array method may change the array: it is given the array
    as its third parameter (the fourth for ``reduce``); an arrow function that declares fewer,
    or a function of the platform, cannot reach it."""
    if callback.type == "identifier":
        return text(callback) in functions
    if callback.type in ("function_expression", "function", "generator_function"):
        return True  # `arguments` reaches every parameter
    if callback.type != "arrow_function":
        return False
    if callback.child_by_field_name("parameter") is not None:
        return False
    params = callback.child_by_field_name("parameters")
    named = params.named_children if params is not None else []
    return len(named) >= (4 if method in ("reduce", "reduceRight") else 3) or any(p.type == "rest_pattern" for p in named)


def _written(node: Node) -> bool:
    """Whether a member expression is assigned, updated or deleted."""
    parent = parent_of(node)
    if parent is None:
        return False
    if parent.type in ("assignment_expression", "augmented_assignment_expression"):
        return parent.child_by_field_name("left") == node
    return parent.type == "update_expression" or parent.type == "unary_expression" and text(parent).startswith("delete")
