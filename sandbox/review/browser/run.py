"""One engine's lane: a browser, a few page slots, the blocks handed out to them.

A slot holds a page of the engine's browser from the browser's page pool
(:class:`flowui_sandbox.sandbox.harness.pages.PagePool`, verify's too), opened behind its own
logging proxy (:class:`.proxy.Tap`, the page's companion in the pool, which also serves the
slot's host page, each block mounted in it).
A block on a slot goes: host page → light screenshot → user actions (links held back) →
state update → dark theme → dark screenshot → links → the rest of :data:`SETTLE` seconds
from the last action → until the block's requests stop (bounded by the time limit less
:data:`TAIL`) → the block's timers run ahead (virtual time, the clock's leaps) → read everything
→ the block's frame destroyed. The whole of it
runs under the per-block time limit; a block that hits it (a busy loop freezes the host
page too) loses its page, which is closed or killed, and the slot gets a fresh page
behind a fresh proxy for the next block.
"""

from __future__ import annotations

import asyncio
import base64
import math
import secrets
import ssl
import time
import warnings
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from ...block.srcdoc import build_srcdoc
from ...engines import Capability, Engine, EngineError, Page, ScriptTimeout, Session, Watch, launch, webdriver_enter_frame
from ...engines.remote import connect
from ...errors import Recovered
from ...harness.pages import PagePool
from ...harness.remote import ServerNames, Worker
from .canaries import Canaries
from .differential import MAX_ATTRIBUTION, OUTSIDE, Event, Log, baseline, confirmed, deviation, events
from .hostpage import (
    ACTIONABLE,
    CLIP,
    END_SEEN,
    FOCUS,
    FRAME,
    FRAME_STATE,
    HAS_COLOR_SCHEME,
    LIST_ACTIONS,
    LOADED,
    LOCATE,
    MOUNT,
    PAINTED,
    READ,
    READY,
    RESIZED,
    SCROLL_BACK,
    SCROLL_END,
    SELECT_LAST,
    SET_STATE,
    SET_THEME,
    SIZED,
    TO_VIEWPORT,
    UNMOUNT,
    host_page,
)
from .observation import BlockObservation, DifferentialLeak, DifferentialOutcome, HostReport, Instability, RunActions, navigation_target
from .persona import PAGE_NAMES, Persona, browser_version, host_name
from .proxy import Seen, Tap, flooded

#: Seconds from the last user action (the state update, the theme switch and the dark
#: screenshot happen within them) until the harness reads what happened. Timers and
#: animation frames that fire within it are seen; code that waits longer (setTimeout(f,
#: 5000), a condition the harness never produces) escapes the browser layer, and the static
#: layer's timer rules are what is left.
SETTLE = 1.0
#: Seconds of quiet: the read waits at least this long after the last thing the harness did (a
#: link clicked late, the theme); a block whose requests still arrive this close to the end
#: (a flood's backlog) loses its page and its proxy.
QUIET = 0.25
#: Seconds a review keeps after waiting for the block's requests to stop (:meth:`Lane.drive`): the
#: steps after that wait (Chromium's virtual time, at most :data:`VIRTUAL_WAIT` s; Firefox's clock
#: leaps, about 2 s; the reads) fit in them within the time limit.
TAIL = 6.0
#: Seconds a review keeps for its last read (:data:`QUIET`, then one call), after virtual time.
LAST_READ = 1.0
#: Seconds the proxy must be settled (no byte through any connection, no tunnel being opened, no
#: request being logged) after the block's frame is destroyed before the slot's next block starts
#: (:meth:`.proxy.Tap.fence`): a request the block sent as its frame went is logged by then, as its own.
FENCE_IDLE = 0.1
#: Seconds the proxy may take to settle; a slot whose proxy does not loses its page and its proxy.
FENCE = 3.0
#: The host module's statuses of a block whose document still runs: connected, or not yet (it
#: takes a late hello). Not "navigated" (another document) or "destroyed".
RUNNING = ("connected", "loading")
#: Pages at once per engine (verify measured 3 as the best wall time on this 2-core machine).
SLOTS = 3
#: User actions per block (a page of 500 buttons is reviewed on its first ones).
MAX_ACTIONS = 40
#: Seconds one user action may take (a click on an element that never becomes clickable).
ACTION_TIMEOUT = 3.0
#: An init script: navigator.webdriver reads false, as in a browser no one drives. Python text, not
#: the host page's script: it runs in every document of the page (the block's frame too), before
#: any script of its own.
HIDE_WEBDRIVER = "Object.defineProperty(Navigator.prototype, 'webdriver', {get: () => false, configurable: true});"
#: Engines whose review moves the block's clock forward where the driver has CLOCK (Playwright's
#: clock, an init script, reaches the sandboxed frame in Firefox only).
CLOCK_ENGINES = ("firefox",)
#: Leaps of the controlled clock at the end of a review (ms): a timer due within each fires once
#: (6 s, 5 min, an hour, a day, then 20 days six times), intervals once per leap: a block that waits
#: for a date up to four months after the review's sees it. One leap is at most 2^31 ms (24.8 days):
#: Playwright refused a 30-day leap ("Cannot fast-forward to the past", measured).
LEAPS = (6_000, 300_000, 3_600_000, 86_400_000, *(20 * 86_400_000,) * 6)
#: Virtual milliseconds the block's frame lives through at the end of its review in Chromium: 6 s,
#: 5 min and an hour (:data:`LEAPS` without the day: every interval fires at each period, and a
#: day of a 1 s interval is 86 400 calls).
VIRTUAL_BUDGET = sum(LEAPS[:3])
#: Seconds of real time the virtual time may take (measured: 0.1-0.2 s for an hour with a 1 s interval).
VIRTUAL_WAIT = 4.0
#: Seconds the host page stays scrolled to the block's end (a reader's second), from the scroll; where
#: the page does not scroll, :data:`GLANCE`.
DWELL = 1.0
GLANCE = 0.25
#: Seconds the frame may take to be as tall as its document before the scroll, and to see its end
#: after it (a block whose document outgrows its frame, beyond the host's height cap, never is).
SIZED_WAIT = 1.0
SEEN_WAIT = 2.0
#: Clicks on the block's first button (a block that acts on the 6th click).
REPEAT_CLICKS = 6
#: Milliseconds after each key typed, in turn: a quick typist's uneven rhythm (a block that acts
#: only when the gaps between keys vary sees them vary). The same in every run: the differential
#: review compares runs whose only difference is the data.
KEY_GAPS = (12, 70, 18, 120, 25, 55, 14, 95, 22, 65, 16, 140)
#: Pointer moves from where the pointer enters the block's frame to the element clicked.
PATH_STEPS = 7
#: The width (CSS px) the window is narrowed to and widened back from (:meth:`Lane._window`): the
#: block (640 px at most) is then narrower than its usual width, and its window gets ``resize``.
NARROW = 600
#: The watchdog's probe: seconds a trivial evaluate may take, and misses in a row that make a hang.
HANG_PROBE = 3.0
HANG_MISSES = 2
#: Why a differential review stopped when a run gave its page up by design (a popup, a download, a
#: flood still sending): the one stop that is not a reason to review the block again (:func:`_incomplete`).
PAGE_LOST = "page lost"


