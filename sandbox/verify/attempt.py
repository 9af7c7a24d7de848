"""One probe on one browser: the run and its retries (the pages come from :class:`flowui_sandbox.sandbox.harness.pages.PagePool`).

For each (probe, engine) a run makes a fresh token and secrets, builds the
block's iframe with the generator under test (:mod:`.generators`), serves a host
page that holds the secrets (:mod:`.host_page`), opens it, clicks when the probe
asks, watches for at most ``probe.wait`` seconds and then looks from outside
(:mod:`.observation`): the servers' logs, the taps, the host page, browser events.
The block's own report (``window.__probe``) is recorded as context only; it never
decides. The run's observation is judged in :mod:`.judge` (pure). A local browser's runs are
:func:`.runner.run_engine`'s, remote browsers' :func:`.spread.run_remote`'s.
"""

from __future__ import annotations

import asyncio
import secrets as _secrets
import time
from collections.abc import Callable
from typing import Any

from ..engines import Engine, EngineError, Page
from ..errors import UsageError
from ..harness.pages import PagePool
from ..harness.remote import SessionLost
from .generators import Generator, GeneratorOutputError, iframe_srcdoc
from .host_page import FRAME, MOUNT, NOT_KEPT, host_page, kept_host_page, make_values, mount_run
from .judge import outcome_of
from .observation import ALWAYS, LIVE_KINDS, fired, host_checks, read_frames, read_host, request_line, take
from .probes import Probe, render, render_json
from .results import Result, conclude
from .servers import Servers, Taps

#: Seconds a probe run may take beyond its observation window before it counts as timed out.
RUN_SLACK = 40.0
#: The host page's own wait for its ready flag (one evaluate that resolves when the page is up).
#: Not a function of host-page.js: it is asked right after a load, of whatever document the tab
#: shows, which may not run the host script yet (or at all, a block having replaced it).
READY = ("() => new Promise((resolve) => { const tick = () => (window.__host && window.__host.ready)"
         " ? resolve(true) : setTimeout(tick, 20); tick(); })")
#: How often the observation window asks the live checks whether the attack already got through.
POLL = 0.1
#: Runs a kept host page takes before it is loaded again, and the history entries its blocks may add
#: first (blocks that navigate themselves add entries; a history at its cap of 50 could not show a
#: block's push). Counted from the kept page's load: a WebDriver tab's history keeps every earlier run's.
KEPT_RUNS = 30
KEPT_HISTORY = 20
#: The page name of the kept host page on the host origin.
KEPT = "kept"


def _first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


