"""What one engine saw of one block, frozen: the only input of the review's judge (:mod:`.judge`).

The lane records a block's review in a mutable :class:`.run.Recording` while it runs; once the
block's log is closed (the lane's end: a page dropped with its proxy logs until the proxy stops,
and what it logs is the block's), :meth:`.run.Recording.freeze` makes one :class:`BlockObservation`
of it: tuples for lists, read-only mappings for dicts, frozen records for the host page's answer
(:class:`HostReport`), the canaries (:class:`.canaries.CanaryTable`), the requests
(:class:`.proxy.Seen`) and the differential review (:class:`DifferentialOutcome`). JSON the block
handed to the host (a payload, a value) is kept frozen too (:func:`frozen_json`); the judge turns
it back into plain JSON (:func:`plain_json`) for the report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .canaries import CanaryTable
from .proxy import Seen


def frozen_json(value: Any) -> Any:
    """``value`` (JSON: dicts, lists, scalars) with every dict a read-only mapping and every list a tuple."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: frozen_json(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(frozen_json(v) for v in value)
    return value


def plain_json(value: Any) -> Any:
    """The inverse of :func:`frozen_json`: dicts and lists again (what the report holds)."""
    if isinstance(value, Mapping):
        return {k: plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    return value


def _mapping(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return value if isinstance(value, MappingProxyType) else MappingProxyType(dict(value))


# ------------------------------------------------------------------------ the host page's answer


@dataclass(frozen=True, slots=True)
class BridgeSend:
    """A ``send(action, payload)`` the host received (both as the block sent them, frozen JSON)."""

    action: Any
    payload: Any = None


@dataclass(frozen=True, slots=True)
class BridgeWrite:
    """A ``setValue(path, value)`` the host received (both as the block sent them, frozen JSON)."""

    path: Any
    value: Any = None


@dataclass(frozen=True, slots=True)
class HostLogEntry:
    """One entry of the host module's log (``code``: not-a-field, csp-violation, block-error, ...)."""

    code: str
    message: str
    detail: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "detail", frozen_json(self.detail))


@dataclass(frozen=True, slots=True)
class HostReport:
    """The review's host page's last answer (``window.__review``, read by ``hostpage.READ``)."""

    #: Whether the host page answered at all (the block's frame may never have been mounted).
    answered: bool = False
    #: The block's handle: ``connected``, ``navigated``, ``unmounted``...; None when not said.
    status: str | None = None
    #: How the connection went: ``connected``, ``not connected within 5 s``, or "" before it is known.
    connected: str = ""
    #: Loads of the block's frame (more than one: it navigated).
    loads: int = 0
    #: The host page's longest main-thread gap (ms), the clock's leaps excluded.
    max_gap: int | float = 0
    sends: tuple[BridgeSend, ...] = ()
    writes: tuple[BridgeWrite, ...] = ()
    #: ``openUrl`` targets.
    opens: tuple[str, ...] = ()
    #: ``openUrl`` targets the host refused for want of the user's activation (:func:`refused_opens`).
    refused: tuple[str, ...] = ()
    log: tuple[HostLogEntry, ...] = ()
    #: The block frame's heights, as the host page saw them change.
    heights: tuple[Any, ...] = ()
    #: The host page's own errors (mounting the block).
    errors: tuple[Any, ...] = ()

    @classmethod
    def of(cls, raw: Mapping[str, Any] | None) -> HostReport:
        """The record of ``raw``, the host page's answer as JSON ({} or None: no answer)."""
        if not raw:
            return cls()
        return cls(
            answered=True,
            status=raw.get("status"),
            connected=raw.get("connected") or "",
            loads=raw.get("loads", 0),
            max_gap=raw.get("maxGap", 0),
            sends=tuple(BridgeSend(frozen_json(a.get("action")), frozen_json(a.get("payload"))) for a in _entries(raw, "actions")),
            writes=tuple(BridgeWrite(frozen_json(v.get("path")), frozen_json(v.get("value"))) for v in _entries(raw, "values")),
            opens=tuple(str(u.get("url", "")) for u in _entries(raw, "urls")),
            refused=refused_opens(raw),
            log=tuple(HostLogEntry(e.get("code", ""), str(e.get("message", "")), e.get("detail") or {}) for e in _entries(raw, "log")),
            heights=frozen_json(raw.get("heights") or ()),
            errors=frozen_json(raw.get("errors") or ()),
        )


def _entries(raw: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [e for e in raw.get(key) or () if isinstance(e, Mapping)]


def refused_opens(raw: Mapping[str, Any]) -> tuple[str, ...]:
    """The ``openUrl`` targets of a host page's answer that the host refused because the user's
    activation was not (or no longer) the block's (``no-gesture``, logged with its URL), each once
    and none it also opened. The block asked for them all the same: the host judges the activation
    when the request arrives, and on a loaded machine the simulated user's pointer can have moved
    on by then (WebKitGTK, the corpus's first pass), so the judge and the differential review
    count them as targets."""
    opened = {str(u.get("url", "")) for u in _entries(raw, "urls")}
    urls = (e.get("detail", {}).get("url") for e in _entries(raw, "log")
            if e.get("code") == "no-gesture" and isinstance(e.get("detail"), Mapping))
    return tuple(dict.fromkeys(u for u in urls if isinstance(u, str) and u not in opened))


# ------------------------------------------------------------------------ the differential review


@dataclass(frozen=True, slots=True)
class DifferentialLeak:
    """Something that went out of the frame and changed with the data (:mod:`.differential`):
    ``kind`` (request, connect, navigate, openUrl, order) to ``host``, following ``inputs``
    (state paths or typed fields; ``(unattributed)`` when no single input explains it)."""

    kind: str
    host: str
    inputs: tuple[str, ...]
    example: str

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "host": self.host, "inputs": list(self.inputs), "example": self.example}


@dataclass(frozen=True, slots=True)
class Instability:
    """The block behaving differently between runs for no input: ``what`` happened, on (``kind``, ``host``)."""

    what: str
    kind: str
    host: str
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"what": self.what, "kind": self.kind, "host": self.host, "text": self.text}


