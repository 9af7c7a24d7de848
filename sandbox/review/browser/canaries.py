"""Canary values: every projected leaf of the state, and every text the review types, becomes a
value that names its path (or the field typed into) and looks like real data.

A canary has the shape of the value it stands for (an email for an email, a name for words, digits
for digits; a number keeps its sign and its count of digits before and after the point, so an age of
41 stays a two-digit age and a total of 125.5 a three-digit total with one decimal) and changes every
run: no fixed marker, no range a block can tell from its real data's, and an email made of its
person's name is made of the canary name, so a block cannot tell the review's data from production
data by its look (a block that sends a total only when it is under
100,000 sends it in the review too). A number the user types is one to three digits, or one the field
finds valid for its ``min``, ``max`` and ``step``. Values come from a seed (:class:`Canaries` ``seed``): two reviews with
the same seed get the same values (the differential review's "same data" run, :mod:`.differential`);
``base`` names the seed whose values every value must differ from (the differential review's "other
data" run: a one-digit number could otherwise repeat), and ``vary`` gives a few labels the values of
another seed, differing from this one's (which input a leak follows). Booleans and null are kept (one
bit cannot name a path).

:meth:`Canaries.find` is the fast path: it looks for every canary in a request's text as sent,
percent-decoded (up to three times), and in every base64 (standard or URL-safe) and hex token of
those forms, decoded, case-insensitively. A number is recognised as a whole run of the digits before
its point, when there are :data:`FINDABLE_DIGITS` or more (fewer match too much else by chance). What
this misses (a short number, arithmetic, a value split or transformed) is the differential review's.
"""

from __future__ import annotations

import base64
import binascii
import decimal
import hashlib
import math
import random
import re
import secrets
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar
from urllib.parse import unquote_plus

from ...block.projection import project

# Data, not code: tokens of a URL or body that may hold an encoded canary.
_B64_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,2}")
_HEX_TOKEN = re.compile(r"(?:[0-9a-fA-F]{2}){8,}")
#: Digits before the point from which a number canary is found by its digits alone (:meth:`Canaries.find`).
FINDABLE_DIGITS = 6
_DIGITS = re.compile(rf"\d{{{FINDABLE_DIGITS},}}")
#: Digits a number canary keeps at most (JavaScript's numbers hold 15 exactly).
_MAX_DIGITS = 15
#: Draws a value that must differ from another seed's gets (a range of one value never can).
_TRIES = 64
#: Significant digits from which a number a bridge call hands the host, equal to a canary, is taken
#: as that canary (:meth:`Canaries.in_values`): a constant 3 in a payload is no state's by that.
NAMED_LEAF_DIGITS = 3

_FIRST = ("anna", "marta", "lukas", "sofia", "jonas", "elena", "david", "clara", "tomas", "nina", "oskar", "julia",
          "felix", "irene", "pavel", "laura", "simon", "hanna", "milan", "vera", "adrian", "greta", "karim", "lena")
_ONSET = ("b", "br", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "st", "t", "v", "w", "z", "ch", "gr")
_VOWEL = ("a", "e", "i", "o", "u", "ei", "au", "ia")
_CODA = ("", "n", "r", "l", "s", "rt", "nd", "m", "k", "th")
_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "proton.me", "icloud.com", "web.de", "mail.com")


def _rng(seed: str, label: str, n: int) -> random.Random:
    """The random draws of ``label``'s ``n``-th value under ``seed``."""
    return random.Random(hashlib.sha256(f"{seed}\0{label}\0{n}".encode()).digest())


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_ONSET) + rng.choice(_VOWEL) + rng.choice(_CODA) for _ in range(syllables))


def _name(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST).capitalize()} {_word(rng, 2).capitalize()}{_word(rng, 1)}"


