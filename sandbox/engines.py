"""Find the browser engines on this machine and drive them through one small API.

Three engines, each with the best driver available (see docs/ENGINES.md):

* Chromium: Playwright. Playwright's own build when installed, else Debian's
  ``/usr/bin/chromium`` (with the flags that keep it off the network).
* Firefox: Playwright. Playwright's own build when installed, else Debian's
  ``/usr/bin/firefox-esr`` over WebDriver BiDi (``channel="moz-firefox"``).
* WebKit: Playwright's own build when installed, else WebKitGTK's MiniBrowser
  driven by ``WebKitWebDriver`` over W3C WebDriver (Selenium), on an Xvfb
  display that we start when there is none.

Everything here is async; :class:`Page` offers the handful of operations the
tests and ``verify`` need, identical for every driver.
"""

from __future__ import annotations

import asyncio
import glob
import json
import os
import shutil
import subprocess
import tempfile
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

ENGINE_NAMES = ("chromium", "firefox", "webkit")

DEBIAN_CHROMIUM = "/usr/bin/chromium"
DEBIAN_FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
WEBKIT_MINIBROWSER_GLOB = "/usr/lib/*/webkit2gtk-4.*/MiniBrowser"

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


#: Fire-and-forget tasks (dialog dismissals), referenced until they finish.
_PENDING: set[asyncio.Future] = set()


class EngineError(RuntimeError):
    """An engine could not be launched or driven; the message says which and why."""


@dataclass(frozen=True)
class Engine:
    """One browser engine found on this machine and how it is driven."""

    name: str  # chromium | firefox | webkit
    driver: str  # playwright | webdriver
    executable: str | None  # None: Playwright's own build
    origin: str  # "debian" or "playwright"

    def describe(self) -> str:
        how = {
            ("chromium", "playwright"): "Playwright (CDP)",
            ("firefox", "playwright"): "Playwright (WebDriver BiDi)" if self.origin == "debian" else "Playwright (Juggler)",
            ("webkit", "playwright"): "Playwright",
            ("webkit", "webdriver"): "W3C WebDriver (Selenium + WebKitWebDriver, MiniBrowser under Xvfb)",
        }[(self.name, self.driver)]
        where = self.executable or "Playwright's own build"
        return f"{self.name:<9} {how}; {where}"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "driver": self.driver, "executable": self.executable, "origin": self.origin}


#: The browser each engine launches from Playwright's folder: headless Chromium is the
#: headless shell (Playwright >= 1.49); older Playwright has no such entry and uses chromium.
_PLAYWRIGHT_BROWSERS = {"chromium": ("chromium-headless-shell", "chromium"), "firefox": ("firefox",), "webkit": ("webkit",)}


def playwright_browsers_dir() -> str:
    """Where Playwright keeps its browsers (``PLAYWRIGHT_BROWSERS_PATH`` as Playwright reads it)."""
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if root == "0":
        return os.path.join(_playwright_package_dir() or "", ".local-browsers")
    return os.path.abspath(root) if root else os.path.expanduser("~/.cache/ms-playwright")


def _playwright_package_dir() -> str | None:
    """The installed Playwright driver package (holding browsers.json), found without importing Playwright."""
    import importlib.util

    spec = importlib.util.find_spec("playwright")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "driver", "package")


def playwright_revisions() -> dict[str, list[str]]:
    """For each browser of the installed Playwright, the folder names it would launch from
    (``chromium_headless_shell-1187``; a platform override adds ``NAME_PLATFORM_special-REV``),
    read from its ``browsers.json``. Empty when Playwright or the file is missing or unreadable."""
    package = _playwright_package_dir()
    try:
        with open(os.path.join(package or "", "browsers.json"), encoding="utf-8") as f:
            browsers = json.load(f)["browsers"]
        folders: dict[str, list[str]] = {}
        for entry in browsers:
            name, prefix = entry["name"], entry["name"].replace("-", "_")
            folders[name] = [f"{prefix}-{entry['revision']}"] + [
                f"{prefix}_{platform}_special-{revision}" for platform, revision in (entry.get("revisionOverrides") or {}).items()
            ]
        return folders
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _playwright_builds() -> dict[str, bool]:
    """Which of Playwright's own browser builds are installed, in the revision the installed
    Playwright launches (no browser is started). A folder of another revision (left by an older
    or newer Playwright, or copied from elsewhere) or one whose download never completed does
    not count: Playwright would not launch it, and the Debian browser is used instead."""
    root = playwright_browsers_dir()
    revisions = playwright_revisions()
    found = {}
    for engine, names in _PLAYWRIGHT_BROWSERS.items():
        name = next((n for n in names if n in revisions), None)
        found[engine] = name is not None and any(
            os.path.isfile(os.path.join(root, folder, "INSTALLATION_COMPLETE")) for folder in revisions[name]
        )
    return found