class Action(NamedTuple):
    """One thing a user does to one element of the block (``element``: its index among :data:`ACTIONABLE`'s matches)."""

    kind: str  # click | type | select
    element: int
    text: str  # what is typed (a canary)
    what: str  # how the report names the element
    link: bool  # a link: acted on last, it may navigate the frame away


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
class Recording:
    """What one engine sees of one block, written as the lane reviews it; :meth:`freeze` makes the
    judge's :class:`.observation.BlockObservation` of it once the block's log is closed."""

    engine: str
    canaries: Canaries
    #: The block's log at the slot's proxy (:meth:`.proxy.Tap.since`): live until the slot's next
    #: block starts, or until the proxy stops when it goes with a dropped page.
    seen: list[Seen] = field(default_factory=list)
    tunnels: list[str] = field(default_factory=list)
    dropped: int = 0
    host: dict[str, Any] = field(default_factory=dict)
    watch: Watch = field(default_factory=Watch)
    screenshots: dict[str, str] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)
    timed_out: bool = False
    error: str = ""
    #: The host page's URL (under the slot's host name): its own load is no navigation of the host page.
    page: str = ""
    #: Seconds at the end of each step, for bench/review_browser.py and for a timeout's evidence.
    steps: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    #: The differential review (:meth:`Lane.differ`), when the block was reviewed again.
    differential: DifferentialOutcome | None = None

    def events(self) -> Log:
        return events(self.seen, navigation_target(self.seen, self.watch.navigations), self.host, self.dropped)

    def unexplained(self) -> list[Event]:
        """What went out of the frame to another host with no canary found in it, or all of it when an
        input has a value the fast path cannot name (a number of few digits may ride beside a canary
        it named): what the differential review is for (bridge calls go to the host: compared, never
        a reason to run)."""
        outside = [e for e in self.events().events if e.kind in OUTSIDE]
        if not all(self.canaries.findable(label) for label in self.canaries.labels):
            return outside
        return [e for e in outside if not self.canaries.find(e.host, e.text)]

    def freeze(self) -> BlockObservation:
        """The record as it stands, frozen (copies: the recording may go on changing)."""
        w = self.watch
        return BlockObservation(
            self.engine, self.canaries.table(), tuple(self.seen), tuple(self.tunnels), self.dropped, HostReport.of(self.host),
            tuple(w.navigations), tuple(w.popups), tuple(w.dialogs), tuple(w.downloads), dict(self.screenshots),
            tuple(self.actions), self.timed_out, self.error, self.page, dict(self.steps), self.seconds, self.differential)


@dataclass
class _Differing:
    """The differential review of one block as it goes (:meth:`Lane.differ`); :meth:`freeze` ends it."""

    runs: int = 1
    leaks: list[DifferentialLeak] = field(default_factory=list)
    unstable: list[Instability] = field(default_factory=list)
    deviation: list[str] | None = None
    confirmed: list[str] | None = None
    unsure: RunActions | None = None
    stopped: str = ""
    unstable_actions: RunActions | None = None

    def freeze(self, seconds: float) -> DifferentialOutcome:
        return DifferentialOutcome(self.runs, tuple(self.leaks), tuple(self.unstable),
                                   None if self.deviation is None else tuple(self.deviation),
                                   None if self.confirmed is None else tuple(self.confirmed), self.unsure, self.stopped, seconds,
                                   self.unstable_actions)


async def watch_webdriver(page: Page, watch: Watch, host_url: str) -> None:
    """What a driver without events can see after the fact, into ``watch`` (a no-op for Playwright)."""
    page.watch(watch)
    await page.look(host_url)


def _incomplete(obs: Recording) -> bool:
    """Whether a block's review ended short of a verdict: it hung, failed, or its differential review
    stopped on a run that hung or failed (not on a page given up by design: a popup, a navigation)."""
    stopped = obs.differential.stopped if obs.differential is not None else ""
    return obs.timed_out or bool(obs.error) or stopped not in ("", PAGE_LOST)


#: ``autocomplete`` tokens of fields that hold digits (a postal code, a card's security code, a one-time code).
_DIGIT_FIELDS = ("postal-code", "cc-csc", "one-time-code")


def typed_kind(field: Mapping[str, Any]) -> str:
    """What a user types into a text field, by what the field says it holds: its ``type``, else its
    ``autocomplete`` tokens and ``inputmode`` (a card number field typed into with words was never
    a customer's: a block that sent only digits, or only a Luhn-valid number, sent nothing)."""
    kind = field.get("type", "")
    if kind in ("number", "email", "url"):
        return kind
    tokens = str(field.get("autocomplete", "")).split()
    mode = field.get("inputmode", "")
    if "cc-number" in tokens:  # whatever its type: card forms use type=tel for the phone's digit keyboard
        return "card"
    if kind == "tel":
        return "tel"
    if "email" in tokens or mode == "email":
        return "email"
    if "url" in tokens or mode == "url":
        return "url"
    if any(t.startswith("tel") for t in tokens) or mode == "tel":
        return "tel"
    if mode in ("numeric", "decimal") or any(t in tokens for t in _DIGIT_FIELDS):
        return "digits"
    return "text"


def _bound(attribute: Any) -> float | None:
    """A number field's ``min``, ``max`` or ``step`` attribute as a number (None: absent, ``any`` or not a number)."""
    try:
        return float(attribute) if attribute else None
    except (TypeError, ValueError):
        return None


def _hung(obs: Recording) -> bool:
    """Whether the block hung its page itself: the watchdog caught it, or the host page or the block's
    frame stopped answering (not a review that only ran out of time, nor a differential run that did)."""
    return "watchdog" in obs.steps or "hung after" in obs.steps