def _like(original: Any, rng: random.Random) -> str:
    """A realistic string of ``original``'s kind (the state's own value, or "" when the state lacks it)."""
    text = original if isinstance(original, str) else ""
    if "@" in text:
        return f"{rng.choice(_FIRST)}.{_word(rng, 2)}{rng.randint(10, 99)}@{rng.choice(_DOMAINS)}"
    if text and len(text) >= 6 and re.fullmatch(r"[A-Za-z0-9_-]+", text) and any(c.isdigit() for c in text):
        # An identifier (an order number, a code): the same character classes, at least 8 long.
        out = []
        for c in text.ljust(8, text[-1]):
            out.append(rng.choice("0123456789") if c.isdigit() else
                       rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") if c.isupper() else
                       rng.choice("abcdefghijkmnopqrstuvwxyz") if c.islower() else c)
        return "".join(out)
    if text.replace(".", "", 1).isdigit() and len(text) >= 6:
        return "".join(rng.choice("123456789") if c.isdigit() else c for c in text)
    if " " in text.strip():
        return _name(rng)
    if text.isascii() and text.isalpha():
        # One word of letters (a city, a status, a plan): a word of letters in the same case.
        word = _word(rng, 3)
        return word.upper() if text.isupper() and len(text) > 1 else word.capitalize() if text[0].isupper() else word
    # Nothing known, or one word of other characters: a user name, URL-safe as most one-word values are.
    return f"{rng.choice(_FIRST)}{_word(rng, 2)}{rng.randint(10, 99)}"


def _written(x: float) -> tuple[str, str]:
    """The digits of ``x`` before and after its point as JSON writes it (no sign, no exponent, no
    leading zeros before the point, no trailing zeros after it: 0.50 -> ("", "5"), 120 -> ("120", ""))."""
    whole, _, fraction = format(decimal.Decimal(repr(x) if isinstance(x, float) else x), "f").lstrip("-").partition(".")
    return whole.lstrip("0"), fraction.rstrip("0")


def _number(original: Any, rng: random.Random) -> int | float:
    """A number of ``original``'s kind: its sign and its count of digits before and after the point
    (zero: one digit; a float with nothing after its point: an integer); without an original, one to
    three digits, as a user types a quantity."""
    if not isinstance(original, (int, float)) or isinstance(original, bool) or not math.isfinite(original):
        return rng.randint(1, 999)
    whole, fraction = _written(original)
    before = min(1 if not whole and not fraction else len(whole), _MAX_DIGITS)
    after = min(len(fraction), 6, _MAX_DIGITS - before)
    if before == 1 and original == 0:
        value: int | float = rng.randint(0, 9)
    else:
        value = rng.randint(10 ** (before - 1), 10 ** before - 1) if before else 0
    if after:
        value = round(value + (rng.randint(0, 10 ** (after - 1) - 1) * 10 + rng.randint(1, 9)) / 10 ** after, after)
    return -value if original < 0 else value


def _digits(n: int, rng: random.Random) -> str:
    return str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(n - 1))


def _card(n: int, rng: random.Random) -> str:
    """A card number of ``n`` digits whose last is its Luhn check digit (as every real card's is)."""
    body = [4] + [rng.randint(0, 9) for _ in range(n - 2)]
    total = sum(d if i % 2 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(reversed(body)))
    return "".join(map(str, body)) + str((10 - total % 10) % 10)


def _typed_text(kind: str, rng: random.Random, length: int | None = None) -> str:
    """What a user types into a text field of ``kind`` (its ``type``, or what its ``autocomplete`` and
    ``inputmode`` say it holds): one the field finds valid. ``length``: digits a field of digits
    holds (its ``maxlength``)."""
    if kind == "card":
        return _card(length if length and 13 <= length <= 19 else 16, rng)
    if kind == "digits":
        return _digits(length if length and 0 < length <= 19 else 6, rng)
    if kind == "email":
        return _like("@", rng)
    if kind == "url":
        return f"https://{_word(rng, 2)}.{rng.choice(('com', 'net', 'org', 'io', 'de'))}/{_word(rng, 1)}"
    if kind == "tel":
        return f"+{rng.randint(1, 49)} {rng.randint(20, 999)} {rng.randint(1000000, 9999999)}"
    return f"{_word(rng, 2)} {_word(rng, 2)}"  # words, as a name or a message is: no digits a block could tell


def _typed_number(low: float | None, high: float | None, step: float | None, rng: random.Random) -> str:
    """A number a user types into a field whose ``min``, ``max`` and ``step`` are ``low``, ``high`` and
    ``step`` (absent: None): one the field finds valid (``checkValidity()``), as a customer's is."""
    lo = low if low is not None and math.isfinite(low) else None
    hi = high if high is not None and math.isfinite(high) else None
    if lo is None and hi is None and not step:
        return str(rng.randint(1, 999))
    start = lo if lo is not None else min(1.0, hi) if hi is not None else 1.0
    if hi is None or hi < start:
        hi = start + 99  # no max: a little above the min (an age of 18 or more is 18 to 117)
    unit = step if step is not None and math.isfinite(step) and step > 0 else 1.0
    base = lo if lo is not None else 0.0  # the step counts from min (the standard's step base)
    first, last = math.ceil((start - base) / unit - 1e-9), math.floor((hi - base) / unit + 1e-9)
    if last < first:
        last = first
    value = base + rng.randint(first, min(last, first + 10 ** 9)) * unit
    places = max(_places(unit), _places(base))
    return f"{value:.{places}f}" if places else str(int(round(value)))