def find_engines() -> list[Engine]:
    """Every engine found, in the order chromium, firefox, webkit."""
    builds = _playwright_builds()
    engines: list[Engine] = []
    if builds["chromium"]:
        engines.append(Engine("chromium", "playwright", None, "playwright"))
    elif os.access(DEBIAN_CHROMIUM, os.X_OK):
        engines.append(Engine("chromium", "playwright", DEBIAN_CHROMIUM, "debian"))
    if builds["firefox"]:
        engines.append(Engine("firefox", "playwright", None, "playwright"))
    elif os.access(DEBIAN_FIREFOX, os.X_OK):
        engines.append(Engine("firefox", "playwright", DEBIAN_FIREFOX, "debian"))
    minibrowser = sorted(glob.glob(WEBKIT_MINIBROWSER_GLOB))
    if builds["webkit"]:
        engines.append(Engine("webkit", "playwright", None, "playwright"))
    elif minibrowser and os.access(WEBKIT_DRIVER, os.X_OK):
        engines.append(Engine("webkit", "webdriver", minibrowser[-1], "debian"))
    return engines


def select_engines(names: list[str] | None = None) -> list[Engine]:
    """The engines to run: all found, or those named (an unknown or missing name is an error)."""
    found = find_engines()
    if not names:
        return found
    by_name = {e.name: e for e in found}
    chosen = []
    for name in names:
        if name not in ENGINE_NAMES:
            raise EngineError(f"unknown engine {name!r}; choose from {', '.join(ENGINE_NAMES)}")
        if name not in by_name:
            raise EngineError(f"engine {name!r} is not installed here (run `make setup`, see README)")
        chosen.append(by_name[name])
    return chosen


# --------------------------------------------------------------------------- pages


@dataclass
class Watch:
    """What the browser showed around one page while it was watched (see :meth:`Page.watch`)."""

    popups: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)
    navigations: list[str] = field(default_factory=list)  # "top: URL", "frame: URL" or "nested: URL"
    console: list[str] = field(default_factory=list)


