"""The in-browser layer of ``flowui-sandbox review``: the block run in every engine found, watched from outside.

:func:`run_browser_layer` mounts each block through the real generator and host module
with its state's projected leaves replaced by canaries (:mod:`.canaries`), routes every
request of the page, to any host, to local logging servers (:mod:`.proxy`), acts like a
user (:mod:`.run`), and turns what it saw into findings. One browser per engine, a few
pages in parallel, all engines at once. docs/REVIEW.md ("In-browser layer") says what
each engine observes and what escapes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from ...block.extract import extract_paths
from ...engines import Engine, EngineError, select_engines
from ...engines.remote import Endpoint, plan
from ...errors import OptionError, UsageError
from ...harness.remote import ServerNames, Worker, close_all, connect_all
from ...harness.server import tls_context
from ..model import BlockInput, BrowserResult, Finding
from .canaries import Canaries
from .proxy import HOST_ORIGIN, Seen
from .run import SETTLE, SLOTS, Lane, Observed, Work, navigation_target

#: A main-thread stall of the host page longer than this is a finding (ms).
STALL_MS = 3000
#: More requests than this from one block is a flood.
FLOOD = 200
#: Default per-block time limit (s) per engine.
TIME_LIMIT = 15.0

Progress = Callable[[str], None]


def run_browser_layer(blocks: list[BlockInput], engines: list[str] | None, *, time_limit: float = TIME_LIMIT,
                      progress: Progress | None = None, settle: float = SETTLE, slots: int = SLOTS,
                      remote: list[Endpoint] | None = None, names: ServerNames | None = None) -> list[BrowserResult]:
    """Review ``blocks`` in the ``engines`` named (None: every engine found, or with ``remote`` the
    engines given remote browsers); results in the blocks' order. ``remote``: browsers elsewhere
    (:func:`flowui_sandbox.sandbox.engines.remote.parse_remote`); an engine named without one runs here.

    Raises :class:`UsageError` when a named engine is not installed or none is found, and
    :class:`OptionError` when a remote browser does not answer. ``names``: where the slots' proxies
    listen and the name the remote browsers reach them by (default: 127.0.0.1)."""
    if remote:
        chosen, endpoints = plan(engines, list(remote))
    else:
        try:
            chosen, endpoints = select_engines(engines), {}
        except EngineError as exc:
            raise UsageError(f"--engine: {exc}") from None
    if not chosen:
        raise UsageError("review: no browser engine found for the in-browser layer (run `make setup`, or use --static)")
    return asyncio.run(review_in_browsers(blocks, chosen, time_limit=time_limit, progress=progress, settle=settle, slots=slots,
                                          remote=endpoints, names=names))


async def review_in_browsers(blocks: list[BlockInput], engines: list[Engine], *, time_limit: float = TIME_LIMIT,
                             progress: Progress | None = None, settle: float = SETTLE, slots: int = SLOTS,
                             remote: dict[str, list[Endpoint]] | None = None, names: ServerNames | None = None) -> list[BrowserResult]:
    """Review ``blocks`` in ``engines``; an engine with endpoints in ``remote`` on those browsers
    (every one must answer: :class:`OptionError` naming those that do not, before any block runs)."""
    workers = await _connect(engines, remote or {})
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=32, thread_name_prefix="flowui-review"))
    loop.set_exception_handler(_quiet)
    _, context = tls_context("127.0.0.1", "localhost")
    works = [_work(i, b) for i, b in enumerate(blocks)]
    total = len(works) * len(engines)
    done = 0

    def on_done(engine: str, work: Work) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(f"{done}/{total} {engine} {work.file}")

    lanes = [Lane(e, context, time_limit=time_limit, settle=settle, slots=slots, on_done=on_done, remote=workers.get(e.name),
                  names=names)
             for e in engines]
    quiet = _QuietDisconnects()
    logging.getLogger("aiohttp.server").addFilter(quiet)
    try:
        runs = await asyncio.gather(*(lane.run(works) for lane in lanes))
    finally:
        logging.getLogger("aiohttp.server").removeFilter(quiet)
    results = []
    for w in works:
        per_engine = {lane.engine.name: run[w.index] for lane, run in zip(lanes, runs)}
        results.append(judge(w, per_engine))
    return results


async def _connect(engines: list[Engine], remote: dict[str, list[Endpoint]]) -> dict[str, list[Worker]]:
    """The remote browsers of each engine, connected; all or none."""
    named = [e for e in engines if remote.get(e.name)]
    connected = await asyncio.gather(*(connect_all(e, remote[e.name]) for e in named))
    unreachable = [u for _, errors in connected for u in errors]
    if unreachable:
        await asyncio.gather(*(close_all(w) for w, _ in connected))
        raise OptionError("\n".join(f"--remote {u['error']}" for u in unreachable))  # each names its engine and URL
    return {e.name: w for e, (w, _) in zip(named, connected)}


class _QuietDisconnects(logging.Filter):
    """A hung page closed while a server sent it the bridge files is expected here, not news."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        while exc is not None:
            if isinstance(exc, ConnectionError):
                return False
            exc = exc.__context__
        return True


