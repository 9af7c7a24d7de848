"""The Playwright driver: Chromium (CDP), Firefox (Juggler, or WebDriver BiDi for Debian's
Firefox ESR) and Playwright's own WebKit build. A page is a browser context's one page; it
reports events as they happen and declares the most capabilities (docs/ENGINES.md).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from .base import (
    HOLDER_ATTRIBUTE,
    Capability,
    DocumentReplaced,
    Engine,
    EngineError,
    Frame,
    Page,
    PageGone,
    ScriptTimeout,
    Session,
    Unsupported,
    Watch,
)

#: Chromium on a closed network floods it with refused connections without these.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    # navigator.webdriver false in every frame (the review's block must not tell it is driven).
    "--disable-blink-features=AutomationControlled",
]


#: A page's proxy carries loopback requests too (Session.new_page): Chromium bypasses 127.0.0.0/8,
#: [::1] and localhost unless its bypass list says ``<-loopback>``; Firefox unless it was launched
#: with :data:`FIREFOX_PREFS` (measured: without either, a block's image to ``https://127.0.0.1:8443/``
#: never reached the proxy).
PROXY_BYPASS = {"chromium": "<-loopback>", "firefox": "", "webkit": ""}
#: Preferences every Firefox is launched with (here, and by the browser server: harness/browser_server.py).
FIREFOX_PREFS: dict[str, object] = {"network.proxy.allow_hijacking_localhost": True}

#: Fire-and-forget tasks (dialog dismissals), referenced until they finish.
_PENDING: set[asyncio.Future] = set()

#: Whether ``selector`` matches the top document's only frame element (then it is the page's only child frame):
#: "holder" when that element is a host module's holder frame (see :data:`HOLDER_ATTRIBUTE`), "frame" otherwise.
_ONLY_FRAME = """(s) => { const all = document.querySelectorAll('iframe, frame, object, embed'), m = document.querySelectorAll(s);
  return all.length === 1 && m.length === 1 && m[0] === all[0] && m[0].tagName === 'IFRAME'
    ? (m[0].hasAttribute('data-flow-ui-frame') ? 'holder' : 'frame') : ''; }"""

#: Scroll a holder frame (``selector``) into the top document's view.
_HOLDER_INTO_VIEW = "(s) => { document.querySelector(s).scrollIntoView({block: 'center'}); return true; }"
#: Where the block's viewport starts in the top document's: the holder frame's content box plus the block's frame in it.
_HELD_ORIGIN = """(s) => { const h = document.querySelector(s), i = h.contentDocument.querySelector('iframe');
  const a = h.getBoundingClientRect(), b = i.getBoundingClientRect();
  return [a.left + h.clientLeft + b.left + i.clientLeft, a.top + h.clientTop + b.top + i.clientTop]; }"""
#: An element's centre in its frame's viewport, scrolled into view first.
_ELEMENT_CENTRE = """(s) => { const e = document.querySelector(s); e.scrollIntoView({block: 'center'});
  const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }"""

#: One leap of the frame's controlled clock: the controller Playwright's clock installs in every document
#: (``__pwClock``, what its own fast_forward calls in each frame). False where there is none. A timer
#: of the frame's that throws is the frame's own business: the leap goes on (Playwright's call too).
_FAST_FORWARD = """async (ms) => { const c = globalThis.__pwClock && globalThis.__pwClock.controller;
  if (!c) return false; try { await c.fastForward(ms); } catch (e) {} return true; }"""

#: What the Playwright driver can do (VIRTUAL_TIME with Chromium only: it is CDP's).
CAPABILITIES = frozenset({
    Capability.POINTER, Capability.TYPING, Capability.FRAMES, Capability.SCREENSHOT, Capability.INIT_SCRIPT, Capability.CLOCK,
    Capability.VIRTUAL_TIME, Capability.LAUNCH_OPTIONS, Capability.CONTEXT_EMULATION, Capability.RESIZE, Capability.EVENT_WATCH,
    Capability.CONCURRENT_CALLS,
})


class PlaywrightPage(Page):
    capabilities = CAPABILITIES

    def __init__(self, engine: Engine, context: Any, page: Any):
        self.engine = engine
        self.capabilities = PlaywrightSession.capabilities_for(engine)
        self._context = context
        self.raw = page  # the Playwright Page, for tests that need events (popups, dialogs, downloads)
        self._frames: dict[Frame, Any] = {}  # a frame's selector (or path) -> its Playwright Frame (content_frame)
        self._held: set[Frame] = set()  # iframe selectors that name a host module's holder frame
        # A new top document has new frames: forget the kept ones at once (their detach may come later).
        page.on("framenavigated", lambda frame: self._frames.clear() if frame == page.main_frame else None)

    async def goto(self, url: str, timeout: float = 15) -> None:
        await self.raw.goto(url, timeout=timeout * 1000)

    async def content_frame(self, frame: Frame, timeout: float = 10):
        """The Playwright Frame ``frame`` names, kept until it is detached: finding it costs two
        round trips, and content_frame alone ~170 ms in Firefox over BiDi (a watchdog's or a wait's
        every poll paid it)."""
        cached = self._frames.get(frame)
        if cached is not None and not cached.is_detached():
            return cached
        if isinstance(frame, tuple):
            if not frame:
                raise EngineError(f"{self.engine.name}: an empty frame path names no frame")
            return await self._frame_on_path(frame, timeout)
        selector = frame
        children = [f for f in self.raw.main_frame.child_frames if not f.is_detached()]
        only: str = ""
        if len(children) == 1:
            only = await asyncio.wait_for(self.raw.main_frame.evaluate(_ONLY_FRAME, selector), timeout)
        if only:
            # The top document's one frame, and the selector matches its element: one call, not two.
            content, holder = children[0], only == "holder"
        else:
            handle = await self.raw.wait_for_selector(selector, state="attached", timeout=timeout * 1000)
            content = await handle.content_frame()
            if content is None:
                raise EngineError(f"{self.engine.name}: {selector!r} is not a frame")
            holder = await handle.get_attribute(HOLDER_ATTRIBUTE) is not None
        if holder:
            content = await self._held_frame(content, selector, timeout)
            self._held.add(selector)
        self._frames[selector] = content
        return content

    async def _frame_on_path(self, path: tuple[str, ...], timeout: float):
        """The frame at the end of ``path``: its last selector found in the frame the rest names."""
        if len(path) == 1:
            return await self.content_frame(path[0], timeout)
        parent = await self.content_frame(path[:-1] if len(path) > 2 else path[0], timeout)
        handle = await parent.wait_for_selector(path[-1], state="attached", timeout=timeout * 1000)
        content = await handle.content_frame()
        if content is None:
            raise EngineError(f"{self.engine.name}: {path[-1]!r} in {path[:-1]!r} is not a frame")
        if await handle.get_attribute(HOLDER_ATTRIBUTE) is not None:
            content = await self._held_frame(content, path[-1], timeout)
        self._frames[path] = content
        return content

    async def _held_frame(self, holder: Any, selector: str, timeout: float):
        """The block's frame inside a host module's holder frame (its one child frame)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            children = [f for f in holder.child_frames if not f.is_detached()]
            if children:
                return children[0]
            if loop.time() >= deadline:
                raise PageGone(f"{self.engine.name}: {selector!r} holds no block frame")
            await asyncio.sleep(0.05)

    async def evaluate(self, script: str, arg: Any = None, *, frame: Frame | None = None, timeout: float = 10) -> Any:
        for attempt in (1, 2):
            target = self.raw.main_frame if frame is None else await self.content_frame(frame, timeout)
            try:
                return await asyncio.wait_for(target.evaluate(script, arg), timeout)
            except TimeoutError:
                raise ScriptTimeout(f"{self.engine.name}: script did not finish within {timeout}s: {script[:120]!r}") from None
            except Exception as exc:
                # A kept frame the host has just replaced (its detach event not yet in): find it again, once.
                if frame is None or attempt == 2 or not target.is_detached():
                    if "Execution context was destroyed" in str(exc):  # the frame's document was replaced meanwhile
                        raise DocumentReplaced(f"{self.engine.name}: the document the script ran in was replaced before it finished "
                                       f"(a navigation): {script[:120]!r}") from None
                    raise
                self._frames.pop(frame, None)

    async def click(self, selector: str, *, frame: Frame | None = None, timeout: float = 10) -> None:
        root = self.raw if frame is None else await self.content_frame(frame, timeout)
        if frame is not None and await self._click_held(root, selector, frame, timeout):
            return
        await root.locator(selector).first.click(timeout=timeout * 1000)

    async def _click_held(self, content: Any, selector: str, frame: Frame, timeout: float) -> bool:
        """A click on ``selector`` in the block a holder frame holds, by the mouse at its place in the
        page; False when ``frame`` is no holder (or the engine is Chromium, whose locators reach
        into it). Playwright's Firefox over WebDriver BiDi finds no place for an element two frames
        down ("element is not visible"), while a mouse click at page coordinates is routed there."""
        if not isinstance(frame, str) or frame not in self._held or self.engine.name == "chromium":
            return False
        await content.wait_for_selector(selector, state="attached", timeout=timeout * 1000)
        await asyncio.wait_for(self.raw.main_frame.evaluate(_HOLDER_INTO_VIEW, frame), timeout)
        point = await asyncio.wait_for(content.evaluate(_ELEMENT_CENTRE, selector), timeout)
        origin = await asyncio.wait_for(self.raw.main_frame.evaluate(_HELD_ORIGIN, frame), timeout)
        await self.raw.mouse.click(origin[0] + point[0], origin[1] + point[1])
        return True

    async def press(self, key: str, *, timeout: float = 10) -> None:
        await asyncio.wait_for(self.raw.keyboard.press(key), timeout)

    async def leave(self, url: str, timeout: float = 15) -> None:
        async def accept(dialog: Any) -> None:
            await dialog.accept()

        self.raw.on("dialog", accept)
        try:
            await self.raw.goto(url, timeout=timeout * 1000)
        finally:
            self.raw.remove_listener("dialog", accept)

    async def gesture(self, selector: str, *, frame: Frame | None = None, timeout: float = 10) -> None:
        # Not Page.click: it waits for the navigations a click starts, and a blocked one never ends;
        # force: Firefox's hit test inside a sandboxed frame timed out now and then on a loaded machine.
        root = self.raw if frame is None else await self.content_frame(frame, timeout)
        if frame is not None and await self._click_held(root, selector, frame, timeout):
            return
        await root.locator(selector).first.click(timeout=timeout * 1000, no_wait_after=True, force=True)

    def watch(self, watch: Watch | None = None) -> Watch:
        if not getattr(self, "_listening", False):
            self._listen()
        return super().watch(watch)

    def _listen(self) -> None:
        self._listening = True
        raw = self.raw

        def on_dialog(dialog) -> None:
            self.watching.dialogs.append(f"{dialog.type}: {dialog.message[:200]}")
            task = asyncio.ensure_future(dialog.dismiss())  # kept until done: the loop holds tasks weakly
            _PENDING.add(task)
            task.add_done_callback(_PENDING.discard)

        def on_frame(frame) -> None:
            # "frame": a frame of the top document (a block's); "nested": a frame inside one (a
            # block's own iframe, which Chromium shows as chrome-error:// when CSP refuses it).
            where = "top" if frame == raw.main_frame else "frame" if frame.parent_frame == raw.main_frame else "nested"
            self.watching.navigations.append(f"{where}: {frame.url[:300]}")

        def on_console(message) -> None:
            if len(self.watching.console) < 30:
                self.watching.console.append(f"{message.type}: {message.text[:300]}")

        def on_page(p) -> None:
            if p is not raw:
                self.watching.popups.append(f"new page {p.url[:300] or '(blank)'}")

        raw.context.on("page", on_page)
        raw.on("dialog", on_dialog)
        raw.on("download", lambda d: self.watching.downloads.append(d.url[:300]))
        raw.on("framenavigated", on_frame)
        raw.on("console", on_console)

    def left(self, url: str) -> list[str]:
        # Playwright also reports the harness's own loads (about:blank, then the host page).
        return [n for n in super().left(url) if not n.startswith(("top: about:blank", f"top: {url}"))]

    async def grant(self, permissions: list[str], origin: str) -> None:
        await self._context.grant_permissions(permissions, origin=origin)

    async def recycle(self) -> bool:
        raw = self.raw
        try:
            if raw.is_closed():
                raise RuntimeError("closed")
            for other in raw.context.pages:
                if other is not raw:
                    await other.close()
            await raw.context.clear_cookies()
            await raw.context.clear_permissions()
            # No trip to about:blank: the next run's goto replaces the document anyway.
        except Exception:
            try:
                await self.close()
            except Exception:  # a context already gone with its browser: nothing left to close
                pass
            return False
        return True


    # ------------------------------------------------------------------ capabilities

    def watch_held_frames(self) -> None:
        raw = self.raw

        def held(frame: Any) -> None:
            # The block's frame is the holder frame's child: the watch names it "nested"; a
            # navigation of it is the block's frame's ("frame: URL").
            parent = frame.parent_frame
            if parent is not None and parent.parent_frame == raw.main_frame:
                self.watching.navigations.append(f"frame: {frame.url[:300]}")

        raw.on("framenavigated", held)

    async def mouse_move(self, x: float, y: float, *, steps: int = 1) -> None:
        await self.raw.mouse.move(x, y, steps=steps)

    async def mouse_click(self, x: float, y: float) -> None:
        await self.raw.mouse.click(x, y)

    async def type_text(self, text: str) -> None:
        await self.raw.keyboard.type(text)

    async def screenshot(self, clip: dict[str, float] | None = None, *, timeout: float = 10) -> bytes:
        # A clip of the page, not Locator.screenshot: no waiting for an element to be "stable".
        return await self.raw.screenshot(clip=clip, timeout=timeout * 1000)

    async def add_init_script(self, script: str) -> None:
        await self._context.add_init_script(script)

    async def clock_install(self) -> None:
        await self.raw.clock.install()

    async def clock_fast_forward(self, ms: int) -> None:
        # Every frame's clock moved by a call into each, as Playwright's clock.fast_forward does, but
        # one frame after the other and without the init script that call adds first (its log, which
        # replays the leap in documents loaded later). Measured in Firefox over WebDriver BiDi, ten leaps
        # of a host page and its block's frame: 0.45 s with Playwright's call, 0.3-0.4 s with the frames
        # asked at once, 0.025 s one after the other. A document loaded after a leap starts at the
        # date of the last clock_set_system_time.
        frames = self.raw.frames
        if await frames[0].evaluate(_FAST_FORWARD, ms) is not True:
            # The top document (the harness's own page) has no controlled clock: Playwright's own call.
            await self.raw.clock.fast_forward(ms)
            return
        for frame in frames[1:]:
            try:
                await frame.evaluate(_FAST_FORWARD, ms)
            except Exception:  # a frame that went meanwhile, or whose document took the clock away
                pass

    async def clock_set_system_time(self, seconds: float) -> None:
        await self.raw.clock.set_system_time(seconds)

    async def virtual_time(self, frame: str, budget_ms: int, *, timeout: float, wait: float, requests: bool = True) -> str:
        # CDP Emulation.setVirtualTimePolicy on the frame's own session (an out-of-process frame is
        # its own target): Playwright's clock, an init script, never reaches a sandboxed srcdoc frame.
        if Capability.VIRTUAL_TIME not in self.capabilities:
            raise self._unsupported(Capability.VIRTUAL_TIME)
        try:
            content = await self.content_frame(frame, timeout)
            cdp = await asyncio.wait_for(self._context.new_cdp_session(content), timeout)
        except EngineError:
            raise
        except Exception as exc:
            raise EngineError(f"{self.engine.name}: no CDP session on {frame!r} ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from exc
        expired = asyncio.get_running_loop().create_future()
        # "advance" leaves a request made in virtual time unanswered once the budget is spent.
        policy = "pauseIfNetworkFetchesPending" if requests else "advance"

        def spent(_: Any) -> None:
            if not expired.done():
                expired.set_result(True)

        cdp.on("Emulation.virtualTimeBudgetExpired", spent)
        stopped = ""
        try:
            await asyncio.wait_for(cdp.send("Emulation.setVirtualTimePolicy", {"policy": policy, "budget": budget_ms}), timeout)
            await asyncio.wait_for(expired, wait)
        except Exception as exc:  # a frame that never idles (an animation loop) leaves virtual time where it got
            stopped = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
        finally:
            try:
                await asyncio.wait_for(cdp.detach(), timeout)
            except Exception:  # a frame gone with its session: nothing left to detach
                pass
        return stopped

    async def resize(self, width: int, height: int, *, timeout: float = 10) -> None:
        await asyncio.wait_for(self.raw.set_viewport_size({"width": width, "height": height}), timeout)

    async def close(self) -> None:
        await self._context.close()


class PlaywrightSession(Session):
    driver = "playwright"
    capabilities = CAPABILITIES

    @classmethod
    def capabilities_for(cls, engine: Engine) -> frozenset[Capability]:
        return cls.capabilities if engine.name == "chromium" else cls.capabilities - {Capability.VIRTUAL_TIME}

    @classmethod
    async def start(cls, engine: Engine, *, args: list[str] | None = None, env: dict[str, str] | None = None,
                    prefs: dict[str, object] | None = None) -> Session:
        return await launch_playwright(engine, args, env, prefs)

    def __init__(self, engine: Engine, manager: Any, playwright: Any, browser: Any):
        self.engine = engine
        self._manager = manager
        self._playwright = playwright
        self.browser = browser

    async def new_page(self, *, proxy: str | None = None, options: dict[str, Any] | None = None) -> Page:
        extra: dict[str, Any] = {"proxy": {"server": proxy, "bypass": PROXY_BYPASS[self.engine.name]}} if proxy else {}
        extra.update(options or {})
        context = await self.browser.new_context(accept_downloads=True, ignore_https_errors=True, **extra)
        page = await context.new_page()
        return PlaywrightPage(self.engine, context, page)

    async def alive(self) -> bool:
        # False once the browser is gone. Playwright's own driver process dying leaves it True
        # (measured): the pytest fixtures open a page again in a new browser instead (plugin/fixtures.py).
        return self.browser.is_connected()

    async def close(self) -> None:
        try:
            await self.browser.close()
        finally:
            await self._manager.__aexit__(None, None, None)


def playwright_launch_options(engine: Engine) -> dict[str, Any]:
    """The keyword arguments of Playwright's ``BrowserType.launch`` for ``engine`` (a Playwright-driven
    one): the Debian executable and what it needs, or nothing but Chromium's flags for Playwright's own
    builds. The pytest plugin hands the Debian ones to pytest-playwright's ``browser`` too."""
    if engine.driver != PlaywrightSession.driver:
        raise Unsupported(f"{engine.name}: driven over {engine.driver}, not by Playwright")
    if engine.name == "chromium":
        kwargs: dict[str, Any] = {"args": list(CHROMIUM_ARGS)}
        if engine.executable:
            kwargs["executable_path"] = engine.executable
        return kwargs
    if engine.name == "firefox" and engine.executable:
        # Debian's Firefox ESR speaks WebDriver BiDi, not Playwright's patched protocol.
        return {"channel": "moz-firefox", "executable_path": engine.executable}
    return {}


async def launch_playwright(engine: Engine, args: list[str] | None = None, env: dict[str, str] | None = None,
                            prefs: dict[str, object] | None = None) -> Session:
    from playwright.async_api import async_playwright

    manager = async_playwright()
    pw = await manager.__aenter__()
    options = playwright_launch_options(engine)
    if args:
        options["args"] = [*options.get("args", []), *args]
    if env:
        options["env"] = {**os.environ, **env}
    if engine.name == "firefox":
        options["firefox_user_prefs"] = {**FIREFOX_PREFS, **(prefs or {})}
    try:
        browser = await getattr(pw, engine.name).launch(**options)
    except Exception as exc:
        await manager.__aexit__(None, None, None)
        raise EngineError(f"{engine.name}: could not launch ({type(exc).__name__}: {str(exc).splitlines()[0]})") from exc
    return PlaywrightSession(engine, manager, pw, browser)


