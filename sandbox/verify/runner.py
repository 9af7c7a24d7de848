"""Runs the probe catalogue: one browser per engine, probes in parallel pages, all engines at once.

For each (probe, engine) the runner makes a fresh token and secrets, builds the
block's iframe with the generator under test, serves a host page that holds the
secrets (cookies, storage, DOM, title, URL), opens it, clicks when the probe
asks, watches for ``probe.wait`` seconds and then looks from outside: the
servers' logs, the taps, the host page, browser events. The block's own report
(``window.__probe``) is recorded as context only; it never decides.
"""

from __future__ import annotations

import asyncio
import json
import secrets as _secrets
import shlex
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..engines import Engine, EngineError, Page, Session, launch
from ..errors import OptionError, SandboxError, UsageError
from ..policy import CSP, REFERRER_POLICY, SANDBOX
from .probes import (
    SECRETS,
    Block,
    Event,
    Expect,
    FrameCheck,
    HostCheck,
    Leak,
    Observation,
    Probe,
    RequestSeen,
    Tap,
    Unresponsive,
    render,
    render_json,
)
from .request import GENERATOR_PROTOCOLS, REFUSED_STATUS, generator_request
from .servers import HOST_COOKIES, Servers, Taps, cookie_value

#: Pages open at once per engine (WebKit pages are whole MiniBrowsers). The 2-core machine is CPU-bound with three browsers (no idle CPU during a run):
# 3 pages each gave the same wall time as 6 (160 s against 169 s) with fewer pages lost to timeouts.
CONCURRENCY = {"chromium": 3, "firefox": 3, "webkit": 3}
#: Seconds a probe run may take beyond its observation window before it counts as timed out.
RUN_SLACK = 40.0

FRAME = "#block-{i} iframe"

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


# ------------------------------------------------------------------------ generators


class GeneratorOutputError(SandboxError):
    """The generator's output is not one usable sandboxed iframe."""


class GeneratorRefused(SandboxError):
    """The generator refused the input (exit status :data:`REFUSED_STATUS`); the message is its reason."""


@dataclass
class Built:
    """A block's iframe as the generator made it, and what the static check found wrong with it."""

    html: str
    problems: list[str]


def check_iframe(html: str) -> list[str]:
    """Problems of a generator's output against the fixed policy (empty when it is right).

    Raises :class:`GeneratorOutputError` when there is no single iframe to run at all.
    """
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    body = tree.body
    elements = [n for n in body.traverse() if n.tag not in ("-text", "-comment", "body")] if body else []
    iframes = [n for n in elements if n.tag == "iframe"]
    if len(iframes) != 1:
        raise GeneratorOutputError(f"expected exactly one <iframe>, found {len(iframes)}")
    head_extra = [n.tag for n in tree.head.traverse() if n.tag not in ("head", "-text", "-comment")] if tree.head else []
    problems = []
    others = sorted({n.tag for n in elements if n.tag != "iframe"} | set(head_extra))
    if others:
        problems.append(f"elements beside the iframe: {', '.join('<' + t + '>' for t in others)}")
    attrs = iframes[0].attributes
    if attrs.get("srcdoc") is None:
        raise GeneratorOutputError("the iframe has no srcdoc attribute")
    sandbox = attrs.get("sandbox")
    if sandbox is None or sorted(sandbox.split()) != [SANDBOX]:
        problems.append(f"sandbox is {sandbox!r}, must be exactly {SANDBOX!r}")
    if attrs.get("referrerpolicy") != REFERRER_POLICY:
        problems.append(f"referrerpolicy is {attrs.get('referrerpolicy')!r}, must be {REFERRER_POLICY!r}")
    for name in ("allow", "allowfullscreen", "src", "csp"):
        if name in attrs:
            problems.append(f"the iframe has a {name!r} attribute")
    doc = LexborHTMLParser(attrs["srcdoc"])
    first = next((n for n in doc.head.traverse() if n.tag not in ("head", "-text", "-comment")), None) if doc.head else None
    if first is None or first.tag != "meta" or (first.attributes.get("http-equiv") or "").lower() != "content-security-policy":
        problems.append("the srcdoc's first element in <head> is not the Content-Security-Policy meta")
    elif first.attributes.get("content") != CSP:
        problems.append(f"the srcdoc's CSP is {first.attributes.get('content')!r}, must be the fixed policy")
    return problems


