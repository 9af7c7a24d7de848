"""What a verify run produces: one frozen :class:`Result` per (probe, engine), concluded by
:func:`conclude` from the run's status and the probe's expectation (:mod:`.judge`), and one
:class:`EngineRun` per engine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .judge import reason_of, verdict_of
from .probes import Expect


@dataclass(frozen=True)
class Result:
    """A probe's run on one engine, judged. Frozen: what the harness learns after the verdict
    (the browser it ran on, earlier attempts) is added by :meth:`noting`, which cannot change it."""

    probe: str
    engine: str
    status: str  # blocked | allowed | timeout | invalid | error | n/a
    expected: Expect
    verdict: str  # held | allowed | UNEXPECTED | n/a
    reason: str
    evidence: list[str] = field(default_factory=list)
    #: The run's record for the report: what the harness saw and did (JSON).
    observed: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def noting(self, **more: Any) -> Result:
        """This result with ``more`` added to its record (the verdict stays)."""
        return replace(self, observed={**self.observed, **more})

    def to_json(self) -> dict[str, Any]:
        return {
            "probe": self.probe, "engine": self.engine, "status": self.status, "verdict": self.verdict,
            "expected": self.expected.model_dump(), "reason": self.reason, "evidence": self.evidence,
            "observed": self.observed, "seconds": round(self.seconds, 2),
        }


def conclude(probe: str, engine: str, status: str, expected: Expect, *, evidence: list[str] | tuple[str, ...] = (),
             observed: dict[str, Any] | None = None, seconds: float = 0.0) -> Result:
    """The :class:`Result` of a run that ended in ``status``: its verdict and reason from the judge
    (``observed`` gives ``generator_problems`` and ``why``; it is copied)."""
    record = dict(observed or {})
    problems = record.get("generator_problems", [])
    return Result(probe, engine, status, expected, verdict_of(status, expected, problems),
                  reason_of(status, expected, problems, record.get("why", "")), list(evidence), record, seconds)


@dataclass
class EngineRun:
    engine: str
    results: list[Result]
    error: str = ""
    seconds: float = 0.0
    #: Remote runs: each browser's URL, how many probes it ran, and why it was lost if it was.
    browsers: list[dict[str, Any]] = field(default_factory=list)


Progress = Callable[[Result, int, int], None]


__all__ = ["Result", "EngineRun", "Progress", "conclude"]
