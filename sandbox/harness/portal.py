"""Synchronous code over the async harness: an asyncio loop in a thread, and a page with blocking methods.

The pytest plugin's ``flowui_portal`` and ``flowui_page`` fixtures (docs/PYTEST.md) and the
block host (:mod:`flowui_sandbox.sandbox.plugin.block_host`) are built on these.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from ..engines import Engine, Frame, Page, give_loop_threads


class Portal:
    """An asyncio loop in a daemon thread; sync code hands it coroutines."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        give_loop_threads(self.loop, "flowui-portal")
        self._thread = threading.Thread(target=self.loop.run_forever, name="flowui-portal", daemon=True)
        self._thread.start()

    def run(self, coro, timeout: float = 180) -> Any:
        """Run ``coro`` on the loop and return its result (blocking, at most ``timeout`` seconds)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


class SyncPage:
    """A :class:`flowui_sandbox.sandbox.engines.Page` with blocking methods, for tests.

    The same operations on every engine and driver: ``goto``, ``leave`` (confirming a "leave the
    page?" prompt), ``evaluate``, ``wait_for``, ``click`` (a real user click), ``press`` and
    ``type_text`` (real key events) and, through ``frame=``, each inside an iframe of the page or a
    frame further down (a :data:`~flowui_sandbox.sandbox.engines.Frame` path).
    ``async_page.raw`` is the driver's own page (a Playwright async ``Page``, or a Selenium driver).
    """

    def __init__(self, portal: Portal, page: Page):
        self._portal = portal
        self.async_page = page
        self.engine: Engine = page.engine

    @property
    def name(self) -> str:
        return self.engine.name

    def goto(self, url: str, timeout: float = 15) -> None:
        self._portal.run(self.async_page.goto(url, timeout))

    def evaluate(self, script: str, arg: Any = None, *, frame: Frame | None = None, timeout: float = 10) -> Any:
        return self._portal.run(self.async_page.evaluate(script, arg, frame=frame, timeout=timeout))

    def wait_for(self, script: str, arg: Any = None, *, frame: Frame | None = None, timeout: float = 10) -> Any:
        return self._portal.run(self.async_page.wait_for(script, arg, frame=frame, timeout=timeout))

    def click(self, selector: str, *, frame: Frame | None = None, timeout: float = 10) -> None:
        self._portal.run(self.async_page.click(selector, frame=frame, timeout=timeout))

    def leave(self, url: str, timeout: float = 15) -> None:
        self._portal.run(self.async_page.leave(url, timeout))

    def press(self, key: str, *, timeout: float = 10) -> None:
        self._portal.run(self.async_page.press(key, timeout=timeout))

    def type_text(self, text: str) -> None:
        self._portal.run(self.async_page.type_text(text))


__all__ = ["Portal", "SyncPage"]