class Generator:
    """Our generator (sandbox.generator.build_iframe)."""

    name = "flowui-sandbox"
    #: Whether it takes fields, state and theme (an external command in the source protocol gets the source only).
    full = True
    #: Whether bridge probes mount the document this generator built (``srcdoc``) instead of letting the
    #: host module build it from the source. Ours: no, the host module builds the same bytes
    #: (fixtures/srcdoc golden documents); an external generator's document is what is under test.
    mounts_own_document = False

    async def build(self, block: Block, source: str, state: Any) -> Built:
        from ..generator import build_iframe

        html = build_iframe(source, block_id=block.block_id, fields=block.fields, state=state, theme=block.theme)
        return Built(html, check_iframe(html))


class CommandGenerator(Generator):
    """Another platform's generator: a command that prints the iframe HTML on stdout.

    Protocol ``source``: stdin is the author source (UTF-8), nothing else; probes that need
    fields, state, theme or the bridge are n/a. Protocol ``json``: stdin is one JSON object,
    :func:`generator_request`; every probe runs, bridge probes on the srcdoc it built.
    """

    def __init__(self, command: str, protocol: str = "source"):
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise OptionError(f"--generator {command!r}: cannot split into words: {exc}") from None
        if not self.argv:
            raise OptionError("--generator: the command is empty")
        if protocol not in GENERATOR_PROTOCOLS:
            raise OptionError(f"--generator-protocol {protocol!r}: choose from {', '.join(GENERATOR_PROTOCOLS)}")
        self.protocol = protocol
        self.full = self.mounts_own_document = protocol == "json"
        self.name = command if protocol == "source" else f"{command} (protocol json)"
        self.command = command

    def run(self, stdin: str) -> str:
        try:
            done = subprocess.run(self.argv, input=stdin.encode("utf-8"), capture_output=True, timeout=20)
        except FileNotFoundError:
            raise OptionError(f"--generator {self.command!r}: no such command {self.argv[0]!r}") from None
        except PermissionError:
            raise OptionError(f"--generator {self.command!r}: {self.argv[0]!r} is not executable") from None
        except subprocess.TimeoutExpired:
            raise GeneratorOutputError("the command did not finish within 20 s") from None
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        if done.returncode == REFUSED_STATUS:
            raise GeneratorRefused(err[-1] if err else f"the command refused the input (exit status {REFUSED_STATUS})")
        if done.returncode != 0:
            raise GeneratorOutputError(f"the command exited with status {done.returncode}: {err[-1] if err else '(no stderr)'}")
        try:
            return done.stdout.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GeneratorOutputError(f"the output is not UTF-8 (offset {exc.start})") from None

    def _stdin(self, block: Block, source: str, state: Any) -> str:
        if self.protocol == "source":
            return source
        request = generator_request(source, block_id=block.block_id, fields=block.fields, state=state, theme=block.theme)
        return json.dumps(request, ensure_ascii=False)

    def preflight(self) -> None:
        """Run the command once on a plain block: a command that cannot start at all is a usage error."""
        try:
            html = self.run(self._stdin(Block(source="<p>hello</p>", block_id="preflight"), "<p>hello</p>", None))
            check_iframe(html)
        except GeneratorRefused as exc:
            raise OptionError(f"--generator {self.command!r}: refused a plain block (<p>hello</p>): {exc}") from None
        except GeneratorOutputError as exc:
            raise OptionError(f"--generator {self.command!r}: {exc}") from None

    async def build(self, block: Block, source: str, state: Any) -> Built:
        html = await asyncio.to_thread(self.run, self._stdin(block, source, state))
        return Built(html, check_iframe(html))


def iframe_srcdoc(html: str) -> str:
    """The srcdoc of the one iframe of a generator's output (already checked by :func:`check_iframe`)."""
    from selectolax.lexbor import LexborHTMLParser

    return LexborHTMLParser(html).css_first("iframe").attributes["srcdoc"] or ""


# --------------------------------------------------------------------------- results


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


# --------------------------------------------------------------------------- host page


