"""One engine's lane: a browser, a few page slots, the blocks handed out to them.

A slot is a page of the engine's browser, its logging proxy (:class:`.proxy.Tap`, which
also serves the slot's host page) and verify's event watch (:class:`flowui_sandbox.sandbox.verify.runner.Slot`).
A block on a slot goes: host page → light screenshot → dark theme → dark screenshot →
user actions → state update → light theme → :data:`SETTLE` seconds of quiet → read
everything. The whole of it runs under the per-block time limit; a block that hits it
(a busy loop freezes the host page too) loses its page, which is closed or killed, and
the slot gets a fresh one for the next block.
"""

from __future__ import annotations

import asyncio
import base64
import ssl
import time
from dataclasses import dataclass, field
from typing import Any

from ...engines import Engine, EngineError, Page, Session, launch
from ...extract import MAX_SOURCE_BYTES
from ...generator import build_srcdoc
from ...verify.runner import Slot, Watch, watch_webdriver
from .canaries import Canaries
from .hostpage import ACT, ACTIONABLE, PROBE, QUIET, READ, WAIT_QUIET, WAIT_READY, WAIT_THEME, host_page
from .proxy import Seen, Tap

#: Seconds of quiet after the last user action (and the state update and theme switch) before
#: the harness reads what happened. Timers and animation frames that fire within it are seen;
#: code that waits longer (setTimeout(f, 5000), a condition the harness never produces)
#: escapes the browser layer, and the static layer's timer rules are what is left.
SETTLE = 1.0
#: Seconds after the block connected within which a pending timer is waited for (code delayed at
#: load by up to this much is seen even when the user's actions were quick).
DELAYED = 2.0
#: Pages at once per engine (verify measured 3 as the best wall time on this 2-core machine).
SLOTS = 3
#: User actions per block (a page of 500 buttons is reviewed on its first ones).
MAX_ACTIONS = 40
#: Seconds one user action may take (a click on an element that never becomes clickable).
ACTION_TIMEOUT = 3.0
FRAME = "#block iframe"
#: The watchdog's probe: seconds a trivial evaluate may take, and misses in a row that make a hang.
HANG_PROBE = 3.0
HANG_MISSES = 2


@dataclass
class Work:
    """One block prepared for the browsers: its document is built once, its canaries are per engine."""

    index: int
    file: str
    source: str
    fields: list[str]
    paths: list[str]
    state: dict[str, Any]
    theme: dict[str, Any] | None
    dark: dict[str, Any]
    light: dict[str, Any]
    background: tuple[str, str]  # page background light, dark


@dataclass
class Observed:
    """What one engine saw of one block."""

    engine: str
    canaries: Canaries
    seen: list[Seen] = field(default_factory=list)
    tunnels: list[str] = field(default_factory=list)
    dropped: int = 0
    host: dict[str, Any] = field(default_factory=dict)
    watch: Watch = field(default_factory=Watch)
    screenshots: dict[str, str] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)
    typed: dict[str, str] = field(default_factory=dict)  # canary -> what was typed into
    timed_out: bool = False
    error: str = ""
    #: Seconds at the end of each step, for bench/review_browser.py and for a timeout's evidence.
    steps: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


