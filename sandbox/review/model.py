"""The typed report of ``flowui-sandbox review`` (pydantic v2).

The JSON form of :class:`ReviewReport` is the ``--format json`` output; its JSON Schema is
committed as ``report.schema.json`` (tests/test_review_report.py fails when it is stale).
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .catalogue import Severity, rule

Layer = Literal["static", "browser"]


class Finding(BaseModel):
    """One thing the review found, at a 1-based line and column of the author's source."""

    model_config = ConfigDict(extra="forbid")

    rule: str
    severity: Severity
    message: str
    file: str
    line: int = Field(ge=1)
    column: int = Field(ge=1)
    layer: Layer
    #: Browser engines that saw it (empty for a static finding).
    engines: list[str] = []
    #: State paths involved (read, leaked, written).
    paths: list[str] = []
    #: Hosts involved (contacted, opened).
    hosts: list[str] = []
    evidence: dict[str, Any] = {}
    #: Stable across edits that do not touch the finding: rule + file + normalised context, no line numbers.
    fingerprint: str

    @classmethod
    def make(cls, rule_id: str, message: str, *, file: str, line: int, column: int, layer: Layer = "static",
             context: str = "", engines: list[str] | None = None, paths: list[str] | None = None,
             hosts: list[str] | None = None, evidence: dict[str, Any] | None = None) -> Finding:
        """A finding of catalogue rule ``rule_id`` (its severity comes from the catalogue).

        ``context`` is what identifies the finding apart from its position (the code or
        markup involved, whitespace-normalised by :func:`fingerprint_of`)."""
        return cls(rule=rule_id, severity=rule(rule_id).severity, message=message, file=file, line=line,
                   column=column, layer=layer, engines=list(engines or []), paths=list(paths or []),
                   hosts=list(hosts or []), evidence=dict(evidence or {}),
                   fingerprint=fingerprint_of(rule_id, file, context or message))


def fingerprint_of(rule_id: str, file: str, context: str) -> str:
    """sha256 of rule, file name and the context with whitespace collapsed; 32 hex digits."""
    normal = " ".join(context.split())
    return hashlib.sha256(f"{rule_id}\0{file}\0{normal}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


class BlockInput(BaseModel):
    """One block to review, with what the platform mounts it with."""

    file: str
    source: str
    fields: list[str] = []
    state: dict[str, Any] = {}
    theme: dict[str, Any] | None = None


class BrowserResult(BaseModel):
    """What the in-browser layer saw of one block (the judge, sandbox/review/browser/judge.py, fills it)."""

    file: str
    #: The engines that reviewed the block (an engine that failed has its line in ``errors`` too).
    engines: list[str] = []
    findings: list[Finding] = []
    #: Requests that left the block: {"engine", "url", "host", "kind", "paths", ...}.
    requests: list[dict[str, Any]] = []
    #: Bridge messages the host received: {"engine", "type", "action" | "path" | "url", ...}.
    bridge: list[dict[str, Any]] = []
    navigations: list[dict[str, Any]] = []
    popups: list[dict[str, Any]] = []
    dialogs: list[dict[str, Any]] = []
    #: engine -> "light" / "dark" -> PNG as base64.
    screenshots: dict[str, dict[str, str]] = {}
    #: Engines where the block hit the per-block time limit.
    timed_out: list[str] = []
    errors: list[dict[str, Any]] = []
    #: The differential review per engine (docs/REVIEW-BROWSER.md): {"engine", "runs", "seconds", "leaks", "unstable", ...}.
    differential: list[dict[str, Any]] = []


class Leak(BaseModel):
    """A state path that leaves the block, and where to."""

    path: str
    hosts: list[str] = []
    #: The sinks it reaches (img.src, css url(), location, openUrl, ...).
    sinks: list[str] = []


class BridgeCall(BaseModel):
    """A bridge call in the source: send (action), setValue (path) or openUrl (url or host)."""

    kind: Literal["send", "setValue", "openUrl"]
    target: str
    line: int
    column: int
    dynamic: bool = False
    paths: list[str] = []


class Projection(BaseModel):
    """Paths the block receives (fields ∪ markup paths) against what it reads."""

    fields: list[str] = []
    markup: list[str] = []
    received: list[str] = []
    read: list[str] = []
    unread_fields: list[str] = []
    unprojected_reads: list[str] = []
    sensitive: list[str] = []


class Summary(BaseModel):
    hosts: list[str] = []
    leaks: list[Leak] = []
    bridge: list[BridgeCall] = []
    projection: Projection = Projection()
    counts: dict[str, int] = {}


class BlockReport(BaseModel):
    file: str
    findings: list[Finding] = []
    summary: Summary = Summary()
    #: The in-browser layer's observations (None when it did not run).
    browser: BrowserResult | None = None


class ReviewReport(BaseModel):
    tool: str = "flowui-sandbox review"
    version: str
    engines: list[str] = []
    static_only: bool = True
    fail_on: Literal["high", "medium", "low", "none"] = "high"
    blocks: list[BlockReport] = []
    #: Findings suppressed by the baseline: fingerprint -> justification.
    suppressed: dict[str, str] = {}

    def findings(self) -> list[Finding]:
        return [f for b in self.blocks for f in b.findings]


__all__ = ["Finding", "BlockInput", "BrowserResult", "BlockReport", "ReviewReport", "Summary", "Leak",
           "BridgeCall", "Projection", "Severity", "fingerprint_of"]
