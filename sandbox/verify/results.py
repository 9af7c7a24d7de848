"""What a verify run produces: one :class:`Result` per (probe, engine), judged against the
probe's expectation, and one :class:`EngineRun` per engine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .probes import Expect


@dataclass
class Result:
    probe: str
    engine: str
    status: str  # blocked | allowed | timeout | invalid | error | n/a
    expected: Expect
    verdict: str = ""  # held | allowed | UNEXPECTED | n/a
    reason: str = ""
    evidence: list[str] = field(default_factory=list)
    observed: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if not self.verdict:
            self.verdict = judge(self.status, self.expected, self.observed.get("generator_problems", []))
        if not self.reason:
            self.reason = explain(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "probe": self.probe, "engine": self.engine, "status": self.status, "verdict": self.verdict,
            "expected": self.expected.model_dump(), "reason": self.reason, "evidence": self.evidence,
            "observed": self.observed, "seconds": round(self.seconds, 2),
        }


def judge(status: str, expected: Expect, generator_problems: list[str]) -> str:
    if status == "n/a":
        return "n/a"
    if generator_problems or status != expected.outcome:
        return "UNEXPECTED"
    return "held" if status == "blocked" else "allowed"


def explain(result: Result) -> str:
    problems = result.observed.get("generator_problems", [])
    if result.status in ("error", "invalid", "n/a"):
        return result.observed.get("why", result.status)
    parts = []
    if problems:
        parts.append("generator output: " + "; ".join(problems))
    if result.status != result.expected.outcome:
        parts.append(f"expected {result.expected.outcome}, observed {result.status}")
    elif result.expected.why:
        parts.append(result.expected.why)
    return "; ".join(parts)


@dataclass
class EngineRun:
    engine: str
    results: list[Result]
    error: str = ""
    seconds: float = 0.0
    #: Remote runs: each browser's URL, how many probes it ran, and why it was lost if it was.
    browsers: list[dict[str, Any]] = field(default_factory=list)


Progress = Callable[[Result, int, int], None]


__all__ = ["Result", "EngineRun", "Progress", "judge", "explain"]