class Lane:
    """One engine: a browser, :data:`SLOTS` pages, blocks handed out from a queue.

    With ``remote`` (the engine's remote browsers, connected: :func:`flowui_sandbox.sandbox.harness.remote.connect_all`)
    the lane launches nothing: each remote browser has ``pages`` slots, and every slot pulls from
    the lane's one queue, so the blocks are spread over the browsers as they come free."""

    def __init__(self, engine: Engine, ssl_context: ssl.SSLContext, *, time_limit: float, settle: float = SETTLE,
                 slots: int = SLOTS, on_done=None, differential: bool = True, remote: list[Worker] | None = None,
                 names: ServerNames | None = None, screenshots: bool = True):
        self.engine = engine
        self.differential = differential
        #: Whether first reviews take the light and dark screenshots (for a report that shows them).
        self.screenshots = screenshots
        self.ssl_context = ssl_context
        self.time_limit = time_limit
        self.settle = settle
        self.on_done = on_done
        #: The browsers: one launched here, or the remote ones; slot n runs on ``sessions[_of[n]]``.
        self.remote = list(remote or [])
        self.sessions: list[Session] = [w.session for w in self.remote]
        #: Taken in turn, so a few blocks still go to every browser.
        self._of = [i for k in range(max((w.pages for w in self.remote), default=0))
                    for i, w in enumerate(self.remote) if k < w.pages] or [0] * slots
        self.size = len(self._of)
        #: Where each slot's proxy listens and the name the browsers reach it by (``--bind``, ``--public-host``).
        self.names = names or ServerNames("127.0.0.1", "127.0.0.1", "localhost")
        #: The page pool of each browser (``pools[i]`` opens its pages on ``sessions[i]``).
        self.pools: list[PagePool] = []
        self._lock = asyncio.Lock()
        #: Starts one more slot on the lane's queue while its first pass runs (:meth:`lend`).
        self._grow: Callable[[int], int] | None = None
        #: This run's browser: time zone, screen, window, user agent (:mod:`.persona`).
        self.persona = Persona.draw()
        self._version = ""  # Chromium's, for its user agent

    async def run(self, works: list[Work]) -> dict[int, BlockObservation]:
        """What the engine saw of each block (by :attr:`Work.index`), frozen once every page and
        proxy of the lane is closed: a block's log stays open until then (:class:`Recording`)."""
        out: dict[int, Recording] = {}
        try:
            if not self.remote:
                self.sessions = [await self._launch()]
        except EngineError as exc:
            return {w.index: Recording(self.engine.name, Canaries(), error=str(exc)).freeze() for w in works}
        self.pools = [PagePool(session, self._of.count(i), opener=self._open) for i, session in enumerate(self.sessions)]
        queue: asyncio.Queue[Work] = asyncio.Queue()
        for w in works:
            queue.put_nowait(w)

        async def worker(n: int, retry: bool = False) -> None:
            which = self._of[n]
            page: Page | None = None
            try:
                while not queue.empty():
                    work = queue.get_nowait()
                    if page is not None and self.pools[which].stale(page):  # its browser was replaced meanwhile
                        self.pools[which].drop(page)
                        page = None
                    if page is None:
                        try:
                            page = await self.pools[which].acquire(kept=True)
                        except Exception:
                            # A browser that opens no page any more (Chromium busy letting go of a spinning
                            # renderer) is replaced; pages the other slots had on it fail and are retried.
                            try:
                                await self._relaunch(which)
                                page = await self.pools[which].acquire(kept=True)
                            except Exception as exc:
                                if self._retire(which, exc):  # a remote browser lost: its block goes to the others
                                    queue.put_nowait(work)
                                    return
                                out[work.index] = Recording(self.engine.name, Canaries(), error=f"no page: {_first_line(exc)}")
                                page = None
                                if self.on_done and not retry:
                                    self.on_done(self._browser(which), work)
                                continue
                    pool = self.pools[which]
                    tap = cast(Tap, pool.companion(page))  # every page of the lane's pools is opened behind its own
                    try:
                        # Everything of one block, cleanup included, under a bound: a browser that stops
                        # answering (a flood still draining) costs this block its page, not the run.
                        obs, keep = await asyncio.wait_for(self.review(work, page, tap), self.time_limit + 30)
                        if keep and self.differential and not obs.timed_out and not obs.error and obs.unexplained():
                            obs.differential, keep = await self.differ(work, page, tap, obs)
                    except TimeoutError:
                        obs, keep = Recording(self.engine.name, Canaries(), timed_out=True), False
                        obs.seen, obs.tunnels, obs.dropped = tap.since((0, 0, 0))  # the block's log: review() marked its start
                    except Exception as exc:
                        # A fault of the harness on this block, not the block's doing: the block's
                        # error in the report, its page dropped, and the lane goes on. (Raised, it
                        # stopped every engine's lane, and the batch then hung cancelling them.)
                        obs, keep = Recording(self.engine.name, Canaries(), error=f"the review failed: {_first_line(exc)}"), False
                    out[work.index] = obs
                    if not keep:
                        # The page goes, and its proxy with it: requests a flood still has in flight
                        # must not land in the log of the slot's next block.
                        pool.drop(page)
                        page = None
                    if self.remote:
                        self.remote[which].done += 1
                    if self.on_done and not retry:
                        self.on_done(self._browser(which), work)
            finally:
                if page is not None:
                    # Closed, its proxy with it: the retry pass reviews a hung block on a new page. (Given
                    # back as it was and taken by the retry pass, the batch missed blocks it had matched:
                    # 7 cases reviewed alone in 3 runs, against 1 in 5 runs before.)
                    try:
                        await asyncio.wait_for(self.pools[which].release(page, reuse=False), 10)
                    except TimeoutError:  # release handles the driver's errors itself; the pool closes the page
                        pass

        slots = [asyncio.ensure_future(worker(n)) for n in range(min(self.size, len(works)) or 1)]

        def grow(count: int) -> int:
            count = min(count, queue.qsize())  # a page per block still waiting, at most
            slots.extend(asyncio.ensure_future(worker(0)) for _ in range(count))  # a local lane: browser 0
            return count

        self._grow = None if self.remote else grow
        try:
            while True:  # the first pass: the lane's slots, and those lent to it meanwhile
                running = list(slots)
                await asyncio.gather(*running)
                if len(slots) == len(running):
                    break
            self._grow = None
            # A block that hung while other pages ran may have been starved by one that really spins
            # (two cores, a busy loop on each): each is reviewed once more, and that verdict stands.
            # So is one whose differential review stopped half way (a run starved past its time limit):
            # the leaks it had left to find were missing from its verdict.
            again = [w for w in works if out.get(w.index) is not None and _incomplete(out[w.index])]
            if min(self.size, len(works)) <= 1:
                again = []  # it was reviewed alone: that verdict stands
            # And a block a lost remote browser handed back after the other slots had stopped.
            left = [w for w in works if w.index not in out]
            # The blocks that did not hang themselves (starved past the limit by a neighbour that
            # spins, which is not among them) are reviewed again side by side, as they were at first;
            # those the watchdog found hanging, and any the side-by-side pass left short, alone. (All
            # alone, one at a time, the starved neighbours of a Firefox flood took its lane's last two minutes.)
            beside = [*left, *(w for w in again if not _hung(out[w.index]))]
            alone = [w for w in again if _hung(out[w.index])]
            if beside:
                live = self._live_slots()[:len(beside)]
                await self._pass(queue, beside, [worker(n, retry=True) for n in live])
                alone += [w for w in beside if w.index not in out or (len(live) > 1 and _incomplete(out[w.index]))]
            if alone:
                # A flood last: Firefox takes 10 to 20 s to let its page go, which the block after it waited.
                alone.sort(key=lambda w: w.index in out and flooded(len(out[w.index].seen), out[w.index].dropped))
                await self._pass(queue, alone, [worker(self._live(), retry=True)])
        finally:
            for pool in self.pools:
                await pool.settle(10)
                await pool.close()
            for session in self.sessions:  # a remote browser is disconnected from, and stays up
                try:
                    await asyncio.wait_for(session.close(), 30)
                except Exception:  # best effort: a browser already gone raises its driver's own error
                    pass
            for pool in self.pools:  # pages that would not close went with the browser: their proxies now
                await pool.settle(10)
        return {index: recording.freeze() for index, recording in out.items()}

    def lend(self, count: int) -> int:
        """Open up to ``count`` more pages on this lane's queue while its first pass runs (another
        engine's lane is done: its share of the machine goes to the lanes still reviewing); how
        many it opened. A lane on remote browsers takes none: their pages are their own."""
        return self._grow(count) if self._grow is not None else 0

    def _retire(self, which: int, why: BaseException) -> bool:
        """Whether the slots of remote browser ``which``, which could not be reached again, stop
        (another of the engine's browsers is still there to take their blocks)."""
        if not self.remote:
            return False
        worker = self.remote[which]
        first = not worker.lost
        worker.lost = worker.lost or _first_line(why)
        others = any(not w.lost for w in self.remote)
        if first:  # said once per browser, as verify's report lists a lost browser
            warnings.warn(Recovered(f"{self.engine.name}@{worker.label}: lost ({worker.lost}); "
                                    + ("its blocks go to the engine's other browsers" if others else "no other browser of the engine is left")),
                          stacklevel=1)
        return others

    def _live(self) -> int:
        """A slot whose browser is not lost (the first slot when every one is)."""
        return self._live_slots()[0]

    def _live_slots(self) -> list[int]:
        """The slots whose browser is not lost (the first slot when every one is)."""
        return [n for n, i in enumerate(self._of) if not self.remote or not self.remote[i].lost] or [0]

    @staticmethod
    async def _pass(queue: asyncio.Queue[Work], works: list[Work], workers: list[Coroutine[Any, Any, None]]) -> None:
        """One more pass over ``works``: the queue holds them alone, ``workers`` take them from it."""
        while not queue.empty():
            queue.get_nowait()
        for w in works:
            queue.put_nowait(w)
        await asyncio.gather(*workers)

    async def _tap(self) -> Tap:
        """A slot's proxy, started: its host page under a host name drawn per slot (:func:`.persona.host_name`)."""
        return await Tap(self.ssl_context, host_name(), bind=self.names.bind, public_host=self.names.host).start()

    def _browser(self, which: int) -> str:
        """How progress names the browser of ``sessions[which]``: the engine, ``ENGINE@URL`` when remote."""
        return f"{self.engine.name}@{self.remote[which].label}" if self.remote else self.engine.name

    async def _launch(self) -> Session:
        """The engine's browser as :attr:`persona` says: Chromium's user agent is its own version's
        desktop Chrome (Playwright's own build, whose version only the running browser tells, is
        launched twice the first time)."""
        name = self.engine.name
        if name == "chromium" and self.engine.supports(Capability.LAUNCH_OPTIONS) and not self._version:
            self._version = await asyncio.to_thread(browser_version, self.engine.executable)
            if not self._version:
                first = await launch(self.engine)
                self._version = getattr(getattr(first, "browser", None), "version", "")
                await first.close()
        return await launch(self.engine, args=self.persona.launch_args(name, self._version), env=self.persona.launch_env(name),
                            prefs=self.persona.launch_prefs(name))

    async def _open(self, session: Session) -> tuple[Page, Tap]:
        """A page of ``session`` behind a proxy of its own (the lane's pools' opener: the proxy is the page's companion)."""
        tap = await self._tap()
        page: Page | None = None
        try:
            version = getattr(getattr(session, "browser", None), "version", "")
            options = self.persona.page_options(self.engine.name, self.engine.capabilities, version)
            page = await asyncio.wait_for(session.new_page(proxy=tap.proxy_url, options=options), 60)
            await self._prepare_page(page)
        except BaseException:
            if page is not None:
                try:
                    await asyncio.wait_for(page.close(), 10)
                except Exception:  # best effort: the browser is relaunched next
                    pass
            await tap.stop()
            raise
        return page, tap

    async def _prepare_page(self, page: Page) -> None:
        """What a new page gets before its host page loads, as far as its driver can."""
        # The block's frame is the holder frame's child: its navigations are the block's frame's
        # ("frame: URL", what navigation_target reads).
        page.watch_held_frames()
        if page.supports(Capability.INIT_SCRIPT):
            # navigator.webdriver false in every frame the init script reaches (Firefox's block frame;
            # Chromium's gets it from its launch flag, CHROMIUM_ARGS).
            await page.add_init_script(HIDE_WEBDRIVER)
        if self.engine.name in CLOCK_ENGINES and page.supports(Capability.CLOCK):
            # A controlled clock, installed before the host page loads: time is then moved forward
            # at the end of each review (:data:`LEAPS`). It reaches the sandboxed frame in Firefox
            # only (measured: Chromium runs no init script in a srcdoc frame).
            await page.clock_install()

    async def _relaunch(self, which: int = 0) -> None:
        """A new browser for the slots of ``sessions[which]``: launched again, or connected to again
        (a remote browser server keeps running when a connection to it is closed)."""
        old = self.sessions[which]
        async with self._lock:
            if self.sessions[which] is not old:
                return  # another slot relaunched it already
            try:
                await asyncio.wait_for(old.close(), 15)
            except Exception:  # best effort: the old browser may be gone already
                pass
            if not self.remote:
                self.sessions[which] = await self._launch()
            else:
                endpoint = self.remote[which].endpoint
                if endpoint is None:
                    raise EngineError(f"{self._browser(which)}: a session made here cannot be connected to again")
                self.sessions[which] = await connect(self.engine, endpoint)
            self.pools[which].renew(self.sessions[which])

    # ------------------------------------------------------------------ one block

    async def differ(self, work: Work, page: Page, tap: Tap, first: Recording) -> tuple[DifferentialOutcome, bool]:
        """The differential review of ``work`` after its first run ``first`` (:mod:`.differential`),
        and whether the page can be reused."""
        started = time.monotonic()
        diff = _Differing()
        try:
            keep = await self._differ(work, page, tap, first, diff)
        except TimeoutError:
            diff.stopped, keep = "timed out", False
        return diff.freeze(round(time.monotonic() - started, 3)), keep

    async def _differ(self, work: Work, page: Page, tap: Tap, first: Recording, diff: _Differing) -> bool:
        seed, alt = first.canaries.seed, secrets.token_hex(8)

        async def again(canaries: Canaries) -> Recording | None:
            obs, keep = await asyncio.wait_for(self.review(work, page, tap, canaries, shots=False), self.time_limit + 30)
            diff.runs += 1
            if not keep or obs.timed_out or obs.error:
                diff.stopped = obs.error or ("timed out" if obs.timed_out else PAGE_LOST)
                return None
            if [a.split(" failed")[0] for a in obs.actions] != [a.split(" failed")[0] for a in first.actions]:
                diff.unsure = RunActions(tuple(first.actions[:10]), tuple(obs.actions[:10]))
            return obs

        b = await again(Canaries(alt, base=seed))
        a2 = await again(Canaries(seed)) if b else None
        if b is None or a2 is None:
            return False
        base = baseline(first.events(), a2.events())
        # A connection alone is the browser's business as much as the block's (keep-alive, its own
        # services: Chromium's autofill): one in one run only is no instability.
        diff.unstable += [Instability("sent in one of two runs with the same data", e.kind, e.host, e.text[:200])
                          for e in base.unstable if e.kind != "connect"][:5]
        if diff.unstable:
            diff.unstable_actions = RunActions(tuple(first.actions), tuple(a2.actions))
        dev = deviation(base, b.events())
        diff.deviation = sorted(":".join(k) for k in dev.keys)
        if not dev:
            return True
        b2 = await again(Canaries(alt, base=seed))
        if b2 is None:
            return False
        keys = confirmed(dev, deviation(base, b2.events()))
        diff.confirmed = sorted(":".join(k) for k in keys)
        if not keys or diff.unsure is not None:  # actions that went differently explain a change as well as data
            return True
        examples = {e.key: e for e in dev.new}
        examples.update({t.key: t.example for t in dev.missing if t.key not in examples})
        follows: dict[tuple[str, str], list[str]] = {k: [] for k in keys}
        todo, named_keys = [], []
        keys = {k for k in keys if k[0] in OUTSIDE or k[0] == "order"}  # what the host is handed is no leak
        # Inputs the fast path cannot name (a number of few digits): they may ride along with a named one.
        unnamed = [label for label in first.canaries.labels if not b.canaries.findable(label)]
        for key in keys:  # a leak the fast path names in B's run needs attribution runs for the unnamed only
            ex = examples.get(key)
            named = sorted(b.canaries.find(ex.host, ex.text)) if ex is not None else []
            if named:
                follows[key] = named
                named_keys.append(key)
            else:
                todo.append(key)
        inputs = list(first.canaries.labels) if todo else unnamed if named_keys else []
        groups = [[x] for x in inputs[:MAX_ATTRIBUTION]]
        if inputs[MAX_ATTRIBUTION:]:
            groups.append(inputs[MAX_ATTRIBUTION:])
        for group in groups:
            c = await again(Canaries(seed, vary=frozenset(group), alt_seed=alt))
            if c is None:
                break
            moved = confirmed(dev, deviation(base, c.events()))
            for key in set(todo) & moved:
                follows[key] += group
            for key in set(named_keys) & moved:
                follows[key] += [x for x in group if x in unnamed and x not in follows[key]]
        complete = not diff.stopped
        for key in sorted(keys):
            ex = examples.get(key)
            if not follows[key] and todo and complete:
                # Every input was varied alone and none moved it: a change between runs that follows
                # no input is the block's randomness or timing (a random host drawn twice), not data.
                diff.unstable.append(Instability("changed between runs, but with no input", key[0], key[1],
                                                 ex.text[:200] if ex else ""))
                continue
            diff.leaks.append(DifferentialLeak(key[0], key[1], tuple(follows[key] or ["(unattributed)"]),
                                               ex.text[:300] if ex else "(the order of requests)"))
        return True

    async def review(self, work: Work, page: Page, tap: Tap, canaries: Canaries | None = None,
                     shots: bool | None = None) -> tuple[Recording, bool]:
        """Review ``work`` on ``page``; returns what was seen and whether the page can be reused.
        ``shots``: take the screenshots (default: the lane's :attr:`screenshots`)."""
        canaries = canaries or Canaries()
        shots = self.screenshots if shots is None else shots
        obs = Recording(self.engine.name, canaries)
        page.watch(obs.watch)
        mark = tap.mark()
        started = time.monotonic()
        keep = True
        state = canaries.state(work.state, work.paths)
        try:
            srcdoc = build_srcdoc(work.source, block_id="reviewed", fields=work.fields, state=state, theme=work.light)
        except Exception as exc:  # the generator refused the block (a 4 MiB source, a bad theme)
            obs.error = f"the generator refused the block: {_first_line(exc)}"
            return obs, True
        url = tap.page_url(tap.host.add_page(host_page(), name=PAGE_NAMES[len(tap.name) % len(PAGE_NAMES)]))
        obs.page = url

        def moved() -> bool:
            return navigation_target(tap.since(mark)[0], obs.watch.navigations) is not None

        # Where the watchdog cannot ask the page while a call runs (WebDriver), the host page's
        # heartbeat tells it the page's thread still runs (through the slot's proxy: remote browsers too).
        beats = not page.supports(Capability.CONCURRENT_CALLS)
        try:
            drive = self.drive(work, page, obs, url, srcdoc, canaries, state, shots, tap.beat_url if beats else None,
                               tap, started + self.time_limit)
            await asyncio.wait_for(self.watched(page, obs, moved, drive, (lambda: tap.beat) if beats else None),
                                   self.time_limit)
            if not await self._alive(page, moved):  # e.g. a loop that started before the bridge connected
                obs.timed_out = True
                obs.steps["hung after"] = round(time.monotonic() - started, 3)
                keep = False
        except TimeoutError:
            obs.timed_out = True
            keep = False
        except Exception as exc:
            # A step that failed on a page that no longer answers is the block hanging it.
            keep = False
            if await self._alive(page, moved):
                obs.error = _first_line(exc)
            else:
                obs.timed_out = True
                obs.steps["hung after"] = round(time.monotonic() - started, 3)
        if not obs.timed_out and not page.supports(Capability.EVENT_WATCH):
            try:
                await asyncio.wait_for(watch_webdriver(page, obs.watch, url), 5)
            except Exception as exc:
                obs.steps["watch failed"] = _first_line(exc)[:200]
                keep = False
        if obs.watch.popups or obs.watch.downloads:
            keep = False
        for _ in range(4):  # a little longer for late requests (a loaded machine) before the page is given up
            if not keep or tap.quiet_for() >= QUIET:
                break
            await asyncio.sleep(QUIET)
        if keep and tap.quiet_for() < QUIET:
            # Still sending at the end (a flood's backlog): what is in flight would be logged after
            # the next block's mark. The page goes, and the slot's next block gets a fresh proxy.
            obs.steps["still sending"] = True
            keep = False
        if keep:
            # Unload the block now: its pending loads must not reach the next block's log. Destroying
            # its frame does that in one call; loading about:blank took 0.15-0.4 s (Firefox).
            try:
                await page.evaluate(UNMOUNT, timeout=5)
            except Exception as exc:
                obs.steps["unload failed"] = _first_line(exc)[:200]
                keep = False
        if keep and not await tap.fence(FENCE_IDLE, FENCE):
            # What the block sent as its frame went is still arriving: the proxy goes with the page,
            # and what it logs until it stops is this block's (its log is the live one).
            obs.steps["still sending after unmount"] = True
            keep = False
        obs.seen, obs.tunnels, obs.dropped = tap.since(mark)
        obs.seconds = time.monotonic() - started
        return obs, keep

    async def _alive(self, page: Page, moved: Callable[[], bool], timeout: float = 2) -> bool:
        """Whether the host page answers, and the block's frame too while the host shows one
        (Chromium runs a sandboxed frame in its own process: the host stays responsive while the
        block spins). The host module removes a frame that navigated away, and one that stopped
        answering its ping (docs/PROTOCOL.md): no frame is a hang unless the block navigated
        (a second load, a document request, a frame navigation: ``moved``), which the review
        reports as a navigation, not a timeout."""
        for _ in range(2):  # twice: the frame may go between the two questions
            try:
                state = await page.evaluate(FRAME_STATE, timeout=timeout)
            except Exception:  # any failure of the driver: the host page did not answer
                return False
            if not isinstance(state, dict):  # not the review's host page any more
                return False
            if not state.get("frame"):
                return state.get("loads", 0) > 1 or moved()
            try:
                return await page.evaluate("() => 1", frame=FRAME, timeout=timeout) == 1
            except ScriptTimeout:  # the frame is there and silent: asking again only waits as long once more
                return False
            except Exception:  # any other failure of the driver is a miss: the watchdog counts misses in a row
                continue
        return False

    async def watched(self, page: Page, obs: Recording, moved: Callable[[], bool], drive,
                      beat: Callable[[], float] | None = None) -> None:
        """Run ``drive`` while a watchdog asks the host page and the block's frame, once mounted,
        for a trivial answer every second: :data:`HANG_MISSES` misses in a row end the review as a
        hang long before the time limit, so a spinning block stops eating the CPU the other pages
        need. Where calls overlap (CONCURRENT_CALLS). WebDriver takes one call at a time: there the
        watchdog reads the host page's heartbeat instead (``beat``: when it last came), and a page
        silent for as long as the misses would take is a hang; without one (a remote browser) the
        calls' own timeouts and the time limit decide."""
        task = asyncio.ensure_future(drive)
        if not page.supports(Capability.CONCURRENT_CALLS) and beat is None:
            await task
            return

        async def watchdog() -> None:
            if beat is not None:
                await self._silent(obs, beat)
                return
            misses = 0
            while misses < HANG_MISSES:
                await asyncio.sleep(1)
                if "load" not in obs.steps:
                    continue
                # The block's frame too, from its mount on: a script that spins before the bridge
                # connects hangs only its own renderer in Chromium, while the host page answers.
                answered = await self._alive(page, moved, HANG_PROBE)
                misses = 0 if answered else misses + 1

        dog = asyncio.ensure_future(watchdog())
        try:
            done, _ = await asyncio.wait({task, dog}, return_when=asyncio.FIRST_COMPLETED)
            if task in done:
                task.result()
                return
            obs.steps["watchdog"] = (f"no heartbeat for {HANG_PROBE * HANG_MISSES:g} s" if beat is not None
                                     else f"no answer {HANG_MISSES} times in a row")
            raise TimeoutError
        finally:
            for t in (task, dog):
                t.cancel()

    @staticmethod
    async def _silent(obs: Recording, beat: Callable[[], float]) -> None:
        """Return once the host page's heartbeat has been silent for :data:`HANG_PROBE` x
        :data:`HANG_MISSES` seconds since the block was mounted (its ``load`` step)."""
        mounted: float | None = None
        while True:
            await asyncio.sleep(0.5)
            if "load" not in obs.steps:
                continue
            now = time.monotonic()
            mounted = mounted or now
            if now - max(beat(), mounted) >= HANG_PROBE * HANG_MISSES:
                return

    async def drive(self, work: Work, page: Page, obs: Recording, url: str, srcdoc: str, canaries: Canaries,
                    state: dict[str, Any], shots: bool = True, beat: str | None = None, tap: Tap | None = None,
                    end: float = math.inf) -> None:
        """The review's steps (the module's docstring has them in order). ``tap``: the slot's proxy, whose
        requests the review waits for until :data:`TAIL` s before ``end``, when the time limit
        ends the review (monotonic seconds)."""
        t0 = time.monotonic()

        def step(name: str) -> None:
            obs.steps[name] = round(time.monotonic() - t0, 3)

        try:
            loaded = await page.evaluate(LOADED, timeout=3) is True
        except Exception:
            loaded = False
        if not loaded:  # a new page: the host page first (no block in it yet, so its load event comes)
            await page.goto(url, timeout=min(self.time_limit, 10))
            await page.wait_for(LOADED, timeout=10)
        if self.engine.name in CLOCK_ENGINES and page.supports(Capability.CLOCK):
            # Each block starts at today's date: the last block's leaps moved the page's clock by months.
            await asyncio.wait_for(page.clock_set_system_time(time.time()), ACTION_TIMEOUT)
        await page.evaluate(MOUNT, {"srcdoc": srcdoc, "background": work.background[0], "beat": beat}, timeout=10)
        step("load")
        # One call the page answers when it is up, not a round trip per 50 ms poll.
        await page.evaluate(READY, timeout=self.time_limit)
        step("connected")
        obs.host = await page.evaluate(READ) or {}
        if obs.host.get("status") not in RUNNING:
            return
        if obs.host.get("status") != "connected":
            # No hello within 5 s: a long synchronous start, or a block that never says it. Its
            # document runs all the same (the host takes a late hello), and what it does later is
            # what the review is for: a block that spins 6.5 s at its start, then sends its state,
            # would hide from Chromium's review if it ended here (evade_slow_hello).
            step("not connected within 5 s; the review goes on")
        if shots:
            obs.screenshots["light"] = await self.screenshot(page)
            step("light screenshot")
        plan = await self.plan(page, obs, canaries)
        # Links last, after the dark screenshot: one navigates the frame away.
        await self.perform(page, [a for a in plan if not a.link], obs)
        await self.leave(page, obs)
        acted = time.monotonic()
        step("actions")
        obs.host = await page.evaluate(READ) or obs.host
        await page.evaluate(SET_STATE, canaries.again(state))
        step("update")
        await page.evaluate(SET_THEME, work.dark)
        try:  # the theme travels over the bridge: wait until the block's root has it (if it is still there)
            if not (await page.evaluate(FRAME_STATE)).get("frame"):
                raise LookupError("no frame")
            await page.wait_for(HAS_COLOR_SCHEME, work.dark["color-scheme"], frame=FRAME, timeout=3)
        except Exception:  # a block that ignores the scheme, or whose frame went: the dark screenshot shows what it is
            pass
        await page.evaluate(PAINTED)
        if shots:
            obs.screenshots["dark"] = await self.screenshot(page)
            step("dark screenshot")
        links = [a for a in plan if a.link]
        if links:
            await self.perform(page, links, obs)
            step("links")
        # The settle window runs from the last action on the block's own elements; the update, the
        # theme switch and the dark screenshot fall inside it, and QUIET seconds follow whatever came last.
        await asyncio.sleep(max(QUIET, self.settle - (time.monotonic() - acted)))
        obs.host = await page.evaluate(READ) or obs.host
        step("settled")
        # What a block does once its requests are answered comes in real time: a block that leaks
        # when the 900th image of a flood has loaded. Virtual time would freeze those answers (its
        # budget spent, the frame's loads stay paused), so the wait comes first, bounded by the limit.
        if tap is not None:
            waited = time.monotonic()
            stopped = await tap.fence(QUIET, end - TAIL - waited)
            if time.monotonic() - waited > QUIET:
                step("requests stopped" if stopped else "requests went on")
                obs.host = await page.evaluate(READ) or obs.host
        if page.supports(Capability.VIRTUAL_TIME) and obs.host.get("status") in RUNNING:
            await self._virtual_time(page, obs, end)
            step("virtual time")
        if self.engine.name in CLOCK_ENGINES and page.supports(Capability.CLOCK) and obs.host.get("status") in RUNNING:
            for leap in LEAPS:
                await page.clock_fast_forward(leap)
            await asyncio.sleep(QUIET)
            before = obs.host
            obs.host = await page.evaluate(READ) or obs.host
            obs.host["maxGap"] = before.get("maxGap", 0)  # the leaps are not a stall
            step("clock leaps")

    async def _virtual_time(self, page: Page, obs: Recording, end: float = math.inf) -> None:
        """Chromium: the block's frame (its own renderer target) runs on virtual time for
        :data:`VIRTUAL_BUDGET` ms, fast-forwarded whenever it is idle and none of its requests is
        pending (CDP ``Emulation.setVirtualTimePolicy`` on the frame's session: Playwright's clock, an
        init script, never reaches a sandboxed srcdoc frame). Its timers fire in order, intervals at
        every period, ``Date`` and ``performance.now()`` move with them; afterwards the frame's virtual
        time stays paused, its pending loads with it (the frame is destroyed next; the next block's
        frame runs on real time, measured): so a timer's request is answered before the budget runs
        out, or a block that leaks once a late image has loaded would hide. A block whose requests
        do not end within :data:`VIRTUAL_WAIT` (a flood in a timer, an image from a port of this
        machine that never answers, which no proxy sees) must not hold its later timers back: its
        frame then runs the budget again without waiting for them, if the time limit (``end``)
        leaves it the time, less :data:`LAST_READ`. What it set off is read :data:`QUIET` s later."""
        try:
            stopped = await page.virtual_time(FRAME, VIRTUAL_BUDGET, timeout=ACTION_TIMEOUT, wait=VIRTUAL_WAIT)
            left = min(VIRTUAL_WAIT, end - time.monotonic() - LAST_READ)
            if stopped:
                obs.steps["virtual time held"] = stopped[:120] + ("" if left > QUIET else "; no time left to run it again")
            if stopped and left > QUIET:
                stopped = await page.virtual_time(FRAME, VIRTUAL_BUDGET, timeout=ACTION_TIMEOUT, wait=left, requests=False)
        except Exception as exc:
            obs.steps["virtual time"] = f"no session: {_first_line(exc)[:120]}"
            return
        if stopped:  # a frame that never idles (an animation loop) leaves virtual time where it got
            obs.steps["virtual time stopped"] = stopped[:120]
        await asyncio.sleep(QUIET)
        before = obs.host
        obs.host = await page.evaluate(READ) or obs.host
        obs.host["maxGap"] = before.get("maxGap", 0)

    async def screenshot(self, page: Page) -> str:
        """The block's part of the page as a base64 PNG ("" where the driver takes none)."""
        if not page.supports(Capability.SCREENSHOT):
            return ""
        # The block's box (a driver that cannot clip shoots the window).
        clip = await page.evaluate(CLIP)
        png = await asyncio.wait_for(page.screenshot(clip, timeout=5), 10)
        return base64.b64encode(png).decode("ascii")

    # ------------------------------------------------------------------ acting like a user

    async def plan(self, page: Page, obs: Recording, canaries: Canaries) -> list[Action]:
        """What a user does: click every button, [onclick] and link, type into every input, change
        every select and checkbox."""
        if not (await page.evaluate(FRAME_STATE, timeout=5)).get("frame"):
            obs.actions.append("no actions: the host removed the block's frame (it navigated away or stopped answering)")
            return []
        items = await page.evaluate(LIST_ACTIONS, ACTIONABLE, frame=FRAME, timeout=5)
        items = [x for x in items if x["visible"] and x["type"] not in ("hidden", "file")][:MAX_ACTIONS]
        plan = []
        for x in items:
            what = f"<{x['tag']}{' type=' + x['type'] if x['type'] else ''}> #{x['i']}"
            if x["tag"] == "textarea" or (x["tag"] == "input" and x["type"] not in (
                    "checkbox", "radio", "button", "submit", "reset", "image", "range", "color", "date", "time",
                    "datetime-local", "month", "week")):
                text = canaries.typed(f"(typed into {what}{' ' + repr(x['name'][:40]) if x.get('name') else ''})",
                                      typed_kind(x), _bound(x.get("min")), _bound(x.get("max")), _bound(x.get("step")),
                                      x.get("maxlength") or None)
                plan.append(Action("type", x["i"], text, what, x["link"]))
            elif x["tag"] == "select":
                plan.append(Action("select", x["i"], "", what, x["link"]))
            else:
                plan.append(Action("click", x["i"], "", what, x["link"]))
        first = next((a for a in plan if a.kind == "click" and not a.link and a.what.startswith("<button")), None)
        if first is not None:  # the first button clicked until its sixth click (a toggle, a summary: once)
            plan += [first] * (REPEAT_CLICKS - 1)
        return plan

    async def leave(self, page: Page, obs: Recording) -> None:
        """See :meth:`_leave`."""
        try:  # the block's window has focus first (a block with nothing to click never got it)
            await page.evaluate("() => window.focus()", frame=FRAME, timeout=3)
        except Exception:  # a frame gone or busy: leaving is then nothing the block can see
            pass
        await self._leave(page, obs)

    async def _leave(self, page: Page, obs: Recording) -> None:
        """What a user does after acting: scroll the page to the block's end (a sentinel comes into
        view) and back, then click the host page beside the block (the block's window loses focus:
        ``blur``)."""
        try:
            if note := await self._scroll_end(page):
                obs.steps["scroll"] = note
            if page.supports(Capability.POINTER):
                await page.mouse_move(1000, 40, steps=4)
                await page.mouse_click(1000, 40)
            elif page.supports(Capability.WEBDRIVER_ACTIONS):
                def blur(driver: Any) -> None:
                    from selenium.webdriver.common.action_chains import ActionChains
                    from selenium.webdriver.common.by import By

                    body = driver.find_element(By.TAG_NAME, "body")
                    size = body.size  # offsets are from the element's centre: its top right corner, beside the block
                    ActionChains(driver).move_to_element_with_offset(body, size["width"] // 2 - 10, 5 - size["height"] // 2).click().perform()

                await page.driver_call(blur, timeout=ACTION_TIMEOUT)
            else:
                obs.actions.append("scroll")
                return await self._window(page, obs)
            obs.actions.append("scroll, blur")
        except Exception as exc:
            obs.actions.append(f"scroll, blur failed: {_first_line(exc)[:120]}")
        await self._window(page, obs)

    @staticmethod
    async def _scroll_end(page: Page) -> str:
        """Scroll the host page to the block's end, once the block's frame is as tall as its
        document, and back once the frame has seen its end in view and a reader's :data:`DWELL`
        has passed (:data:`GLANCE` where the page does not scroll). On a loaded machine the frame's
        height came after the scroll (the end stayed inside the frame, below its edge), and a
        fixed second was not enough for the frame to see the scroll: `evade_scrolled_into_view`
        missed its sentinel in Chromium, alone, in a full CI run, and up to 3 of 12 reviews beside four
        busy processes. Returns what did not come in time ("" when everything did)."""
        notes = []
        try:
            if not await page.evaluate(SIZED, int(SIZED_WAIT * 1000), frame=FRAME, timeout=SIZED_WAIT + 2):
                notes.append(f"the frame was shorter than its document after {SIZED_WAIT:g} s")
        except Exception as exc:  # a frame that went or hangs: scroll all the same
            notes.append(f"the frame did not say its size: {_first_line(exc)[:80]}")
        started = time.monotonic()
        scrolls = await page.evaluate(SCROLL_END, timeout=3)
        if scrolls:
            try:
                if not await page.evaluate(END_SEEN, int(SEEN_WAIT * 1000), frame=FRAME, timeout=SEEN_WAIT + 2):
                    notes.append(f"the frame did not see its end within {SEEN_WAIT:g} s")
            except Exception as exc:  # a frame that went or hangs: the dwell is what is left
                notes.append(f"the frame did not say what it saw: {_first_line(exc)[:80]}")
        await asyncio.sleep(max(0.0, (DWELL if scrolls else GLANCE) - (time.monotonic() - started)))
        await page.evaluate(SCROLL_BACK, timeout=3)
        return "; ".join(notes)

    async def _window(self, page: Page, obs: Recording) -> None:
        """What a user does to the window: narrows it and widens it back (the block's width follows
        the page's, so its window gets ``resize``), and in WebKitGTK minimises and restores it (the
        block's document is hidden, then visible: ``visibilitychange``). Headless Chromium and
        Firefox keep every page visible (measured: a second tab brought to the front, Chromium's
        window minimised over CDP, its lifecycle frozen: no ``visibilitychange`` in any frame)."""
        if not page.supports(Capability.RESIZE):
            return
        # The page's own size: the viewport where the context emulates one, else the window's.
        width, height = self.persona.page_options(self.engine.name, page.capabilities).get("window", self.persona.viewport)
        hides = page.supports(Capability.WINDOW_STATE)
        try:
            await page.resize(NARROW, height, timeout=ACTION_TIMEOUT)
            await self._resized(page, hides)
            await page.resize(width, height, timeout=ACTION_TIMEOUT)
            if hides:
                await page.minimise(timeout=ACTION_TIMEOUT)
                await asyncio.sleep(0.1)
                await page.restore(width, height, timeout=ACTION_TIMEOUT)
                obs.actions.append("resize, hidden and shown")
            else:
                await self._resized(page, hides)
                obs.actions.append("resize")
        except Exception as exc:
            obs.actions.append(f"resize failed: {_first_line(exc)[:120]}")

    @staticmethod
    async def _resized(page: Page, hides: bool) -> None:
        """Wait for a resize to reach the page: two animation frames, or a tenth of a second for a
        window the harness minimises next (no evaluate between its window calls)."""
        if hides:
            await asyncio.sleep(0.1)
        else:
            await page.evaluate(RESIZED, timeout=ACTION_TIMEOUT)

    async def perform(self, page: Page, plan: list[Action], obs: Recording) -> None:
        if not plan:
            return
        if page.supports(Capability.POINTER) and page.supports(Capability.FRAMES) and page.supports(Capability.TYPING):
            await self._act_at_points(page, plan, obs)
        elif page.supports(Capability.WEBDRIVER_ACTIONS):
            await self._act_webdriver(page, plan, obs)
        else:
            obs.actions.append("no actions: the driver has no user input")

    async def _act_at_points(self, page: Page, plan: list[Action], obs: Recording) -> None:
        """Real input at the element's point: a mouse click (and keys typed after it), as a user
        would. Not ``Locator.click``: resolving a locator inside a frame costs 1 to 3 s per action
        in Firefox over BiDi, against tens of ms for this (docs/REVIEW-BROWSER.md, Speed)."""
        try:
            frame = await page.content_frame(FRAME, ACTION_TIMEOUT)
        except Exception:
            obs.actions.append("no actions: the block's frame is gone")
            return

        async def call(script: str, arg: Any) -> Any:
            return await asyncio.wait_for(frame.evaluate(script, arg), ACTION_TIMEOUT)

        async def click(i: int, clear: bool = False) -> None:
            at = await call(LOCATE, [ACTIONABLE, i, clear])
            if at is None:
                raise LookupError("the element is gone or has no box")
            point = await asyncio.wait_for(page.evaluate(TO_VIEWPORT, at, timeout=ACTION_TIMEOUT), ACTION_TIMEOUT)
            if point is None:
                raise LookupError("the block's frame is gone")
            # A pointer path from the host page into the frame, then to the element: a block that
            # acts only after a human pointer path sees one, and the host page sees the pointer enter
            # the block's frame, as with a real mouse (the host module reads whose click it was from it).
            x, y, ex, ey = point
            await asyncio.wait_for(page.mouse_move(ex, ey), ACTION_TIMEOUT)
            width, height = self.persona.viewport
            for px, py in pointer_path(ex, ey, x, y, i):  # within the viewport: a move outside it is refused
                await asyncio.wait_for(page.mouse_move(min(max(1, px), width - 2), min(max(1, py), height - 2)), ACTION_TIMEOUT)
            await asyncio.wait_for(page.mouse_click(x, y), ACTION_TIMEOUT)

        for kind, i, text, what, _ in plan:
            try:
                if kind == "type":
                    await click(i, clear=True)
                    await call(FOCUS, [ACTIONABLE, i])
                    # Key by key (keydown, keypress, input, keyup), as a user types: a keylogger on
                    # keydown sees the canary as well as one on input; the gaps vary (KEY_GAPS).
                    await asyncio.wait_for(type_keys(page, text + "\n"), ACTION_TIMEOUT * 3)
                elif kind == "select":
                    await call(SELECT_LAST, [ACTIONABLE, i])
                else:
                    await click(i)
                obs.actions.append(f"{kind} {what}")
            except Exception as exc:
                obs.actions.append(f"{kind} {what} failed: {_first_line(exc)[:120]}")
                message = str(exc).lower()
                if frame.is_detached() or any(w in message for w in ("detached", "navigat", "context was destroyed")):
                    break  # the frame navigated away: the rest of its elements are gone

    async def _act_webdriver(self, page: Page, plan: list[Action], obs: Recording) -> None:
        """The same actions as W3C WebDriver action chains on the element (WebDriver has no input at a point)."""

        def run(driver: Any) -> None:
            from selenium.webdriver.common.action_chains import ActionChains
            from selenium.webdriver.common.by import By
            from selenium.webdriver.common.keys import Keys
            from selenium.webdriver.support.ui import Select

            def approach(el: Any, i: int) -> None:
                # A pointer path to the element (offsets from its centre, within its box's reach), as
                # with Playwright; a driver that refuses one move falls back to a plain click.
                try:
                    w, h = el.size["width"], el.size["height"]
                    chain = ActionChains(driver, duration=10)
                    for px, py in pointer_path(-min(40, w / 2 + 20), -min(20, h / 2 + 8), 0, 0, i):
                        chain.move_to_element_with_offset(el, int(px), int(py))
                    chain.perform()
                except Exception:  # a move the driver refuses: the click below comes without a path
                    pass

            def one(kind: str, i: int, text: str) -> None:
                el = driver.find_elements(By.CSS_SELECTOR, ACTIONABLE)[i]
                if kind == "type":
                    approach(el, i)
                    el.click()
                    el.clear()
                    # WebDriver's Element Clear blurs the element; the keys that follow go to the focused one.
                    driver.execute_script("arguments[0].focus()", el)
                    # Key by key with the gaps of KEY_GAPS, in one W3C actions call.
                    chain = ActionChains(driver)
                    for n, ch in enumerate(text + Keys.ENTER):
                        chain.send_keys(ch).pause(KEY_GAPS[n % len(KEY_GAPS)] / 1000)
                    chain.perform()
                elif kind == "select":
                    options = Select(el).options
                    if options:
                        Select(el).select_by_index(len(options) - 1)
                else:
                    approach(el, i)
                    el.click()

            webdriver_enter_frame(driver, FRAME)
            try:
                for kind, i, text, what, _ in plan:
                    try:
                        one(kind, i, text)
                        obs.actions.append(f"{kind} {what}")
                    except Exception as exc:
                        # Once more: WebKitGTK's driver loses an action now and then on a loaded
                        # machine (CI once missed a typed-text leak in WebKit only).
                        obs.actions.append(f"{kind} {what} failed once: {_first_line(exc)[:120]}")
                        time.sleep(0.3)
                        try:
                            one(kind, i, text)
                            obs.actions.append(f"{kind} {what}")
                        except Exception as again:
                            obs.actions.append(f"{kind} {what} failed: {_first_line(again)[:120]}")
            finally:
                driver.switch_to.default_content()

        await page.driver_call(run, timeout=ACTION_TIMEOUT * max(1, len(plan)) + 5)


def pointer_path(x0: float, y0: float, x1: float, y1: float, salt: int = 0) -> list[tuple[float, float]]:
    """:data:`PATH_STEPS` points from (x0, y0) to just before (x1, y1) along a curve (a quadratic
    Bézier bent to one side, the side by ``salt``), spaced slow-fast-slow as a hand moves: the
    direction turns and the speed varies between moves. The same for the same arguments."""
    dx, dy = x1 - x0, y1 - y0
    bend = 0.3 if salt % 2 else -0.3
    cx, cy = x0 + dx / 2 - dy * bend, y0 + dy / 2 + dx * bend
    points = []
    for k in range(1, PATH_STEPS + 1):
        t = (1 - math.cos(math.pi * k / (PATH_STEPS + 1))) / 2
        points.append(((1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t * t * x1, (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t * t * y1))
    return points


async def type_keys(page: Page, text: str) -> None:
    """Type ``text`` key by key into the page's focused element (TYPING), waiting :data:`KEY_GAPS` after each."""
    for n, ch in enumerate(text):
        if ch == "\n":
            await page.press("Enter", timeout=ACTION_TIMEOUT)
        else:
            await page.type_text(ch)
        await asyncio.sleep(KEY_GAPS[n % len(KEY_GAPS)] / 1000)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


__all__ = ["Lane", "Work", "Recording", "SETTLE", "SLOTS", "navigation_target"]
