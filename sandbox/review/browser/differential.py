"""Differential leak detection: what leaves the frame, compared between runs with different data.

A block is reviewed once (run ``A``). When what it sent out of its frame is not all explained by
the fast path (a canary found in it, :meth:`.canaries.Canaries.find`), it is reviewed again, on the
same page, with the same actions:

* ``B``: every input different (other state values and other typed text, of the same shapes);
* ``A2``: the same data as ``A`` again (the same seed), after ``B``.

Each run's outbound events (:func:`events`: requests to outside hosts, host names connected to,
navigations of the frame, ``openUrl`` targets, ``send`` payloads, ``setValue`` values) are split
into tokens. ``A`` and ``A2`` are paired event by event; the token positions where they differ are
noise (``Math.random()``, ``Date.now()``: a wildcard in the pair's template), and an event of one
without a partner in the other is the block behaving differently with the same data
(``unstable``; such an event sent again as it was is no evidence). ``B`` is matched against the templates: a ``B`` event no template matches, or a
template no ``B`` event matches, changed with the data and carries it, however it was split or
encoded (per key, per character, hashed, base64, in the path, the host name, the request count).
Requests in a different order with the same multiset are data too when ``A`` and ``A2`` agree on
their order; only requests that reached the proxy at least :data:`ORDER_GAP` apart are ordered (a
burst, such as a page's images, arrives in the order the network race ends, not one the script
chose). ``B2`` (``B``'s data again) confirms a deviation: it must deviate from ``A``'s templates on
the same (kind, host) as ``B`` did (for the order: into the very same order), so a one-off race is
not a leak.

Which input it follows: runs ``C[x]`` with ``A``'s data except input ``x`` (a state path or a
typed field), which takes ``B``'s value; ``x`` carries the leak when ``C[x]`` deviates on the same
(kind, host). :data:`MAX_ATTRIBUTION` inputs are tried one by one; the rest together.

Time runs between ``A``, ``B`` and ``A2`` in that order, so a coarse timestamp equal in ``A`` and
``A2`` is equal in ``B`` too.

A run's record may be cut (:class:`Log`): a flood (more requests than the flood rule's
:data:`.proxy.FLOOD`: which of them reach the proxy before the review ends is the network's race,
and past :data:`MAX_EVENTS` they are not compared), a bridge list at the host page's cap. An event
of a cut kind missing from that run may have been sent past the cut, so its absence is no
evidence. Where ``A`` or ``A2`` is cut, that kind's count is the race's in both (a flood whose
repeat with the same data reached the proxy slower, and was not cut), so its events without a
partner are neither unstable nor a deviation, and no order is compared. What the
same-data runs show whole still counts: a request count that grows with the data cuts ``B``'s
log, not the baseline's, and ``B``'s requests that no template matches are data.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..urls import host_of, without_port
from .hostpage import MAX_ITEMS
from .observation import refused_opens
from .proxy import HOST_ORIGIN, Seen, flooded

#: Inputs tried one at a time to say which one a leak follows; the rest are tried together.
MAX_ATTRIBUTION = 6
#: Requests compared per run (more than :data:`.proxy.FLOOD` is a flood: the run's requests are cut).
MAX_EVENTS = 300
#: Seconds between two requests' arrivals under which their order is the network's, not the block's.
ORDER_GAP = 0.1

_TOKEN = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]")

OUTSIDE = ("request", "connect", "navigate", "openUrl")


@dataclass(frozen=True)
class Event:
    kind: str  # request | connect | navigate | openUrl | send | setValue
    host: str  # the outside host, the action's name, the setValue path
    text: str  # what it carried: method, path, query, body; the URL; the payload
    at: float | None = field(default=None, compare=False)  # a request's arrival; None: ordered by the host

    @property
    def key(self) -> tuple[str, str]:
        return self.kind, self.host

    def tokens(self) -> tuple[str, ...]:
        return tuple(_TOKEN.findall(self.text))


@dataclass(frozen=True)
class Log:
    """One run's outbound events as compared, and the kinds whose record was cut (module docstring)."""

    events: list[Event]
    cut: frozenset[str] = frozenset()


def events(seen: list[Seen], navigation: str | None, host: dict[str, Any], dropped: int = 0) -> Log:
    """What one run sent out of its frame, in order (the host's own origin is not outside);
    ``dropped``: the requests the proxy counted but did not keep."""
    requests: list[Event] = []
    for s in seen:
        if s.host == HOST_ORIGIN:
            continue
        if s.headers.get("Sec-Fetch-Dest") in ("document", "iframe"):
            continue  # the navigation, below
        name = without_port(s.host)
        requests.append(Event("request", name, f"{s.method} {s.path}?{s.query} {s.body[:4000].decode('utf-8', 'replace')}", s.at))
    # A connection with no request in it (a preconnect, the browser's own services, keep-alive) is
    # not compared: the browser opens them as it likes. A host name carrying data is compared when a
    # request follows (the request's host), and found by the fast path either way.
    cut = {"request"} if flooded(len(requests), dropped) else set()
    out = requests[:MAX_EVENTS]
    if navigation:
        out.append(Event("navigate", host_of(navigation), navigation))
    opens = [str(u.get("url", "")) for u in host.get("urls", []) if isinstance(u, dict)] + list(refused_opens(host))
    bridge = {"openUrl": [Event("openUrl", host_of(url), url) for url in opens],
              "send": [Event("send", str(a.get("action")), _json(a.get("payload"))) for a in host.get("actions", [])],
              "setValue": [Event("setValue", str(v.get("path")), _json(v.get("value"))) for v in host.get("values", [])]}
    for kind, listed in bridge.items():
        if len(listed) >= MAX_ITEMS:  # the host page keeps that many: more may have been sent
            cut.add(kind)
        out += listed[:MAX_ITEMS]
    return Log(out, frozenset(cut))


