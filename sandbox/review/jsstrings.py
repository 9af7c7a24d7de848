"""What JavaScript's string functions give for text known in full, as the browser computes it.

:mod:`.pieces` folds a string built from pieces; a piece may also be decoded or changed by a
function: ``atob('d2ViZHJpdmVy')``, ``String.fromCharCode(119, 101, 98)``,
``'WEBDRIVER'.toLowerCase()``, ``'x-evil.example'.slice(2)``. Each function here returns the
value JavaScript returns, or ``None`` where it would throw or where this module does not follow
it exactly (a replacement pattern with ``$``, an index into text with characters outside the
BMP, which JavaScript counts twice): the piece is then unknown, never wrong. The tests check
each against node (``tests/test_review_jsstrings.py``).
"""

from __future__ import annotations

import base64
import binascii
import math
import unicodedata
from typing import Literal

#: What ``trim`` removes (ECMAScript's WhiteSpace and LineTerminator).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
#: What ``decodeURI`` leaves encoded (it decodes everything else ``decodeURIComponent`` does).
_URI_RESERVED = frozenset(";/?:@&=+$,#")
#: ``normalize``'s forms (another is a RangeError).
_FORMS: dict[str | float, Literal["NFC", "NFD", "NFKC", "NFKD"]] = {"NFC": "NFC", "NFD": "NFD", "NFKC": "NFKC", "NFKD": "NFKD"}
#: The longest result this module computes (longer: unknown; :data:`.pieces.MAX_TEXT` is less).
MAX_RESULT = 4096

#: Functions of known text -> their results (``decoders``: called with their arguments' values).
DECODERS = frozenset(("atob", "String.fromCharCode", "String.fromCodePoint", "decodeURIComponent",
                      "decodeURI", "unescape"))
#: String methods of a receiver known in full (``case`` methods also apply piece by piece).
CASE_METHODS = frozenset(("toLowerCase", "toUpperCase", "toLocaleLowerCase", "toLocaleUpperCase"))
TEXT_METHODS = CASE_METHODS | frozenset(("trim", "trimStart", "trimEnd", "trimLeft", "trimRight", "slice",
                                         "substring", "substr", "at", "charAt", "replace", "replaceAll",
                                         "repeat", "padStart", "padEnd", "normalize"))


def change_case(value: str, method: str) -> str:
    """``value.toLowerCase()`` and the like (the locale forms as in the root locale)."""
    return value.lower() if "Lower" in method else value.upper()


def decode(function: str, args: list[str | float]) -> str | None:
    """``function(...args)`` for one of :data:`DECODERS` (numbers for ``fromCharCode``, strings
    for the others)."""
    if function in ("String.fromCharCode", "String.fromCodePoint"):
        if not all(isinstance(a, float) for a in args) or len(args) > MAX_RESULT:
            return None
        numbers = [float(a) for a in args]
        if function == "String.fromCharCode":
            units = [int(math.trunc(n)) % 0x10000 if math.isfinite(n) else 0 for n in numbers]
            return _from_units(units)
        if not all(n.is_integer() and 0 <= n <= 0x10FFFF for n in numbers):
            return None  # RangeError
        return _from_units([u for n in numbers for u in _units(int(n))])
    if len(args) != 1 or not isinstance(args[0], str):
        return None
    value = args[0]
    if function == "atob":
        return _atob(value)
    if function == "unescape":
        return _unescape(value)
    return _decode_uri(value, keep=_URI_RESERVED if function == "decodeURI" else frozenset())