@dataclass(frozen=True, slots=True)
class RunActions:
    """What the simulated user did in two runs of one block, the first and a later one, each action
    with its failure if it failed."""

    first: tuple[str, ...]
    then: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"first": list(self.first), "then": list(self.then)}


@dataclass(frozen=True, slots=True)
class DifferentialOutcome:
    """The differential review of one block in one engine: runs made, confirmed leaks, instability."""

    runs: int = 1
    leaks: tuple[DifferentialLeak, ...] = ()
    unstable: tuple[Instability, ...] = ()
    #: The (kind:host) keys ``B`` deviated on; None when the review stopped before comparing.
    deviation: tuple[str, ...] | None = None
    #: The keys ``B2`` confirmed; None when there was nothing to confirm.
    confirmed: tuple[str, ...] | None = None
    #: The user's actions when a later run's went differently than the first's (the first ten of each).
    unsure: RunActions | None = None
    #: Why the review stopped early ("timed out", "page lost", an error), "" when it did not.
    stopped: str = ""
    seconds: float = 0.0
    #: The user's actions in ``A`` and ``A2`` (the runs with the same data) when :attr:`unstable` is
    #: not empty: what tells the block's behaviour from a click that went otherwise.
    unstable_actions: RunActions | None = None

    def as_dict(self) -> dict[str, Any]:
        """The report's form (``BrowserResult.differential`` without the engine)."""
        out: dict[str, Any] = {"runs": self.runs, "leaks": [leak.as_dict() for leak in self.leaks],
                               "unstable": [u.as_dict() for u in self.unstable]}
        if self.unsure is not None:
            out["unsure"] = {"what": "the user's actions went differently", **self.unsure.as_dict()}
        if self.deviation is not None:
            out["deviation"] = list(self.deviation)
        if self.confirmed is not None:
            out["confirmed"] = list(self.confirmed)
        if self.stopped:
            out["stopped"] = self.stopped
        if self.unstable_actions is not None:
            out["unstable_actions"] = self.unstable_actions.as_dict()
        out["seconds"] = self.seconds
        return out


# ------------------------------------------------------------------------ one block in one engine


@dataclass(frozen=True, slots=True)
class BlockObservation:
    """What one engine saw of one block, frozen."""

    engine: str
    #: The canaries of the block's (first) run: value -> the path or field it stands for.
    canaries: CanaryTable = field(default_factory=CanaryTable)
    #: What the block's page sent out, as the slot's proxy logged it (the host's own origin included).
    requests: tuple[Seen, ...] = ()
    #: CONNECT targets (host:port), with or without a request in them.
    tunnels: tuple[str, ...] = ()
    #: Requests counted but not kept (a flood past ``proxy.MAX_KEPT``).
    dropped: int = 0
    host: HostReport = field(default_factory=HostReport)
    #: The page's events (verify's watch): "top: URL", "frame: URL", "nested: URL".
    navigations: tuple[str, ...] = ()
    popups: tuple[str, ...] = ()
    dialogs: tuple[str, ...] = ()
    downloads: tuple[str, ...] = ()
    #: "light" / "dark" -> PNG as base64.
    screenshots: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: What the harness did as a user, in order ("click <button> #0", "scroll, blur", "... failed: ...").
    actions: tuple[str, ...] = ()
    timed_out: bool = False
    error: str = ""
    #: The host page's URL (under the slot's host name): its own load is no navigation of the host page.
    page: str = ""
    #: Seconds at the end of each step (and notes: "watchdog", "still sending"), for bench/review_browser.py
    #: and for a timeout's evidence.
    steps: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    seconds: float = 0.0
    #: The differential review, when the block was reviewed again (:mod:`.differential`).
    differential: DifferentialOutcome | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "screenshots", _mapping(self.screenshots))
        object.__setattr__(self, "steps", MappingProxyType({k: frozen_json(v) for k, v in self.steps.items()}))

    @property
    def navigation(self) -> str | None:
        """Where the block's frame navigated to (:func:`navigation_target`), None when it did not."""
        return navigation_target(self.requests, self.navigations)


def navigation_target(seen: Sequence[Seen], navigations: Sequence[str]) -> str | None:
    """Where the block's frame navigated to, seen from outside: a document request at the proxy,
    or a navigation of the host page's child frame away from its srcdoc; None when neither."""
    requests = [s for s in seen if s.headers.get("Sec-Fetch-Dest") in ("document", "iframe")]
    if requests:
        return requests[0].url
    return next((n[len("frame: "):] for n in navigations
                 if n.startswith("frame:") and "about:srcdoc" not in n and "about:blank" not in n), None)


__all__ = [
    "BlockObservation", "HostReport", "BridgeSend", "BridgeWrite", "HostLogEntry", "DifferentialOutcome",
    "DifferentialLeak", "Instability", "RunActions", "navigation_target", "frozen_json", "plain_json",
]
