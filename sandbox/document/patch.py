"""State differences as JSON Patch (RFC 6902): diff, apply, and the fan-out to html blocks.

The patches use only ``add``, ``replace`` and ``remove`` (seed: "Патч state всегда
выражается через add/replace/remove"), with JSON Pointers whose segments escape
``~`` as ``~0`` and ``/`` as ``~1``.

:func:`diff` rules (a server team can predict its output):

* objects: keys of ``old`` missing from ``new`` are removed, then keys of ``new``
  are added or compared, each in its object's order; a changed leaf is one
  ``replace`` at its pointer (so one changed leaf is one operation);
* arrays: the common head and tail are kept; what is between is aligned by a
  minimal edit script (an element kept, changed in place, removed or inserted),
  emitted front to back with indexes as they are at that point of the patch (no
  index-shift bugs); beyond :data:`ALIGN_CELLS` cells equal elements are matched up
  by difflib's SequenceMatcher (beyond :data:`MATCH_CELLS`, anchored on elements unique
  on both sides) and the elements between them changed in place
  (or, when that is cheaper or would be quadratic, all compared by position); one diff
  aligns at most :data:`ALIGN_BUDGET` cells in all, and then replaces each further array
  whose middle would need aligning;
* a value that changes kind (object, array, scalar) is one ``replace``, and so is a
  container of two or more entries that becomes empty;
* the size fallback: two or more operations under one object or array that take more
  than :data:`FALLBACK_CHARS` characters of compact JSON beyond one ``replace`` of it
  are that ``replace`` (so a patch is never more than that larger than replacing the
  state: 20 of 5,000 booleans removed is one replace of the list, not 2,000 operations);
* both values are states, JSON objects: the root can only be replaced by an object;
* equality is JSON equality: ``true`` is not ``1``; ``1`` and ``1.0`` are one
  number (as in JavaScript).

:func:`apply_patch` is the Python twin of ``applyPatch`` in ``bridge/flow-ui-host.js``
(``fixtures/bridge/patch.json`` and ``fixtures/document/patches.json`` hold both to
the same results): all or nothing, own keys only, array indexes without leading zeros,
``-`` only to append, the root replaceable only by an object.

:func:`fan_out` turns one patch of the document's projection into each html
block's own patch (only what lies under its paths, nothing for a block whose
paths did not change) that turns its old projection into its new one: the same
state as diffing each block's projection separately, not always the same
operations (docs/DOCUMENT.md §5 says what a client may rely on).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Mapping
from difflib import SequenceMatcher
from typing import Any

from ..block.jsonjs import MAX_DEPTH, MAX_SAFE_INTEGER
from ..block.projection import project
from ..errors import UsageError
from .jsontext import cut

#: Largest old x new middle of an array aligned by the minimal edit script.
ALIGN_CELLS = 4096
#: Two or more operations under one object or array that take more than this many characters
#: (compact JSON) beyond one ``replace`` of it are that ``replace`` instead.
FALLBACK_CHARS = 1024
#: Longer middles are matched up by SequenceMatcher unless that would compare more than
#: this many pairs of equal elements (then position by position).
MATCH_COMPARISONS = 1_000_000
#: Largest old x new middle SequenceMatcher aligns: its recursion is quadratic when matches are
#: short (adjacent swaps of 6,000 numbers: 29 s). Larger middles are anchored on the elements that
#: occur once on each side, in O(n log n).
MATCH_CELLS = 250_000
#: Cells (old x new elements of a middle) one diff aligns in all, by the edit script and by
#: SequenceMatcher together (about 0.3 µs a cell): each array is bounded by ALIGN_CELLS or
#: MATCH_CELLS, but 30,000 arrays of 60 elements, reversed (7 MB), took 37 s. Once it is spent,
#: an array whose middle would need either is one ``replace`` (anchoring, beyond MATCH_CELLS, is
#: O(n log n) and stays).
ALIGN_BUDGET = 500_000


class PatchError(UsageError):
    """A patch that cannot be applied, or a value that is not JSON; the message says where."""


# ------------------------------------------------------------------------ pointers


def escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


def unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def pointer(segments: Iterable[str | int]) -> str:
    """The JSON Pointer of ``segments`` (``["a/b", 0]`` -> ``/a~1b/0``)."""
    return "".join("/" + escape(str(s)) for s in segments)


def path_pointer(path: str) -> str:
    """The JSON Pointer of a state path (``customer.name`` -> ``/customer/name``)."""
    return "/" + path.replace(".", "/")


def parse_pointer(text: Any, where: str = "JSON Pointer") -> list[str]:
    if not isinstance(text, str):
        raise PatchError(f"{where}: path must be a JSON Pointer string, not {_describe(text)}")
    if text == "":
        return []
    if text[0] != "/":
        raise PatchError(f'{where}: JSON Pointer {_json(text)} must start with "/"')
    return [unescape(t) for t in text[1:].split("/")]


# ------------------------------------------------------------------------ JSON checks


def check_json(value: Any, name: str = "value", max_depth: int = MAX_DEPTH, *, safe_integers: bool = False) -> None:
    """Raise :class:`PatchError` unless ``value`` is JSON (str keys, finite numbers) at most
    ``max_depth`` containers deep. Iterative: a 100,000-deep value is an error, not a crash.
    ``safe_integers``: an integer beyond ±MAX_SAFE_INTEGER is refused too (what a client sends:
    JavaScript would round it, and the project's JSON reader refuses it)."""
    kind = type(value)
    if kind is not dict and kind is not list:
        if kind is float and value - value != 0:
            raise PatchError(f"{name}: {value!r} is not a JSON number")
        if kind not in _SCALARS and kind is not float:
            raise PatchError(f"{name}: a value of type {kind.__name__} is not JSON")
        if safe_integers and kind is int and not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            raise PatchError(f"{name}: {_UNSAFE}")
        return
    # (node, depth, trail): trail is (parent trail, key), made a pointer only for an error
    stack: list[tuple[Any, int, Any]] = [(value, 1, None)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth, trail = pop()
        if depth > max_depth:
            raise PatchError(f"{name}{_trail(trail)}: nests deeper than {max_depth} levels of objects and arrays")
        is_dict = type(node) is dict
        for key, item in node.items() if is_dict else enumerate(node):
            if is_dict and type(key) is not str:
                raise PatchError(f"{name}{_trail(trail)}: the key {key!r} is not a string")
            kind = type(item)
            if kind in _SCALARS:
                if safe_integers and kind is int and not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                    raise PatchError(f"{name}{_trail((trail, key))}: {_UNSAFE}")
                continue
            if kind is dict or kind is list:
                push((item, depth + 1, (trail, key)))
            elif kind is float:
                if item - item != 0:
                    raise PatchError(f"{name}{_trail((trail, key))}: {item!r} is not a JSON number")
            else:
                raise PatchError(f"{name}{_trail((trail, key))}: a value of type {kind.__name__} is not JSON")


_SCALARS = frozenset((str, int, bool, type(None)))
# (the integer itself is not shown: one of 5,000 digits cannot even be printed)
_UNSAFE = f"an integer beyond ±{MAX_SAFE_INTEGER:,} (Number.MAX_SAFE_INTEGER); JavaScript would round it"


#: JSON values and keys one document, one ui-action or one upward message holds at most: each
#: is counted in C loops up to this bound, and checked one by one in Python only within it.
MAX_JSON_NODES = 100_000


def json_nodes_over(value: Any, limit: int) -> int | None:
    """``None`` when ``value`` holds at most ``limit`` values (objects, arrays, scalars and keys,
    each one), else a count past ``limit`` (a lower bound). Level by level, in the C loops of
    ``list.extend``: it stops one level past the limit, so it costs ``limit``, not the value's size
    (a client's 2,000,000 empty objects took 7 s to check one by one)."""
    count, level = 0, [value]
    while level:
        count += len(level)
        if count > limit:
            return count
        below: list[Any] = []
        for node in level:
            kind = type(node)
            if kind is dict:
                count += len(node)  # the keys
                below.extend(node.values())
            elif kind is list:
                below.extend(node)
            if count > limit:
                return count
        level = below
    return count if count > limit else None


def _trail(trail: Any) -> str:
    keys = []
    while trail is not None:
        trail, key = trail
        keys.append(key)
    # a long key cut (64 keys of a million characters are no error line)
    return "".join("/" + escape(cut(str(k))) for k in reversed(keys))


def json_key(value: Any) -> Any:
    """A hashable form of a JSON value, equal for values :func:`json_equal` holds equal
    (``1`` and ``1.0`` one key, ``true`` and ``1`` two): for sets and dicts of JSON values."""
    kind = type(value)
    if kind is bool or kind is str or value is None:
        return (kind.__name__, value)
    if kind is int or kind is float:
        return ("number", int(value) if kind is float and value.is_integer() else value)
    if kind is list:
        return ("list", tuple(json_key(v) for v in value))
    if kind is dict:
        return ("dict", frozenset((k, json_key(v)) for k, v in value.items()))
    raise PatchError(f"a value of type {kind.__name__} is not JSON")


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: like ``==`` but ``true`` is not ``1`` (``1 == 1.0`` still holds)."""
    if a is b:
        return True
    if a != b:
        return False
    return _same_kinds(a, b)


def _same_kinds(a: Any, b: Any) -> bool:
    """For values already ``==``: no bool stands where the other has a number."""
    ta, tb = type(a), type(b)
    if ta is dict:
        # (a str, None or other scalar pair is already told apart by ==)
        return tb is dict and all(_same_kinds(v, b[k]) for k, v in a.items() if type(v) in _DEEP)
    if ta is list:
        return tb is list and all(_same_kinds(x, y) for x, y in zip(a, b) if type(x) in _DEEP or type(y) in _DEEP)
    return (ta is bool) == (tb is bool)


_DEEP = frozenset((dict, list, bool, int, float))


# ------------------------------------------------------------------------ diff


def diff(old: Any, new: Any) -> list[dict[str, Any]]:
    """The JSON Patch that turns the state ``old`` into ``new`` (see the module's rules).
    Both are states: JSON objects (:class:`PatchError` otherwise: the root of a state can only
    be replaced by an object, so no patch could turn an object into anything else)."""
    check_json(old, "old")
    check_json(new, "new")
    for name, value in (("old", old), ("new", new)):
        if type(value) is not dict:
            raise PatchError(f"{name}: a state is a JSON object, not {_describe(value)}")
    ops: list[dict[str, Any]] = []
    _diff(old, new, "", ops, _Budget())
    for op in ops:  # the values are new's own until here: copied once, for the operations kept
        if "value" in op:
            op["value"] = _copy(op["value"])
    return ops


class _Budget:
    """The alignment cells a diff has left (:data:`ALIGN_BUDGET`)."""

    __slots__ = ("cells",)

    def __init__(self) -> None:
        self.cells = ALIGN_BUDGET

    def take(self, cells: int) -> bool:
        """Whether ``cells`` more may be aligned (then they are counted)."""
        if cells > self.cells:
            return False
        self.cells -= cells
        return True


def _kind(value: Any) -> int:
    kind = type(value)
    return 1 if kind is dict else 2 if kind is list else 0


def _diff(old: Any, new: Any, at: str, ops: list, budget: _Budget) -> int:
    """Appends the operations turning ``old`` into ``new`` at pointer ``at`` (their values are
    ``new``'s own, not copies); returns their size (characters of compact JSON, :func:`op_size`).
    ``budget``: the diff's alignment cells left."""
    ko, kn = _kind(old), _kind(new)
    if ko != kn or ko == 0:
        if not json_equal(old, new):
            return _emit(ops, {"op": "replace", "path": at, "value": new})
        return 0
    if old is new:
        return 0
    if not new and len(old) > 1:  # emptied: one replace instead of a remove per entry
        return _emit(ops, {"op": "replace", "path": at, "value": {} if ko == 1 else []})
    start = len(ops)
    size = 0
    if ko == 1:
        for key in old:
            if key not in new:
                size += _emit(ops, {"op": "remove", "path": f"{at}/{escape(key)}"})
        for key, value in new.items():
            if key in old:
                size += _diff(old[key], value, f"{at}/{escape(key)}", ops, budget)
            else:
                size += _emit(ops, {"op": "add", "path": f"{at}/{escape(key)}", "value": value})
    else:
        size = _diff_lists(old, new, at, ops, budget)
    if len(ops) - start > 1:
        # the size fallback: operations over FALLBACK_CHARS longer than one replace of the value
        # become that replace
        room = size - FALLBACK_CHARS - _OP_SIZE["replace"] - _string_size(at)  # the value's JSON must be shorter
        value_size = _json_size_under(new, room) if room > 0 else None
        if value_size is not None:
            del ops[start:]
            ops.append({"op": "replace", "path": at, "value": new})
            return _OP_SIZE["replace"] + _string_size(at) + value_size
    return size


def op_size(op: dict[str, Any]) -> int:
    """The characters of an operation as compact JSON (``{"op":"add","path":"/a","value":1}``),
    the measure of :func:`diff`'s size fallback."""
    return len(_CANONICAL.encode(op))


def _emit(ops: list, op: dict[str, Any]) -> int:
    ops.append(op)
    if "value" in op:
        return _OP_SIZE[op["op"]] + _string_size(op["path"]) + len(_CANONICAL.encode(op["value"]))
    return _OP_SIZE[op["op"]] + _string_size(op["path"])


#: The characters of an operation besides its path string and its value's JSON:
#: ``{"op":"add","path":`` PATH ``,"value":`` VALUE ``}``.
_OP_SIZE = {"add": 29, "replace": 33, "remove": 23}


def _string_size(text: str) -> int:
    return len(_CANONICAL.encode(text)) if '"' in text or "\\" in text or not text.isprintable() else len(text) + 2


def _json_size_under(value: Any, limit: int) -> int | None:
    """The characters of ``value``'s compact JSON when they are fewer than ``limit``, else None.
    A lower bound is counted first, level by level (structure, keys and strings by their length,
    any other scalar as one character), and stops at ``limit``: the size fallback costs in
    proportion to the patch, not to the state. Only a value under it is measured exactly, by the
    C encoder (a value read through Python, 3 µs a scalar, took 1.5 s for a patch of 1.8 million
    numbers)."""
    bound, level = 0, [value]
    while level:
        below: list[Any] = []
        for node in level:
            kind = type(node)
            if kind is dict:
                bound += 1 + 3 * len(node) + sum(map(len, node))  # braces, quotes, colons, commas; the keys
                below.extend(node.values())
            elif kind is list:
                bound += 1 + len(node)
                below.extend(node)
            elif kind is str:
                bound += 2 + len(node)
            else:
                bound += 1
            if bound >= limit:
                return None
        level = below
    size = len(_CANONICAL.encode(value))
    return size if size < limit else None


def _diff_lists(old: list, new: list, at: str, ops: list, budget: _Budget) -> int:
    n, m = len(old), len(new)
    head = 0
    while head < n and head < m and json_equal(old[head], new[head]):
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and json_equal(old[n - 1 - tail], new[m - 1 - tail]):
        tail += 1
    a, b = old[head:n - tail], new[head:m - tail]
    if not a and not b:
        return 0
    cells = len(a) * len(b)
    if cells <= MATCH_CELLS and not budget.take(cells):
        # the diff's alignment budget is spent (the edit script and SequenceMatcher pay it; anchoring,
        # beyond MATCH_CELLS, is O(n log n)): one replace (a change per position cost ten times more
        # for the 1.8 million elements of 30,000 such arrays)
        return _emit(ops, {"op": "replace", "path": at, "value": new})
    script = _align(a, b) if cells <= ALIGN_CELLS else _match_up(a, b)
    index = head
    size = 0
    for step, i, j in script:
        if step == "keep":
            index += 1
        elif step == "change":
            assert i is not None and j is not None  # a change pairs an old and a new element
            size += _diff(a[i], b[j], f"{at}/{index}", ops, budget)
            index += 1
        elif step == "remove":
            size += _emit(ops, {"op": "remove", "path": f"{at}/{index}"})
        else:
            assert j is not None  # an insert names the new element
            size += _emit(ops, {"op": "add", "path": f"{at}/{index}", "value": b[j]})
            index += 1
    return size


def _align(a: list, b: list) -> list[tuple[str, int | None, int | None]]:
    """A minimal edit script from ``a`` to ``b``: keep (cost 0), change in place, remove,
    insert (cost 1 each); ties prefer changing in place (smaller patches for similar elements)."""
    n, m = len(a), len(b)
    equal = [[json_equal(x, y) for y in b] for x in a]
    # cost[i][j]: edits turning a[i:] into b[j:]
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n, -1, -1):
        row = cost[i]
        for j in range(m, -1, -1):
            if i == n:
                row[j] = m - j
            elif j == m:
                row[j] = n - i
            else:
                row[j] = min(
                    cost[i + 1][j + 1] + (0 if equal[i][j] else 1),
                    cost[i + 1][j] + 1,
                    row[j + 1] + 1,
                )
    script: list[tuple[str, int | None, int | None]] = []
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and cost[i][j] == cost[i + 1][j + 1] + (0 if equal[i][j] else 1):
            script.append(("keep" if equal[i][j] else "change", i, j))
            i += 1
            j += 1
        elif i < n and cost[i][j] == cost[i + 1][j] + 1:
            script.append(("remove", i, None))
            i += 1
        else:
            script.append(("insert", None, j))
            j += 1
    return script


def _positional(n: int, m: int) -> list[tuple[str, int | None, int | None]]:
    common = min(n, m)
    script: list[tuple[str, int | None, int | None]] = [("change", i, i) for i in range(common)]
    script += [("remove", i, None) for i in range(common, n)]
    script += [("insert", None, j) for j in range(common, m)]
    return script


def _match_up(a: list, b: list) -> list[tuple[str, int | None, int | None]]:
    """The edit script of a long middle: equal elements matched up by difflib's
    SequenceMatcher on each element's canonical JSON (anchored on unique elements beyond
    MATCH_CELLS); between matches, elements changed in place, then the rest removed or
    inserted. Compared by position instead when that takes fewer operations, or when matching
    up would take quadratic time (many equal elements, counted first)."""
    keys_a = [_key(x) for x in a]
    keys_b = [_key(x) for x in b]
    common = min(len(a), len(b))
    by_position = sum(1 for i in range(common) if keys_a[i] != keys_b[i]) + abs(len(a) - len(b))
    counts = Counter(keys_b)
    if sum(counts[k] for k in keys_a) > MATCH_COMPARISONS:
        return _positional(len(a), len(b))
    script: list[tuple[str, int | None, int | None]] = []
    cost = 0
    opcodes: list[tuple[str, int, int, int, int]]
    if len(a) * len(b) <= MATCH_CELLS:
        opcodes = list(SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes())
    else:
        opcodes = _anchored(keys_a, keys_b)
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            script += [("keep", i1 + k, j1 + k) for k in range(i2 - i1)]
            continue
        paired = min(i2 - i1, j2 - j1)
        script += [("change", i1 + k, j1 + k) for k in range(paired)]
        script += [("remove", i, None) for i in range(i1 + paired, i2)]
        script += [("insert", None, j) for j in range(j1 + paired, j2)]
        cost += max(i2 - i1, j2 - j1)
    return script if cost <= by_position else _positional(len(a), len(b))


def _anchored(keys_a: list[str], keys_b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """SequenceMatcher-like opcodes from anchors: the elements that occur exactly once in each
    list, kept in the longest run that is in order on both sides (patience diff); what lies
    between two anchors is one "replace" (or "delete"/"insert") block."""
    count_a, count_b = Counter(keys_a), Counter(keys_b)
    where_b = {k: j for j, k in enumerate(keys_b) if count_b[k] == 1}
    pairs = [(i, where_b[k]) for i, k in enumerate(keys_a) if count_a[k] == 1 and k in where_b]
    # The longest increasing run of b-positions (pairs are in a-order): patience sorting.
    tails: list[int] = []   # tails[n]: the index in pairs ending the best run of length n + 1
    ends: list[int] = []    # ends[n]: that pair's b-position
    before = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(ends, j)
        if k:
            before[n] = tails[k - 1]
        if k == len(tails):
            tails.append(n)
            ends.append(j)
        else:
            tails[k] = n
            ends[k] = j
    anchors: list[tuple[int, int]] = []
    n = tails[-1] if tails else -1
    while n >= 0:
        anchors.append(pairs[n])
        n = before[n]
    anchors.reverse()
    opcodes: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for ai, bj in [*anchors, (len(keys_a), len(keys_b))]:
        if i < ai or j < bj:
            opcodes.append(("replace" if i < ai and j < bj else "delete" if i < ai else "insert", i, ai, j, bj))
        if ai < len(keys_a):
            opcodes.append(("equal", ai, ai + 1, bj, bj + 1))
        i, j = ai + 1, bj + 1
    return opcodes


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), check_circular=False)


def _key(value: Any) -> str:
    return _CANONICAL.encode(value)


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {k: _copy(v) for k, v in value.items()}
    if kind is list:
        return [_copy(v) for v in value]
    return value


# ------------------------------------------------------------------------ apply


def apply_patch(state: Any, ops: Any) -> Any:
    """A new value with ``ops`` applied; the input is not modified; all or nothing."""
    if not isinstance(ops, list):
        raise PatchError(f"JSON Patch: expected an array of operations, not {_describe(ops)}")
    doc = state
    for number, op in enumerate(ops):
        where = f"JSON Patch operation {number}"
        if not isinstance(op, dict):
            raise PatchError(f"{where}: expected an object, not {_describe(op)}")
        name = op.get("op")
        if name not in ("add", "replace", "remove"):
            raise PatchError(f"{where}: op {_describe(name)} is not supported (add, replace, remove)")
        tokens = parse_pointer(op.get("path"), where)
        if name != "remove":
            if "value" not in op:
                raise PatchError(f"{where}: {name} needs a value")
            try:
                check_json(op["value"], "value")
            except PatchError as exc:
                raise PatchError(f"{where}: {exc}") from None
        if not tokens:
            if name == "remove" or not isinstance(op["value"], dict):
                raise PatchError(f"{where}: the state itself can only be replaced by an object")
            doc = _copy(op["value"])
            continue
        doc = _patch_at(doc, tokens, 0, op, where)
    return doc


def _patch_at(node: Any, tokens: list[str], i: int, op: dict, where: str) -> Any:
    token = tokens[i]
    last = i == len(tokens) - 1
    at = "/" + "/".join(tokens[: i + 1])
    name = op["op"]
    if type(node) is list:
        copy = list(node)
        append = token == "-" and last and name == "add"
        if not append and not (token == "0" or token[:1] in "123456789" and token.isdigit() and token.isascii()):
            raise PatchError(f"{where}: {at}: {_json(token)} is not an array index")
        index = len(copy) if append else int(token)
        limit = len(copy) if last and name == "add" else len(copy) - 1
        if index > limit:
            raise PatchError(f"{where}: {at}: index {index} is out of range (length {len(copy)})")
        if not last:
            copy[index] = _patch_at(copy[index], tokens, i + 1, op, where)
        elif name == "add":
            copy.insert(index, _copy(op["value"]))
        elif name == "replace":
            copy[index] = _copy(op["value"])
        else:
            del copy[index]
        return copy
    if type(node) is not dict:
        raise PatchError(f"{where}: {at}: the parent is not an object or array")
    members = dict(node)
    present = token in members
    if not last:
        if not present:
            raise PatchError(f"{where}: {at} does not exist")
        members[token] = _patch_at(members[token], tokens, i + 1, op, where)
    elif name == "add":
        members[token] = _copy(op["value"])
    elif not present:
        raise PatchError(f"{where}: {at} does not exist ({name} needs an existing value)")
    elif name == "replace":
        members[token] = _copy(op["value"])
    else:
        del members[token]
    return members


# ------------------------------------------------------------------------ fan-out


def fan_out(old: Mapping[str, Any], ops: list[dict[str, Any]], blocks: Mapping[str, Iterable[str]]) -> dict[str, list[dict[str, Any]]]:
    """Each block's own patch from one patch of the projection ``old``.

    ``blocks`` maps a block id to its projection paths. A block is in the result only
    when its projection changed; its patch turns ``project(old, paths)`` into
    ``project(new, paths)`` (equal as JSON). Operations strictly inside a path the block carries whole
    are forwarded as they are; a block touched in any other way (a container of one
    of its paths replaced or removed, an array it indexes into shifted) gets the diff
    of its two projections, so it never sees a value outside its paths.
    """
    parsed = [parse_pointer(op.get("path"), f"JSON Patch operation {n}") for n, op in enumerate(ops)]
    new: Any = None
    out: dict[str, list[dict[str, Any]]] = {}
    for block_id, paths in blocks.items():
        paths = list(paths)
        trees = [p.split(".") for p in paths]
        forward: list[dict[str, Any]] = []
        rediff = False
        for op, tokens in zip(ops, parsed):
            relation = _relation(tokens, op["op"], trees)
            if relation == "inside":
                forward.append(op)
            elif relation == "touches":
                rediff = True
                break
        if rediff:
            if new is None:
                new = apply_patch(old, ops)
            block_ops = diff(project(old, paths), project(new, paths))
        else:
            block_ops = [_copy(op) for op in forward]
        if block_ops:
            out[block_id] = block_ops
    return out


def _relation(tokens: list[str], name: str, trees: list[list[str]]) -> str:
    """How an operation at ``tokens`` relates to a block's paths: ``inside`` (strictly
    under a path, or a replace of exactly a path), ``touches`` (anything else that may
    change the projection), or ``apart``."""
    result = "apart"
    for segments in trees:
        common = 0
        for a, b in zip(tokens, segments):
            if a != b:
                break
            common += 1
        if common == len(segments) and (len(tokens) > len(segments) or name == "replace" and len(tokens) == len(segments)):
            return "inside"
        if common == len(tokens):
            result = "touches"  # the operation is at one of the path's containers, or is an add/remove of it
        elif (
            common == len(tokens) - 1 and name in ("add", "remove")
            and segments[common].isdigit() and (tokens[common].isdigit() or tokens[common] == "-")
        ):
            result = "touches"  # an insert or removal shifts the array the path indexes into
    return result


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return _json(value)
    return {dict: "an object", list: "an array", bool: "a boolean", int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _json(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


__all__ = ["diff", "apply_patch", "fan_out", "PatchError", "json_equal", "json_key", "check_json", "pointer", "path_pointer",
           "parse_pointer", "escape", "unescape", "op_size", "ALIGN_CELLS", "ALIGN_BUDGET", "FALLBACK_CHARS"]
