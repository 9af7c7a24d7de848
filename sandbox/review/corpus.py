"""The review corpus (fixtures/review/): blocks with their expected findings as data, and the
precision and recall of a layer against them.

Each ``NAME.json`` holds ``description``, ``fields``, optional ``state`` (default: the source's ``NAME.state.json``
beside it, if any, as ``review`` does), optional
``source`` (a path relative to the JSON file; default ``NAME.html``), ``static`` (the
expected static findings) and ``browser`` (``{engine: [expected findings]}``, written by
the in-browser layer). An expected finding is ``{"rule", "paths"?, "hosts"?, "optional"?}``:
a found finding matches it when the rule is the same and, where given, its paths and hosts
are the same sets. ``"optional": true`` marks what a block does only sometimes in a browser
(a random choice, a race with its own flood or a 5 s timer against the review's length):
found, it is neither a hit nor a false positive; missed, no miss.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..block.srcdoc import state_beside
from .model import Finding

CORPUS = Path(__file__).resolve().parent.parent.parent / "fixtures" / "review"


@dataclass
class Case:
    name: str
    file: str
    source: str
    fields: list[str]
    state: dict
    expected: dict   # layer or engine -> list of expectations
    description: str = ""


def load_corpus(directory: Path = CORPUS) -> list[Case]:
    cases = []
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        source_path = (path.parent / data.get("source", path.stem + ".html")).resolve()
        expected = {"static": data.get("static", [])}
        expected.update({engine: items for engine, items in (data.get("browser") or {}).items()})
        state = data.get("state")
        beside = state_beside(str(source_path))
        if state is None and beside.is_file():  # as `review FILE` does
            state = json.loads(beside.read_text(encoding="utf-8"))
        cases.append(Case(path.stem, str(source_path), source_path.read_text(encoding="utf-8"), data.get("fields", []),
                          state or {}, expected, data.get("description", "")))
    return cases


def matches(finding: Finding, expected: dict) -> bool:
    if finding.rule != expected["rule"]:
        return False
    if "paths" in expected and sorted(set(finding.paths)) != sorted(set(expected["paths"])):
        return False
    if "hosts" in expected and sorted(set(finding.hosts)) != sorted(set(expected["hosts"])):
        return False
    return True


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    misses: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def add(self, other: Score) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.misses += other.misses
        self.extras += other.extras


#: Browser rules whose firing depends on the machine's load, not only on the block: how long the
#: host page's timer stalled, and whether a block's review finished within its time limit (on a
#: loaded 2-core machine an ordinary block's review can pass 15 s, seen in a fresh-clone CI run).
#: Where the corpus does not expect one, an unexpected one is no false positive of the layer
#: (timings belong in benchmarks, not in asserting tests); where it does, a miss still counts, and
#: every other expected finding of the block is still required.
LOAD_DEPENDENT = frozenset({"browser.main-thread-stall", "browser.timeout"})


def score(name: str, found: list[Finding], expected: list[dict], *, tolerate: frozenset[str] = frozenset()) -> Score:
    """``found`` against ``expected``; unexpected findings of a rule in ``tolerate`` are not counted."""
    result = Score()
    left = list(found)
    # The required first: an optional expectation must not take the finding a required one needs.
    for item in sorted(expected, key=lambda e: bool(e.get("optional"))):
        hit = next((f for f in left if matches(f, item)), None)
        if hit is not None:
            left.remove(hit)
            result.tp += 0 if item.get("optional") else 1
        elif not item.get("optional"):
            result.fn += 1
            result.misses.append(f"{name}: missed {item}")
    left = [f for f in left if f.rule not in tolerate or any(e["rule"] == f.rule for e in expected)]
    result.fp = len(left)
    result.extras += [f"{name}: unexpected {f.rule} {f.paths} {f.hosts} at {f.line}:{f.column}: {f.message}" for f in left]
    return result
