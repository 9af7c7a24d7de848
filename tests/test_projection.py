"""Lookup, projection, text and emptiness (sandbox.block.projection) and JSON as JavaScript writes it
(sandbox.block.jsonjs), against the shared fixtures and against Node's own JSON.stringify."""

from __future__ import annotations

import json
import math
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.block.jsonjs import MAX_DEPTH, JSONValueError, number_text, ordered_keys, script_json, stringify
from flowui_sandbox.sandbox.block.projection import MISSING, PathError, format_text, get_path, is_empty, project
from flowui_sandbox.sandbox.errors import SandboxError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def cases(name: str) -> list[dict]:
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    names = [c["name"] for c in data]
    assert len(names) == len(set(names)), f"{name}: duplicate case names"
    return data


@pytest.mark.parametrize("case", cases("format.json"), ids=lambda c: c["name"])
def test_format_fixture(case):
    value = get_path(case["state"], case["path"])
    assert (value is not MISSING) == case["found"]
    assert format_text(value) == case["text"]


@pytest.mark.parametrize("case", cases("emptiness.json"), ids=lambda c: c["name"])
def test_emptiness_fixture(case):
    assert is_empty(get_path(case["state"], case["path"])) is case["empty"]


@pytest.mark.parametrize("case", cases("projection.json"), ids=lambda c: c["name"])
def test_projection_fixture(case):
    projected = project(case["state"], case["paths"])
    assert projected == case["projection"]
    assert stringify(projected) == case["json"]
    assert script_json(projected) == case["script_json"]
    # Every projected path reads the same in the projection as in the state.
    for path in case["paths"]:
        assert get_path(projected, path) == get_path(case["state"], path)


def test_spec_cases_are_in_the_fixtures():
    assert {"spec_bind_and_show_in_order"} <= {c["name"] for c in cases("projection.json")}
    empty = {c["name"] for c in cases("emptiness.json")}
    assert {"missing", "null", "empty_string", "false", "zero", "empty_array", "empty_object_is_not_empty"} <= empty


def test_projection_is_a_copy():
    state = {"a": {"b": [1, {"c": 2}]}}
    projected = project(state, ["a"])
    projected["a"]["b"][1]["c"] = 99
    assert state["a"]["b"][1]["c"] == 2


def test_projection_refuses_a_bad_path():
    with pytest.raises(PathError, match=r"path 'Customer': segment 1"):
        project({}, ["Customer"])
    with pytest.raises(SandboxError, match="empty"):
        get_path({}, "a..b")


def test_projection_of_a_non_object_state_is_empty():
    assert project(None, ["a"]) == {}
    assert project([1, 2], ["0"]) == {}


@pytest.mark.parametrize(
    "value, where",
    [
        ({"customer": {"tags": [1, 2, 3, float("nan")]}}, r"state\.customer\.tags\[3\]: NaN is not JSON"),
        ({"a": float("inf")}, r"state\.a: Infinity is not JSON"),
        ({"a": float("-inf")}, r"state\.a: -Infinity is not JSON"),
        ({"big": 2**53}, r"state\.big: the integer 9007199254740992 is beyond JavaScript's safe range"),
        ({"big": -(2**60)}, r"state\.big: the integer -1152921504606846976"),
        ({"t": (1, 2)}, r"state\.t: a tuple is not JSON"),
        ({"b": b"x"}, r"state\.b: a bytes is not JSON"),
        ({"x y": {1: 2}}, r'state\["x y"\]: key 1 is a int'),
        ({"s": {1, 2}}, r"state\.s: a set is not JSON"),
    ],
)
def test_non_json_is_refused_naming_where(value, where):
    with pytest.raises(JSONValueError, match=where):
        stringify(value, "state")


def test_cycles_and_depth_are_refused():
    cycle: dict = {}
    cycle["self"] = cycle
    with pytest.raises(JSONValueError, match=r"state\.self: .*cycle"):
        stringify(cycle, "state")
    deep: list = []
    node = deep
    for _ in range(100_000):  # far beyond the limit, and beyond Python's recursion limit
        node.append([])
        node = node[0]
    with pytest.raises(JSONValueError, match=f"nested deeper than {MAX_DEPTH}"):
        stringify(deep)
    ok: list = []
    node = ok
    for _ in range(MAX_DEPTH - 1):
        node.append([])
        node = node[0]
    assert stringify(ok) == "[" * MAX_DEPTH + "]" * MAX_DEPTH


def test_safe_integers_and_booleans():
    assert stringify([2**53 - 1, -(2**53 - 1), True, False, None]) == "[9007199254740991,-9007199254740991,true,false,null]"


