"""The driver interface every browser driver implements: :class:`Engine`, :class:`Page`,
:class:`Session`, the :class:`Watch` of what a page showed, the :class:`Capability` each driver
declares, and the one exception tree of the drivers (:class:`EngineError` and its kinds).

A harness asks a page (or an engine, before its browser runs) for a capability, never for its
driver's name: ``page.supports(Capability.CLOCK)``, then ``page.clock_install()``. A method of a
capability the driver lacks raises :class:`Unsupported`. docs/ENGINES.md has the table of which
driver declares which capability, and why.

Everything here is async; the base :class:`Page` offers the handful of operations the tests,
``verify`` and ``review`` need, identical for every driver.
"""

from __future__ import annotations

import asyncio
import enum
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

from ..errors import SandboxError
from .names import ENGINE_NAMES

#: The attribute of the frame the host module (bridge/host/mount.js) holds a block's sandboxed frame
#: in: a ``frame`` selector that names such a frame reaches the block's document, its one child frame.
HOLDER_ATTRIBUTE = "data-flow-ui-frame"

#: Where a script runs or a click lands: a CSS selector of an iframe in the top document, or a
#: path of them (each found in the document of the frame before it), such as the editor's
#: ``(".preview-frame", ".block iframe")``. A holder frame anywhere on it stands for the block's frame it holds.
Frame = str | tuple[str, ...]

T = TypeVar("T")


# --------------------------------------------------------------------------- errors


class EngineError(SandboxError, RuntimeError):
    """An engine could not be launched or driven; the message says which and why. The root of
    the drivers' errors: callers catch this one, or one of its kinds below."""


class PageGone(EngineError):
    """The page, its frame or its browser went away (closed, detached, the browser quit)."""


class DocumentReplaced(PageGone):
    """The document a script ran in was replaced (a navigation) before the script finished: the
    page is still there, so :meth:`Page.wait_for` evaluates again in the new document."""


class ScriptTimeout(EngineError):
    """A script or a driver call did not finish within its time (a page in a busy loop)."""


class Unsupported(EngineError):
    """The driver lacks the capability a method needs (see :meth:`Page.supports`)."""


# --------------------------------------------------------------------------- capabilities


class Capability(enum.Enum):
    """What a driver can do besides the operations every :class:`Page` has (goto, evaluate,
    evaluate in a frame, click, press, watch). Each names the methods it brings."""

    #: Real input at a point of the viewport: :meth:`Page.mouse_move`, :meth:`Page.mouse_click`.
    POINTER = "pointer"
    #: Text typed key by key into the focused element: :meth:`Page.type_text`.
    TYPING = "typing"
    #: A kept handle on a frame, evaluated in without finding it again: :meth:`Page.content_frame`.
    FRAMES = "frames"
    #: An image of the page: :meth:`Page.screenshot` (clipped where the driver can).
    SCREENSHOT = "screenshot"
    #: A script that runs in every document before the page's own: :meth:`Page.add_init_script`.
    INIT_SCRIPT = "init-script"
    #: The page's clock controlled: :meth:`Page.clock_install`, :meth:`Page.clock_fast_forward`,
    #: :meth:`Page.clock_set_system_time` (Playwright's clock, an init script).
    CLOCK = "clock"
    #: A frame run on virtual time (CDP on the frame's own target): :meth:`Page.virtual_time`.
    VIRTUAL_TIME = "virtual-time"
    #: Command-line flags and environment at launch (``launch(engine, args=, env=)``).
    LAUNCH_OPTIONS = "launch-options"
    #: Per page time zone, viewport, screen and user agent (``Session.new_page(options=)``).
    CONTEXT_EMULATION = "context-emulation"
    #: The page's window resized: :meth:`Page.resize`.
    RESIZE = "resize"
    #: The window minimised and restored (its documents hidden, then visible):
    #: :meth:`Page.minimise`, :meth:`Page.restore`.
    WINDOW_STATE = "window-state"
    #: Popups, dialogs, downloads and navigations reported by the driver as they happen
    #: (without it, :meth:`Page.look` finds what it can after the fact).
    EVENT_WATCH = "event-watch"
    #: Calls that overlap: a watchdog can ask the page while an action runs (WebDriver takes one at a time).
    CONCURRENT_CALLS = "concurrent-calls"
    #: W3C WebDriver actions composed by the harness on the driver's blocking client:
    #: :meth:`Page.driver_call`.
    WEBDRIVER_ACTIONS = "webdriver-actions"