class Run:
    """One probe on one engine."""

    def __init__(self, probe: Probe, pages: PagePool, servers: Servers, generator: Generator):
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
        #: The argument of the kept host page's mount (host_page.mount_run), when the run mounts in one.
        self.mount: dict[str, Any] | None = None
        #: Whether the kept host page must be loaded again after this run (its history is long).
        self.reload_kept = False
        #: Seconds per phase of the run (profile; see docs/SCALE.md).
        self.phases: dict[str, float] = {}
        self._mark = time.monotonic()

    def phase(self, name: str) -> None:
        """Close the current phase under ``name``."""
        now = time.monotonic()
        self.phases[name] = round(self.phases.get(name, 0.0) + now - self._mark, 3)
        self._mark = now

    def result(self, status: str, evidence: list[str] | tuple[str, ...] = (), why: str = "") -> Result:
        """The run's :class:`Result`, concluded now: the record so far goes with it, copied."""
        if why:
            self.observed["why"] = why
        if self.phases:
            self.observed["phases"] = self.phases
        return conclude(self.probe.id, self.engine.name, status, self.probe.expected(self.engine.name),
                        evidence=evidence, observed=self.observed, seconds=time.monotonic() - self.started)

    @property
    def keeps_page(self) -> bool:
        """A run that will not give its page back (a click, a permission, a DoS) gets a new one too:
        user activation and history (what makes a window script-closable) start clean."""
        probe = self.probe
        return not (probe.click or probe.grant or probe.category == "dos")

    async def execute(self) -> Result:
        probe = self.probe
        blocks_of = (probe.block, *probe.siblings)
        if not self.generator.full and (probe.bridge or any(b.state or b.theme or b.fields for b in blocks_of)):
            return self.result("n/a", why="needs fields, state, theme or the bridge, which a --generator command takes only "
                               "with --generator-protocol json")
        self._mark = time.monotonic()
        taps = await Taps(self.servers.bind).start()
        host = self.servers.host if probe.host_scheme == "https" else self.servers.host_http
        self.values = values = make_values(self.servers, self.token, taps, probe.host_scheme == "https")
        page: Page | None = None
        try:
            blocks = [{
                "source": render(b.source, values), "block_id": b.block_id, "fields": b.fields,
                "state": render_json(b.state, values), "theme": b.theme,
            } for b in blocks_of]
            iframes: list[str] | None = None
            if not probe.bridge or self.generator.mounts_own_document:
                built_iframes: list[str] = []
                problems: list[str] = []
                for block, b in zip(blocks_of, blocks):
                    try:
                        built = await self.generator.build(block, b["source"], b["state"])
                    except GeneratorOutputError as exc:
                        return self.result("error", why=f"bad generator output: {exc}")
                    except ValueError as exc:
                        # The generator refused the input (a UsageError, ThemeError too, is a ValueError): the attack never reached a browser.
                        self.observed["generator_refused"] = str(exc)
                        return self.result("blocked")
                    built_iframes.append(built.html)
                    problems += built.problems
                if problems:
                    self.observed["generator_problems"] = sorted(set(problems))
                if probe.bridge:  # the host module mounts the generator's own document
                    for b, html in zip(blocks, built_iframes):
                        b["srcdoc"] = iframe_srcdoc(html)
                else:
                    iframes = built_iframes
            if probe.mountable:
                # The URL a loaded host page would have; the kept one takes it (history.replaceState).
                self.url = f"{host.base_url}/host/{self.token}/{values['secret_path']}?loc={values['secret_location']}#{values['secret_fragment']}"
                self.mount = mount_run(probe, values, iframes, blocks, self.url, host.add_cookies(self.token))
            else:
                headers = {k: render(v, values) for k, v in probe.host_headers.items()}
                self.url = host.add_host_page(host_page(probe, values, iframes, blocks), token=self.token, headers=headers)
                self.url += f"/{values['secret_path']}?loc={values['secret_location']}#{values['secret_fragment']}"
            self.phase("build")
            page = acquired = await self.pages.acquire(fresh=not self.keeps_page or probe.fresh_page, kept=self.mount is not None)
            self.phase("page")
            self.started = time.monotonic()
            limit = probe.wait + RUN_SLACK
            try:
                result = await asyncio.wait_for(self.drive(acquired, taps), limit)
            except TimeoutError:
                result = self.result("timeout", [f"the run did not finish within {limit:.0f} s"])
            # Only a run that showed nothing leaves its kept host page to the next: anything else may
            # have left a mark on it (a planted marker, a navigation, a hung frame).
            keep_host = self.mount is not None and result.status == "blocked" and not self.reload_kept
            page = None  # released here, not in finally
            try:
                await asyncio.wait_for(self.pages.release(acquired, reuse=self.keeps_page, keep_host=keep_host), 20)
            except TimeoutError:  # release handles the driver's errors itself; a hung page is closed with the pool
                pass
            return result
        finally:
            host.forget(self.token)
            await taps.stop()
            if page is not None:
                try:
                    await asyncio.wait_for(self.pages.release(page, reuse=self.keeps_page), 20)
                except TimeoutError:  # release handles the driver's errors itself; a hung page is closed with the pool
                    pass

    async def drive(self, page: Page, taps: Taps) -> Result:
        probe = self.probe
        if probe.grant:
            await page.grant(probe.grant, self.values["host"])
        if self.mount is not None:
            await self.mount_blocks(page)
        else:
            self.pages.kept.pop(page, None)  # its document is replaced
            await page.goto(self.url)
        self.phase("load")
        try:
            await self.ready(page)
        except EngineError as exc:
            # E.g. a frame stuck on a download keeps the host's load event from firing: observe anyway.
            self.observed["host_not_ready"] = str(exc)
        self.phase("ready")
        if probe.host_script:
            try:
                script = f"async () => {{ const f = ({render(probe.host_script, self.values)}); return await f(window.__host); }}"
                self.observed["host_script"] = await page.evaluate(script, timeout=10)
            except Exception as exc:  # the page may be gone (a block that closed its top): observed below
                self.observed["host_script_error"] = _first_line(exc)
            self.phase("host_script")
        if probe.click:
            try:
                where = None if probe.click_in == "host" else FRAME.format(i=probe.click_in)
                await page.gesture(probe.click, frame=where, timeout=10)
            except Exception as exc:  # a click that cannot happen leaves the probe invalid
                self.observed["click_error"] = _first_line(exc)
            self.phase("click")
        await self.window(page, taps)
        self.phase("window")
        result = await self.observe(page, taps)
        self.phase("observe")
        return result.noting(phases=self.phases)

    async def mount_blocks(self, page: Page) -> None:
        """This run's blocks in the page's kept host page, loaded first if the page shows another."""
        runs = self.pages.kept.get(page)
        if runs is None:
            runs = await self._load_kept(page)
        history = await page.evaluate(MOUNT, self.mount, timeout=10)
        if history == NOT_KEPT:
            # The window shows another document than the kept host page it was given: loaded
            # again, once; a second miss is the run's error.
            self.observed["kept_host_page_missing"] = 1
            runs = await self._load_kept(page)
            history = await page.evaluate(MOUNT, self.mount, timeout=10)
            if history == NOT_KEPT:
                raise EngineError(f"{page.engine.name}: the kept host page loaded, and the window shows another document")
        self.pages.kept[page] = runs + 1
        self.observed["kept_host_page_run"] = runs + 1
        if runs == 0 and isinstance(history, int):
            self.pages.kept_history[page] = history
        added = history - self.pages.kept_history.get(page, history) if isinstance(history, int) else KEPT_HISTORY
        self.reload_kept = runs + 1 >= KEPT_RUNS or added >= KEPT_HISTORY

    async def _load_kept(self, page: Page) -> int:
        """Load the kept host page in ``page``; the runs mounted in it so far (none)."""
        host = self.servers.host
        await page.goto(f"{host.base_url}/p/{KEPT}" if KEPT in host.pages else host.add_page(kept_host_page(), name=KEPT))
        page.watch()  # the harness's own load is no event of this run
        return 0

    async def ready(self, page: Page, timeout: float = 10) -> None:
        """Until the host page says it is ready (loaded; bridge blocks connected): the page itself
        waits and answers once, instead of one round trip per poll. If the document changed
        under the wait (a block navigated the top), poll for what is left of it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            if await page.evaluate(READY, timeout=timeout):
                return
        except EngineError:
            raise
        except Exception:  # Playwright's own error for a document replaced under the wait: the poll below takes over
            pass
        await page.wait_for("() => window.__host && window.__host.ready", timeout=max(0.5, deadline - loop.time()))

    async def window(self, page: Page, taps: Taps) -> None:
        """Watch for ``probe.wait`` seconds, or less: once a detection that needs no call into the page
        (a request, a leak, a tap, a browser event) fired, the attack got through and the outcome is
        decided. A probe that is blocked shows nothing and is watched for its whole window."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.probe.wait
        live = [o for o in (*self.probe.detect, *ALWAYS) if o.kind in LIVE_KINDS]
        watch = page.watching
        last: tuple[int, ...] = ()
        while (left := deadline - loop.time()) > 0:
            # The checks scan the servers' logs: only when something new arrived (any run's request,
            # a tap, an event), not ten times a second for each of the pages in flight.
            now = (sum(len(o.requests) for o in self.servers.origins), len(taps.events),
                   len(watch.popups), len(watch.dialogs), len(watch.downloads), len(watch.navigations))
            if now != last:
                last = now
                seen = take(self.probe, self.values, self.token, self.url, self.servers, taps, page)
                if any(fired(o, seen) for o in live):
                    self.observed["window_ended_early"] = round(self.probe.wait - left, 2)
                    return
            await asyncio.sleep(min(POLL, left))

    # ---------------------------------------------------------------- observation

    async def observe(self, page: Page, taps: Taps) -> Result:
        """Read the page once (the host page's answer, each frame's), take the run's
        :class:`ProbeObservation`, and conclude the result from the judge's outcome."""
        probe = self.probe
        await page.look(self.url)
        answer = await read_host(page, host_checks(probe), self.values)
        host: dict[str, Any] = answer if isinstance(answer, dict) else {}
        host_alive = isinstance(answer, dict)
        if host_alive and host.get("nonce") != self.values["host_nonce"]:
            page.watching.navigations.append("top: the host page is gone (its nonce changed)")
            host_alive = False
        if not host_alive:
            self.observed["host_unanswered"] = answer
            host = {}
        frames = await read_frames(page, probe, self.values)
        seen = take(probe, self.values, self.token, self.url, self.servers, taps, page, host=host, host_alive=host_alive,
                    host_unanswered=str(answer) if not host_alive else "", frames=frames,
                    click_error=self.observed.get("click_error", ""))
        self.observed["self_report"] = frames.get(0, {}).get("report")
        for key in ("log", "errors", "messages"):
            if host.get(key):
                self.observed[f"host_{key}" if key != "log" else "bridge_log"] = host[key]
        self.observed["requests"] = [request_line(label, r) for label, r in self.servers.requests_for(self.token)]
        self.observed["taps"] = [f"{e.kind} from {e.peer}: {e.data[:60]!r}" for e in taps.events]
        self.observed["events"] = {k: v for k, v in vars(page.watching).items() if v}
        if "maxGap" in host:
            self.observed["host_max_gap_ms"] = round(host["maxGap"])
        outcome = outcome_of(seen)
        return self.result(outcome.status, outcome.evidence, why=outcome.why)