def test_surrogates():
    assert stringify("\ud83d\ude00") == '"😀"'  # two UTF-16 halves are one character in JavaScript
    assert stringify("\ude00\ud83d") == '"\\ude00\\ud83d"'
    assert stringify("a\ud800") == '"a\\ud800"'


def test_key_order_is_javascripts():
    keys = ["b", "4294967295", "4294967294", "01", "1", "0", "-1", "1.5", "a"]
    assert ordered_keys(dict.fromkeys(keys)) == ["0", "1", "4294967294", "b", "4294967295", "01", "-1", "1.5", "a"]


def test_script_json_cannot_close_a_script():
    text = script_json({"</script><!--": "<script>&\u2028\u2029"})
    assert not any(ch in text for ch in "<>&\u2028\u2029")
    assert json.loads(text) == {"</script><!--": "<script>&\u2028\u2029"}


def _random_double(rng: random.Random) -> float:
    while True:
        kind = rng.random()
        if kind < 0.5:
            value = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        elif kind < 0.8:
            value = rng.choice([1, -1]) * rng.random() * 10 ** rng.randint(-30, 30)
        else:
            value = round(rng.uniform(-1e6, 1e6), rng.randint(0, 6))
        if math.isfinite(value):
            return value


def _random_string(rng: random.Random) -> str:
    alphabet = ['"', "\\", "<", ">", "&", "\u2028", "\u2029", "\x00", "\x1f", "\x7f", "\b", "\t", "\ud800", "\udc00", "\ud83d", "\ude00", "é", "😀", "a", "0"]
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))


def _random_value(rng: random.Random, depth: int = 0):
    kind = rng.randint(0, 7 if depth < 4 else 4)
    if kind == 0:
        return _random_double(rng)
    if kind == 1:
        return rng.randint(-(2**53 - 1), 2**53 - 1) if rng.random() < 0.5 else rng.randint(-1000, 1000)
    if kind == 2:
        return _random_string(rng)
    if kind == 3:
        return rng.choice([True, False, None, 0.0, -0.0, 1.0])
    if kind == 4:
        return rng.choice([1e21, 1e-7, 1e-6, 1e20, 123e-20, 5e-324, 1.7976931348623157e308, 2.0**53, 2.0**70])
    if kind == 5:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = [rng.choice(["a", "b", "0", "1", "10", "2", "01", "4294967294", "4294967295", "x y", "\u2028", "<"]) for _ in range(rng.randint(0, 5))]
    return {k: _random_value(rng, depth + 1) for k in keys}


def test_stringify_equals_nodes_json_stringify():
    """3,000 random values (random double bit patterns, surrogates, index-like keys) through Node."""
    node = shutil.which("node")
    assert node, "node is needed (make setup installs it)"
    rng = random.Random(20261129)
    values = [_random_value(rng) for _ in range(3000)]
    # ensure_ascii keeps lone surrogates as \u escapes, which JSON.parse reads back as the same code units.
    script = (
        "const input = require('fs').readFileSync(0, 'utf8');"
        "const out = JSON.parse(input).map(v => JSON.stringify(v));"
        "process.stdout.write(JSON.stringify(out));"
    )
    done = subprocess.run([node, "-e", script], input=json.dumps(values), capture_output=True, text=True, timeout=60, check=True)
    expected = json.loads(done.stdout)
    mismatches = [(v, e, stringify(v)) for v, e in zip(values, expected) if stringify(v) != e]
    assert not mismatches, mismatches[:5]


def test_number_text_matches_javascript_examples():
    assert [number_text(x) for x in (1.0, 1e21, 1e-7, -0.0, 0.1, 1e20, 123e-20, 2.0**70, 100.0, 1.5e300)] == [
        "1", "1e+21", "1e-7", "0", "0.1", "100000000000000000000", "1.23e-18", "1.1805916207174113e+21", "100", "1.5e+300",
    ]


# ------------------------------------------------------------------ writing a path (setValue)

SET_VALUE = json.loads((Path(__file__).resolve().parent.parent / "fixtures" / "bridge" / "set_value.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", SET_VALUE, ids=[c["name"] for c in SET_VALUE])
def test_set_path_follows_the_shared_rule(case):
    """The same cases tests/js run through the host's core.setIn."""
    from flowui_sandbox.sandbox.block.projection import WriteError, set_path

    before = json.dumps(case["state"])
    if "problem" in case:
        with pytest.raises(WriteError) as error:
            set_path(case["state"], case["path"], case["value"])
        assert str(error.value) == case["problem"]
    else:
        assert set_path(case["state"], case["path"], case["value"]) == case["result"]
    assert json.dumps(case["state"]) == before, "the input is not modified"