class FrameHandle(Protocol):
    """A frame kept by :meth:`Page.content_frame` (Playwright's ``Frame`` is one)."""

    async def evaluate(self, expression: str, arg: Any = None) -> Any: ...

    def is_detached(self) -> bool: ...


#: Every driver's :class:`Session` class by :attr:`Engine.driver`, for :meth:`Engine.supports`.
_DRIVERS: dict[str, type[Session]] = {}


@dataclass(frozen=True)
class Engine:
    """One browser engine found on this machine and how it is driven."""

    name: str  # chromium | firefox | webkit
    driver: str  # playwright | webdriver | fake
    executable: str | None  # None: Playwright's own build
    origin: str  # "debian", "playwright", "remote" or "fake"

    def describe(self) -> str:
        how = {
            ("chromium", "playwright"): "Playwright (CDP)",
            ("firefox", "playwright"): "Playwright (WebDriver BiDi)" if self.origin == "debian" else "Playwright (Juggler)",
            ("webkit", "playwright"): "Playwright",
            ("webkit", "webdriver"): "W3C WebDriver (Selenium + WebKitWebDriver, MiniBrowser under Xvfb)",
        }.get((self.name, self.driver), self.driver)
        where = self.executable or "Playwright's own build"
        return f"{self.name:<9} {how}; {where}"

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What this engine's driver declares for it (before any browser runs)."""
        driver = _DRIVERS.get(self.driver)
        return driver.capabilities_for(self) if driver is not None else frozenset()

    def supports(self, capability: Capability) -> bool:
        return capability in self.capabilities

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "driver": self.driver, "executable": self.executable, "origin": self.origin}


#: Threads of the default executor of a loop that drives pages. Each WebDriver call holds one for as
#: long as its browser takes (up to a script's whole time limit), and aiohttp serves files and the
#: editor runs its analyses from the same pool: asyncio's default (the cores + 4) let a few slow
#: calls hold back every other page and server of the loop.
LOOP_THREADS = 32


def give_loop_threads(loop: asyncio.AbstractEventLoop, name: str) -> None:
    """Give ``loop`` a default executor of :data:`LOOP_THREADS` threads named ``name``."""
    from concurrent.futures import ThreadPoolExecutor

    loop.set_default_executor(ThreadPoolExecutor(max_workers=LOOP_THREADS, thread_name_prefix=name))