class Page(ABC):
    """One browser tab, the same for every driver.

    ``script`` arguments are JavaScript function expressions, e.g.
    ``"async (arg) => document.title"``; their result must be JSON-serialisable.
    ``frame`` is a CSS selector of an iframe in the top document: the script
    runs (or the click happens) inside that frame instead.
    """

    engine: Engine

    @abstractmethod
    async def goto(self, url: str, timeout: float = 15) -> None: ...

    @abstractmethod
    async def evaluate(self, script: str, arg: Any = None, *, frame: str | None = None, timeout: float = 10) -> Any: ...

    @abstractmethod
    async def click(self, selector: str, *, frame: str | None = None, timeout: float = 10) -> None:
        """A real user click (a user gesture for the page), inside ``frame`` when given."""

    @abstractmethod
    async def press(self, key: str, *, timeout: float = 10) -> None:
        """A real key press ("Tab", "Enter" or one character) into whatever has the focus (a user gesture)."""

    @abstractmethod
    async def close(self) -> None: ...

    async def abandon(self) -> None:
        """Close a page that may be hung (a block in a busy loop) without waiting on it;
        EngineError when the browser itself did not let go (then close the session)."""
        try:
            await asyncio.wait_for(self.close(), 30)
        except Exception as exc:
            raise EngineError(f"{self.engine.name}: a hung page could not be closed ({type(exc).__name__})") from None

    # Watching: what a block did to the browser around the page (popups, dialogs, downloads,
    # top navigations). Playwright reports events as they happen; WebDriver has none, so a
    # WebDriver page looks once, after the fact (:meth:`look`). Harnesses call both and never
    # ask which driver they have.

    #: Whether downloads show in :attr:`Watch.downloads` (WebDriver reports none: a harness
    #: that cares looks for the attachment request in its server logs instead).
    reports_downloads: bool = True

    def watch(self, watch: Watch | None = None) -> Watch:
        """Record what the page shows from now on into ``watch`` (a new one when omitted); returns it."""
        self.watching = watch if watch is not None else Watch()
        return self.watching

    async def look(self, url: str) -> None:  # noqa: B027 (an optional hook: event drivers have nothing to add)
        """Fill the current watch with what can only be seen after the fact (nothing for event drivers);
        ``url`` is the page the harness loaded: being elsewhere is a top navigation."""

    def left(self, url: str) -> list[str]:
        """The watch's top-level navigations away from ``url`` (the harness's own loads excluded)."""
        return [n for n in self.watching.navigations if n.startswith("top:")]

    async def gesture(self, selector: str, *, frame: str | None = None, timeout: float = 10) -> None:
        """A real user click that does not wait for a navigation it may start (a blocked one never ends)."""
        await self.click(selector, frame=frame, timeout=timeout)

    async def grant(self, permissions: list[str], origin: str) -> None:  # noqa: B027 (an optional hook)
        """Grant ``origin`` these permissions (e.g. geolocation) where the driver can; a no-op elsewhere."""

    async def recycle(self) -> bool:
        """Make the page ready for another run (cookies, permissions and extra windows cleared).
        True: keep using it. False: it was closed (or handed back to its session's own pool)."""
        await self.close()
        return False

    async def wait_for(self, script: str, arg: Any = None, *, frame: str | None = None, timeout: float = 10, interval: float = 0.05) -> Any:
        """Evaluate ``script`` until it returns something truthy; return it (EngineError on timeout)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        last: Any = None
        while True:
            last = await self.evaluate(script, arg, frame=frame, timeout=max(1.0, deadline - loop.time()))
            if last:
                return last
            if loop.time() >= deadline:
                raise EngineError(f"{self.engine.name}: timed out after {timeout}s waiting for {script[:120]!r} (last value {last!r})")
            await asyncio.sleep(interval)


class Session(ABC):
    """One running browser."""

    engine: Engine
    #: Whether :meth:`new_page` gives a page no run used (Playwright: a new context); WebDriver
    #: sessions hand out windows from their own pool, whatever ran in them before.
    fresh_pages: bool = True

    @abstractmethod
    async def new_page(self, *, proxy: str | None = None, options: dict[str, Any] | None = None) -> Page:
        """A fresh page; ``proxy`` (``http://127.0.0.1:PORT``) carries every request but loopback ones.
        ``options``: Playwright's ``new_context`` keywords (``user_agent``, ``timezone_id``, ``viewport``,
        ``screen``); WebDriver's ``env`` (the browser's environment, e.g. ``TZ``) and ``window`` (width, height)."""

    async def warm(self, count: int) -> list[Page]:
        """Open ``count`` pages ahead of a run (opening one costs seconds on a busy machine); returns them."""
        return list(await asyncio.gather(*(self.new_page() for _ in range(count))))

    @abstractmethod
    async def close(self) -> None: ...


# ------------------------------------------------------------------ playwright driver


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

#: The attribute of the frame the host module (bridge/host/mount.js) holds a block's sandboxed frame
#: in: a ``frame`` selector that names such a frame reaches the block's document, its one child frame.
HOLDER_ATTRIBUTE = "data-flow-ui-frame"


class _PlaywrightPage(Page):
    def __init__(self, engine: Engine, context: Any, page: Any):
        self.engine = engine
        self._context = context
        self.raw = page  # the Playwright Page, for tests that need events (popups, dialogs, downloads)
        self._frames: dict[str, Any] = {}  # iframe selector -> its Playwright Frame (content_frame)
        self._held: set[str] = set()  # iframe selectors that name a host module's holder frame
        # A new top document has new frames: forget the kept ones at once (their detach may come later).
        page.on("framenavigated", lambda frame: self._frames.clear() if frame == page.main_frame else None)

    async def goto(self, url: str, timeout: float = 15) -> None:
        await self.raw.goto(url, timeout=timeout * 1000)

    async def content_frame(self, selector: str, timeout: float = 10):
        """The Playwright Frame of the iframe ``selector`` matches, kept until it is detached:
        finding it costs two round trips, and content_frame alone ~170 ms in Firefox over BiDi
        (a watchdog's or a wait's every poll paid it)."""
        cached = self._frames.get(selector)
        if cached is not None and not cached.is_detached():
            return cached
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

    async def _held_frame(self, holder: Any, selector: str, timeout: float):
        """The block's frame inside a host module's holder frame (its one child frame)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            children = [f for f in holder.child_frames if not f.is_detached()]
            if children:
                return children[0]
            if loop.time() >= deadline:
                raise EngineError(f"{self.engine.name}: {selector!r} holds no block frame")
            await asyncio.sleep(0.05)

    async def evaluate(self, script: str, arg: Any = None, *, frame: str | None = None, timeout: float = 10) -> Any:
        for attempt in (1, 2):
            target = self.raw.main_frame if frame is None else await self.content_frame(frame, timeout)
            try:
                return await asyncio.wait_for(target.evaluate(script, arg), timeout)
            except TimeoutError:
                raise EngineError(f"{self.engine.name}: script did not finish within {timeout}s: {script[:120]!r}") from None
            except Exception:
                # A kept frame the host has just replaced (its detach event not yet in): find it again, once.
                if frame is None or attempt == 2 or not target.is_detached():
                    raise
                self._frames.pop(frame, None)

    async def click(self, selector: str, *, frame: str | None = None, timeout: float = 10) -> None:
        root = self.raw if frame is None else await self.content_frame(frame, timeout)
        if frame is not None and await self._click_held(root, selector, frame, timeout):
            return
        await root.locator(selector).first.click(timeout=timeout * 1000)

    async def _click_held(self, content: Any, selector: str, frame: str, timeout: float) -> bool:
        """A click on ``selector`` in the block a holder frame holds, by the mouse at its place in the
        page; False when ``frame`` is no holder (or the engine is Chromium, whose locators reach
        into it). Playwright's Firefox over WebDriver BiDi finds no place for an element two frames
        down ("element is not visible"), while a mouse click at page coordinates is routed there."""
        if frame not in self._held or self.engine.name == "chromium":
            return False
        await content.wait_for_selector(selector, state="attached", timeout=timeout * 1000)
        await asyncio.wait_for(self.raw.main_frame.evaluate(_HOLDER_INTO_VIEW, frame), timeout)
        point = await asyncio.wait_for(content.evaluate(_ELEMENT_CENTRE, selector), timeout)
        origin = await asyncio.wait_for(self.raw.main_frame.evaluate(_HELD_ORIGIN, frame), timeout)
        await self.raw.mouse.click(origin[0] + point[0], origin[1] + point[1])
        return True

    async def press(self, key: str, *, timeout: float = 10) -> None:
        await asyncio.wait_for(self.raw.keyboard.press(key), timeout)

    async def gesture(self, selector: str, *, frame: str | None = None, timeout: float = 10) -> None:
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
            except Exception:
                pass
            return False
        return True

    async def close(self) -> None:
        await self._context.close()