def method(value: str, name: str, args: list[str | float]) -> str | None:
    """``value.name(...args)`` for one of :data:`TEXT_METHODS`."""
    if name in CASE_METHODS:
        # A locale argument changes I and i (Turkish, Lithuanian) and nothing else in ASCII.
        if args and name.startswith("toLocale") and not (value.isascii() and not set(value) & set("IiJj")):
            return None
        return change_case(value, name)
    if name in ("trim", "trimStart", "trimEnd", "trimLeft", "trimRight"):  # arguments are ignored
        if name == "trim":
            return value.strip(_JS_SPACE)
        return value.lstrip(_JS_SPACE) if name in ("trimStart", "trimLeft") else value.rstrip(_JS_SPACE)
    if name == "normalize":
        form = _FORMS.get(args[0] if args else "NFC")
        return unicodedata.normalize(form, value) if form is not None else None  # another form: a RangeError
    if name in ("replace", "replaceAll"):
        if len(args) != 2 or not all(isinstance(a, str) for a in args) or "$" in str(args[1]):
            return None
        old, new = str(args[0]), str(args[1])
        if not old and any(ord(c) > 0xFFFF for c in value):
            return None  # an empty pattern matches between a character's two halves too
        matches = (value.count(old) if old else len(value) + 1) if name == "replaceAll" else int(old in value)
        if len(value) + matches * (len(new) - len(old)) > MAX_RESULT:
            return None  # measured before it is built
        if name == "replaceAll":
            return value.replace(old, new) if old else _between_all(value, new)
        return value.replace(old, new, 1) if old else new + value
    if any(ord(c) > 0xFFFF for c in value):
        return None  # JavaScript counts such a character as two
    numbers = [_integer(a) for a in args]
    if any(n is None for n in numbers):
        return None
    size = len(value)
    if name == "slice" and len(args) <= 2:
        start, end = _relative(numbers[0] if args else 0, size), _relative(numbers[1], size) if len(args) > 1 else size
        return value[start:end] if start < end else ""
    if name == "substring" and len(args) <= 2:
        start = _clamp(numbers[0] if args else 0, size)
        end = _clamp(numbers[1], size) if len(args) > 1 else size
        start, end = min(start, end), max(start, end)
        return value[start:end]
    if name == "substr" and len(args) <= 2:
        start = _relative(numbers[0] if args else 0, size)
        length = size - start if len(args) < 2 else int(min(max(numbers[1] or 0.0, 0), size - start))
        return value[start:start + length]
    index = (numbers[0] or 0.0) if args else 0.0
    if name == "at" and len(args) <= 1:
        index = index + size if index < 0 else index
        return value[int(index)] if 0 <= index < size else None  # undefined: not a string
    if name == "charAt" and len(args) <= 1:
        return value[int(index)] if 0 <= index < size else ""
    if name == "repeat" and len(args) == 1:
        return value * int(index) if 0 <= index and size * index <= MAX_RESULT else None  # else RangeError or too long
    return None  # padStart, padEnd: the result's length is known, its use to a tell is not


def number_to_string(value: float, radix: float) -> str | None:
    """``value.toString(radix)`` for a safe integer (a fraction's digits: not followed)."""
    value, radix = float(value), float(radix)
    if not (value.is_integer() and abs(value) < 2 ** 53 and radix.is_integer() and 2 <= radix <= 36):
        return None
    digits, base, n, out = "0123456789abcdefghijklmnopqrstuvwxyz", int(radix), abs(int(value)), ""
    while True:
        n, d = divmod(n, base)
        out = digits[d] + out
        if not n:
            return ("-" if value < 0 else "") + out


#: The binary operators :func:`arithmetic` computes on two numbers.
ARITHMETIC = frozenset(("+", "-", "*", "/", "%", "**", "&", "|", "^", "<<", ">>", ">>>"))


def arithmetic(op: str, a: float, b: float) -> float | None:
    """``a op b`` for two numbers, as JavaScript computes it (``None``: an operator not followed)."""
    try:
        if op in ("+", "-", "*"):
            return a + b if op == "+" else a - b if op == "-" else a * b
        if op == "/":
            if b == 0:
                return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1, b)
            return a / b
        if op == "%":
            if b == 0 or math.isinf(a) or math.isnan(a) or math.isnan(b):
                return math.nan
            return a if math.isinf(b) else math.fmod(a, b)
        if op == "**":
            if math.isnan(b) or (abs(a) == 1 and math.isinf(b)):
                return math.nan
            if a == 0 and b < 0:
                return None  # an infinity whose sign depends on -0: not followed
            return math.pow(a, b)  # C99's pow, as V8's for these (a negative base to a fraction: below)
    except ValueError:
        return math.nan
    except (OverflowError, ZeroDivisionError):
        return None
    x, y = _int32(a), _int32(b)
    if op == "&":
        return float(x & y)
    if op == "|":
        return float(x | y)
    if op == "^":
        return float(x ^ y)
    if op == "<<":
        return float(_int32(float((x << (y & 31)) & 0xFFFFFFFF)))
    if op == ">>":
        return float(x >> (y & 31))
    if op == ">>>":
        return float((x & 0xFFFFFFFF) >> (y & 31))
    return None


def _int32(value: float) -> int:
    """ToInt32."""
    if not math.isfinite(value):
        return 0
    n = int(math.trunc(value)) & 0xFFFFFFFF
    return n - 0x100000000 if n >= 0x80000000 else n