def driver_of(engine: Engine) -> type[Session] | None:
    """The :class:`Session` class of ``engine``'s driver (None: no such driver is loaded)."""
    return _DRIVERS.get(engine.driver)


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
    ``frame`` (a :data:`Frame`: an iframe's selector, or a path of them) names a frame: the
    script runs (or the click happens) inside it instead.
    """

    engine: Engine
    #: What this page's driver can do besides the common operations (set by the driver).
    capabilities: frozenset[Capability] = frozenset()

    def supports(self, capability: Capability) -> bool:
        return capability in self.capabilities

    def _unsupported(self, capability: Capability) -> Unsupported:
        return Unsupported(f"{self.engine.name}: the {self.engine.driver} driver has no {capability.value}")

    @abstractmethod
    async def goto(self, url: str, timeout: float = 15) -> None: ...

    @abstractmethod
    async def evaluate(self, script: str, arg: Any = None, *, frame: Frame | None = None, timeout: float = 10) -> Any: ...

    @abstractmethod
    async def click(self, selector: str, *, frame: Frame | None = None, timeout: float = 10) -> None:
        """A real user click (a user gesture for the page), inside ``frame`` when given."""

    @abstractmethod
    async def press(self, key: str, *, timeout: float = 10) -> None:
        """A real key press into whatever has the focus (a user gesture): "Tab", "Enter", "End", one
        character, or a chord of them ("Control+End", "Shift+Tab")."""

    @abstractmethod
    async def leave(self, url: str, timeout: float = 15) -> None:
        """Go to ``url`` from a page that may ask before it unloads ("leave the page?"), confirming
        as a user would."""

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
    # top navigations). A driver with EVENT_WATCH reports events as they happen; without it a
    # page looks once, after the fact (:meth:`look`). Harnesses call both.

    #: Whether downloads show in :attr:`Watch.downloads` (WebDriver reports none: a harness
    #: that cares looks for the attachment request in its server logs instead).
    reports_downloads: bool = True

    def watch(self, watch: Watch | None = None) -> Watch:
        """Record what the page shows from now on into ``watch`` (a new one when omitted); returns it."""
        self.watching = watch if watch is not None else Watch()
        return self.watching

    def watch_held_frames(self) -> None:  # noqa: B027 (an optional hook: only an event watch has frames to add)
        """Also report a navigation of a block's frame inside a host module's holder frame as
        ``frame: URL`` (a frame of the top document's frame), as the block's own frame's (EVENT_WATCH)."""

    async def look(self, url: str) -> None:  # noqa: B027 (an optional hook: event drivers have nothing to add)
        """Fill the current watch with what can only be seen after the fact (nothing for event drivers);
        ``url`` is the page the harness loaded: being elsewhere is a top navigation."""

    def left(self, url: str) -> list[str]:
        """The watch's top-level navigations away from ``url`` (the harness's own loads excluded)."""
        return [n for n in self.watching.navigations if n.startswith("top:")]

    async def gesture(self, selector: str, *, frame: Frame | None = None, timeout: float = 10) -> None:
        """A real user click that does not wait for a navigation it may start (a blocked one never ends)."""
        await self.click(selector, frame=frame, timeout=timeout)

    async def grant(self, permissions: list[str], origin: str) -> None:  # noqa: B027 (an optional hook)
        """Grant ``origin`` these permissions (e.g. geolocation) where the driver can; a no-op elsewhere."""

    async def recycle(self) -> bool:
        """Make the page ready for another run (cookies, permissions and extra windows cleared).
        True: keep using it. False: it was closed (or handed back to its session's own pool)."""
        await self.close()
        return False

    async def wait_for(self, script: str, arg: Any = None, *, frame: Frame | None = None, timeout: float = 10, interval: float = 0.05) -> Any:
        """Evaluate ``script`` until it returns something truthy; return it (ScriptTimeout on timeout)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        last: Any = None
        while True:
            try:
                last = await self.evaluate(script, arg, frame=frame, timeout=max(1.0, deadline - loop.time()))
            except DocumentReplaced:
                if loop.time() >= deadline:
                    raise
                last = None  # a navigation under the call (after a page.leave, a frame reloading): ask the new document
            if last:
                return last
            if loop.time() >= deadline:
                raise ScriptTimeout(f"{self.engine.name}: timed out after {timeout}s waiting for {script[:120]!r} (last value {last!r})")
            await asyncio.sleep(interval)

    # The capabilities' methods: each raises Unsupported unless the driver declares the capability.

    async def mouse_move(self, x: float, y: float, *, steps: int = 1) -> None:
        """POINTER: move the pointer to (x, y) of the viewport, in ``steps`` moves."""
        raise self._unsupported(Capability.POINTER)

    async def mouse_click(self, x: float, y: float) -> None:
        """POINTER: a real click at (x, y) of the viewport."""
        raise self._unsupported(Capability.POINTER)

    async def type_text(self, text: str) -> None:
        """TYPING: type ``text`` into the focused element, a key per character (WebDriver: the top
        document's; a frame's field is typed into with WEBDRIVER_ACTIONS, in the frame)."""
        raise self._unsupported(Capability.TYPING)

    async def content_frame(self, frame: Frame, timeout: float = 10) -> FrameHandle:
        """FRAMES: the frame ``frame`` names (the block's frame where it names a holder frame)."""
        raise self._unsupported(Capability.FRAMES)

    async def screenshot(self, clip: dict[str, float] | None = None, *, timeout: float = 10) -> bytes:
        """SCREENSHOT: a PNG of the page; ``clip`` ({x, y, width, height}) where the driver can clip
        (WebDriver shoots the whole window)."""
        raise self._unsupported(Capability.SCREENSHOT)

    async def add_init_script(self, script: str) -> None:
        """INIT_SCRIPT: run ``script`` (JavaScript source) in every document of the page before its own scripts."""
        raise self._unsupported(Capability.INIT_SCRIPT)

    async def clock_install(self) -> None:
        """CLOCK: put the page's timers and dates under a controlled clock (before the page loads)."""
        raise self._unsupported(Capability.CLOCK)

    async def clock_fast_forward(self, ms: int) -> None:
        """CLOCK: move the controlled clock ``ms`` forward (timers due fire once, intervals once)."""
        raise self._unsupported(Capability.CLOCK)

    async def clock_set_system_time(self, seconds: float) -> None:
        """CLOCK: set the page's date to ``seconds`` since the epoch (timers untouched)."""
        raise self._unsupported(Capability.CLOCK)

    async def virtual_time(self, frame: str, budget_ms: int, *, timeout: float, wait: float, requests: bool = True) -> str:
        """VIRTUAL_TIME: run the frame ``frame`` names on virtual time for ``budget_ms``, fast-forwarded
        whenever it is idle and (``requests``) none of its requests is pending. Returns "" when the
        budget was spent, else why it stopped within ``wait`` s (a frame that never idles, requests
        that never end); EngineError when no session on the frame could be opened. Once the budget is
        spent the frame's virtual time stays paused, and its pending loads with it."""
        raise self._unsupported(Capability.VIRTUAL_TIME)

    async def resize(self, width: int, height: int, *, timeout: float = 10) -> None:
        """RESIZE: the page's window (Playwright: the viewport; WebDriver: the outer window) to this size."""
        raise self._unsupported(Capability.RESIZE)

    async def minimise(self, *, timeout: float = 10) -> None:
        """WINDOW_STATE: minimise the page's window (its documents become hidden)."""
        raise self._unsupported(Capability.WINDOW_STATE)

    async def restore(self, width: int, height: int, *, timeout: float = 10) -> None:
        """WINDOW_STATE: show the window again at the screen's top left, at this size."""
        raise self._unsupported(Capability.WINDOW_STATE)

    async def driver_call(self, fn: Callable[[Any], T], *, timeout: float) -> T:
        """WEBDRIVER_ACTIONS: ``fn(driver)`` on the page's blocking WebDriver client (Selenium), in a
        thread, one call at a time (ScriptTimeout after ``timeout`` s)."""
        raise self._unsupported(Capability.WEBDRIVER_ACTIONS)


class Session(ABC):
    """One running browser."""

    engine: Engine
    #: The name :attr:`Engine.driver` gives this driver (a class that sets it registers the driver).
    driver: ClassVar[str] = ""
    #: What the driver declares; :meth:`capabilities_for` narrows it per engine.
    capabilities: frozenset[Capability] = frozenset()
    #: Whether :meth:`new_page` gives a page no run used (Playwright: a new context); WebDriver
    #: sessions hand out windows from their own pool, whatever ran in them before.
    fresh_pages: bool = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "driver" in cls.__dict__ and cls.driver not in _DRIVERS:
            _DRIVERS[cls.driver] = cls

    @classmethod
    async def start(cls, engine: Engine, *, args: list[str] | None = None, env: dict[str, str] | None = None,
                    prefs: dict[str, object] | None = None) -> Session:
        """A running browser of ``engine`` (see :func:`~.discovery.launch`); ``args``, ``env`` and ``prefs`` need LAUNCH_OPTIONS."""
        raise Unsupported(f"{engine.name}: the {cls.driver or cls.__name__} driver launches no browser")

    @classmethod
    def capabilities_for(cls, engine: Engine) -> frozenset[Capability]:
        """The capabilities this driver has with ``engine`` (all it declares unless it says otherwise)."""
        return cls.capabilities

    @abstractmethod
    async def new_page(self, *, proxy: str | None = None, options: dict[str, Any] | None = None) -> Page:
        """A fresh page; ``proxy`` (``http://127.0.0.1:PORT``) carries every request, loopback ones too.
        ``options``: with CONTEXT_EMULATION, Playwright's ``new_context`` keywords (``user_agent``,
        ``timezone_id``, ``viewport``, ``screen``); WebDriver's ``env`` (the browser's environment,
        e.g. ``TZ``) and ``window`` (width, height)."""

    async def warm(self, count: int) -> list[Page]:
        """Open ``count`` pages ahead of a run (opening one costs seconds on a busy machine); returns them."""
        return list(await asyncio.gather(*(self.new_page() for _ in range(count))))

    async def alive(self) -> bool:
        """Whether the browser behind this session still answers (a session of windows that each
        start their own browser always does)."""
        return True

    @abstractmethod
    async def close(self) -> None: ...


__all__ = ["ENGINE_NAMES", "HOLDER_ATTRIBUTE", "Capability", "Engine", "EngineError", "Frame", "FrameHandle", "Page", "PageGone", "DocumentReplaced",
           "ScriptTimeout", "Session", "Unsupported", "Watch", "driver_of", "give_loop_threads"]