def _places(x: float) -> int:
    """Digits after the point in ``x`` as written (at most 6)."""
    return min(len(_written(float(x))[1]), 6)


_V = TypeVar("_V")


class Canaries:
    """The canaries of one block run: value -> the path (or input) it stands for.

    ``seed``: where the values come from (a fresh random seed by default); ``base``: a seed whose
    values none of these may equal; ``vary``: labels whose values come from ``alt_seed`` instead,
    differing from ``seed``'s (the differential review varies one input at a time)."""

    def __init__(self, seed: str | None = None, *, vary: frozenset[str] = frozenset(), alt_seed: str | None = None,
                 base: str | None = None) -> None:
        self.seed = seed or secrets.token_hex(8)
        self.vary = vary
        self.alt_seed = alt_seed or self.seed
        self.base = base
        self.strings: dict[str, str] = {}
        self.numbers: dict[str, str] = {}
        self.leaves: dict[str, str] = {}  # a number canary of NAMED_LEAF_DIGITS or more, as JSON -> label
        self.labels: list[str] = []  # every label given a value, in order (state leaves and typed fields)
        self._uses: dict[str, int] = {}

    def _draw(self, label: str, make: Callable[[random.Random], _V]) -> _V:
        """``make``'s value for ``label``'s next use, from this run's seed for it; never the value the
        seed it must differ from gives that use (while another value can be drawn)."""
        n = self._uses.get(label, 0)
        self._uses[label] = n + 1
        if label not in self.labels:
            self.labels.append(label)
        seed, other = (self.alt_seed, self.seed) if label in self.vary else (self.seed, self.base)
        ours = _rng(seed, label, n)
        value = make(ours)
        if other is not None and other != seed:
            theirs = make(_rng(other, label, n))
            for _ in range(_TRIES):
                if value != theirs:
                    break
                value = make(ours)
        return value

    def string(self, label: str, original: Any = "") -> str:
        def make(rng: random.Random) -> str:
            while True:
                value = _like(original, rng)
                if value not in self.strings and not any(value.lower() in v.lower() or v.lower() in value.lower() for v in self.strings):
                    return value

        value = self._draw(label, make)
        self.strings[value] = label
        return value

    def typed(self, label: str, kind: str = "text", low: float | None = None, high: float | None = None,
              step: float | None = None, length: int | None = None) -> str:
        """Text a user types into a field of kind ``kind``: words, an email, a URL, a telephone number, a
        number (valid for the field's ``min``, ``max`` and ``step``: ``low``, ``high`` and ``step``),
        digits (``length`` of them) or a card number (Luhn-valid)."""
        if kind == "number":
            number = self._draw(label, lambda rng: _typed_number(low, high, step, rng))
            self._register(float(number), label)
            return number

        def make(rng: random.Random) -> str:
            while True:
                value = _typed_text(kind, rng, length)
                if value not in self.strings:
                    return value

        value = self._draw(label, make)
        if value.isdigit() and len(value) < FINDABLE_DIGITS:
            return value  # too few digits to be told by them (a postal code): the differential review names it
        self.strings[value] = label
        return value

    def number(self, label: str, original: Any = None) -> int | float:
        """A number like ``original`` (see :func:`_number`); one long enough to be found by its digits
        is no other label's."""
        def make(rng: random.Random) -> int | float:
            for _ in range(_TRIES):
                value = _number(original, rng)
                if self._whole(value) not in self.numbers:
                    break
            return value

        value = self._draw(label, make)
        self._register(value, label, leaf=True)
        return value

    def findable(self, label: str) -> bool:
        """Whether :meth:`find` can name ``label`` (a number of fewer than :data:`FINDABLE_DIGITS` digits
        it cannot: the differential review's attribution runs must)."""
        return label in self.strings.values() or label in self.numbers.values()

    @staticmethod
    def _whole(value: int | float) -> str:
        return str(abs(int(value)))

    def _register(self, value: int | float, label: str, *, leaf: bool = False) -> None:
        """Make ``value`` findable as ``label``: by its digits when long enough; with ``leaf``, as a
        bridge payload's value when its shape has NAMED_LEAF_DIGITS digits (the shape is the
        original's, so whether it is named does not change from run to run)."""
        if len(self._whole(value)) >= FINDABLE_DIGITS:
            self.numbers.setdefault(self._whole(value), label)
        whole, fraction = _written(value)
        if leaf and len(whole) + len(fraction) >= NAMED_LEAF_DIGITS:
            self.leaves.setdefault(_leaf(value), label)

    def state(self, state: dict[str, Any], paths: list[str]) -> dict[str, Any]:
        """The block's projection of ``state`` over ``paths``, every leaf a canary; a path the state lacks gets a string."""
        projected = project(state or {}, paths)
        for path in paths:
            _ensure(projected, path.split("."))
        return self._related(projected, self._replace(projected, ""))

    def again(self, state: dict[str, Any]) -> dict[str, Any]:
        """The same shape with fresh canaries (the state update pushed after the user's actions)."""
        return self._related(state, self._replace(state, ""))

    def _related(self, original: Any, replaced: Any) -> Any:
        """``replaced`` with each email whose name part is made of the words of another string of the
        state (``anna.smith@…`` beside ``Anna Smith``) made of that string's canary words, in the same
        order and with the same separators (the domain stays the email's own draw): a block that
        sends an email only when it is its person's finds it so in the review too (an outsider's
        block, quiet before)."""
        leaves = list(_string_leaves(original, replaced))
        words: dict[str, str] = {}
        for before, container, key in leaves:
            drawn_value = container[key]
            label = self.strings.get(drawn_value)
            if label in self.vary:
                # A name varied on its own (an attribution run) leaves the email as the run without
                # it has it: a block that sends only the email must not be taken to send the name.
                drawn_value = _like(before, _rng(self.seed, label, self._uses.get(label, 1) - 1))
            mine, drawn = _WORD.findall(before), _WORD.findall(drawn_value)
            if "@" not in before and len(mine) == len(drawn):
                for a, b in zip(mine, drawn):
                    words.setdefault(a.lower(), b.lower())
        for before, container, key in leaves:
            local, at, _ = before.partition("@")
            canary = container[key]
            if not at or "@" not in canary or self.strings.get(canary) in self.vary or not words:
                continue  # (an email varied on its own keeps its own draw: it must differ from the run without)
            # The words inside the name part too (annasmith, smith_anna85), longest first; then a
            # letter standing alone as an initial (a.smith) when a word was found.
            found = re.compile("|".join(sorted(map(re.escape, (w for w in words if len(w) >= 3)), key=len, reverse=True)) or "(?!)",
                               re.IGNORECASE)
            local_new, n = found.subn(lambda m: words[m.group(0).lower()], local)
            if not n:
                continue
            initials = {w[0]: c[0] for w, c in words.items() if w and c}
            local_new = "".join(initials.get(t.lower(), t) if len(t) == 1 and t.isalpha() else t
                                for t in re.split(r"([._+-])", local_new))
            related = local_new + "@" + canary.partition("@")[2]
            if related in self.strings:
                continue
            label = self.strings.pop(canary)
            self.strings[related] = label
            container[key] = related
        return replaced

    def _replace(self, value: Any, path: str) -> Any:
        if isinstance(value, dict):
            return {k: self._replace(v, f"{path}.{k}" if path else k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._replace(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(value)]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, (int, float)):
            return self.number(path, value)
        # A canary of an earlier run (again()) is a string of this run's making: its label's shape.
        return self.string(path, value)

    def describe(self, text: str) -> str:
        """``text`` with each string canary shown as the path (or input) it stands for, in «»."""
        return _describe(self.strings, text)

    def find(self, *texts: str) -> dict[str, str]:
        """The labels whose canary appears in any of ``texts`` (after decoding): label -> how it was encoded."""
        return _find(self.strings, self.numbers, texts)

    def in_values(self, value: Any) -> dict[str, str]:
        """See :meth:`CanaryTable.in_values`."""
        return self.table().in_values(value)

    def table(self) -> CanaryTable:
        """The canaries given so far, frozen."""
        return CanaryTable(MappingProxyType(dict(self.strings)), MappingProxyType(dict(self.numbers)),
                           MappingProxyType(dict(self.leaves)))


@dataclass(frozen=True, slots=True)
class CanaryTable:
    """The canaries of one run, frozen: string value -> label, digits -> label (:meth:`Canaries.table`)."""

    strings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    numbers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    leaves: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        for name in ("strings", "numbers", "leaves"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(value)))

    def describe(self, text: str) -> str:
        """See :meth:`Canaries.describe`."""
        return _describe(self.strings, text)

    def find(self, *texts: str) -> dict[str, str]:
        """See :meth:`Canaries.find`."""
        return _find(self.strings, self.numbers, texts)

    def in_values(self, value: Any) -> dict[str, str]:
        """The labels whose number canary is a leaf of ``value`` (a bridge call's payload, as the host
        got it) exactly, as a number or as its text: a number too short for :meth:`find` to name in
        a request is named where the block hands it over as a value of its own."""
        found: dict[str, str] = {}
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, (int, float, str)) and not isinstance(item, bool):
                label = self.leaves.get(_leaf(item)) if not isinstance(item, str) else self.leaves.get(item.strip())
                if label is not None:
                    found.setdefault(label, "as a value")
        return found


