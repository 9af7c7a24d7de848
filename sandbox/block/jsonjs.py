"""JSON exactly as JavaScript's ``JSON.stringify`` writes it, and its script-safe form.

The JavaScript host module builds the same block document and must produce
the same bytes, so these rules are the contract (and ``fixtures/`` checks both):

* **Compact**: no whitespace; ``,`` and ``:`` only.
* **Values**: ``dict`` with ``str`` keys, ``list``, ``str``, ``int``, ``float``,
  ``bool``, ``None``. Anything else (tuples, sets, bytes, non-string keys,
  NaN, Infinity, cycles) is refused with :class:`JSONValueError` naming where
  (``state.customer.tags[3]: NaN is not JSON``).
* **Key order** is what a JavaScript object holds after ``JSON.parse``: keys
  that are array indexes (``"0"`` or ``[1-9][0-9]*`` below 2**32 - 1) first, in
  ascending numeric order, then the other keys in insertion order.
* **Strings**: ``"`` and ``\\`` are escaped with a backslash; ``\\b \\f \\n \\r \\t``
  as such; other characters below U+0020 as ``\\u00xx`` (lowercase hex);
  a lone surrogate as ``\\udxxx`` (lowercase hex; well-formed JSON.stringify,
  ES2019). A Python string holding a high surrogate followed by a low one is
  the astral character they encode in JavaScript and is written as that
  character. Everything else is written as itself.
* **Numbers** as JavaScript's ``Number.prototype.toString`` prints them
  (ECMA-262 Number::toString, radix 10): the shortest digits that round-trip,
  plain notation for decimal exponents -6 < n <= 21, else ``d.ddde+N`` /
  ``de-N``; ``-0`` is ``0``. So ``1.0`` -> ``1``, ``1e21`` -> ``1e+21``,
  ``1e-7`` -> ``1e-7``, ``0.000001`` -> ``0.000001``.
  A Python ``int`` must be a safe integer (``|n| <= 2**53 - 1``): JavaScript
  cannot hold a larger one exactly, so it is refused rather than rounded.
  ``bool`` is ``true``/``false`` (never a number).
* **Limits**: nesting deeper than :data:`MAX_DEPTH` containers is refused.

:func:`script_json` is :func:`stringify` followed by replacing ``<``, ``>``,
``&``, U+2028 and U+2029 with ``\\u003c``, ``\\u003e``, ``\\u0026``, ``\\u2028``,
``\\u2029``. These characters can only occur inside JSON strings, where the
escape means the same character, so the value is unchanged while no
``</script``, ``<!--`` or character reference can appear in a script element.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

from ..errors import UsageError

#: Deepest nesting of objects and arrays accepted (the top level is depth 1).
MAX_DEPTH = 64
#: Largest integer JavaScript holds exactly (Number.MAX_SAFE_INTEGER).
MAX_SAFE_INTEGER = 2**53 - 1

_ARRAY_INDEX = re.compile(r"(?:0|[1-9][0-9]*)\Z")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')
_SURROGATE_PAIR = re.compile(r"[\ud800-\udbff][\udc00-\udfff]")
_SCRIPT_UNSAFE = re.compile("[<>&\u2028\u2029]")
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


class JSONValueError(UsageError):
    """A value that is not JSON (or not JSON JavaScript can hold); the message says where."""


def where_key(where: str, key: str) -> str:
    """``where`` extended by an object key, written as JavaScript would (``a.b`` or ``a["x y"]``)."""
    return f"{where}.{key}" if _IDENTIFIER.match(key) else f"{where}[{stringify(key)}]"


def ordered_keys(obj: dict) -> list[str]:
    """The keys of ``obj`` in the order a JavaScript object holds them (array indexes first)."""
    indexes = [k for k in obj if _ARRAY_INDEX.match(k) and int(k) < 2**32 - 1]
    if not indexes:
        return list(obj)
    indexes.sort(key=int)
    return indexes + [k for k in obj if not (_ARRAY_INDEX.match(k) and int(k) < 2**32 - 1)]


def _escape_char(m: re.Match) -> str:
    ch = m.group()
    return _ESCAPES.get(ch) or f"\\u{ord(ch):04x}"


def quote(text: str) -> str:
    """A JSON string literal, as ``JSON.stringify(text)``."""
    if _SURROGATE_PAIR.search(text):  # two UTF-16 halves are one character in JavaScript
        text = _SURROGATE_PAIR.sub(lambda m: m.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le"), text)
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, text) + '"'


def number_text(value: int | float, where: str = "value") -> str:
    """A number as JavaScript prints it (``String(n)``), or :class:`JSONValueError`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise JSONValueError(
                f"{where}: the integer {value} is beyond JavaScript's safe range (at most 2**53 - 1 in size); "
                "send it as a string"
            )
        return str(value)
    if math.isnan(value):
        raise JSONValueError(f"{where}: NaN is not JSON")
    if math.isinf(value):
        raise JSONValueError(f"{where}: {'-' if value < 0 else ''}Infinity is not JSON")
    if value == 0:
        return "0"
    if value < 0:
        return "-" + number_text(-value, where)
    # repr() gives the shortest digits that round-trip, as ECMAScript asks for.
    _, digits, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)  # a finite number (NaN and the infinities were refused above)
    s = "".join(map(str, digits)).rstrip("0")
    exponent += len(digits) - len(s)
    k = len(s)
    n = exponent + k  # value = 0.s * 10**n
    if k <= n <= 21:
        return s + "0" * (n - k)
    if 0 < n <= 21:
        return s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + s
    e = n - 1
    mantissa = s if k == 1 else s[0] + "." + s[1:]
    return f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def stringify(value: Any, where: str = "value") -> str:
    """``JSON.stringify(value)`` with the rules of this module; ``where`` names the value in errors."""
    out: list[str] = []
    _write(value, where, out, 0, set())
    return "".join(out)


def script_json(value: Any, where: str = "value") -> str:
    """:func:`stringify`, then ``< > & U+2028 U+2029`` as ``\\u`` escapes: safe inside a script element."""
    return _SCRIPT_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", stringify(value, where))


def check_json(value: Any, where: str = "value") -> None:
    """Raise :class:`JSONValueError` unless ``value`` is JSON by the rules above."""
    stringify(value, where)


def _write(value: Any, where: str, out: list[str], depth: int, active: set[int]) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, str):
        out.append(quote(value))
    elif isinstance(value, (bool, int, float)):
        out.append(number_text(value, where))
    elif isinstance(value, (dict, list)):
        if depth >= MAX_DEPTH:
            raise JSONValueError(f"{where}: nested deeper than {MAX_DEPTH} objects and arrays")
        if id(value) in active:
            raise JSONValueError(f"{where}: the value contains itself (a cycle is not JSON)")
        active.add(id(value))
        if isinstance(value, list):
            out.append("[")
            for i, item in enumerate(value):
                if i:
                    out.append(",")
                _write(item, f"{where}[{i}]", out, depth + 1, active)
            out.append("]")
        else:
            for key in value:
                if not isinstance(key, str):
                    raise JSONValueError(f"{where}: key {key!r} is a {type(key).__name__}; JSON keys are strings")
            out.append("{")
            for i, key in enumerate(ordered_keys(value)):
                if i:
                    out.append(",")
                out.append(quote(key))
                out.append(":")
                _write(value[key], where_key(where, key), out, depth + 1, active)
            out.append("}")
        active.discard(id(value))
    else:
        raise JSONValueError(f"{where}: a {type(value).__name__} is not JSON (use objects, arrays, strings, numbers, booleans, null)")
