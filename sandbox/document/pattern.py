"""The ``pattern`` of a text input: one dialect in the browser and on the server, linear time.

A browser checks ``<input pattern=P>`` as ``new RegExp("^(?:" + P + ")$", "v")`` on the whole
value (HTML: the pattern attribute), and ignores a pattern that does not compile. The server
checks the same value when the ui-action arrives. So a pattern is written in a **subset of
ECMAScript's v-mode syntax** that this module parses (save time: every refusal located at its
column), and the server runs it with RE2 (``google-re2``: linear in the input, no backtracking)
after a translation in which every construct means exactly what it means in ECMAScript:

* literals (any character but ``^$\\.*+?()[]{}|``), ``.`` (any character but the line
  terminators ``\\n \\r \\u2028 \\u2029``), ``^``, ``$``, ``\\b``, ``\\B`` (ASCII word boundary);
* groups ``( )`` and ``(?: )``, alternatives ``|``;
* quantifiers ``* + ? {n} {n,} {n,m}``, lazy or not (a whole-value match does not care),
  bounds at most 1000, and nested counted repetition multiplying to at most 1000;
* escapes ``\\d \\D \\w \\W \\s \\S`` (ASCII ``\\d``/``\\w``; ``\\s`` is ECMAScript's white space and
  line terminators), ``\\p{X}``/``\\P{X}`` with X a general category (``L Lu Ll Lt Lm Lo M Mn Mc Me
  N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp Cc Cf Co``), ``\\t \\n \\r \\f \\v \\0``,
  ``\\xHH``, ``\\uHHHH`` and ``\\u{H…}`` (not a surrogate), and a syntax character or ``/`` escaped;
* classes ``[…]`` and ``[^…]`` of characters, ranges and the escapes above, v-mode spelled:
  ``( ) [ ] { } / - \\ |`` escaped inside a class and no doubled punctuator (``&&``, ``--``, ``!!``…).

Refused: what the browser refuses (Python's ``(?P<x>…)``, ``(?i)``, a lone ``{``, ``\\-`` outside a
class…), what cannot run in linear time or is rare (backreferences, lookaround, named groups,
nested classes and set operations, ``\\q{}``, properties of strings, ``\\c``, unpaired
surrogates), and a pattern past RE2's program bound (8 MB: ``\\p{L}{1000}``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import re2

from ..errors import UsageError

#: Largest ``{n,m}`` bound, and largest product of nested counted repetitions (RE2's limit).
MAX_REPEAT = 1000
#: Deepest nesting of groups.
MAX_GROUP_DEPTH = 50

SYNTAX = frozenset("^$\\.*+?()[]{}|")
#: General categories both ECMAScript and RE2 know, with the same meaning.
CATEGORIES = frozenset(
    "L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp Cc Cf Co".split()
)
#: ECMAScript's ``\\s``: WhiteSpace and LineTerminator.
SPACE = ((0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
         (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF))
DIGIT = ((0x30, 0x39),)
WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
LINE_TERMINATORS = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
CONTROL = {"t": 0x09, "n": 0x0A, "r": 0x0D, "f": 0x0C, "v": 0x0B}
#: v-mode: these must be escaped inside a class.
CLASS_SYNTAX = frozenset("()[]{}/-\\|")
#: v-mode: these may not appear twice in a row inside a class (reserved for set operations)...
DOUBLE_PUNCTUATORS = frozenset("&!#$%*+,.:;<=>?@^`~")
#: ...and may be escaped there.
CLASS_PUNCTUATOR_ESCAPES = frozenset("&-!#%,:;<=>@`~")
MAX_CODE_POINT = 0x10FFFF


class PatternError(UsageError):
    """A pattern outside the subset; ``offset`` is where in the pattern (0-based)."""

    def __init__(self, offset: int, reason: str):
        self.offset = offset
        self.reason = reason
        super().__init__(f"column {offset + 1}: {reason}")


def _ranges_escape(ranges) -> str:
    return "".join(f"\\x{{{lo:X}}}" if lo == hi else f"\\x{{{lo:X}}}-\\x{{{hi:X}}}" for lo, hi in ranges)


def _complement(ranges) -> tuple[tuple[int, int], ...]:
    out, start = [], 0
    for lo, hi in sorted(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = max(start, hi + 1)
    if start <= MAX_CODE_POINT:
        out.append((start, MAX_CODE_POINT))
    return tuple(out)


@dataclass
class _Parser:
    text: str
    pos: int = 0
    depth: int = 0

    # -- helpers
    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.text[i] if i < len(self.text) else ""

    def fail(self, reason: str, at: int | None = None) -> PatternError:
        return PatternError(self.pos if at is None else at, reason)

    # -- each returns (RE2 text, the product of the counted repetitions nested in it)
    def disjunction(self) -> tuple[str, int]:
        parts = [self.alternative()]
        while self.peek() == "|":
            self.pos += 1
            parts.append(self.alternative())
        return "|".join(p for p, _ in parts), max(w for _, w in parts)

    def alternative(self) -> tuple[str, int]:
        out, weight = [], 1
        while self.pos < len(self.text) and self.peek() not in "|)":
            text, w = self.term()
            out.append(text)
            weight = max(weight, w)
        return "".join(out), weight

    def term(self) -> tuple[str, int]:
        c = self.peek()
        if c in ("^", "$"):
            self.pos += 1
            self.no_quantifier("an anchor")
            return c, 1  # RE2 without multi_line: the start and the end of the text, as in ECMAScript
        if c == "\\" and self.peek(1) in ("b", "B"):
            self.pos += 2
            self.no_quantifier("a word boundary")
            return "\\" + self.text[self.pos - 1], 1
        atom, weight = self.atom()
        c = self.peek()
        if not (c in ("*", "+", "?") or c == "{" and self.counted_at(self.pos)):
            return atom, weight
        at = self.pos
        quantifier, count = self.quantifier()
        weight *= max(count, 1)
        if weight > MAX_REPEAT:
            raise PatternError(at, f"nested repetition counts multiply to more than {MAX_REPEAT}")
        self.no_quantifier("a quantifier")
        return f"(?:{atom}){quantifier}", weight

    def no_quantifier(self, what: str) -> None:
        if self.peek() in ("*", "+", "?") or self.peek() == "{" and self.counted_at(self.pos):
            raise self.fail(f"nothing to repeat: {what} cannot take a quantifier")

    # -- quantifiers
    def counted_at(self, i: int) -> tuple[int, int | None, int] | None:
        """``{n}``, ``{n,}`` or ``{n,m}`` at ``i``: (n, m, end) or None."""
        text = self.text
        if i >= len(text) or text[i] != "{":
            return None
        j = i + 1
        k = j
        while k < len(text) and text[k].isascii() and text[k].isdigit():
            k += 1
        if k == j:
            return None
        low = int(text[j:k])
        high: int | None = low
        if k < len(text) and text[k] == ",":
            m = k + 1
            while m < len(text) and text[m].isascii() and text[m].isdigit():
                m += 1
            high = int(text[k + 1:m]) if m > k + 1 else None
            k = m
        if k < len(text) and text[k] == "}":
            return low, high, k + 1
        return None

    def quantifier(self) -> tuple[str, int]:
        c = self.peek()
        at = self.pos
        count = 1
        if c in ("*", "+", "?"):
            self.pos += 1
            text = c
        else:
            counted = self.counted_at(self.pos)
            assert counted is not None
            low, high, end = counted
            if high is not None and high < low:
                raise self.fail(f"numbers out of order in {{{low},{high}}}", at)
            if low > MAX_REPEAT or (high or 0) > MAX_REPEAT:
                raise self.fail(f"a repetition bound above {MAX_REPEAT}", at)
            self.pos = end
            count = max(low, high or 0)
            text = f"{{{low}}}" if high == low else f"{{{low},}}" if high is None else f"{{{low},{high}}}"
        if self.peek() == "?":
            self.pos += 1  # lazy: the same set of whole-value matches
        return text, count

    # -- atoms
    def atom(self) -> tuple[str, int]:
        c = self.peek()
        at = self.pos
        if c == "":
            raise self.fail("the pattern ends early")
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class(), 1
        if c == ".":
            self.pos += 1
            return "[" + _ranges_escape(_complement(LINE_TERMINATORS)) + "]", 1
        if c == "\\":
            return self.atom_escape(), 1
        if c in ("*", "+", "?"):
            raise self.fail("nothing to repeat")
        if c == "{":
            if self.counted_at(at):
                raise self.fail("nothing to repeat")
            raise self.fail("a lone '{': write \\{")
        if c in ("}", "]"):
            raise self.fail(f"a lone {c!r}: write \\{c}")
        if c == ")":
            raise self.fail("unmatched ')'")
        if 0xD800 <= ord(c) <= 0xDFFF:
            raise self.fail("an unpaired surrogate is not in the pattern subset")
        self.pos += 1
        return _ranges_escape([(ord(c), ord(c))]), 1

    def group(self) -> tuple[str, int]:
        open_at = self.pos
        self.pos += 1
        if self.peek() == "?":
            if self.peek(1) == ":":
                self.pos += 2
            elif self.peek(1) in ("=", "!") or self.text.startswith("<=", self.pos + 1) or self.text.startswith("<!", self.pos + 1):
                raise self.fail("lookaround is not in the pattern subset (it cannot be matched in linear time)")
            elif self.peek(1) == "<":
                raise self.fail("named groups are not in the pattern subset: use ( ) or (?: )")
            elif self.peek(1) == "P":
                raise self.fail("(?P…) is Python's syntax, not ECMAScript's: use ( ) or (?: )")
            else:
                raise self.fail("inline flags and modifiers are not in the pattern subset (the browser compiles the pattern with the v flag only)")
        self.depth += 1
        if self.depth > MAX_GROUP_DEPTH:
            raise self.fail(f"groups nested more than {MAX_GROUP_DEPTH} deep")
        inner, weight = self.disjunction()
        self.depth -= 1
        if self.peek() != ")":
            raise self.fail("unterminated group: '(' has no ')'", open_at)
        self.pos += 1
        return f"(?:{inner})", weight

    def atom_escape(self) -> str:
        at = self.pos
        c = self.peek(1)
        if c == "":
            raise self.fail("a '\\' at the end of the pattern")
        if c in "dDwWsS":
            self.pos += 2
            ranges = {"d": DIGIT, "w": WORD, "s": SPACE}[c.lower()]
            return "[" + _ranges_escape(ranges if c.islower() else _complement(ranges)) + "]"
        if c in "pP":
            return self.property()
        if c.isdigit() and c != "0" or c == "k":
            raise self.fail("backreferences are not in the pattern subset (they cannot be matched in linear time)")
        code = self.character_escape(in_class=False)
        if code is None:
            raise self.fail(f"'\\{c}' is not an escape of ECMAScript's v mode", at)
        return _ranges_escape([(code, code)])

    def property(self) -> str:
        at = self.pos
        negated = self.peek(1) == "P"
        end = self.text.find("}", self.pos)
        if self.peek(2) != "{" or end < 0:
            raise self.fail("\\p needs a {property}", at)
        name = self.text[self.pos + 3:end]
        if name not in CATEGORIES:
            raise self.fail(f"\\p{{{name}}} is not in the pattern subset (general categories: {' '.join(sorted(CATEGORIES))})", at)
        self.pos = end + 1
        return f"\\{'P' if negated else 'p'}{{{name}}}"

    def character_escape(self, *, in_class: bool) -> int | None:
        """The code point of the escape at ``pos`` (moving past it), or None when it is not one."""
        at = self.pos
        c = self.peek(1)
        if c in CONTROL:
            self.pos += 2
            return CONTROL[c]
        if c == "0":
            if self.peek(2).isdigit():
                raise self.fail("'\\0' followed by a digit is not an escape of ECMAScript's v mode", at)
            self.pos += 2
            return 0
        if c == "x":
            digits = self.text[self.pos + 2:self.pos + 4]
            if len(digits) == 2 and all(d in "0123456789abcdefABCDEF" for d in digits):
                self.pos += 4
                return int(digits, 16)
            raise self.fail("\\x needs two hex digits", at)
        if c == "u":
            if self.peek(2) == "{":
                end = self.text.find("}", self.pos)
                digits = self.text[self.pos + 3:end] if end > 0 else ""
                if digits and all(d in "0123456789abcdefABCDEF" for d in digits) and int(digits, 16) <= MAX_CODE_POINT:
                    code = int(digits, 16)
                    self.pos = end + 1
                else:
                    raise self.fail("\\u{…} needs a code point in hex, at most 10FFFF", at)
            else:
                digits = self.text[self.pos + 2:self.pos + 6]
                if len(digits) == 4 and all(d in "0123456789abcdefABCDEF" for d in digits):
                    code = int(digits, 16)
                    self.pos += 6
                else:
                    raise self.fail("\\u needs four hex digits or {code point}", at)
            if 0xD800 <= code <= 0xDFFF:
                raise self.fail("a surrogate escape is not in the pattern subset: write the character or \\u{…}", at)
            return code
        if c in SYNTAX or c == "/":
            self.pos += 2
            return ord(c)
        if in_class and c in CLASS_PUNCTUATOR_ESCAPES:
            self.pos += 2
            return ord(c)
        if in_class and c == "b":
            self.pos += 2
            return 0x08
        if c == "c":
            raise self.fail("\\c control escapes are not in the pattern subset: write \\xHH", at)
        return None

    # -- classes (v mode, unions of characters, ranges and escapes only)
    def char_class(self) -> str:
        open_at = self.pos
        self.pos += 1
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        items: list[str] = []
        while True:
            c = self.peek()
            if c == "":
                raise self.fail("unterminated class: '[' has no ']'", open_at)
            if c == "]":
                self.pos += 1
                break
            if c == "[":
                raise self.fail("nested classes are not in the pattern subset")
            low_at = self.pos
            single = self.class_atom(items)
            if single is None:
                continue
            if self.peek() == "-":
                if self.peek(1) == "-":
                    raise self.fail("class subtraction (--) is not in the pattern subset")
                self.pos += 1
                high_at = self.pos
                if self.peek() == "]" or self.peek() == "":
                    raise self.fail("a '-' at the end of a class: write \\-", high_at - 1)
                high = self.class_atom(None)
                if high is None:
                    raise self.fail("a range needs a character at both ends", high_at)
                if high < single:
                    raise self.fail("range out of order in class", low_at)
                items.append(_ranges_escape([(single, high)]))
            else:
                items.append(_ranges_escape([(single, single)]))
        if not items:
            raise self.fail("an empty class is not in the pattern subset", open_at)
        return "[" + ("^" if negated else "") + "".join(items) + "]"

    def class_atom(self, items: list[str] | None) -> int | None:
        """One character of a class (its code point), or a class escape appended to ``items``
        (None); ``items`` None: only a character is allowed (a range's end)."""
        c = self.peek()
        at = self.pos
        if c == "\\":
            e = self.peek(1)
            if e in "dDwWsS" and e != "":
                if items is None:
                    raise self.fail("a range needs a character at both ends", at)
                self.pos += 2
                ranges = {"d": DIGIT, "w": WORD, "s": SPACE}[e.lower()]
                items.append(_ranges_escape(ranges if e.islower() else _complement(ranges)))
                return None
            if e in ("p", "P"):
                if items is None:
                    raise self.fail("a range needs a character at both ends", at)
                items.append(self.property())
                return None
            if e == "q":
                raise self.fail("\\q{…} strings are not in the pattern subset", at)
            if e.isdigit() and e != "0" or e == "k":
                raise self.fail(f"'\\{e}' is not an escape of ECMAScript's v mode inside a class", at)
            code = self.character_escape(in_class=True)
            if code is None:
                raise self.fail(f"'\\{e}' is not an escape of ECMAScript's v mode", at)
            return code
        if c in CLASS_SYNTAX:
            if c == "-":
                if self.peek(1) == "-":
                    raise self.fail("class subtraction (--) is not in the pattern subset", at)
                raise self.fail("a '-' that is not a range: write \\-", at)
            raise self.fail(f"{c!r} inside a class must be escaped in the v mode: write \\{c}", at)
        if 0xD800 <= ord(c) <= 0xDFFF:
            raise self.fail("an unpaired surrogate is not in the pattern subset", at)
        if c in DOUBLE_PUNCTUATORS and self.peek(1) == c:
            if c == "&":
                raise self.fail("class intersection (&&) is not in the pattern subset", at)
            raise self.fail(f"{c + c!r} inside a class is reserved in the v mode: escape one of them", at)
        self.pos += 1
        return ord(c)


@dataclass(frozen=True)
class Pattern:
    """A checked pattern: ``fullmatch(value)`` is the browser's verdict, in linear time."""

    source: str
    translated: str
    _regex: object

    def fullmatch(self, value: str) -> bool:
        return self._regex.fullmatch(value) is not None  # type: ignore[attr-defined]


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False
    options.never_capture = True
    return options


def compile_pattern(source: str) -> Pattern:
    """Parse ``source`` as the subset and compile it for the server (:class:`PatternError`)."""
    compiled = _compiled(source)
    if isinstance(compiled, PatternError):
        raise PatternError(compiled.offset, compiled.reason)  # a fresh one: a kept one would pile up tracebacks
    return compiled


def pattern_problem(source: str) -> PatternError | None:
    """Why ``source`` is not a pattern of the subset, or None."""
    compiled = _compiled(source)
    return compiled if isinstance(compiled, PatternError) else None


@functools.lru_cache(maxsize=512)
def _compiled(source: str) -> Pattern | PatternError:
    """The compiled pattern or why not; both kept, as a refusal past RE2's bound costs ~0.5 s."""
    parser = _Parser(source)
    try:
        translated, _ = parser.disjunction()
        if parser.pos < len(source):  # only a ')' stops a top-level disjunction early
            raise PatternError(parser.pos, "unmatched ')'")
    except PatternError as exc:
        return exc
    try:
        regex = re2.compile(translated, _options())
    except re2.error as exc:  # RE2's program is bounded (8 MB): \p{L}{1000} is past it
        why = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        return PatternError(0, f"too large for the server's linear-time matcher ({why}); "
                               "use + or * and let max_length bound the length")
    return Pattern(source, translated, regex)


#: RE2 instructions all of one document's distinct patterns may compile to together. Compiling
#: costs about 1 µs an instruction (``\\p{L}{350}``: 418,604, 0.4 s): without a shared bound,
#: twenty such patterns took 7 s to check. Real patterns take tens to thousands.
MAX_PROGRAM_TOTAL = 1_500_000


class PatternBudget:
    """The patterns of one document, checked against :data:`MAX_PROGRAM_TOTAL` together: once
    their programs pass it, a further distinct pattern is refused without being compiled."""

    def __init__(self) -> None:
        self.total = 0
        self.seen: set[str] = set()

    def problem(self, source: str) -> PatternError | None:
        """Why ``source`` is not a pattern of the subset, or past the document's budget, or None."""
        if source in self.seen:
            return None
        if self.total > MAX_PROGRAM_TOTAL:
            return PatternError(0, f"the document's patterns together compile to more than {MAX_PROGRAM_TOTAL:,} "
                                   "instructions of the server's matcher; use fewer or smaller counted repetitions")
        compiled = _compiled(source)
        if isinstance(compiled, PatternError):
            return compiled
        self.seen.add(source)
        self.total += compiled._regex.programsize  # type: ignore[attr-defined]
        return None


def lone_surrogate(value: str) -> bool:
    """Whether ``value`` holds a surrogate code point (JSON's unpaired ``\\ud800``)."""
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in value)


def surrogate_at(value: Any) -> tuple[str, str] | None:
    """Where the first string or key holding an unpaired surrogate is in the JSON ``value``
    (``a.b[0]``; a key: the object holding it) and which of the two, or None. Such text has no
    UTF-8, so the server could pass it to no one."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, where = stack.pop()
        kind = type(node)
        if kind is str:
            if lone_surrogate(node):
                return where, "string"
        elif kind is dict:
            for key in node:
                if lone_surrogate(key):
                    return where, "key"
            stack.extend((item, f"{where}.{key}" if where else key) for key, item in reversed(node.items()))
        elif kind is list:
            stack.extend((item, f"{where}[{i}]") for i, item in reversed(list(enumerate(node))))
    return None


def utf16_length(value: str) -> int:
    """The length as the browser counts it (``value.length``: UTF-16 code units)."""
    return len(value) + sum(1 for ch in value if ord(ch) > 0xFFFF)


__all__ = ["compile_pattern", "pattern_problem", "Pattern", "PatternBudget", "PatternError", "utf16_length", "lone_surrogate", "surrogate_at",
           "MAX_REPEAT", "CATEGORIES"]
