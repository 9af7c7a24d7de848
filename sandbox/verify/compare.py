"""Two `flowui-sandbox verify --json` reports compared probe by probe on every engine.

A change that should not change what the probes observe (a refactor of the catalogue's
format, of the harness, of the generator's plumbing) is checked by running verify before
and after it and comparing the two reports: every (probe, engine) must have the same
outcome (``status``: blocked, allowed, invalid, timeout, error, n/a). ``bench/compare_verify.py``
is the command-line face of :func:`compare`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..files import read_json

#: A verify report of the whole catalogue on three engines is a few MiB; far below this.
MAX_REPORT_BYTES = 256 * 1024 * 1024
#: A report nests results a few levels deep, and what a block reported (its ``__probe``) below that.
MAX_REPORT_DEPTH = 256


@dataclass
class Comparison:
    """What two reports say about each (probe, engine) they have in common, and what only one has."""

    same: list[tuple[str, str, str]] = field(default_factory=list)  # (probe, engine, status)
    changed: list[tuple[str, str, str, str]] = field(default_factory=list)  # (probe, engine, before, after)
    only_before: list[tuple[str, str]] = field(default_factory=list)
    only_after: list[tuple[str, str]] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return not (self.changed or self.only_before or self.only_after)

    def lines(self) -> list[str]:
        """One line per difference, then a summary line."""
        out = [f"{p} [{e}]: {b} before, {a} after" for p, e, b, a in self.changed]
        out += [f"{p} [{e}]: only in the report before" for p, e in self.only_before]
        out += [f"{p} [{e}]: only in the report after" for p, e in self.only_after]
        probes = {p for p, *_ in self.same} | {p for p, *_ in self.changed}
        engines = sorted({e for _, e, *_ in self.same} | {e for _, e, *_ in self.changed})
        out.append(
            f"{len(probes)} probes x {len(engines)} engines ({', '.join(engines)}): "
            f"outcomes: {len(self.same)} the same, {len(self.changed)} changed, "
            f"{len(self.only_before) + len(self.only_after)} in one report only"
        )
        return out


def outcomes(report: Any, name: str) -> dict[tuple[str, str], str]:
    """``(probe, engine) -> status`` of a verify JSON report; a report of another shape is a UsageError."""
    results = report.get("results") if isinstance(report, dict) else None
    if not isinstance(results, list):
        raise UsageError(f"{name}:1:1: not a verify report (no 'results' list); write one with `flowui-sandbox verify --json FILE`")
    table: dict[tuple[str, str], str] = {}
    for i, r in enumerate(results):
        if not (isinstance(r, dict) and all(isinstance(r.get(k), str) for k in ("probe", "engine", "status"))):
            raise UsageError(f"{name}:1:1: results[{i}] has no probe, engine and status strings; not a verify report")
        table[(r["probe"], r["engine"])] = r["status"]
    return table


def compare(before: Any, after: Any, *, names: tuple[str, str] = ("before", "after")) -> Comparison:
    """Compare two parsed verify reports (``json.load`` of ``verify --json``) probe by probe."""
    old, new = outcomes(before, names[0]), outcomes(after, names[1])
    result = Comparison()
    for key in sorted(old.keys() | new.keys()):
        if key not in new:
            result.only_before.append(key)
        elif key not in old:
            result.only_after.append(key)
        elif old[key] == new[key]:
            result.same.append((*key, old[key]))
        else:
            result.changed.append((*key, old[key], new[key]))
    return result


def compare_files(before: str, after: str) -> Comparison:
    """:func:`compare` of two report files; an unreadable or malformed file is a located UsageError."""
    return compare(read_json(before, limit=MAX_REPORT_BYTES, max_depth=MAX_REPORT_DEPTH),
                   read_json(after, limit=MAX_REPORT_BYTES, max_depth=MAX_REPORT_DEPTH), names=(before, after))


__all__ = ["Comparison", "compare", "compare_files", "outcomes"]
