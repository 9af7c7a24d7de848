"""The page pool of one browser, shared by verify's runs and review's slots.

Opening a page costs seconds on a busy machine, so a page goes back to the pool after a run
and the next run takes it. A page may keep its host page (the kept host page of
docs/SCALE.md): the next run mounts its blocks in it, uncleaned, and :attr:`PagePool.kept`
counts the runs it has held. A page may carry a companion that lives and dies with it
(review: the logging proxy the page was opened behind, :class:`flowui_sandbox.sandbox.review.browser.proxy.Tap`):
the pool stops it when the page leaves.

A page a run may have hung is dropped (:meth:`PagePool.drop`): out of the pool at once,
abandoned in the background (a busy renderer can take Chromium many seconds to let go of),
its companion stopped after it, so what the page still sends reaches no later run's log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol

from ..engines import Page, Session


class Companion(Protocol):
    """What a page is opened with and must not outlive it."""

    async def stop(self) -> None: ...


#: How a pool opens a page on its session, when not ``session.new_page()``: the page and its companion.
Opener = Callable[[Session], Awaitable[tuple[Page, Companion | None]]]


class PagePool:
    """The pages of one browser session, handed to runs and taken back.

    A page given back is cleaned by :meth:`Page.recycle` and reused, except when the run says
    not to (a click, a permission grant: user activation outlives a navigation), when it is
    closed. Drivers whose pages cannot be reused (WebDriver: its session keeps its own pool of
    windows) close it in ``recycle``. A page that keeps its host page goes back as it is.
    """

    def __init__(self, session: Session, size: int, opener: Opener | None = None):
        self.session = session
        self.size = size
        self.opener = opener
        self.idle: list[Page] = []
        self.all: list[Page] = []
        #: Pages showing a kept host page -> runs mounted in it so far.
        self.kept: dict[Page, int] = {}
        #: Pages showing a kept host page -> the tab's history length at its first mount.
        self.kept_history: dict[Page, int] = {}
        self._companions: dict[Page, Companion] = {}
        #: Pages runs held when the browser was replaced (:meth:`renew`): dropped when given back.
        self._stale: set[Page] = set()
        #: Pages being abandoned, and companions being stopped, in the background.
        self._closing: set[asyncio.Task] = set()

    async def warm(self) -> None:
        """Open :attr:`size` pages before the first run: through the opener one by one, else the session's own way (WebDriver opens its windows one at a time)."""
        if self.opener is not None:
            pages = [await self._open() for _ in range(self.size)]
        else:
            pages = await self.session.warm(self.size)
            self.all.extend(pages)
        self.idle.extend(pages)

    async def acquire(self, *, fresh: bool = False, kept: bool = False) -> Page:
        """A page with a new watch; ``fresh``: a new one, never used (its history holds only this run's page);
        ``kept``: one showing a kept host page if any is idle (a run that loads its own takes another first)."""
        # A driver whose new pages are reused windows anyway (WebDriver) takes an idle one for a fresh
        # run too: a remote WebDriver endpoint holds one session at a time, and a kept page holds it.
        if self.idle and (not fresh or not self.session.fresh_pages):
            same = [p for p in self.idle if (p in self.kept) == kept]
            page = (same or self.idle)[-1]
            self.idle.remove(page)
        else:
            page = await self._open()
        page.watch()
        return page

    def companion(self, page: Page) -> Companion | None:
        """What ``page`` was opened with (:data:`Opener`), if anything."""
        return self._companions.get(page)

    async def release(self, page: Page, *, reuse: bool = True, keep_host: bool = False) -> None:
        """Give the page back; ``reuse=False`` closes it (user activation, for one, outlives a navigation);
        ``keep_host``: as it is, its kept host page ready for the next run's blocks."""
        if page in self._stale:
            self.drop(page)
            return
        if keep_host and page in self.kept:
            self.idle.append(page)
            return
        self.kept.pop(page, None)
        kept = False
        try:
            kept = await page.recycle() if reuse else False
            if not reuse:
                await page.close()
        except Exception:  # the driver's own error for a page or browser already gone: the page leaves the pool below
            pass
        if kept:
            self.idle.append(page)
        else:
            await self._leave(page)

    def drop(self, page: Page) -> None:
        """Take ``page`` out of the pool now and abandon it in the background, then stop its companion."""
        companion = self._forget(page)

        async def abandon() -> None:
            try:
                await asyncio.wait_for(page.abandon(), 60)
            except Exception:
                pass  # the browser goes when its session closes
            finally:
                if companion is not None:
                    await companion.stop()

        self._background(abandon())

    def renew(self, session: Session) -> None:
        """The browser was launched or connected to again: new pages come from ``session``; the old
        one's idle pages are dropped now, those runs still hold when they are given back (:meth:`stale`)."""
        self.session = session
        for page in list(self.all):
            if page in self.idle:
                self.drop(page)
            else:
                self._stale.add(page)

    def stale(self, page: Page) -> bool:
        """Whether ``page`` belongs to a browser this pool has replaced (:meth:`renew`)."""
        return page in self._stale

    async def settle(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for what is being abandoned in the background."""
        if self._closing:
            await asyncio.wait(list(self._closing), timeout=timeout)

    async def close(self) -> None:
        """Close every page of the pool (10 s each at most) and stop their companions."""
        for page in list(self.all):
            try:
                await asyncio.wait_for(page.close(), 10)
            except Exception:  # best effort: a page already gone raises its driver's own error; the others still close
                pass
            await self._leave(page)
        self.idle.clear()
        self.kept.clear()

    async def _open(self) -> Page:
        if self.opener is None:
            page = await self.session.new_page()
        else:
            page, companion = await self.opener(self.session)
            if companion is not None:
                self._companions[page] = companion
        self.all.append(page)
        return page

    def _forget(self, page: Page) -> Companion | None:
        self._stale.discard(page)
        for held in (self.idle, self.all):
            if page in held:
                held.remove(page)
        self.kept.pop(page, None)
        self.kept_history.pop(page, None)
        return self._companions.pop(page, None)

    async def _leave(self, page: Page) -> None:
        companion = self._forget(page)
        if companion is not None:
            await companion.stop()

    def _background(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)


__all__ = ["Companion", "Opener", "PagePool"]
