"""Observation: what the harness looks at from outside a block, and when an observation fired.

A run's observation is a frozen :class:`ProbeObservation`, taken by :func:`take` from the live
run: the servers' logs and taps, the page's watch (events), and what the host page and the
block's frames answered when read once, after the window. Each kind of observation
(sandbox.verify.probes: request, leak, host, frame, the browser events, tap, unresponsive) has
one check in :data:`CHECKS`, keyed by its ``kind``; a check reads the observation and nothing
else, and returns a sentence (the evidence) when its observation fired, else ''.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engines import Page
from ..harness.server import LoggedRequest
from .host_page import FRAME
from .probes import SECRETS, Event, FrameCheck, HostCheck, Leak, Observation, Probe, RequestSeen, render
from .servers import HOST_COOKIES, Servers, TapEvent, Taps, cookie_value

#: Observations made for every probe: any of these is an attack that got through.
ALWAYS: tuple[Observation, ...] = (
    Event(kind="popup"),
    Event(kind="dialog"),
    Event(kind="download"),
    Event(kind="top_navigated"),
    HostCheck(
        kind="host",
        what="host page intact (title, secret element, no marker planted)",
        script="() => { const h = window.__host; const bad = [];"
        " if (document.title !== h.title) bad.push('title is ' + JSON.stringify(document.title));"
        " const s = document.getElementById('secret'); if (!s || s.textContent !== h.dom) bad.push('secret element changed');"
        " if (window.__pwned !== undefined || document.body.dataset.pwned !== undefined) bad.push('marker planted');"
        " return bad.join('; '); }",
    ),
    Leak(kind="leak", secrets=list(SECRETS)),
)

#: Kinds whose check needs no call into the page (server logs, taps, events already recorded):
#: cheap enough to ask during the observation window, to end it once an attack got through.
LIVE_KINDS = frozenset({"request", "leak", "tap", "popup", "dialog", "download", "top_navigated"})


@dataclass(frozen=True)
class ProbeObservation:
    """What one run of a probe showed, frozen: the only input of the checks and of the judge
    (:mod:`.judge`). :func:`take` makes one from the live run."""

    probe: Probe
    values: Mapping[str, str]
    token: str
    #: The host page's URL of the run (top-level navigations away from it are events).
    url: str
    #: Every request the run's origins logged (other runs' too: the checks match this run's token), with the origin's label.
    requests: tuple[tuple[str, LoggedRequest], ...] = ()
    taps: tuple[TapEvent, ...] = ()
    popups: tuple[str, ...] = ()
    dialogs: tuple[str, ...] = ()
    downloads: tuple[str, ...] = ()
    #: The page's top-level navigations away from :attr:`url` (the harness's own loads excluded).
    left: tuple[str, ...] = ()
    #: Whether the driver reports downloads as events; if not, an attachment request of the run stands in for one.
    reports_downloads: bool = True
    #: The host page's answer (:func:`read_host`); empty when it did not answer (or was not read yet).
    host: Mapping[str, Any] = field(default_factory=dict)
    host_alive: bool = True
    #: Why the host page did not answer, when it did not.
    host_unanswered: str = ""
    #: Block index -> the frame's answer (:func:`read_frames`).
    frames: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    #: The click the probe needs, when it could not happen.
    click_error: str = ""

    @property
    def host_checks(self) -> list[HostCheck]:
        return host_checks(self.probe)


def take(probe: Probe, values: Mapping[str, str], token: str, url: str, servers: Servers, taps: Taps, page: Page,
         **read: Any) -> ProbeObservation:
    """The run as it stands now: the servers' logs, the taps and the page's watch copied, plus
    what was ``read`` from the page (``host``, ``host_alive``, ``host_unanswered``, ``frames``,
    ``click_error``: :class:`ProbeObservation`'s fields)."""
    watch = page.watching
    return ProbeObservation(
        probe, dict(values), token, url,
        requests=tuple((origin.label, r) for origin in servers.origins for r in origin.requests),
        taps=tuple(taps.events),
        popups=tuple(watch.popups), dialogs=tuple(watch.dialogs), downloads=tuple(watch.downloads),
        left=tuple(page.left(url)), reports_downloads=page.reports_downloads, **read,
    )


def host_checks(probe: Probe) -> list[HostCheck]:
    """The host-page checks of a run, in the order :func:`read_host` answers them."""
    return [o for o in (*probe.detect, *ALWAYS, *probe.require) if isinstance(o, HostCheck)]


def frame_checks(probe: Probe) -> dict[int, list[FrameCheck]]:
    """Block index -> its frame checks, in the order :func:`read_frames` answers them (block 0 always read)."""
    wanted: dict[int, list[FrameCheck]] = {0: []}
    for obs in (*probe.detect, *probe.require):
        if isinstance(obs, FrameCheck):
            wanted.setdefault(obs.block, []).append(obs)
    return wanted


def request_line(label: str, r) -> str:
    cookies = f" cookies={','.join(sorted(r.cookies))}" if r.cookies else ""
    query = f"?{r.query}" if r.query else ""
    # What a server could check to refuse a cross-site request.
    extra = "".join(f" {h}={r.headers[h]}" for h in ("Origin", "Sec-Fetch-Site") if h in r.headers and r.path.startswith("/api/"))
    return f"{label} {r.method} {r.path}{query}{cookies}{extra}"[:400]


# ------------------------------------------------------------------------ the checks


def _request(obs: RequestSeen, seen: ProbeObservation) -> str:
    path = render(obs.path, dict(seen.values))
    hits = [
        request_line(label, r)
        for label, r in seen.requests if obs.server in ("any", label)
        if path in f"{r.path}?{r.query}" and (not obs.cookies or set(obs.cookies) & set(r.cookies))
    ]
    return (f"request seen: {hits[0]}" + (f" (+{len(hits) - 1} more)" if len(hits) > 1 else "")) if hits else ""


def _leak(obs: Leak, seen: ProbeObservation) -> str:
    values, token = seen.values, seen.token
    wanted: dict[str, list[str]] = {}
    for s in obs.secrets:
        if s == "cookie":
            wanted[s] = [cookie_value(n, token) for n in HOST_COOKIES]
        elif values.get(f"secret_{s}"):
            wanted[s] = [values[f"secret_{s}"]]
    for label, r in seen.requests:
        headers = "\n".join(f"{k}: {v}" for k, v in r.headers.items() if k.lower() not in ("cookie", "origin", "host"))
        text = f"{r.path}?{r.query}\n{r.body.decode('utf-8', 'replace')}"
        if token not in text and token not in headers:
            continue
        for name, secret_values in wanted.items():
            # The host's origin is no secret in headers (Origin, Referer of the host's own requests).
            hay = text if name == "host_origin" else f"{text}\n{headers}"
            if any(v in hay for v in secret_values):
                return f"secret {name} leaked to {label}: {request_line(label, r)}"
    return ""


def _host(obs: HostCheck, seen: ProbeObservation) -> str:
    if not seen.host_alive or "checks" not in seen.host:
        return ""
    value = seen.host["checks"][seen.host_checks.index(obs)]
    return f"{obs.what}: {value}" if value else ""


def _frame(obs: FrameCheck, seen: ProbeObservation) -> str:
    frame = seen.frames.get(obs.block) or {}
    if not frame.get("checks"):
        return ""
    value = frame["checks"][frame_checks(seen.probe)[obs.block].index(obs)]
    return f"{obs.what}: {value}" if value else ""


def _event(obs: Event, seen: ProbeObservation) -> str:
    hits: tuple[str, ...] | list[str]
    if obs.kind == "top_navigated":
        hits = seen.left
    elif obs.kind == "download" and not seen.reports_downloads:
        # No download events from this driver: an attachment request of this run stands in for one.
        hits = [request_line(label, r) for label, r in seen.requests if r.path.startswith("/dl/") and seen.token in r.path]
    else:
        hits = {"popup": seen.popups, "dialog": seen.dialogs, "download": seen.downloads}[obs.kind]
    return f"{obs.kind}: {hits[0]}" if hits else ""


def _tap(obs, seen: ProbeObservation) -> str:
    hits = [e for e in seen.taps if e.kind == obs.proto]
    return f"{obs.proto} tap reached {len(hits)} time(s), first from {hits[0].peer}" if hits else ""


def _unresponsive(obs, seen: ProbeObservation) -> str:
    if not seen.host_alive:
        return f"the host page did not answer: {seen.host_unanswered}"
    gap = seen.host.get("maxGap") or 0
    return f"the host's 50 ms timer stalled for {round(gap)} ms" if gap > obs.max_gap_ms else ""


#: One check per kind of observation.
CHECKS: dict[str, Callable[[Any, ProbeObservation], str]] = {
    "request": _request, "leak": _leak, "host": _host, "frame": _frame,
    "popup": _event, "dialog": _event, "download": _event, "top_navigated": _event,
    "tap": _tap, "unresponsive": _unresponsive,
}


def fired(obs: Observation, seen: ProbeObservation) -> str:
    """Evidence (a sentence) when ``obs`` fired, else ''."""
    return CHECKS[obs.kind](obs, seen)


def describe(obs: Observation, values: Mapping[str, str]) -> str:
    """What a requirement that did not fire was waiting for."""
    if isinstance(obs, RequestSeen):
        return f"a request to {obs.server} matching {render(obs.path, dict(values))!r}"
    if isinstance(obs, (HostCheck, FrameCheck)):
        return obs.what
    return obs.kind


# ------------------------------------------------------------------ reading the page


async def read_host(page: Page, checks: list[HostCheck], values: dict[str, str]) -> dict[str, Any] | str:
    """Everything the host page holds, in one call: a busy page answers once, not ten times."""
    funcs = ",".join(f"({render(c.script, values)})" for c in checks)
    script = (
        "() => { const h = window.__host; if (!h) return {nonce: null};"
        " const out = {nonce: h.nonce, log: h.log, errors: h.errors, messages: h.messages, maxGap: h.maxGap, checks: []};"
        f" for (const f of [{funcs}]) {{ try {{ out.checks.push(f() || ''); }} catch (e) {{ out.checks.push('check failed: ' + e); }} }}"
        " return out; }"
    )
    try:
        return await page.evaluate(script, timeout=8)
    except Exception as exc:  # a busy page (EngineError) or one that is gone (closed by its block)
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


#: Seconds a frame with checks to answer has to answer them (a busy machine stretches a read).
FRAME_READ_TIMEOUT = 6.0
#: Seconds for block 0's own report alone (what its attack threw: evidence, never a verdict). A frame
#: whose document was replaced (``document.open()``) leaves the driver's call waiting for its whole
#: timeout: with 6 s, five host.base_uri_* probes spent 6 s each after their window in Chromium and Firefox.
REPORT_READ_TIMEOUT = 1.5


async def read_frames(page: Page, probe: Probe, values: dict[str, str]) -> dict[int, dict[str, Any]]:
    """The blocks' own reports and the frame checks, read by the harness from inside each frame."""
    out: dict[int, dict[str, Any]] = {}
    for i, checks in frame_checks(probe).items():
        funcs = ",".join(f"({render(c.script, values)})" for c in checks)
        script = (
            "() => { const out = {report: window.__probe === undefined ? null : window.__probe, checks: []};"
            f" for (const f of [{funcs}]) {{ try {{ out.checks.push(f() || ''); }} catch (e) {{ out.checks.push(''); }} }}"
            " return out; }"
        )
        try:
            answer = await page.evaluate(script, frame=FRAME.format(i=i), timeout=FRAME_READ_TIMEOUT if checks else REPORT_READ_TIMEOUT)
        except Exception as exc:
            answer = f"(unreadable: {type(exc).__name__})"
        # Anything but the script's object (a frame whose document changed under the call) is unreadable too.
        out[i] = answer if isinstance(answer, dict) else {"report": answer if isinstance(answer, str) else "(unreadable: no answer)", "checks": None}
    return out


__all__ = [
    "ALWAYS", "CHECKS", "LIVE_KINDS", "ProbeObservation", "take", "fired", "describe", "read_host", "read_frames", "request_line",
    "host_checks", "frame_checks",
]