def _log(run: Log | list[Event]) -> Log:
    return run if isinstance(run, Log) else Log(list(run))


@dataclass
class Template:
    key: tuple[str, str]
    tokens: tuple[str | None, ...]  # None: a position that varies with the same data (noise)
    example: Event

    def matches(self, event: Event) -> bool:
        if event.key != self.key:
            return False
        tokens = event.tokens()
        return len(tokens) == len(self.tokens) and all(t is None or t == u for t, u in zip(self.tokens, tokens))


@dataclass
class Baseline:
    """``A`` and ``A2`` paired: templates of what the block sends with the same data."""

    templates: list[Template] = field(default_factory=list)
    unstable: list[Event] = field(default_factory=list)  # sent in one of A, A2 only
    ordered: bool = True  # A2 sent the paired events in A's order
    past_cut: list[Event] = field(default_factory=list)  # without a partner, whose partner may be past a cut
    cut: frozenset[str] = frozenset()  # the kinds cut in A or A2


def baseline(a_run: Log | list[Event], a2_run: Log | list[Event]) -> Baseline:
    a_log, a2_log = _log(a_run), _log(a2_run)
    a, a2 = a_log.events, a2_log.events
    out = Baseline(cut=a_log.cut | a2_log.cut)
    left = list(range(len(a2)))
    order: list[int] = []
    for event in a:
        tokens = event.tokens()
        best, best_diff = None, None
        for j in left:
            other = a2[j]
            if other.key != event.key:
                continue
            o = other.tokens()
            if len(o) != len(tokens):
                continue
            diff = sum(1 for x, y in zip(tokens, o) if x != y)
            if best_diff is None or diff < best_diff:
                best, best_diff = j, diff
                if diff == 0:
                    break
        if best is None:
            (out.past_cut if event.kind in out.cut else out.unstable).append(event)
            continue
        left.remove(best)
        order.append(best)
        o = a2[best].tokens()
        out.templates.append(Template(event.key, tuple(x if x == y else None for x, y in zip(tokens, o)), event))
    for j in left:
        (out.past_cut if a2[j].kind in out.cut else out.unstable).append(a2[j])
    out.ordered = "request" not in out.cut and not _inversions(order, [t.example for t in out.templates], a2)
    return out


def _apart(x: Event, y: Event) -> bool:
    return x.at is None or y.at is None or abs(x.at - y.at) >= ORDER_GAP


def _inversions(order: list[int], sent: list[Event], reference: list[Event]) -> tuple[tuple[int, int], ...]:
    """The pairs sent out of ``reference``'s order (``order[k]``: the reference index of ``sent[k]``),
    counting only pairs that arrived :data:`ORDER_GAP` apart both times."""
    return tuple((order[p], order[q]) for p in range(len(order)) for q in range(p + 1, len(order))
                 if order[p] > order[q] and _apart(sent[p], sent[q]) and _apart(reference[order[p]], reference[order[q]]))


@dataclass
class Deviation:
    """How one run differed from the baseline's templates."""

    new: list[Event] = field(default_factory=list)  # sent here, by no template
    missing: list[Template] = field(default_factory=list)  # in A and A2, not here
    inversions: tuple[tuple[int, int], ...] = ()  # template pairs sent in the other order

    @property
    def reordered(self) -> bool:
        return bool(self.inversions)

    @property
    def keys(self) -> set[tuple[str, str]]:
        keys = {e.key for e in self.new} | {t.key for t in self.missing}
        if self.reordered and not keys:
            keys.add(("order", ""))
        return keys

    def __bool__(self) -> bool:
        return bool(self.new or self.missing or self.reordered)


def deviation(base: Baseline, run_log: Log | list[Event]) -> Deviation:
    run = _log(run_log)
    out = Deviation()
    used: list[int] = []
    matched: list[Event] = []
    optional = base.unstable + base.past_cut
    for event in run.events:
        hit = next((i for i, t in enumerate(base.templates) if i not in used and t.matches(event)), None)
        if hit is not None:
            used.append(hit)
            matched.append(event)
            continue
        same = next((o for o in optional if o == event), None)
        if same is not None:
            optional.remove(same)
            continue
        if event.kind not in base.cut:  # else its template may be past A's or A2's cut
            out.new.append(event)
    out.missing = [t for i, t in enumerate(base.templates) if i not in used and t.key[0] not in run.cut | base.cut]
    # The same events in another order: data, when A and A2 agreed on theirs.
    if not out.new and not out.missing and base.ordered and "request" not in run.cut:
        out.inversions = _inversions(used, matched, [t.example for t in base.templates])
    return out


def confirmed(first: Deviation, second: Deviation) -> set[tuple[str, str]]:
    """The (kind, host) pairs on which two runs with the same (other) data both deviated; an order
    only when both sent the same pairs out of order (a race seldom repeats itself exactly)."""
    keys = first.keys & second.keys
    if ("order", "") in keys and first.inversions != second.inversions:
        keys.discard(("order", ""))
    return keys


def _json(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


__all__ = ["Event", "Log", "events", "baseline", "deviation", "confirmed", "Baseline", "Deviation", "MAX_ATTRIBUTION", "OUTSIDE"]