def _js(value: Any) -> str:
    """JSON for inside a host page <script> (no '</' can close it)."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_HOST_SETUP = """(() => {
  const h = window.__host = Object.assign(%(init)s, {ready: false, maxGap: 0, messages: [], log: [], actions: [],
    values: [], urls: [], errors: [], handles: []});
  h.title = document.title;
  try { localStorage.setItem('flowui_secret', h.ls); sessionStorage.setItem('flowui_secret', h.ss); }
  catch (e) { h.errors.push('storage: ' + e); }
  let last = performance.now();
  setInterval(() => { const now = performance.now(); h.maxGap = Math.max(h.maxGap, now - last); last = now; }, 50);
  const copy = (v) => { try { return JSON.parse(JSON.stringify(v)); } catch (e) { return String(v); } };
  addEventListener('message', (e) => { if (h.messages.length < 50) h.messages.push({origin: e.origin, data: copy(e.data)}); });
  addEventListener('error', (e) => h.errors.push(String(e.message)));
  addEventListener('load', () => { h.historyLength = history.length; h.maxGap = 0; last = performance.now(); if (!h.bridge) h.ready = true; });
})();"""

_BRIDGE_MOUNT = """import { mountHtmlBlock } from '/bridge/flow-ui-host.js';
const h = window.__host;
const copy = (v) => { try { return JSON.parse(JSON.stringify(v)); } catch (e) { return String(v); } };
try {
  h.blocks.forEach((b, i) => {
    // b.srcdoc: the document an external generator built (verify --generator-protocol json).
    const doc = b.srcdoc ? {srcdoc: b.srcdoc} : {source: b.source, blockId: b.block_id, fields: b.fields};
    h.handles[i] = mountHtmlBlock(document.getElementById('block-' + i), {
      ...doc, state: b.state, theme: b.theme || undefined,
      onAction: (a) => { h.actions.push(copy(a)); return {ok: true}; },
      onValue: (v) => { h.values.push(copy(v)); },
      // Refused after recording: the harness sees what reached the host without opening windows.
      onOpenUrl: (u) => { h.urls.push(copy(u)); return false; },
      onLog: (entry) => { if (h.log.length < 200) h.log.push(copy(entry)); },
    });
  });
} catch (e) { h.errors.push('mount: ' + e); }
// Ready when every block is connected (its handle's promise), or after 5 s, recorded as not connected.
Promise.race([
  Promise.all(h.handles.map((x) => x && x.ready)).then(() => 'connected'),
  new Promise((resolve) => setTimeout(() => resolve('not connected within 5 s'), 5000)),
]).then((how) => { h.connected = how; h.ready = true; });
"""


def host_page(probe: Probe, values: dict[str, str], iframes: list[str] | None, blocks: list[dict[str, Any]]) -> str:
    init = {
        "nonce": values["host_nonce"], "dom": values["secret_dom"], "ls": values["secret_local_storage"],
        "ss": values["secret_session_storage"], "bridge": probe.bridge, "blocks": blocks if probe.bridge else [],
    }
    nonce = values["host_nonce"]
    parts = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        f"<title>{values['secret_title']}</title>",
        f'<script nonce="{nonce}">{_HOST_SETUP % {"init": _js(init)}}</script>',
        "<style>.flowui-block iframe{width:600px;height:200px;border:1px solid #888}</style>",
        f'</head><body><h1>host</h1><p id="secret">{values["secret_dom"]}</p>',
    ]
    for i in range(len(blocks)):
        parts.append(f'<div class="flowui-block" id="block-{i}">{iframes[i] if iframes else ""}</div>')
    if probe.bridge:
        parts.append(f'<script type="module" nonce="{nonce}">{_BRIDGE_MOUNT}</script>')
    parts.append(render(probe.host_html, values))
    parts.append("</body></html>")
    return "".join(parts)


# ------------------------------------------------------------------------------- runs


def make_values(servers: Servers, token: str, taps: Taps, https: bool) -> dict[str, str]:
    host = servers.host if https else servers.host_http
    values = {
        "token": token,
        "canary": servers.canary.base_url,
        "canary_http": servers.canary_http.base_url,
        "host": host.base_url,
        "host_http": servers.host_http.base_url,
        # On the canary's name: the tap is another site than the host, as an attacker's server would be.
        "tap": f"https://{servers.canary.public_host}:{taps.tcp_port}",
        "tap_host": servers.host.public_host,
        "udp_port": str(taps.udp_port),
        "host_nonce": _secrets.token_hex(8),
        "secret_cookie": cookie_value("fs_lax", token),
        "secret_local_storage": f"ls-secret-{token}",
        "secret_session_storage": f"ss-secret-{token}",
        "secret_dom": f"dom-secret-{token}",
        "secret_title": f"title-secret-{token}",
        "secret_location": f"loc-secret-{token}",
        "secret_hidden_state": f"hidden-secret-{token}",
        "secret_host_origin": host.base_url,
    }
    values["alive"] = f"new Image().src='{values['canary']}/log/{token}/alive.gif'"
    return values


@dataclass
class Watch:
    """What the browser showed during one run."""

    popups: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)
    navigations: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)


class Slot:
    """A page of the pool and the watch of the run that holds it."""

    def __init__(self, page: Page):
        self.page = page
        self.watch = Watch()
        # The loop keeps only a weak reference to a task: the dismissals are held here until done.
        self._dismissals: set[asyncio.Future] = set()
        if page.engine.driver == "playwright":
            self._listen()

    def _listen(self) -> None:
        raw = self.page.raw  # type: ignore[attr-defined]

        def on_dialog(dialog) -> None:
            self.watch.dialogs.append(f"{dialog.type}: {dialog.message[:200]}")
            dismissal = asyncio.ensure_future(dialog.dismiss())
            self._dismissals.add(dismissal)
            dismissal.add_done_callback(self._dismissals.discard)

        def on_frame(frame) -> None:
            where = "top" if frame == raw.main_frame else "frame"
            self.watch.navigations.append(f"{where}: {frame.url[:300]}")

        def on_console(message) -> None:
            if len(self.watch.console) < 30:
                self.watch.console.append(f"{message.type}: {message.text[:300]}")

        raw.context.on("page", lambda p: p is not raw and self.watch.popups.append(f"new page {p.url[:300] or '(blank)'}"))
        raw.on("dialog", on_dialog)
        raw.on("download", lambda d: self.watch.downloads.append(d.url[:300]))
        raw.on("framenavigated", on_frame)
        raw.on("console", on_console)


class Pages:
    """The pages of one browser, reused across runs: opening a page costs seconds on a busy machine.

    Playwright pages stay open between runs (popups closed, cookies and permissions
    cleared; the next run's goto replaces the document), except after a click, a
    permission grant or a DoS probe, when the page is closed. WebDriver pages go back
    to sandbox.engines' own pool of MiniBrowser windows, which :meth:`warm` fills first.
    """

    def __init__(self, session: Session, size: int):
        self.session = session
        self.size = size
        self.idle: list[Slot] = []
        self.all: list[Slot] = []

    async def warm(self) -> None:
        if self.session.engine.driver == "playwright":
            slots = await asyncio.gather(*(self._new() for _ in range(self.size)))
            self.idle.extend(slots)
        else:
            pages: list[Page] = []
            for _ in range(self.size):  # one MiniBrowser at a time: starting them together thrashes 2 cores
                pages.append(await self.session.new_page())
            for page in pages:
                await page.close()

    async def _new(self) -> Slot:
        slot = Slot(await self.session.new_page())
        self.all.append(slot)
        return slot

    async def acquire(self, *, fresh: bool = False) -> Slot:
        """A page; ``fresh``: a new one, never used (its history holds only this run's page)."""
        if self.session.engine.driver != "playwright":
            return Slot(await self.session.new_page())
        slot = self.idle.pop() if self.idle and not fresh else await self._new()
        slot.watch = Watch()
        return slot

    async def release(self, slot: Slot, *, reuse: bool = True) -> None:
        """Give the page back; ``reuse=False`` closes it (user activation, for one, outlives a navigation)."""
        if self.session.engine.driver != "playwright":
            await slot.page.close()
            return
        raw = slot.page.raw  # type: ignore[attr-defined]
        try:
            if not reuse or raw.is_closed():
                raise RuntimeError("not reusable")
            for other in raw.context.pages:
                if other is not raw:
                    await other.close()
            await raw.context.clear_cookies()
            await raw.context.clear_permissions()
            # No trip to about:blank: the next run's goto replaces the document anyway.
        except Exception:
            self.all.remove(slot)
            try:
                await slot.page.close()
            except Exception:
                pass
            return
        self.idle.append(slot)

    async def close(self) -> None:
        for slot in self.all:
            try:
                await asyncio.wait_for(slot.page.close(), 10)
            except Exception:
                pass
        self.all.clear()
        self.idle.clear()


async def watch_webdriver(page: Page, watch: Watch, host_url: str) -> None:
    """WebDriver has no events: look at the windows and for an open alert, after the fact."""
    driver = page.raw  # type: ignore[attr-defined]

    def look() -> None:
        try:
            alert = driver.switch_to.alert
            watch.dialogs.append(f"alert: {alert.text[:200]}")
            alert.dismiss()
        except Exception:
            pass
        handles = driver.window_handles
        if len(handles) > 1:
            watch.popups.append(f"{len(handles) - 1} new window(s)")
        try:
            url = driver.current_url
        except Exception as exc:
            url = f"(unreadable: {type(exc).__name__})"
        if url.split("#")[0] != host_url.split("#")[0]:
            watch.navigations.append(f"top: {url[:300]}")

    await asyncio.to_thread(look)


def _request_line(label: str, r) -> str:
    cookies = f" cookies={','.join(sorted(r.cookies))}" if r.cookies else ""
    query = f"?{r.query}" if r.query else ""
    # What a server could check to refuse a cross-site request.
    extra = "".join(f" {h}={r.headers[h]}" for h in ("Origin", "Sec-Fetch-Site") if h in r.headers and r.path.startswith("/api/"))
    return f"{label} {r.method} {r.path}{query}{cookies}{extra}"[:400]


class Run:
    """One probe on one engine."""

    def __init__(self, probe: Probe, pages: Pages, servers: Servers, generator: Generator):
        self.probe = probe
        self.pages = pages
        self.engine: Engine = pages.session.engine
        self.servers = servers
        self.generator = generator
        self.token = f"{probe.id.replace('.', '-')}-{self.engine.name}-{_secrets.token_hex(3)}"
        self.observed: dict[str, Any] = {"token": self.token}
        self.started = time.monotonic()
        self.values: dict[str, str] = {}
        self.url = ""

    def result(self, status: str, evidence: list[str] | None = None, why: str = "") -> Result:
        if why:
            self.observed["why"] = why
        return Result(
            self.probe.id, self.engine.name, status, self.probe.expected(self.engine.name),
            evidence=evidence or [], observed=self.observed, seconds=time.monotonic() - self.started,
        )

    async def execute(self) -> Result:
        probe = self.probe
        blocks_of = (probe.block, *probe.siblings)
        if not self.generator.full and (probe.bridge or any(b.state or b.theme or b.fields for b in blocks_of)):
            return self.result("n/a", why="needs fields, state, theme or the bridge, which a --generator command takes only "
                               "with --generator-protocol json")
        taps = await Taps(self.servers.bind).start()
        host = self.servers.host if probe.host_scheme == "https" else self.servers.host_http
        self.values = values = make_values(self.servers, self.token, taps, probe.host_scheme == "https")
        slot: Slot | None = None
        try:
            blocks = [{
                "source": render(b.source, values), "block_id": b.block_id, "fields": b.fields,
                "state": render_json(b.state, values), "theme": b.theme,
            } for b in blocks_of]
            iframes = None
            if not probe.bridge or self.generator.mounts_own_document:
                iframes, problems = [], []
                for block, b in zip(blocks_of, blocks):
                    try:
                        built = await self.generator.build(block, b["source"], b["state"])
                    except GeneratorOutputError as exc:
                        return self.result("error", why=f"bad generator output: {exc}")
                    except (SandboxError, ValueError) as exc:
                        # The generator refused the input (ThemeError is a ValueError): the attack never reached a browser.
                        self.observed["generator_refused"] = str(exc)
                        return self.result("blocked")
                    iframes.append(built.html)
                    problems += built.problems
                if problems:
                    self.observed["generator_problems"] = sorted(set(problems))
                if probe.bridge:  # the host module mounts the generator's own document
                    for b, html in zip(blocks, iframes):
                        b["srcdoc"] = iframe_srcdoc(html)
                    iframes = None
            headers = {k: render(v, values) for k, v in probe.host_headers.items()}
            self.url = host.add_host_page(host_page(probe, values, iframes, blocks), token=self.token, headers=headers)
            self.url += f"?loc={values['secret_location']}"
            # A run that will not give its page back (a click, a permission, a DoS) gets a new one too:
            # user activation and history (what makes a window script-closable) start clean.
            slot = await self.pages.acquire(fresh=bool(probe.click or probe.grant or probe.category == "dos"))
            self.started = time.monotonic()
            limit = probe.wait + RUN_SLACK
            try:
                return await asyncio.wait_for(self.drive(slot, taps), limit)
            except TimeoutError:
                return self.result("timeout", [f"the run did not finish within {limit:.0f} s"])
        finally:
            host.forget(self.token)
            await taps.stop()
            if slot is not None:
                try:
                    reuse = not (probe.click or probe.grant or probe.category == "dos")
                    await asyncio.wait_for(self.pages.release(slot, reuse=reuse), 20)
                except Exception:
                    pass

    async def drive(self, slot: Slot, taps: Taps) -> Result:
        probe, page = self.probe, slot.page
        if probe.grant and self.engine.driver == "playwright":
            await page.raw.context.grant_permissions(probe.grant, origin=self.values["host"])  # type: ignore[attr-defined]
        await page.goto(self.url)
        try:
            await page.wait_for("() => window.__host && window.__host.ready", timeout=10)
        except EngineError as exc:
            # E.g. a frame stuck on a download keeps the host's load event from firing: observe anyway.
            self.observed["host_not_ready"] = str(exc)
        if probe.host_script:
            try:
                script = f"async () => {{ const f = ({render(probe.host_script, self.values)}); return await f(window.__host); }}"
                self.observed["host_script"] = await page.evaluate(script, timeout=10)
            except Exception as exc:  # the page may be gone (a block that closed its top): observed below
                self.observed["host_script_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        if probe.click:
            try:
                await self.click(page, probe.click)
            except Exception as exc:  # a click that cannot happen leaves the probe invalid
                self.observed["click_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        await asyncio.sleep(probe.wait)
        return await self.observe(slot, taps)

    async def click(self, page: Page, selector: str) -> None:
        frame = FRAME.format(i=0)
        if self.engine.driver == "playwright":
            # Not Page.click: it waits for the navigations a click starts, and a blocked one never ends;
            # force: Firefox's hit test inside a sandboxed frame timed out now and then on a loaded machine.
            locator = page.raw.frame_locator(frame).locator(selector).first  # type: ignore[attr-defined]
            await locator.click(timeout=10000, no_wait_after=True, force=True)
        else:
            await page.click(selector, frame=frame, timeout=10)

    # ---------------------------------------------------------------- observation

    async def observe(self, slot: Slot, taps: Taps) -> Result:
        page, watch = slot.page, slot.watch
        if self.engine.driver != "playwright":
            await watch_webdriver(page, watch, self.url)
        probe = self.probe
        checks = [o for o in (*probe.detect, *ALWAYS, *probe.require) if isinstance(o, HostCheck)]
        host = await self.read_host(page, checks)
        host_alive = isinstance(host, dict)
        if host_alive and host.get("nonce") != self.values["host_nonce"]:
            watch.navigations.append("top: the host page is gone (its nonce changed)")
            host_alive = False
        if not host_alive:
            self.observed["host_unanswered"] = host
            host = {}
        frames = await self.read_frames(page)
        self.observed["self_report"] = frames.get(0, {}).get("report")
        for key in ("log", "errors", "messages"):
            if host.get(key):
                self.observed[f"host_{key}" if key != "log" else "bridge_log"] = host[key]
        self.observed["requests"] = [_request_line(label, r) for label, r in self.servers.requests_for(self.token)]
        self.observed["taps"] = [f"{e.kind} from {e.peer}: {e.data[:60]!r}" for e in taps.events]
        self.observed["events"] = {k: v for k, v in vars(watch).items() if v}
        if "maxGap" in host:
            self.observed["host_max_gap_ms"] = round(host["maxGap"])

        def fired(obs: Observation) -> str:
            return self.check(obs, watch, taps, host, host_alive, frames, checks)

        evidence = list(dict.fromkeys(hit for obs in (*probe.detect, *ALWAYS) if (hit := fired(obs))))
        if evidence:
            return self.result("allowed", evidence)
        if not host_alive:
            return self.result("timeout", [f"the host page did not answer: {self.observed['host_unanswered']}"])
        missing = [describe(obs, self.values) for obs in probe.require if not fired(obs)]
        if "click_error" in self.observed:
            missing.append(f"the click on {probe.click!r} failed: {self.observed['click_error']}")
        if missing:
            return self.result("invalid", why="the probe did not run as designed: missing " + "; ".join(missing))
        return self.result("blocked")

    async def read_host(self, page: Page, checks: list[HostCheck]) -> dict[str, Any] | str:
        """Everything the host page holds, in one call: a busy page answers once, not ten times."""
        funcs = ",".join(f"({render(c.script, self.values)})" for c in checks)
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

    async def read_frames(self, page: Page) -> dict[int, dict[str, Any]]:
        """The blocks' own reports and the frame checks, read by the harness from inside each frame."""
        wanted: dict[int, list[FrameCheck]] = {0: []}
        for obs in (*self.probe.detect, *self.probe.require):
            if isinstance(obs, FrameCheck):
                wanted.setdefault(obs.block, []).append(obs)
        out: dict[int, dict[str, Any]] = {}
        for i, frame_checks in wanted.items():
            funcs = ",".join(f"({render(c.script, self.values)})" for c in frame_checks)
            script = (
                "() => { const out = {report: window.__probe === undefined ? null : window.__probe, checks: []};"
                f" for (const f of [{funcs}]) {{ try {{ out.checks.push(f() || ''); }} catch (e) {{ out.checks.push(''); }} }}"
                " return out; }"
            )
            try:
                out[i] = await page.evaluate(script, frame=FRAME.format(i=i), timeout=6)
            except Exception as exc:
                out[i] = {"report": f"(unreadable: {type(exc).__name__})", "checks": None}
        return out

    def check(self, obs: Observation, watch: Watch, taps: Taps, host: dict[str, Any], host_alive: bool,
              frames: dict[int, dict[str, Any]], checks: list[HostCheck]) -> str:
        """Evidence (a sentence) when the observation fired, else ''."""
        values = self.values
        if isinstance(obs, RequestSeen):
            path = render(obs.path, values)
            hits = [
                _request_line(origin.label, r)
                for origin in self.servers.origins if obs.server in ("any", origin.label)
                for r in origin.requests
                if path in f"{r.path}?{r.query}" and (not obs.cookies or set(obs.cookies) & set(r.cookies))
            ]
            return (f"request seen: {hits[0]}" + (f" (+{len(hits) - 1} more)" if len(hits) > 1 else "")) if hits else ""
        if isinstance(obs, Leak):
            return self._leak(obs)
        if isinstance(obs, HostCheck):
            if not host_alive:
                return ""
            value = host["checks"][checks.index(obs)]
            return f"{obs.what}: {value}" if value else ""
        if isinstance(obs, FrameCheck):
            frame = frames.get(obs.block) or {}
            if not frame.get("checks"):
                return ""
            frame_checks = [o for o in (*self.probe.detect, *self.probe.require) if isinstance(o, FrameCheck) and o.block == obs.block]
            value = frame["checks"][frame_checks.index(obs)]
            return f"{obs.what}: {value}" if value else ""
        if isinstance(obs, Event):
            seen = {"popup": watch.popups, "dialog": watch.dialogs, "download": watch.downloads,
                    "top_navigated": [n for n in watch.navigations if n.startswith("top:")]}[obs.kind]
            if obs.kind == "top_navigated" and self.engine.driver == "playwright":
                seen = [n for n in seen if not n.startswith(("top: about:blank", f"top: {self.url}"))]
            if obs.kind == "download" and self.engine.driver != "playwright":
                # WebDriver reports no downloads: an attachment request of this run stands in for one.
                seen = [_request_line(o.label, r) for o in self.servers.origins for r in o.requests
                        if r.path.startswith("/dl/") and self.token in r.path]
            return f"{obs.kind}: {seen[0]}" if seen else ""
        if isinstance(obs, Tap):
            hits = [e for e in taps.events if e.kind == obs.proto]
            return f"{obs.proto} tap reached {len(hits)} time(s), first from {hits[0].peer}" if hits else ""
        if isinstance(obs, Unresponsive):
            if not host_alive:
                return f"the host page did not answer: {self.observed.get('host_unanswered')}"
            gap = host.get("maxGap") or 0
            return f"the host's 50 ms timer stalled for {round(gap)} ms" if gap > obs.max_gap_ms else ""
        raise AssertionError(obs)

    def _leak(self, obs: Leak) -> str:
        values = self.values
        wanted: dict[str, list[str]] = {}
        for s in obs.secrets:
            if s == "cookie":
                wanted[s] = [cookie_value(n, self.token) for n in HOST_COOKIES]
            elif values.get(f"secret_{s}"):
                wanted[s] = [values[f"secret_{s}"]]
        for origin in self.servers.origins:
            for r in origin.requests:
                headers = "\n".join(f"{k}: {v}" for k, v in r.headers.items() if k.lower() not in ("cookie", "origin", "host"))
                text = f"{r.path}?{r.query}\n{r.body.decode('utf-8', 'replace')}"
                if self.token not in text and self.token not in headers:
                    continue
                for name, secret_values in wanted.items():
                    # The host's origin is no secret in headers (Origin, Referer of the host's own requests).
                    hay = text if name == "host_origin" else f"{text}\n{headers}"
                    if any(v in hay for v in secret_values):
                        return f"secret {name} leaked to {origin.label}: {_request_line(origin.label, r)}"
        return ""


def describe(obs: Observation, values: dict[str, str]) -> str:
    if isinstance(obs, RequestSeen):
        return f"a request to {obs.server} matching {render(obs.path, values)!r}"
    if isinstance(obs, (HostCheck, FrameCheck)):
        return obs.what
    return obs.kind


# ------------------------------------------------------------------------ the matrix


@dataclass
class EngineRun:
    engine: str
    results: list[Result]
    error: str = ""
    seconds: float = 0.0
    #: Remote runs: each browser's URL, how many probes it ran, and why it was lost if it was.
    browsers: list[dict[str, Any]] = field(default_factory=list)


Progress = Callable[[Result, int, int], None]


async def attempt_probe(probe: Probe, pages: Pages, servers: Servers, generator: Generator,
                        alive: Callable[[], Any] | None = None) -> Result:
    """One probe on one browser, retried when the run did not exercise it.

    ``alive`` (remote sessions): after a lost run, ``await alive()`` false means the
    browser itself went away: :class:`sandbox.remote.SessionLost` is raised instead of retrying here.
    """
    engine = pages.session.engine.name
    earlier: list[dict[str, str]] = []
    for attempt in (1, 2, 3):
        run = Run(probe, pages, servers, generator)
        try:
            result = await run.execute()
        except UsageError:
            raise
        except Exception as exc:  # one broken run must not hide the others
            result = run.result("error", why=f"harness error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
        # A run that did not exercise the probe (a lost click, a page too slow to load on a
        # busy machine) is retried, twice at most; the last verdict stands, the others are kept.
        lost = result.status in ("invalid", "error") or (
            result.status == "timeout" and "did not finish" in " ".join(result.evidence) and probe.expected(engine).outcome != "timeout")
        # A lost browser shows as any of these (a host page that stops answering is a timeout).
        if alive is not None and result.status in ("invalid", "error", "timeout") and not await alive():
            from ..remote import SessionLost

            raise SessionLost(f"the browser went away during {probe.id}: {result.reason}")
        if not lost or attempt == 3:
            break
        earlier.append({"status": result.status, "reason": result.reason})
    if earlier:
        result.observed["earlier_attempts"] = earlier
    return result


async def run_engine(session: Session, probes: list[Probe], servers: Servers, generator: Generator,
                     progress: Progress | None = None, concurrency: int | None = None) -> list[Result]:
    """Every probe on one running browser, ``concurrency`` pages at a time."""
    engine = session.engine.name
    pages = Pages(session, concurrency or CONCURRENCY.get(engine, 4))
    limit = asyncio.Semaphore(pages.size)
    done = 0

    async def one(probe: Probe) -> Result:
        nonlocal done
        async with limit:
            result = await attempt_probe(probe, pages, servers, generator)
        done += 1
        if progress:
            progress(result, done, len(probes))
        return result

    try:
        await pages.warm()
        return list(await asyncio.gather(*(one(p) for p in probes)))
    finally:
        await pages.close()


async def run_matrix(engines: list[Engine], probes: list[Probe], generator: Generator | None = None,
                     progress: Progress | None = None, servers: Servers | None = None,
                     remote: dict[str, list[Any]] | None = None) -> list[EngineRun]:
    """The catalogue on every engine at once, each engine in its own browser,
    or spread over the remote browsers ``remote[engine]`` (sandbox.remote.Endpoint) when given."""
    generator = generator or Generator()
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=32, thread_name_prefix="flowui-verify"))
    own = servers is None
    servers = servers or await Servers().start()

    async def per_engine(engine: Engine) -> EngineRun:
        started = time.monotonic()
        if remote and remote.get(engine.name):
            from .spread import run_remote

            return await run_remote(engine, remote[engine.name], probes, servers, generator, progress)
        try:
            session = await launch(engine)
        except EngineError as exc:
            return EngineRun(engine.name, [], str(exc), time.monotonic() - started)
        try:
            results = await run_engine(session, probes, servers, generator, progress)
        finally:
            try:
                await asyncio.wait_for(session.close(), 30)
            except Exception:
                pass
        return EngineRun(engine.name, results, "", time.monotonic() - started)

    try:
        return list(await asyncio.gather(*(per_engine(e) for e in engines)))
    finally:
        if own:
            await servers.stop()


__all__ = [
    "Result", "EngineRun", "Generator", "CommandGenerator", "GeneratorOutputError", "check_iframe",
    "run_engine", "run_matrix", "attempt_probe", "judge", "ALWAYS", "CONCURRENCY", "Slot", "Watch", "watch_webdriver",
]
