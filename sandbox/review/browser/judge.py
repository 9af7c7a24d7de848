"""The review's judge: what every engine saw of one block in, the block's findings out.

:func:`judge` is a pure function of the block (:class:`.run.Work`) and one frozen
:class:`.observation.BlockObservation` per engine: no page, no proxy, no clock, and its inputs
are left as they were. Each engine's observation gives findings (rule ids from
``sandbox/review/rules.toml``); a finding several engines saw is reported once, with their names.
Unit-tested on hand-made observations (tests/test_review_judge.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..model import BrowserResult, Finding
from ..urls import host_of, private_network, without_port
from .observation import BlockObservation, DifferentialOutcome, plain_json
from .proxy import FLOOD, HOST_ORIGIN, Seen, flooded

if TYPE_CHECKING:
    from .run import Work

#: A main-thread stall of the host page longer than this is a finding (ms).
STALL_MS = 3000


def judge(work: Work, per_engine: Mapping[str, BlockObservation]) -> BrowserResult:
    """The block's result: the findings of every engine, one per fingerprint with the engines that
    saw it, and what each engine saw (requests, bridge calls, navigations, screenshots, the
    differential review, time-outs, errors). A pure function: it reads its arguments only."""
    result = BrowserResult(file=work.file, engines=list(per_engine))
    merged: dict[str, Finding] = {}
    for engine, obs in per_engine.items():
        for finding in _findings(work, obs, result):
            if finding.fingerprint in merged:
                known = merged[finding.fingerprint]
                known.engines = sorted(set(known.engines) | {engine})
            else:
                merged[finding.fingerprint] = finding
        if obs.screenshots:
            result.screenshots[engine] = dict(obs.screenshots)
        if obs.differential is not None:
            result.differential.append({"engine": engine, **obs.differential.as_dict()})
        if obs.timed_out:
            result.timed_out.append(engine)
        if obs.error:
            result.errors.append({"engine": engine, "message": obs.error})
    result.findings = sorted(merged.values(), key=lambda f: (f.line, f.column, f.rule, f.message))
    return result


class _Maker:
    def __init__(self, work: Work, engine: str):
        self.work = work
        self.engine = engine
        self.out: list[Finding] = []

    def add(self, rule: str, message: str, *, at: tuple[int, int, str] | None = None, context: str = "",
            paths: list[str] | None = None, hosts: list[str] | None = None, evidence: dict[str, Any] | None = None) -> None:
        line, column, where = at or (1, 1, "no position in the source: the whole block")
        ev = {"where": where, **(evidence or {})}
        try:
            self.out.append(Finding.make(rule, message, file=self.work.file, line=line, column=column, layer="browser",
                                         context=context or message, engines=[self.engine], paths=paths, hosts=hosts,
                                         evidence=ev))
        except KeyError:
            pass  # the rule is disabled (FLOWUI_REVIEW_DISABLE)


def locate(source: str, *needles: str) -> tuple[int, int, str] | None:
    """Line and column (1-based) of the first needle found in the source, longest needles first."""
    for needle in sorted({n for n in needles if n and len(n) >= 3}, key=len, reverse=True):
        at = source.find(needle)
        if at != -1:
            line = source.count("\n", 0, at) + 1
            column = at - (source.rfind("\n", 0, at) + 1) + 1
            return line, column, f"where the source mentions {needle[:80]!r}"
    return None


def _url_needles(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
    except ValueError:  # brackets that are no IPv6 address: the URL as sent is all there is to look for
        return [url]
    host = parts.hostname or ""
    needles = [f"{parts.scheme}://{parts.netloc}{parts.path}", f"//{parts.netloc}{parts.path}", f"//{parts.netloc}"]
    if parts.path not in ("", "/"):
        needles.append(parts.path)
    needles.append(host)
    labels = host.split(".")
    if len(labels) > 2:
        needles.append(".".join(labels[1:]))  # a canary in the first label: the rest of the name is in the source
    return needles


def _findings(work: Work, obs: BlockObservation, result: BrowserResult) -> list[Finding]:
    """One engine's findings; what it saw goes to ``result`` (the judge's own, being built)."""
    engine = obs.engine
    make = _Maker(work, engine)
    canaries = obs.canaries
    src = work.source
    host = obs.host

    # ---- requests: where they went and what they carried
    by_host: dict[str, list[Seen]] = {}
    # The browser's own request for the host page's icon is not the block's (the host page says
    # it has none, but an engine may ask all the same).
    seen = [s for s in obs.requests if not (s.host == HOST_ORIGIN and s.path == "/favicon.ico")]
    for s in seen:
        by_host.setdefault(s.host, []).append(s)
        found = canaries.find(s.url, s.body.decode("utf-8", "replace"))
        kind = _kind(s)
        result.requests.append({"engine": engine, "url": s.url[:500], "host": s.host, "method": s.method, "kind": kind,
                                "paths": sorted(found)})
        for label, how in found.items():
            _leak(make, label, how, s.host, s.url, f"{kind} request", src)
    for target in obs.tunnels:
        found = canaries.find(target)
        for label, how in found.items():  # a canary in a host name needs no request: the connection tells it
            _leak(make, label, how, without_port(target), f"https://{target}/", "connection", src)
    for name, requests in by_host.items():
        clean = without_port(name)
        if canaries.find(clean):
            continue
        first = requests[0]
        at = locate(src, *_url_needles(first.url))
        if name == HOST_ORIGIN:
            make.add("browser.host-origin-request", f"{len(requests)} request(s) to the host's own origin, e.g. {first.path}",
                     at=at, context=f"host-origin {first.path}", hosts=[name],
                     evidence={"urls": [r.path[:200] for r in requests[:5]]})
        else:
            make.add("url.external", f"host {clean} contacted ({len(requests)} request(s))", at=at,
                     context=f"host {clean}", hosts=[clean], evidence={"urls": [r.url[:300] for r in requests[:5]]})
            if network := private_network(clean):
                make.add("url.private-network", f"host {clean} requested: {network} ({len(requests)} request(s))", at=at,
                         context=f"private {clean}", hosts=[clean],
                         evidence={"network": network, "urls": [r.url[:300] for r in requests[:5]]})
    if flooded(len(seen), obs.dropped):
        count = len(seen) + obs.dropped
        make.add("browser.request-flood", f"{count} requests in one review (more than {FLOOD})", context="flood",
                 hosts=sorted({s.host for s in seen})[:10], evidence={"requests": count})

    # ---- the bridge
    for send in host.sends:
        action, payload = plain_json(send.action), plain_json(send.payload)
        result.bridge.append({"engine": engine, "type": "send", "action": action, "payload": _shape(payload)})
        at = locate(src, f"'{action}'", f'"{action}"', f"`{action}`")
        make.add("bridge.send", f"send({action!r}) with payload {_shape(payload)}", at=at,
                 context=f"send {action} {_shape(payload)}",
                 paths=sorted(canaries.find(_json(payload)).keys() | canaries.in_values(payload).keys()),
                 evidence={"payload_shape": _shape(payload)})
    for write in host.writes:
        path, written = plain_json(write.path), plain_json(write.value)
        result.bridge.append({"engine": engine, "type": "setValue", "path": path, "value": written})
        at = locate(src, f"'{path}'", f'"{path}"')
        value = canaries.describe(_short(written))
        make.add("bridge.set-value", f"setValue({path!r}, {value})", at=at,
                 context=f"setValue {path}", paths=[str(path)], evidence={"value": value})
    for target in [*host.opens, *host.refused]:  # and what the host refused for want of the activation (observation.refused_opens)
        call = {"engine": engine, "type": "openUrl", "url": target}
        result.bridge.append(call if target in host.opens else {**call, "refused": "no-gesture"})
        found = canaries.find(target)
        for label, how in found.items():
            _leak(make, label, how, host_of(target) or target, target, "openUrl", src)
        at = locate(src, *_url_needles(target))
        make.add("bridge.open-url", f"openUrl to {host_of(target)}", at=at,
                 context=f"openUrl {host_of(target)}", hosts=[host_of(target)],
                 evidence={"url": target[:300]})

    # ---- what the host module logged
    seen_log: set[tuple[str, str]] = set()
    for entry in host.log:
        code, message = entry.code, entry.message
        detail = plain_json(entry.detail)
        if (code, message) in seen_log:
            continue
        seen_log.add((code, message))
        if code == "not-a-field":
            make.add("bridge.set-value-outside-fields", f"the host refused a write: {message}", context=f"not-a-field {message}")
        elif code == "csp-violation":
            blocked = str(detail.get("blockedUri", ""))
            at = locate(src, *(_url_needles(blocked) if "://" in blocked else [blocked]))
            make.add("browser.csp-violation", message, at=at, context=f"csp {detail.get('directive')} {blocked[:100]}",
                     evidence={"directive": detail.get("directive"), "blocked": blocked[:300]})
        elif code == "block-error":
            line, column = int(detail.get("line") or 0), int(detail.get("column") or 0)
            make.add("browser.script-error", message, at=None, context=f"error {message}",
                     evidence={"reported_line": line, "reported_column": column,
                               "note": "the line is the srcdoc's, not the source's: the runtime's head comes first"})
        elif code == "height-loop":
            make.add("browser.height-loop", message, context="height-loop", evidence={"heights": plain_json(host.heights[-20:])})
        elif code == "rate-limited":
            make.add("browser.rate-limited", message, context="rate-limited")
        elif code == "bridge-closed":
            make.add("browser.bridge-closed", message, context="bridge-closed")
        elif code == "navigated":
            pass  # reported below with the navigation's target
    went = obs.navigation
    if host.loads > 1 or went is not None:
        target = went or ""
        at = locate(src, *_url_needles(target)) if target else None
        result.navigations.append({"engine": engine, "url": target[:500], "loads": host.loads})
        make.add("browser.frame-navigated", f"the block's frame navigated away{' to ' + (host_of(target) or target) if target else ''}",
                 at=at, context=f"navigated {host_of(target)}", hosts=[host for host in [host_of(target)] if target and host],
                 evidence={"url": target[:300]})
    for n in obs.navigations:
        if n.startswith("top:") and "about:blank" not in n and not (obs.page and n[5:].startswith(obs.page)):
            result.navigations.append({"engine": engine, "url": n, "top": True})
            make.add("browser.top-navigated", f"the host page navigated: {n[5:200]}", context="top-navigated")
    for p in obs.popups:
        result.popups.append({"engine": engine, "what": p})
        make.add("browser.popup", f"a window opened: {p[:200]}", context="popup")
    for d in obs.dialogs:
        result.dialogs.append({"engine": engine, "what": d})
        make.add("browser.dialog", f"a dialog showed: {d[:200]}", context="dialog")
    for d in obs.downloads:
        make.add("browser.download", f"a download started: {d[:200]}", context="download")
    # CSP violations come from the runtime's report, the same in every engine (Chromium's console
    # repeats them in its own words; not used, so the engines' findings compare).

    # ---- the differential review: what changed with the data carries it
    diff = obs.differential or DifferentialOutcome()  # none: nothing to report
    for leak in diff.leaks:
        kind, example = leak.kind, leak.example
        if kind in ("send", "setValue"):
            continue  # handed to the host over the bridge: the host's, not a leak (bridge.* name the paths)
        if kind in ("navigate", "openUrl"):
            where = host_of(example) or example[:100]
            sink = "document request" if kind == "navigate" else "openUrl"
            url = example
        elif kind == "order":
            where, sink, url = "(several hosts)", "the order of requests", ""
        else:
            where, sink = leak.host, f"{kind}s to the host"
            url = f"https://{leak.host}/"
        for label in leak.inputs:
            _leak(make, label, "changes with the data (differential review)", where, url, sink, src,
                  extra={"differential": {"runs": diff.runs, "example": example[:300]}})
    if diff.unstable:
        make.add("browser.inconsistent", "the block behaved differently in two runs with the same data: "
                 + "; ".join(f"{u.what}{' (' + u.kind + ' ' + u.host + ')' if u.kind else ''}" for u in diff.unstable[:3]),
                 context="inconsistent", evidence={"unstable": [u.as_dict() for u in diff.unstable[:5]], "runs": diff.runs,
                                                   **({"actions": diff.unstable_actions.as_dict()} if diff.unstable_actions else {})})

    # ---- CPU, hangs, height
    if obs.timed_out:
        make.add("browser.timeout", "the block hung its page (it stopped answering, or its review did not finish "
                 "within the per-block time limit); the page was closed and the review went on", context="timeout",
                 evidence={"steps": plain_json(obs.steps), "actions": list(obs.actions[-5:])})
    elif host.max_gap > STALL_MS:
        make.add("browser.main-thread-stall", f"the host page's main thread stalled for {host.max_gap} ms",
                 context="stall", evidence={"max_gap_ms": host.max_gap})
    if host.answered and host.status not in (None, "connected", "navigated", "closed") and not obs.timed_out:
        why = "no hello while it was reviewed" if host.status == "loading" else host.connected or host.status
        make.add("browser.not-connected", f"the block never connected to the bridge ({why})",
                 context="not-connected", evidence={"errors": plain_json(host.errors)})
    return make.out


def _leak(make: _Maker, label: str, how: str, host: str, url: str, sink: str, src: str,
          extra: dict[str, Any] | None = None) -> None:
    at = locate(src, *_url_needles(url)) if url else None
    if label.startswith("(typed into"):
        make.add("exfil.input-to-url", f"text {label[1:-1]} left to host {host} ({sink}, {how})", at=at,
                 context=f"typed {label} {host}", hosts=[host],
                 evidence={"url": url[:500], "encoding": how, "sink": sink, "field": label[len("(typed into "):-1], **(extra or {})})
        return
    if label == "(unattributed)":
        make.add("exfil.state-to-url", f"data left to host {host} ({sink}, {how}); no single input explains it", at=at,
                 context=f"leak {label} {host}", hosts=[host],
                 evidence={"url": url[:500], "encoding": how, "sink": sink, "confirmed": True, **(extra or {})})
        return
    make.add("exfil.state-to-url", f"path {label} left to host {host} ({sink}, {how})", at=at,
             context=f"leak {label} {host}", paths=[label], hosts=[host],
             evidence={"url": url[:500], "encoding": how, "sink": sink, "confirmed": True, **(extra or {})})


def _kind(s: Seen) -> str:
    dest = s.headers.get("Sec-Fetch-Dest", "")
    if dest:
        return dest
    accept = s.headers.get("Accept", "")
    if accept.startswith("image/"):
        return "image"
    if "text/html" in accept:
        return "document"
    return "other"


def _json(value: Any) -> str:
    import json

    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)


def _shape(value: Any, depth: int = 0) -> Any:
    """The payload's shape: types in place of values (a review reads structure, not data)."""
    if depth > 4:
        return "…"
    if isinstance(value, dict):
        return {k: _shape(v, depth + 1) for k, v in list(value.items())[:20]}
    if isinstance(value, list):
        return [_shape(value[0], depth + 1)] if value else []
    if value is None:
        return "null"
    return type(value).__name__.replace("str", "string").replace("int", "number").replace("float", "number").replace("bool", "boolean")


def _short(value: Any) -> str:
    text = _json(value)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["judge", "locate", "STALL_MS", "FLOOD"]