def code_at(value: str, name: str, args: list[str | float]) -> float | None:
    """``value.charCodeAt(i)`` (NaN past the end) or ``value.codePointAt(i)`` (``None``: undefined)."""
    units = [u for c in value for u in _units(ord(c))]
    index = _integer(args[0]) if args else 0.0
    if index is None or len(args) > 1:
        return None
    inside = 0 <= index < len(units)
    if name == "charCodeAt":
        return float(units[int(index)]) if inside else math.nan
    if not inside:
        return None
    first = units[int(index)]
    if 0xD800 <= first < 0xDC00 and index + 1 < len(units) and 0xDC00 <= units[int(index) + 1] < 0xE000:
        return float(0x10000 + ((first - 0xD800) << 10) + (units[int(index) + 1] - 0xDC00))
    return float(first)


def utf8_decode(values: list[float]) -> str | None:
    """``new TextDecoder().decode(new Uint8Array(values))``: UTF-8 with U+FFFD for what is not,
    a leading byte order mark dropped (a value outside 0-255 wraps, as a Uint8Array stores it)."""
    if len(values) > MAX_RESULT or not all(math.isfinite(v) for v in values):
        return None
    text = bytes(int(math.trunc(v)) % 256 for v in values).decode("utf-8", "replace")
    return text.removeprefix("\ufeff")


def _integer(arg: str | float) -> float | None:
    """ToIntegerOrInfinity of a number argument (a string argument: not followed)."""
    if not isinstance(arg, float) or math.isnan(arg):
        return 0.0 if isinstance(arg, float) else None
    return float(math.trunc(arg)) if math.isfinite(arg) else arg


def _relative(index: float | None, size: int) -> int:
    index = index or 0.0
    if index < 0:
        return int(max(size + index, 0))
    return int(min(index, size))


def _clamp(index: float | None, size: int) -> int:
    return int(min(max(index or 0.0, 0), size))


def _between_all(value: str, new: str) -> str:
    """``value.replaceAll('', new)``: ``new`` before every character and at the end."""
    return new + new.join(value) + new if value else new


def _units(code_point: int) -> list[int]:
    if code_point < 0x10000:
        return [code_point]
    code_point -= 0x10000
    return [0xD800 + (code_point >> 10), 0xDC00 + (code_point & 0x3FF)]


def _from_units(units: list[int]) -> str:
    """UTF-16 code units as text (a lone surrogate stays one)."""
    return b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le", "surrogatepass")


def _atob(value: str) -> str | None:
    """The forgiving-base64 decode of the HTML standard, as a binary string (one character a byte)."""
    data = "".join(c for c in value if c not in "\t\n\f\r ")
    if len(data) % 4 == 0 and data.endswith("="):
        data = data[:-2] if data.endswith("==") else data[:-1]
    if len(data) % 4 == 1 or not set(data) <= _BASE64:
        return None  # InvalidCharacterError
    try:
        decoded = base64.b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        return None
    return decoded.decode("latin-1") if len(decoded) <= MAX_RESULT else None


def _hex(text: str) -> int | None:
    """Two or four hex digits' value (``int`` alone also takes ``+f``, ``_f`` and spaces)."""
    return int(text, 16) if len(text) in (2, 4) and all(c in "0123456789abcdefABCDEF" for c in text) else None


def _unescape(value: str) -> str:
    """``unescape``: ``%XX`` and ``%uXXXX`` as code units; anything else as it is."""
    units: list[int] = []
    i = 0
    while i < len(value):
        if value[i] == "%":
            wide = _hex(value[i + 2:i + 6]) if value[i + 1:i + 2] == "u" else None
            if wide is not None:
                units.append(wide)
                i += 6
                continue
            byte = _hex(value[i + 1:i + 3])
            if byte is not None:
                units.append(byte)
                i += 3
                continue
        units.extend(_units(ord(value[i])))
        i += 1
    return _from_units(units)


def _decode_uri(value: str, keep: frozenset[str]) -> str | None:
    """``decodeURIComponent`` (``keep`` empty) or ``decodeURI``: ``%XX`` runs as UTF-8; a malformed
    escape or invalid UTF-8 is a URIError (``None``)."""
    out: list[str] = []
    i = 0
    while i < len(value):
        if value[i] != "%":
            out.append(value[i])
            i += 1
            continue
        first = _hex(value[i + 1:i + 3])
        if first is None:
            return None
        size = 1 if first < 0x80 else 2 if first >> 5 == 0b110 else 3 if first >> 4 == 0b1110 else 4 if first >> 3 == 0b11110 else 0
        if not size:
            return None
        raw = [first]
        for k in range(1, size):
            start = i + 3 * k
            byte = _hex(value[start + 1:start + 3]) if value[start:start + 1] == "%" else None
            if byte is None or byte >> 6 != 0b10:
                return None
            raw.append(byte)
        try:
            char = bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            return None
        out.append(value[i:i + 3 * size] if char in keep else char)
        i += 3 * size
    return "".join(out)