class _PlaywrightSession(Session):
    def __init__(self, engine: Engine, manager: Any, playwright: Any, browser: Any):
        self.engine = engine
        self._manager = manager
        self._playwright = playwright
        self.browser = browser

    async def new_page(self, *, proxy: str | None = None, options: dict[str, Any] | None = None) -> Page:
        extra: dict[str, Any] = {"proxy": {"server": proxy, "bypass": "127.0.0.1,localhost"}} if proxy else {}
        extra.update(options or {})
        context = await self.browser.new_context(accept_downloads=True, ignore_https_errors=True, **extra)
        page = await context.new_page()
        return _PlaywrightPage(self.engine, context, page)

    async def close(self) -> None:
        try:
            await self.browser.close()
        finally:
            await self._manager.__aexit__(None, None, None)


def playwright_launch_options(engine: Engine) -> dict[str, Any]:
    """The keyword arguments of Playwright's ``BrowserType.launch`` for ``engine`` (a Playwright-driven
    one): the Debian executable and what it needs, or nothing but Chromium's flags for Playwright's own
    builds. The pytest plugin hands the Debian ones to pytest-playwright's ``browser`` too."""
    if engine.driver != "playwright":
        raise EngineError(f"{engine.name}: driven over {engine.driver}, not by Playwright")
    if engine.name == "chromium":
        kwargs: dict[str, Any] = {"args": list(CHROMIUM_ARGS)}
        if engine.executable:
            kwargs["executable_path"] = engine.executable
        return kwargs
    if engine.name == "firefox" and engine.executable:
        # Debian's Firefox ESR speaks WebDriver BiDi, not Playwright's patched protocol.
        return {"channel": "moz-firefox", "executable_path": engine.executable}
    return {}