class Lane:
    """One engine: a browser, :data:`SLOTS` pages, blocks handed out from a queue."""

    def __init__(self, engine: Engine, ssl_context: ssl.SSLContext, *, time_limit: float, settle: float = SETTLE,
                 slots: int = SLOTS, on_done=None):
        self.engine = engine
        self.ssl_context = ssl_context
        self.time_limit = time_limit
        self.settle = settle
        self.size = slots
        self.on_done = on_done
        self.session: Session | None = None
        self._closing: set[asyncio.Task] = set()
        self._lock = asyncio.Lock()

    async def run(self, works: list[Work]) -> dict[int, Observed]:
        out: dict[int, Observed] = {}
        try:
            self.session = await launch(self.engine)
        except EngineError as exc:
            for w in works:
                out[w.index] = Observed(self.engine.name, Canaries(), error=str(exc))
            return out
        queue: asyncio.Queue[Work] = asyncio.Queue()
        for w in works:
            queue.put_nowait(w)

        async def worker(n: int, retry: bool = False) -> None:
            tap = await Tap(self.ssl_context).start()
            page: Page | None = None
            slot: Slot | None = None
            try:
                while not queue.empty():
                    work = queue.get_nowait()
                    if page is None:
                        try:
                            page, slot = await self._new_page(tap)
                        except Exception:
                            # A browser that opens no page any more (Chromium busy letting go of a spinning
                            # renderer) is replaced; pages the other slots had on it fail and are retried.
                            try:
                                await self._relaunch()
                                page, slot = await self._new_page(tap)
                            except Exception as exc:
                                out[work.index] = Observed(self.engine.name, Canaries(), error=f"no page: {_first_line(exc)}")
                                page = None
                                continue
                    assert slot is not None  # made with the page
                    try:
                        # Everything of one block, cleanup included, under a bound: a browser that stops
                        # answering (a flood still draining) costs this block its page, not the run.
                        obs, keep = await asyncio.wait_for(self.review(work, page, slot, tap), self.time_limit + 30)
                    except TimeoutError:
                        obs, keep = Observed(self.engine.name, Canaries(), timed_out=True), False
                        obs.seen, obs.tunnels, obs.dropped = tap.since(tap.mark())
                    out[work.index] = obs
                    if not keep:
                        await self._drop(page)
                        page = None
                    if self.on_done and not retry:
                        self.on_done(self.engine.name, work)
            finally:
                if page is not None:
                    try:
                        await asyncio.wait_for(page.close(), 10)
                    except Exception:
                        pass
                await tap.stop()

        try:
            await asyncio.gather(*(worker(n) for n in range(min(self.size, len(works)) or 1)))
            # A block that hung while other pages ran may have been starved by one that really spins
            # (two cores, a busy loop on each): each is reviewed once more, alone, and that verdict stands.
            again = [w for w in works if out.get(w.index) is not None and (out[w.index].timed_out or out[w.index].error)]
            if again and min(self.size, len(works)) > 1:
                for w in again:
                    queue.put_nowait(w)
                await worker(0, retry=True)
        finally:
            if self._closing:
                await asyncio.wait(list(self._closing), timeout=10)
            try:
                await asyncio.wait_for(self.session.close(), 30)
            except Exception:
                pass
        return out

    async def _new_page(self, tap: Tap) -> tuple[Page, Slot]:
        assert self.session is not None
        page = await asyncio.wait_for(self.session.new_page(proxy=tap.proxy_url), 60)
        return page, Slot(page)

    async def _relaunch(self) -> None:
        old = self.session
        async with self._lock:
            if self.session is not old:
                return  # another slot relaunched it already
            try:
                await asyncio.wait_for(old.close(), 15)  # type: ignore[union-attr]
            except Exception:
                pass
            self.session = await launch(self.engine)

    async def _drop(self, page: Page) -> None:
        """Close a page the last block may have hung, in the background: a busy renderer can take
        Chromium many seconds to let go of, and the slot's next block needs no wait for it."""

        async def close() -> None:
            try:
                await asyncio.wait_for(page.abandon(), 60)
            except Exception:
                pass  # the browser goes when the lane ends

        task = asyncio.ensure_future(close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    # ------------------------------------------------------------------ one block

    async def review(self, work: Work, page: Page, slot: Slot, tap: Tap) -> tuple[Observed, bool]:
        """Review ``work`` on ``page``; returns what was seen and whether the page can be reused."""
        canaries = Canaries()
        obs = Observed(self.engine.name, canaries)
        slot.watch = obs.watch
        mark = tap.mark()
        started = time.monotonic()
        keep = True
        state = canaries.state(work.state, work.paths)
        try:
            # The probe goes first when it fits under the generator's size limit (else: the fixed wait).
            probed = PROBE + work.source if len((PROBE + work.source).encode("utf-8")) <= MAX_SOURCE_BYTES else work.source
            srcdoc = build_srcdoc(probed, block_id="reviewed", fields=work.fields, state=state, theme=work.light)
        except Exception as exc:  # the generator refused the block (a 4 MiB source, a bad theme)
            obs.error = f"the generator refused the block: {_first_line(exc)}"
            return obs, True
        url = tap.host.add_page(host_page(srcdoc, background=work.background[0]), name="review")
        try:
            await asyncio.wait_for(self.watched(page, obs, self.drive(work, page, obs, url, canaries, state, tap)), self.time_limit)
            # e.g. a loop that started before the bridge connected. A frame that navigated away holds
            # another document (an error page in Chromium, which answers no evaluate): the host decides.
            navigated = obs.host.get("status") == "navigated"
            if not await self._alive(page, frame=not navigated):
                obs.timed_out = True
                obs.steps["hung after"] = round(time.monotonic() - started, 3)
                keep = False
        except TimeoutError:
            obs.timed_out = True
            keep = False
        except Exception as exc:
            # A step that failed on a page that no longer answers is the block hanging it.
            keep = False
            if await self._alive(page):
                obs.error = _first_line(exc)
            else:
                obs.timed_out = True
                obs.steps["hung after"] = round(time.monotonic() - started, 3)
        if not obs.timed_out and self.engine.driver != "playwright":
            try:
                await asyncio.wait_for(watch_webdriver(page, obs.watch, url), 5)
            except Exception as exc:
                obs.steps["watch failed"] = _first_line(exc)[:200]
                keep = False
        if obs.watch.popups or obs.watch.downloads:
            keep = False
        if keep:
            # Unload the block now: its pending loads must not reach the next block's log.
            try:
                await asyncio.wait_for(page.goto("about:blank", timeout=5), 10)
            except Exception as exc:
                obs.steps["unload failed"] = _first_line(exc)[:200]
                keep = False
        # A flood's requests already on their way still reach the proxy after the unload: let
        # them drain (at most 3 s) so they count for this block, not the slot's next one.
        drain = time.monotonic()
        # ASYNC110 is silenced: the proxy's request times are polled; there is no event to wait on.
        while time.time() - max(tap.last, tap.tunnels[-1][1] if tap.tunnels else 0.0) < QUIET and time.monotonic() - drain < 3:  # noqa: ASYNC110
            await asyncio.sleep(QUIET / 2)
        obs.seen, obs.tunnels, obs.dropped = tap.since(mark)
        obs.seconds = time.monotonic() - started
        return obs, keep

    async def _alive(self, page: Page, *, frame: bool = True) -> bool:
        """Whether the host page and the block's frame both answer (Chromium runs a sandboxed
        frame in its own process: the host stays responsive while the block spins)."""
        try:
            if await page.evaluate("() => 1", timeout=2) != 1:
                return False
            if not frame:
                return True
            return await page.evaluate("() => 1", frame=FRAME, timeout=2) == 1
        except Exception:
            return False

    async def watched(self, page: Page, obs: Observed, drive) -> None:
        """Run ``drive`` while a watchdog asks the host page (and, once connected, the block's frame)
        for a trivial answer every second: :data:`HANG_MISSES` misses in a row end the review as a
        hang long before the time limit, so a spinning block stops eating the CPU the other pages
        need. Playwright only: WebDriver takes one call at a time, there the calls' own timeouts
        and the time limit decide."""
        task = asyncio.ensure_future(drive)
        # A drive abandoned to the watchdog fails later (its page closed): that is no news.
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        if self.engine.driver != "playwright":
            await task
            return

        async def watchdog() -> None:
            misses = 0
            while misses < HANG_MISSES:
                await asyncio.sleep(1)
                if "load" not in obs.steps:
                    continue
                try:
                    status = await page.evaluate("() => window.__review && window.__review.handle && window.__review.handle.status",
                                                 timeout=HANG_PROBE)
                    # A frame that navigated away may answer no evaluate (Chromium's error page): not a hang.
                    if "connected" in obs.steps and status != "navigated":
                        await page.evaluate("() => 1", frame=FRAME, timeout=HANG_PROBE)
                    misses = 0
                except Exception:
                    misses += 1

        dog = asyncio.ensure_future(watchdog())
        try:
            done, _ = await asyncio.wait({task, dog}, return_when=asyncio.FIRST_COMPLETED)
            if task in done:
                task.result()
                return
            obs.steps["watchdog"] = f"no answer {HANG_MISSES} times in a row"
            raise TimeoutError
        finally:
            for t in (task, dog):
                t.cancel()

    async def drive(self, work: Work, page: Page, obs: Observed, url: str, canaries: Canaries, state: dict[str, Any],
                    tap: Tap) -> None:
        t0 = time.monotonic()

        def step(name: str) -> None:
            obs.steps[name] = round(time.monotonic() - t0, 3)

        if self.engine.driver == "playwright":
            # "commit", not "load": a block spinning at load never lets the load event come (Firefox).
            await page.raw.goto(url, wait_until="commit", timeout=self.time_limit * 1000)  # type: ignore[attr-defined]
        else:
            await page.goto(url, timeout=min(self.time_limit, 10))
        step("load")
        # One round trip that resolves when the host module says connected (or gave up): no polling.
        ready = await page.evaluate(WAIT_READY, timeout=self.time_limit) or {}
        step("connected")
        connected = time.monotonic()
        obs.host, box = ready.get("host") or {}, ready.get("box")
        if obs.host.get("status") != "connected":
            return
        await page.evaluate("(t) => window.__review.handle.setTheme(t)", work.dark)
        try:  # the theme travels over the bridge: wait until the block's root has it, and a frame is painted
            await self.in_frame(page, WAIT_THEME, work.dark["color-scheme"], timeout=5)
        except Exception:
            pass
        await self.shoot(page, box, obs, "dark")
        step("dark screenshot")
        await self.act(page, obs, canaries)
        step("actions")
        await page.evaluate("([s, t]) => { window.__review.handle.setState(s); window.__review.handle.setTheme(t); }",
                            [canaries.again(state), work.light])
        step("update")

        async def light() -> None:  # taken while the harness waits for delayed code anyway
            await asyncio.sleep(0.05)  # the light theme's message reaches the block first
            try:
                await self.in_frame(page, WAIT_THEME, work.light["color-scheme"], timeout=5)
            except Exception:
                pass
            await self.shoot(page, box, obs, "light")

        await asyncio.gather(self.settle_down(page, obs, connected, tap), light())
        obs.host = await page.evaluate(READ) or obs.host
        step("settled")

    async def in_frame(self, page: Page, script: str, arg: Any = None, *, timeout: float) -> Any:
        """Evaluate in the block's frame. Playwright keeps the frame tree on this side: the
        frame is found without a round trip (a selector lookup costs two under WebDriver BiDi)."""
        if self.engine.driver == "playwright":
            children = page.raw.main_frame.child_frames  # type: ignore[attr-defined]
            if len(children) == 1:
                try:
                    return await asyncio.wait_for(children[0].evaluate(script, arg), timeout)
                except TimeoutError:
                    raise EngineError(f"{self.engine.name}: script did not finish within {timeout}s") from None
        return await page.evaluate(script, arg, frame=FRAME, timeout=timeout)

    async def settle_down(self, page: Page, obs: Observed, connected: float, tap: Tap) -> None:
        """Wait for delayed code: until the block is quiescent (no timer due, no animation frame
        pending, nothing run and no request for :data:`QUIET` s), at most until every timer due
        :data:`DELAYED` s after the block connected, and :data:`SETTLE` s after the last action, ran."""
        started = time.monotonic()
        deadline = max(self.settle, connected + DELAYED - started)
        while True:
            left = deadline - (time.monotonic() - started)
            if left <= 0:
                obs.steps["quiescence"] = "no: the maximum wait"
                return
            try:
                answer = await self.in_frame(page, WAIT_QUIET, {"deadline": round(left * 1000), "quiet": round(QUIET * 1000)},
                                             timeout=left + 5)
            except Exception:
                answer = None
            if not answer or not answer.get("probe"):
                # The frame navigated away (or never had the probe): the fixed window, as before.
                await asyncio.sleep(max(0.0, left))
                obs.steps["quiescence"] = "no probe in the frame: the maximum wait"
                return
            if not answer.get("quiet"):
                obs.steps["quiescence"] = f"no: {answer.get('timers', 0)} timer(s), {answer.get('frames', 0)} frame(s) pending"
                return
            # The frame is quiet; a request the proxy saw within QUIET s means more may follow.
            since = time.time() - max(tap.last, tap.tunnels[-1][1] if tap.tunnels else 0.0)
            if since >= QUIET:
                obs.steps["quiescence"] = f"yes after {round(time.monotonic() - started, 3)} s"
                return
            await asyncio.sleep(QUIET - since)

    async def shoot(self, page: Page, box: dict[str, int] | None, obs: Observed, theme: str) -> None:
        """A screenshot that fails (a page too slow to paint within its timeout) is noted in the
        review's steps; the review goes on without it."""
        try:
            obs.screenshots[theme] = await self.screenshot(page, box)
        except Exception as exc:
            if not await self._alive(page):
                raise
            obs.steps[f"{theme} screenshot failed"] = _first_line(exc)[:200]

    async def screenshot(self, page: Page, box: dict[str, int] | None) -> str:
        if self.engine.driver == "playwright":
            # A clip of the page, not Locator.screenshot: no waiting for the element to be "stable".
            png = await page.raw.screenshot(clip=box, timeout=5000)  # type: ignore[attr-defined]
            return base64.b64encode(png).decode("ascii")

        def shot() -> str:

            return page.raw.get_screenshot_as_base64()  # type: ignore[attr-defined]

        return await asyncio.wait_for(asyncio.to_thread(shot), 10)

    # ------------------------------------------------------------------ acting like a user

    async def act(self, page: Page, obs: Observed, canaries: Canaries) -> None:
        """Act like a user on every element :data:`ACTIONABLE` finds (the :data:`ACT` script: one
        round trip); what is typed is a canary per input, labelled with the input afterwards."""
        strings = [canaries.string("(typed)") for _ in range(MAX_ACTIONS)]
        numbers = [canaries.number("(typed)") for _ in range(MAX_ACTIONS)]
        arg = {"selector": ACTIONABLE, "max": MAX_ACTIONS, "strings": strings, "numbers": numbers}
        try:
            lines = await self.in_frame(page, ACT, arg, timeout=ACTION_TIMEOUT + 0.2 * MAX_ACTIONS) or []
        except Exception as exc:
            host = await page.evaluate(READ, timeout=3) or {}
            if not await self._alive(page, frame=host.get("status") != "navigated"):
                raise
            # The last action (a link) navigated the frame away before the script could answer.
            lines = [{"what": "(the actions)", "kind": "", "result": f"no answer: the frame navigated? {_first_line(exc)[:80]}"}]
        used = set()
        for line in lines:
            typed = line.get("typed")
            if typed:
                used.add(typed)
                canaries.relabel(typed, f"(typed into {line['what']})")
            result = line.get("result", "")
            obs.actions.append(f"{line.get('kind')} {line.get('what')}{'' if result == 'done' else ' ' + result}")
        canaries.forget([v for v in strings + [str(n) for n in numbers] if v not in used])


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


__all__ = ["Lane", "Work", "Observed", "SETTLE", "SLOTS"]