def _quiet(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """A tunnel the browser tore down mid-handshake is no news, and neither is the failure of a step
    the harness abandoned (a block past its time limit: its page is dropped, its verdict recorded);
    anything else is reported as usual."""
    exc = context.get("exception")
    if isinstance(exc, (ConnectionError, OSError, AttributeError)):
        return
    if str(context.get("message", "")).startswith("Task exception was never retrieved") and (
            isinstance(exc, (EngineError, TimeoutError)) or type(exc).__module__.startswith("playwright")):
        return
    loop.default_exception_handler(context)


def _work(index: int, block: BlockInput) -> Work:
    from flowui_sandbox.theme import DARK, LIGHT, Theme

    try:
        paths = extract_paths(block.source)
    except Exception:
        paths = []
    fields = list(block.fields)
    light = Theme.parse(block.theme) if block.theme else LIGHT
    dark = DARK if light.color_scheme != "dark" else LIGHT
    if light.color_scheme == "dark":
        light, dark = dark, light
    return Work(index, block.file, block.source, fields, [*fields, *[p for p in paths if p not in fields]],
                dict(block.state or {}), block.theme, dark.to_json(), light.to_json(),
                (light.tokens["page-background"], dark.tokens["page-background"]))


# ----------------------------------------------------------------------------- findings


def judge(work: Work, per_engine: dict[str, Observed]) -> BrowserResult:
    """Findings of every engine, one per fingerprint with the engines that saw it."""
    result = BrowserResult(file=work.file)
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
        if obs.diff:
            result.differential.append({"engine": engine, **obs.diff})
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
    parts = urlsplit(url)
    host = parts.hostname or ""
    needles = [f"{parts.scheme}://{parts.netloc}{parts.path}", f"//{parts.netloc}{parts.path}", f"//{parts.netloc}"]
    if parts.path not in ("", "/"):
        needles.append(parts.path)
    needles.append(host)
    labels = host.split(".")
    if len(labels) > 2:
        needles.append(".".join(labels[1:]))  # a canary in the first label: the rest of the name is in the source
    return needles


def _findings(work: Work, obs: Observed, result: BrowserResult) -> list[Finding]:
    engine = obs.engine
    make = _Maker(work, engine)
    canaries = obs.canaries
    src = work.source
    host = obs.host or {}

    # ---- requests: where they went and what they carried
    by_host: dict[str, list[Seen]] = {}
    # The browser's own request for the host page's icon is not the block's (the host page says
    # it has none, but an engine may ask all the same).
    seen = [s for s in obs.seen if not (s.host == HOST_ORIGIN and s.path == "/favicon.ico")]
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
            _leak(make, label, how, target.rsplit(":", 1)[0], f"https://{target}/", "connection", src)
    for name, requests in by_host.items():
        clean = name.split(":")[0]
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
    count = len(seen) + obs.dropped
    if count > FLOOD:
        make.add("browser.request-flood", f"{count} requests in one review (more than {FLOOD})", context="flood",
                 hosts=sorted({s.host for s in seen})[:10], evidence={"requests": count})

    # ---- the bridge
    for a in host.get("actions", []):
        payload = a.get("payload")
        result.bridge.append({"engine": engine, "type": "send", "action": a.get("action"), "payload": _shape(payload)})
        at = locate(src, f"'{a.get('action')}'", f'"{a.get("action")}"', f"`{a.get('action')}`")
        make.add("bridge.send", f"send({a.get('action')!r}) with payload {_shape(payload)}", at=at,
                 context=f"send {a.get('action')} {_shape(payload)}",
                 paths=sorted(canaries.find(_json(payload))), evidence={"payload_shape": _shape(payload)})
    for v in host.get("values", []):
        result.bridge.append({"engine": engine, "type": "setValue", "path": v.get("path"), "value": v.get("value")})
        at = locate(src, f"'{v.get('path')}'", f'"{v.get("path")}"')
        value = canaries.describe(_short(v.get("value")))
        make.add("bridge.set-value", f"setValue({v.get('path')!r}, {value})", at=at,
                 context=f"setValue {v.get('path')}", paths=[str(v.get("path"))], evidence={"value": value})
    for u in host.get("urls", []):
        target = str(u.get("url", ""))
        result.bridge.append({"engine": engine, "type": "openUrl", "url": target})
        found = canaries.find(target)
        for label, how in found.items():
            _leak(make, label, how, urlsplit(target).hostname or target, target, "openUrl", src)
        at = locate(src, *_url_needles(target))
        make.add("bridge.open-url", f"openUrl to {urlsplit(target).hostname}", at=at,
                 context=f"openUrl {urlsplit(target).hostname}", hosts=[urlsplit(target).hostname or ""],
                 evidence={"url": target[:300]})

    # ---- what the host module logged
    seen_log: set[tuple[str, str]] = set()
    for entry in host.get("log", []):
        code, message = entry.get("code", ""), str(entry.get("message", ""))
        detail = entry.get("detail") or {}
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
            make.add("browser.height-loop", message, context="height-loop", evidence={"heights": host.get("heights", [])[-20:]})
        elif code == "rate-limited":
            make.add("browser.rate-limited", message, context="rate-limited")
        elif code == "navigated":
            pass  # reported below with the navigation's target
    went = navigation_target(obs.seen, obs.watch.navigations)
    if host.get("loads", 0) > 1 or went is not None:
        target = went or ""
        at = locate(src, *_url_needles(target)) if target else None
        result.navigations.append({"engine": engine, "url": target[:500], "loads": host.get("loads", 0)})
        make.add("browser.frame-navigated", f"the block's frame navigated away{' to ' + (urlsplit(target).hostname or target) if target else ''}",
                 at=at, context=f"navigated {urlsplit(target).hostname or ''}", hosts=[host for host in [urlsplit(target).hostname] if target and host],
                 evidence={"url": target[:300]})
    for n in obs.watch.navigations:
        if n.startswith("top:") and "about:blank" not in n and not (obs.page and n[5:].startswith(obs.page)):
            result.navigations.append({"engine": engine, "url": n, "top": True})
            make.add("browser.top-navigated", f"the host page navigated: {n[5:200]}", context="top-navigated")
    for p in obs.watch.popups:
        result.popups.append({"engine": engine, "what": p})
        make.add("browser.popup", f"a window opened: {p[:200]}", context="popup")
    for d in obs.watch.dialogs:
        result.dialogs.append({"engine": engine, "what": d})
        make.add("browser.dialog", f"a dialog showed: {d[:200]}", context="dialog")
    for d in obs.watch.downloads:
        make.add("browser.download", f"a download started: {d[:200]}", context="download")
    # CSP violations come from the runtime's report, the same in every engine (Chromium's console
    # repeats them in its own words; not used, so the engines' findings compare).

    # ---- the differential review: what changed with the data carries it
    diff = obs.diff or {}
    for leak in diff.get("leaks", []):
        kind, example = leak["kind"], leak["example"]
        if kind in ("send", "setValue"):
            continue  # handed to the host over the bridge: the host's, not a leak (bridge.* name the paths)
        if kind in ("navigate", "openUrl"):
            where = urlsplit(example).hostname or example[:100]
            sink = "document request" if kind == "navigate" else "openUrl"
            url = example
        elif kind == "order":
            where, sink, url = "(several hosts)", "the order of requests", ""
        else:
            where, sink = leak["host"], f"{kind}s to the host"
            url = f"https://{leak['host']}/"
        for label in leak["inputs"]:
            _leak(make, label, "changes with the data (differential review)", where, url, sink, src,
                  extra={"differential": {"runs": diff.get("runs"), "example": example[:300]}})
    if diff.get("unstable"):
        make.add("browser.inconsistent", "the block behaved differently in two runs with the same data: "
                 + "; ".join(f"{u['what']}{' (' + u['kind'] + ' ' + u['host'] + ')' if u.get('kind') else ''}" for u in diff["unstable"][:3]),
                 context="inconsistent", evidence={"unstable": diff["unstable"][:5], "runs": diff.get("runs")})

    # ---- CPU, hangs, height
    if obs.timed_out:
        make.add("browser.timeout", "the block hung its page (it stopped answering, or its review did not finish "
                 "within the per-block time limit); the page was closed and the review went on", context="timeout",
                 evidence={"steps": obs.steps, "actions": obs.actions[-5:]})
    elif host.get("maxGap", 0) > STALL_MS:
        make.add("browser.main-thread-stall", f"the host page's main thread stalled for {host['maxGap']} ms",
                 context="stall", evidence={"max_gap_ms": host["maxGap"]})
    if host and host.get("status") not in (None, "connected", "navigated") and not obs.timed_out:
        make.add("browser.not-connected", f"the block never connected to the bridge ({host.get('connected') or host.get('status')})",
                 context="not-connected", evidence={"errors": host.get("errors", [])})
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


__all__ = ["run_browser_layer", "review_in_browsers", "judge", "locate", "TIME_LIMIT", "STALL_MS", "FLOOD", "Canaries"]
