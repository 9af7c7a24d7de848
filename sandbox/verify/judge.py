"""The judge: pure functions from what a run showed to its status, and from a status and the
probe's expectation to the verdict. No page, no server, no clock: unit-tested on hand-made
observations (tests/test_verify_judge.py).

A run's *status* says what happened to the attack (``blocked``, ``allowed``, ``timeout``,
``invalid``, ``error``, ``n/a``); its *verdict* says whether that is what the probe expects on
this engine (``held``, ``allowed``, ``UNEXPECTED``, ``n/a``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .observation import ALWAYS, ProbeObservation, describe, fired
from .probes import Expect

Status = Literal["blocked", "allowed", "timeout", "invalid", "error", "n/a"]
Verdict = Literal["held", "allowed", "UNEXPECTED", "n/a"]


@dataclass(frozen=True)
class RunOutcome:
    """A run's status, the evidence for it, and why when the run did not exercise the probe."""

    status: Status
    evidence: tuple[str, ...] = ()
    why: str = ""


def outcome_of(seen: ProbeObservation) -> RunOutcome:
    """The status of a run that reached its observation. Any detection that fired (the probe's
    own, or one made for every probe: :data:`.observation.ALWAYS`) is an attack that got through;
    else a host page that did not answer is a timeout; else a requirement that did not fire
    (the block's ``alive`` beacon by default) or a click that could not happen means the probe did
    not run as designed; else the attack was blocked."""
    probe = seen.probe
    evidence = tuple(dict.fromkeys(hit for obs in (*probe.detect, *ALWAYS) if (hit := fired(obs, seen))))
    if evidence:
        return RunOutcome("allowed", evidence)
    if not seen.host_alive:
        return RunOutcome("timeout", (f"the host page did not answer: {seen.host_unanswered}",))
    missing = [describe(obs, seen.values) for obs in probe.require if not fired(obs, seen)]
    if seen.click_error:
        missing.append(f"the click on {probe.click!r} failed: {seen.click_error}")
    if missing:
        return RunOutcome("invalid", why="the probe did not run as designed: missing " + "; ".join(missing))
    return RunOutcome("blocked")


def verdict_of(status: str, expected: Expect, generator_problems: list[str] | tuple[str, ...] = ()) -> Verdict:
    """Whether ``status`` is what the probe expects on this engine. A generator whose output
    breaks the fixed policy (``generator_problems``) is UNEXPECTED whatever the browser did."""
    if status == "n/a":
        return "n/a"
    if generator_problems or status != expected.outcome:
        return "UNEXPECTED"
    return "held" if status == "blocked" else "allowed"


def reason_of(status: str, expected: Expect, generator_problems: list[str] | tuple[str, ...] = (), why: str = "") -> str:
    """The verdict's reason in a sentence."""
    if status in ("error", "invalid", "n/a"):
        return why or status
    parts = []
    if generator_problems:
        parts.append("generator output: " + "; ".join(generator_problems))
    if status != expected.outcome:
        parts.append(f"expected {expected.outcome}, observed {status}")
    elif expected.why:
        parts.append(expected.why)
    return "; ".join(parts)


__all__ = ["RunOutcome", "Status", "Verdict", "outcome_of", "verdict_of", "reason_of"]