def _leaf(value: int | float) -> str:
    """A number as JavaScript writes it (1.0 -> "1")."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else repr(value)


def _describe(strings: Mapping[str, str], text: str) -> str:
    for value, label in strings.items():
        if value in text:
            text = text.replace(value, f"«{label}»")
    return text


def _find(strings: Mapping[str, str], numbers: Mapping[str, str], texts: tuple[str, ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    lowered = [(v.lower(), label) for v, label in strings.items()]
    for text in texts:
        for how, form in decoded_forms(text):
            low = form.lower()
            for value, label in lowered:
                if value in low:
                    found.setdefault(label, how)
            for digits in _DIGITS.findall(form):
                number_label = numbers.get(digits)
                if number_label is not None:
                    found.setdefault(number_label, how)
    return found


_WORD = re.compile(r"[^\W\d_]+")  # data, not code: the words of a string value


def _string_leaves(original: Any, replaced: Any) -> Iterator[tuple[str, Any, Any]]:
    """(original string, the container of its canary, its key) for each string leaf both have."""
    if isinstance(original, dict) and isinstance(replaced, dict):
        for key, value in original.items():
            if isinstance(value, str) and isinstance(replaced.get(key), str):
                yield value, replaced, key
            elif key in replaced:
                yield from _string_leaves(value, replaced[key])
    elif isinstance(original, list) and isinstance(replaced, list):
        for i, value in enumerate(original[:len(replaced)]):
            if isinstance(value, str) and isinstance(replaced[i], str):
                yield value, replaced, i
            else:
                yield from _string_leaves(value, replaced[i])


def _ensure(node: dict[str, Any], segments: list[str]) -> None:
    """Create a missing path (as a placeholder string leaf, replaced later by a canary)."""
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if isinstance(node, list):
            if not segment.isdigit():
                return
            index = int(segment)
            while len(node) <= index:
                node.append("" if last else {})
            if not last and not isinstance(node[index], (dict, list)):
                return
            node = node[index]
            continue
        if not isinstance(node, dict):
            return
        if segment not in node:
            nxt = segments[i + 1] if not last else ""
            node[segment] = "" if last else ([] if nxt.isdigit() else {})
        elif not last and not isinstance(node[segment], (dict, list)):
            return
        node = node[segment]


def decoded_forms(text: str) -> list[tuple[str, str]]:
    """``text`` and what it decodes to: (how, form) pairs."""
    forms = [("as sent", text)]
    current = text
    for _ in range(3):
        nxt = unquote_plus(current)
        if nxt == current:
            break
        forms.append(("percent-encoded", nxt))
        current = nxt
    for _how, form in list(forms):
        for token in _B64_TOKEN.findall(form)[:200]:
            raw = token.rstrip("=")
            for alt in (None, b"-_"):
                try:
                    data = base64.b64decode(raw + "=" * (-len(raw) % 4), altchars=alt, validate=alt is None)
                except (binascii.Error, ValueError):
                    continue
                decoded = data.decode("utf-8", "ignore")
                if decoded:
                    forms.append(("base64", decoded))
                    forms.append(("base64", unquote_plus(decoded)))
        for token in _HEX_TOKEN.findall(form)[:200]:
            forms.append(("hex", bytes.fromhex(token).decode("utf-8", "ignore")))
    return forms


__all__ = ["FINDABLE_DIGITS", "NAMED_LEAF_DIGITS", "Canaries", "CanaryTable", "decoded_forms"]
