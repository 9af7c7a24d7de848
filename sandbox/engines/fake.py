"""A browser that is a script: the driver under the harness's unit tests.

:class:`FakeSession` and :class:`FakePage` implement the driver interface of
:mod:`.base` (:class:`~.base.Session`, :class:`~.base.Page`) with no browser: every
call goes to one function of the test, ``answer(call)``, which returns the call's result,
raises the driver's error, or returns :data:`HANG` for a call that never returns (a page in a
busy loop). So the harness's own logic (the page pool, retries, kept host pages, the
watchdog around a run) runs in milliseconds, the way httpx's ``MockTransport`` stands in for
the network. What a browser does is proved in real browsers (tests/browser/); this proves
what the harness does with what a browser answers. Each page records its calls.

A fake session declares the capabilities a test gives it (none by default): a capability's
method answers through ``answer`` like any call when declared, and raises
:class:`~.base.Unsupported` as a real driver lacking it does when not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .base import Capability, Engine, Frame, FrameHandle, Page, Session

T = TypeVar("T")

#: What ``answer`` returns for a call that never returns.
HANG = object()

#: The engine a fake session says it is (``driver`` says what it really is).
FAKE_ENGINE = Engine(name="chromium", driver="fake", executable=None, origin="fake")


@dataclass
class Call:
    """One call of the harness into a fake page (or ``new_page`` into its session: ``page`` None)."""

    page: FakePage | None
    action: str  # goto | evaluate | click | press | gesture | grant | recycle | close | new_page, or a capability's method
    args: tuple[Any, ...] = ()
    frame: Frame | None = None
    timeout: float | None = None  # what the harness allowed the call (evaluate), which a real driver enforces


async def _returned(value: Any) -> Any:
    """``value``, or never (:data:`HANG`)."""
    if value is HANG:
        await asyncio.Event().wait()
    return value


def _browser_like(call: Call) -> Any:
    """The default answer: every call succeeds; ``evaluate`` gives None, ``recycle`` keeps the page."""
    return True if call.action == "recycle" else None


@dataclass(eq=False)
class FakePage(Page):
    session: FakeSession
    number: int
    calls: list[Call] = field(default_factory=list)
    closed: bool = False

    def __post_init__(self) -> None:
        self.engine = self.session.engine
        self.capabilities = self.session.capabilities
        self.watch()

    async def _answer(self, action: str, *args: Any, frame: Frame | None = None, timeout: float | None = None) -> Any:
        call = Call(self, action, args, frame, timeout)
        self.calls.append(call)
        return await _returned(self.session.answer(call))

    def actions(self) -> list[str]:
        return [c.action for c in self.calls]

    async def goto(self, url: str, timeout: float = 15) -> None:
        await self._answer("goto", url)

    async def evaluate(self, script: str, arg: Any = None, *, frame: Frame | None = None, timeout: float = 10) -> Any:
        return await self._answer("evaluate", script, arg, frame=frame, timeout=timeout)

    async def click(self, selector: str, *, frame: Frame | None = None, timeout: float = 10) -> None:
        await self._answer("click", selector, frame=frame)

    async def press(self, key: str, *, timeout: float = 10) -> None:
        await self._answer("press", key)

    async def leave(self, url: str, timeout: float = 15) -> None:
        await self._answer("leave", url)

    async def grant(self, permissions: list[str], origin: str) -> None:
        await self._answer("grant", permissions, origin)

    async def recycle(self) -> bool:
        return bool(await self._answer("recycle"))

    async def close(self) -> None:
        await self._answer("close")
        self.closed = True

    # The capabilities' methods: Unsupported unless the session declares the capability.

    async def _capable(self, capability: Capability, action: str, *args: Any, frame: Frame | None = None) -> Any:
        if capability not in self.capabilities:
            raise self._unsupported(capability)
        return await self._answer(action, *args, frame=frame)

    async def mouse_move(self, x: float, y: float, *, steps: int = 1) -> None:
        await self._capable(Capability.POINTER, "mouse_move", x, y, steps)

    async def mouse_click(self, x: float, y: float) -> None:
        await self._capable(Capability.POINTER, "mouse_click", x, y)

    async def type_text(self, text: str) -> None:
        await self._capable(Capability.TYPING, "type_text", text)

    async def content_frame(self, frame: Frame, timeout: float = 10) -> FrameHandle:
        return await self._capable(Capability.FRAMES, "content_frame", frame=frame)

    async def screenshot(self, clip: dict[str, float] | None = None, *, timeout: float = 10) -> bytes:
        return await self._capable(Capability.SCREENSHOT, "screenshot", clip) or b""

    async def add_init_script(self, script: str) -> None:
        await self._capable(Capability.INIT_SCRIPT, "add_init_script", script)

    async def clock_install(self) -> None:
        await self._capable(Capability.CLOCK, "clock_install")

    async def clock_fast_forward(self, ms: int) -> None:
        await self._capable(Capability.CLOCK, "clock_fast_forward", ms)

    async def clock_set_system_time(self, seconds: float) -> None:
        await self._capable(Capability.CLOCK, "clock_set_system_time", seconds)

    async def virtual_time(self, frame: str, budget_ms: int, *, timeout: float, wait: float, requests: bool = True) -> str:
        return await self._capable(Capability.VIRTUAL_TIME, "virtual_time", budget_ms, requests, frame=frame) or ""

    async def resize(self, width: int, height: int, *, timeout: float = 10) -> None:
        await self._capable(Capability.RESIZE, "resize", width, height)

    async def minimise(self, *, timeout: float = 10) -> None:
        await self._capable(Capability.WINDOW_STATE, "minimise")

    async def restore(self, width: int, height: int, *, timeout: float = 10) -> None:
        await self._capable(Capability.WINDOW_STATE, "restore", width, height)

    async def driver_call(self, fn: Callable[[Any], T], *, timeout: float) -> T:
        return await self._capable(Capability.WEBDRIVER_ACTIONS, "driver_call", fn)


class FakeSession(Session):
    """A browser whose pages answer with ``answer(call)``; ``fresh_pages`` as the driver modelled
    (True: Playwright's new contexts; False: WebDriver's pool of windows); ``capabilities`` what
    its pages declare."""

    driver = "fake"

    def __init__(self, answer: Callable[[Call], Any] = _browser_like, *, engine: Engine = FAKE_ENGINE,
                 fresh_pages: bool = True, capabilities: Iterable[Capability] = ()) -> None:
        self.engine = engine
        self.capabilities = frozenset(capabilities)
        self.answer = answer
        self.fresh_pages = fresh_pages
        self.pages: list[FakePage] = []
        self.closed = False

    async def new_page(self, *, proxy: str | None = None, options: dict[str, Any] | None = None) -> Page:
        await _returned(self.answer(Call(None, "new_page", (proxy,))))
        page = FakePage(self, len(self.pages) + 1)
        self.pages.append(page)
        return page

    async def close(self) -> None:
        self.closed = True


__all__ = ["HANG", "FAKE_ENGINE", "Call", "FakePage", "FakeSession"]