async def attempt_probe(probe: Probe, pages: PagePool, servers: Servers, generator: Generator,
                        alive: Callable[[], Any] | None = None) -> Result:
    """One probe on one browser, retried when the run did not exercise it.

    ``alive`` (remote sessions): after a lost run, ``await alive()`` false means the
    browser itself went away: :class:`flowui_sandbox.sandbox.harness.remote.SessionLost` is raised instead of retrying here.
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
            result = run.result("error", why=f"harness error: {_first_line(exc)}")
        # A run that did not exercise the probe (a lost click, a page too slow to load on a
        # busy machine) is retried, twice at most; the last verdict stands, the others are kept.
        lost = result.status in ("invalid", "error") or (
            result.status == "timeout" and "did not finish" in " ".join(result.evidence) and probe.expected(engine).outcome != "timeout")
        # A lost browser shows as any of these (a host page that stops answering is a timeout).
        if alive is not None and result.status in ("invalid", "error", "timeout") and not await alive():
            raise SessionLost(f"the browser went away during {probe.id}: {result.reason}")
        if not lost or attempt == 3:
            break
        earlier.append({"status": result.status, "reason": result.reason})
    if earlier:
        result = result.noting(earlier_attempts=earlier)
    return result


__all__ = ["Run", "attempt_probe", "RUN_SLACK", "KEPT"]