async def _launch_playwright(engine: Engine, args: list[str] | None = None, env: dict[str, str] | None = None) -> Session:
    from playwright.async_api import async_playwright

    manager = async_playwright()
    pw = await manager.__aenter__()
    options = playwright_launch_options(engine)
    if args:
        options["args"] = [*options.get("args", []), *args]
    if env:
        options["env"] = {**os.environ, **env}
    try:
        browser = await getattr(pw, engine.name).launch(**options)
    except Exception as exc:
        await manager.__aexit__(None, None, None)
        raise EngineError(f"{engine.name}: could not launch ({type(exc).__name__}: {str(exc).splitlines()[0]})") from exc
    return _PlaywrightSession(engine, manager, pw, browser)


# ------------------------------------------------------------------- webdriver driver


class _Xvfb:
    """One virtual display shared by every WebDriver browser of this process."""

    _lock = threading.Lock()
    _proc: subprocess.Popen | None = None
    _display: str | None = None

    @classmethod
    def display(cls) -> str:
        if os.environ.get("DISPLAY"):
            return os.environ["DISPLAY"]
        with cls._lock:
            if cls._display is None:
                if not shutil.which("Xvfb"):
                    raise EngineError("webkit: no DISPLAY and no Xvfb (install the xvfb package)")
                read, write = os.pipe()
                cls._proc = subprocess.Popen(
                    ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                    pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
                os.close(write)
                with os.fdopen(read) as pipe:
                    number = pipe.readline().strip()
                if not number:
                    raise EngineError("webkit: Xvfb did not start")
                cls._display = f":{number}"
                import atexit

                atexit.register(cls._proc.terminate)
            return cls._display


_WD_WRAPPER = """
const done = arguments[arguments.length - 1];
const arg = JSON.parse(arguments[0]);
let fn;
try { fn = (%s); } catch (e) { done({__err: 'SyntaxError: ' + e.message}); }
Promise.resolve().then(() => fn(arg)).then(
  (v) => { try { done({__ok: v === undefined ? null : JSON.parse(JSON.stringify(v === undefined ? null : v))}); } catch (e) { done({__err: 'unserialisable result: ' + e}); } },
  (e) => done({__err: (e && e.name ? e.name + ': ' : '') + (e && e.message !== undefined ? e.message : String(e))}));
"""


class _WebDriverPage(Page):
    """A WebDriver session is one window: one page per session, so pages never share state."""

    _session: _WebDriverSession  # the pool the page returns to; set by the session that made it

    def __init__(self, engine: Engine, driver: Any):
        self.engine = engine
        self.raw = driver
        self._lock = asyncio.Lock()

    async def _call(self, fn, *args, timeout: float):
        async with self._lock:
            try:
                return await asyncio.wait_for(asyncio.to_thread(fn, *args), timeout + 5)
            except TimeoutError:
                raise EngineError(f"{self.engine.name}: WebDriver call timed out after {timeout}s") from None

    async def goto(self, url: str, timeout: float = 15) -> None:
        self.raw.set_page_load_timeout(timeout)
        await self._call(self.raw.get, url, timeout=timeout)

    def _in_frame(self, frame: str | None, action):

        if frame is None:
            return action()
        webdriver_enter_frame(self.raw, frame)
        try:
            return action()
        finally:
            self.raw.switch_to.default_content()

    async def evaluate(self, script: str, arg: Any = None, *, frame: str | None = None, timeout: float = 10) -> Any:
        def run():
            self.raw.set_script_timeout(timeout)
            return self._in_frame(frame, lambda: self.raw.execute_async_script(_WD_WRAPPER % script, json.dumps(arg)))

        try:
            result = await self._call(run, timeout=timeout)
        except EngineError:
            raise
        except Exception as exc:
            raise EngineError(f"{self.engine.name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from exc
        if isinstance(result, dict) and "__err" in result:
            raise EngineError(f"{self.engine.name}: script failed: {result['__err']}")
        return result.get("__ok") if isinstance(result, dict) else result

    async def click(self, selector: str, *, frame: str | None = None, timeout: float = 10) -> None:
        from selenium.webdriver.common.by import By

        def run():
            return self._in_frame(frame, lambda: self.raw.find_element(By.CSS_SELECTOR, selector).click())

        await self._call(run, timeout=timeout)

    async def press(self, key: str, *, timeout: float = 10) -> None:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        named = {"Tab": Keys.TAB, "Enter": Keys.ENTER, "Escape": Keys.ESCAPE, "Space": Keys.SPACE}
        await self._call(lambda: ActionChains(self.raw).send_keys(named.get(key, key)).perform(), timeout=timeout)

    reports_downloads = False

    async def look(self, url: str) -> None:
        watch = self.watching if hasattr(self, "watching") else self.watch()
        driver = self.raw

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
                current = driver.current_url
            except Exception as exc:
                current = f"(unreadable: {type(exc).__name__})"
            if current.split("#")[0] != url.split("#")[0]:
                watch.navigations.append(f"top: {current[:300]}")

        await asyncio.to_thread(look)

    async def close(self) -> None:
        await self._session._release(self)

    async def abandon(self) -> None:
        # A hung MiniBrowser answers no WebDriver call: kill its WebKitWebDriver, the browser and
        # their children by process id, and drop it from the pool.
        driver = self.raw
        if driver in self._session._all:
            self._session._all.remove(driver)
        process = getattr(getattr(driver, "service", None), "process", None)
        if process is not None:
            await asyncio.to_thread(kill_tree, process.pid)
            try:
                await asyncio.to_thread(process.wait, 5)  # reap it: no zombie left behind
            except Exception:
                pass


def webdriver_enter_frame(driver: Any, selector: str) -> None:
    """Switch a WebDriver session into the frame ``selector`` names in the top document; into the
    block's frame when that is a host module's holder frame (:data:`HOLDER_ATTRIBUTE`)."""
    from selenium.webdriver.common.by import By

    element = driver.find_element(By.CSS_SELECTOR, selector)
    holder = element.get_attribute(HOLDER_ATTRIBUTE)
    driver.switch_to.frame(element)
    if holder:
        # By index: WebKitWebDriver finds no element in a frame's about:blank or srcdoc document.
        driver.switch_to.frame(0)


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and its descendants (read from /proc), children first."""
    import signal

    def children(p: int) -> list[int]:
        found: list[int] = []
        for task in glob.glob(f"/proc/{p}/task/*/children"):
            try:
                with open(task) as f:
                    found += [int(c) for c in f.read().split()]
            except OSError:
                pass
        return found

    order: list[int] = []
    stack = [pid]
    while stack:
        p = stack.pop()
        order.append(p)
        stack += children(p)
    for p in reversed(order):
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


class _WebDriverSession(Session):
    """A pool of MiniBrowser windows: a closed page goes back to the pool after about:blank,
    since starting a MiniBrowser costs a second or two."""

    fresh_pages = False

    def __init__(self, engine: Engine):
        self.engine = engine
        self._all: list[Any] = []
        self._idle: list[Any] = []

    async def warm(self, count: int) -> list[Page]:
        # One MiniBrowser at a time (starting them together thrashes 2 cores), straight back to the
        # pool: every run takes a window from it and gives it back (a WebDriver page is never reused).
        pages: list[Page] = []
        for _ in range(count):
            pages.append(await self.new_page())
        for page in pages:
            await page.close()
        return []

    async def new_page(self, *, proxy: str | None = None, options: dict[str, Any] | None = None) -> Page:
        # A MiniBrowser's proxy and environment are fixed when it starts: only one started with the same is reused.
        env = dict((options or {}).get("env") or {})
        idle = [d for d in self._idle if getattr(d, "flowui_proxy", None) == proxy and getattr(d, "flowui_env", {}) == env]
        if idle:
            driver = idle[-1]
            self._idle.remove(driver)
        else:
            driver = await asyncio.to_thread(_start_webkit_driver, self.engine, proxy, env)
            driver.flowui_proxy = proxy
            driver.flowui_env = env
            self._all.append(driver)
        window = (options or {}).get("window")
        if window:
            await asyncio.to_thread(driver.set_window_size, *window)
        page = _WebDriverPage(self.engine, driver)
        page._session = self
        return page

    async def _release(self, page: _WebDriverPage) -> None:
        try:
            await page._call(lambda: (page.raw.switch_to.default_content(), page.raw.get("about:blank")), timeout=10)
            handles = page.raw.window_handles
            for extra in handles[1:]:  # windows a test opened
                page.raw.switch_to.window(extra)
                page.raw.close()
            page.raw.switch_to.window(handles[0])
        except Exception:
            await asyncio.to_thread(_quit_quietly, page.raw)
            self._all.remove(page.raw)
            return
        self._idle.append(page.raw)

    async def close(self) -> None:
        for driver in self._all:
            await asyncio.to_thread(_quit_quietly, driver)
        self._all.clear()
        self._idle.clear()


def _quit_quietly(driver: Any) -> None:
    try:
        driver.quit()
    except Exception:
        pass


def _start_webkit_driver(engine: Engine, proxy: str | None = None, environment: dict[str, str] | None = None):
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    display = _Xvfb.display()
    options = Options()
    assert engine.executable is not None  # WebKitGTK is found by its MiniBrowser's path
    options.binary_location = engine.executable
    options.add_argument("--automation")
    # As Playwright's ignore_https_errors: verify's HTTPS origins use a CA made at run time.
    options.accept_insecure_certs = True
    # MiniBrowser keeps its profile in $HOME; a fresh one per page keeps pages apart.
    env = {**os.environ, "DISPLAY": display, "HOME": tempfile.mkdtemp(prefix="flowui-webkit-")}
    if proxy:
        # WebKitGTK ignores WebDriver's https proxy capability; GLib's resolver (libproxy) reads these.
        env.update(http_proxy=proxy, https_proxy=proxy, no_proxy="127.0.0.1,localhost")
    env.update(environment or {})
    service = Service(executable_path=WEBKIT_DRIVER, env=env)
    try:
        return webdriver.WebKitGTK(options=options, service=service)
    except Exception as exc:
        raise EngineError(f"webkit: could not start WebKitWebDriver ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from exc


# ------------------------------------------------------------------------ launching


async def launch(engine: Engine, *, args: list[str] | None = None, env: dict[str, str] | None = None) -> Session:
    """Start the engine's browser; close the returned session when done. ``args``: more command-line
    flags, ``env``: more environment, for a Playwright-launched browser (the review's user agent,
    screen and time zone: what every frame of every renderer then has)."""
    if engine.driver == "playwright":
        return await _launch_playwright(engine, args, env)
    return _WebDriverSession(engine)


def engines_report(engines: list[Engine] | None = None) -> str:
    engines = find_engines() if engines is None else engines
    if not engines:
        return "no browser engine found (run `make setup`, see README)"
    missing = [n for n in ENGINE_NAMES if n not in {e.name for e in engines}]
    lines = [e.describe() for e in engines]
    lines += [f"{n:<9} not found" for n in missing]
    return "\n".join(lines)


__all__ = ["Engine", "EngineError", "Page", "Session", "Watch", "ENGINE_NAMES", "find_engines", "select_engines", "launch",
           "engines_report", "playwright_launch_options"]
