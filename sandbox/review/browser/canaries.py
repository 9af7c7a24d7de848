"""Canary values: every projected leaf of the state, and every text the review types, becomes a
value that names its path (or the field typed into) and looks like real data.

A canary has the shape of the value it stands for (an email for an email, a name for words, digits
for digits, a number of similar size for a number) and changes every run: no fixed marker, no fixed
range, so a block cannot tell the review's data from production data by its look. Values come from a
seed (:class:`Canaries` ``seed``): two reviews with the same seed get the same values (the
differential review's "same data" run, :mod:`.differential`), and ``vary`` gives a few labels the
values of another seed (which input a leak follows). Booleans and null are kept (one bit cannot name
a path).

:meth:`Canaries.find` is the fast path: it looks for every canary in a request's text as sent,
percent-decoded (up to three times), and in every base64 (standard or URL-safe) and hex token of
those forms, decoded, case-insensitively. A number is recognised as a whole run of its digits
(six or more). What this misses (arithmetic, a value split or transformed) is the differential
review's.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import random
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any
from urllib.parse import unquote_plus

from ...block.projection import project

# Data, not code: tokens of a URL or body that may hold an encoded canary.
_B64_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,2}")
_HEX_TOKEN = re.compile(r"(?:[0-9a-fA-F]{2}){8,}")
_DIGITS = re.compile(r"\d{6,}")

_FIRST = ("anna", "marta", "lukas", "sofia", "jonas", "elena", "david", "clara", "tomas", "nina", "oskar", "julia",
          "felix", "irene", "pavel", "laura", "simon", "hanna", "milan", "vera", "adrian", "greta", "karim", "lena")
_ONSET = ("b", "br", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "st", "t", "v", "w", "z", "ch", "gr")
_VOWEL = ("a", "e", "i", "o", "u", "ei", "au", "ia")
_CODA = ("", "n", "r", "l", "s", "rt", "nd", "m", "k", "th")
_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "proton.me", "icloud.com", "web.de", "mail.com")


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
    # One word (or nothing known): a user name, URL-safe as most one-word values are.
    return f"{rng.choice(_FIRST)}{_word(rng, 2)}{rng.randint(10, 99)}"


def _number(original: Any, rng: random.Random) -> int:
    """An integer of about the original's size: six to nine digits, at most two more than the original's
    (never one fixed range)."""
    size = len(str(abs(int(original)))) if isinstance(original, (int, float)) and not isinstance(original, bool) else 0
    low = max(6, min(size, 9))
    digits = rng.randint(low, min(9, low + 2))
    return rng.randint(10 ** (digits - 1) + 1, 10 ** digits - 1)


class Canaries:
    """The canaries of one block run: value -> the path (or input) it stands for.

    ``seed``: where the values come from (a fresh random seed by default); ``vary``: labels whose
    values come from ``alt_seed`` instead (the differential review varies one input at a time)."""

    def __init__(self, seed: str | None = None, *, vary: frozenset[str] = frozenset(), alt_seed: str | None = None) -> None:
        self.seed = seed or secrets.token_hex(8)
        self.vary = vary
        self.alt_seed = alt_seed or self.seed
        self.strings: dict[str, str] = {}
        self.numbers: dict[str, str] = {}
        self.labels: list[str] = []  # every label given a value, in order (state leaves and typed fields)
        self._uses: dict[str, int] = {}

    def _rng(self, label: str) -> random.Random:
        n = self._uses.get(label, 0)
        self._uses[label] = n + 1
        if label not in self.labels:
            self.labels.append(label)
        seed = self.alt_seed if label in self.vary else self.seed
        return random.Random(hashlib.sha256(f"{seed}\0{label}\0{n}".encode()).digest())

    def string(self, label: str, original: Any = "") -> str:
        rng = self._rng(label)
        while True:
            value = _like(original, rng)
            if value not in self.strings and not any(value.lower() in v.lower() or v.lower() in value.lower() for v in self.strings):
                self.strings[value] = label
                return value

    def typed(self, label: str, kind: str = "text") -> str:
        """Text a user types into a field: words, an email, a number."""
        if kind == "number":
            return str(self.number(label))
        rng = self._rng(label)
        while True:
            if kind == "email":
                value = _like("@", rng)
            else:
                value = f"{_word(rng, 2)} {_word(rng, 1)}{rng.randint(2, 99)}"
            if value not in self.strings:
                self.strings[value] = label
                return value

    def number(self, label: str, original: Any = None) -> int:
        rng = self._rng(label)
        while True:
            value = _number(original, rng)
            if str(value) not in self.numbers:
                self.numbers[str(value)] = label
                return value

    def state(self, state: dict[str, Any], paths: list[str]) -> dict[str, Any]:
        """The block's projection of ``state`` over ``paths``, every leaf a canary; a path the state lacks gets a string."""
        projected = project(state or {}, paths)
        for path in paths:
            _ensure(projected, path.split("."))
        return self._replace(projected, "")

    def again(self, state: dict[str, Any]) -> dict[str, Any]:
        """The same shape with fresh canaries (the state update pushed after the user's actions)."""
        return self._replace(state, "")

    def _replace(self, value: Any, path: str) -> Any:
        if isinstance(value, dict):
            return {k: self._replace(v, f"{path}.{k}" if path else k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._replace(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(value)]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            return self.number(path, value)
        if isinstance(value, float):
            rng = self._rng(path + "\0cents")
            return self.number(path, value) + rng.randint(1, 99) / 100
        # A canary of an earlier run (again()) is a string of this run's making: its label's shape.
        return self.string(path, value)

    def describe(self, text: str) -> str:
        """``text`` with each string canary shown as the path (or input) it stands for, in «»."""
        return _describe(self.strings, text)

    def find(self, *texts: str) -> dict[str, str]:
        """The labels whose canary appears in any of ``texts`` (after decoding): label -> how it was encoded."""
        return _find(self.strings, self.numbers, texts)

    def table(self) -> CanaryTable:
        """The canaries given so far, frozen."""
        return CanaryTable(MappingProxyType(dict(self.strings)), MappingProxyType(dict(self.numbers)))


@dataclass(frozen=True, slots=True)
class CanaryTable:
    """The canaries of one run, frozen: string value -> label, digits -> label (:meth:`Canaries.table`)."""

    strings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    numbers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        for name in ("strings", "numbers"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(value)))

    def describe(self, text: str) -> str:
        """See :meth:`Canaries.describe`."""
        return _describe(self.strings, text)

    def find(self, *texts: str) -> dict[str, str]:
        """See :meth:`Canaries.find`."""
        return _find(self.strings, self.numbers, texts)


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


__all__ = ["Canaries", "CanaryTable", "decoded_forms"]
