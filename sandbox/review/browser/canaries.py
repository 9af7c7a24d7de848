"""Canary values: every projected leaf of the state becomes a value that names its path.

Strings become ``fxq`` + 10 hex digits (lower case, URL-safe, so percent-encoding leaves
them intact); numbers become unique 9-digit integers (floats: the same plus ``.5``),
so a block that checks types still runs; booleans and null are kept (one bit
cannot name a path). :meth:`Canaries.find` looks for them in a request's text as sent,
percent-decoded (up to three times), and in every base64 (standard or URL-safe) and
hex token of those forms, decoded.

Limits (docs/REVIEW.md): a number is recognised only as a whole run of digits, so a
block that does arithmetic on it (``total * 100``) or formats it (``1,234``) hides it;
a string transformed beyond these encodings (reversed, hashed, one character per
request, encrypted) is not recognised either; booleans are never recognised.
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from typing import Any
from urllib.parse import unquote_plus

from ...projection import project

PREFIX = "fxq"

# Data, not code: tokens of a URL or body that may hold an encoded canary.
_B64_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,2}")
_HEX_TOKEN = re.compile(r"(?:[0-9a-fA-F]{2}){8,}")


class Canaries:
    """The canaries of one block run: value -> the path (or input) it stands for."""

    def __init__(self) -> None:
        self.strings: dict[str, str] = {}
        self.numbers: dict[str, str] = {}

    def string(self, label: str) -> str:
        value = PREFIX + secrets.token_hex(5)
        self.strings[value] = label
        return value

    def number(self, label: str) -> int:
        while True:
            value = 100_000_000 + secrets.randbelow(800_000_000)
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
            return self.number(path)
        if isinstance(value, float):
            return self.number(path) + 0.5
        return self.string(path)

    def describe(self, text: str) -> str:
        """``text`` with each string canary shown as the path (or input) it stands for, in «»."""
        for value, label in self.strings.items():
            if value in text:
                text = text.replace(value, f"«{label}»")
        return text

    def find(self, *texts: str) -> dict[str, str]:
        """The labels whose canary appears in any of ``texts`` (after decoding): label -> how it was encoded."""
        found: dict[str, str] = {}
        for text in texts:
            for how, form in decoded_forms(text):
                low = form.lower()
                if PREFIX in low:
                    for value, label in self.strings.items():
                        if value in low:
                            found.setdefault(label, how)
                for digits in re.findall(r"\d{9}(?:\.5)?", form):
                    number_label = self.numbers.get(digits.split(".")[0])
                    if number_label is not None and _whole_number(form, digits):
                        found.setdefault(number_label, how)
        return found


def _whole_number(form: str, digits: str) -> bool:
    start = form.find(digits)
    while start != -1:
        before = form[start - 1] if start else ""
        after = form[start + len(digits)] if start + len(digits) < len(form) else ""
        if not before.isdigit() and not after.isdigit():
            return True
        start = form.find(digits, start + 1)
    return False


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


__all__ = ["Canaries", "decoded_forms", "PREFIX"]
