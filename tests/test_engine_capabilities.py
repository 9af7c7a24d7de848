"""Drivers declare capabilities, and the harness asks for them (sandbox/engines/): a method of a
capability the driver lacks raises Unsupported, and the review's steps that need one skip it
cleanly. Through the fake driver (sandbox/engines/fake.py), no browser."""

from __future__ import annotations

import asyncio
import ssl
import time

import pytest

from flowui_sandbox.sandbox.engines import Capability, Engine, EngineError, ScriptTimeout, Unsupported
from flowui_sandbox.sandbox.engines.fake import FAKE_ENGINE, FakeSession
from flowui_sandbox.sandbox.engines.playwright import PlaywrightSession
from flowui_sandbox.sandbox.engines.remote import RemotePlaywrightSession, RemoteWebDriverSession
from flowui_sandbox.sandbox.engines.webdriver import WebDriverSession
from flowui_sandbox.sandbox.review.browser.canaries import Canaries
from flowui_sandbox.sandbox.review.browser.hostpage import FRAME_STATE, LOADED, READ
from flowui_sandbox.sandbox.review.browser.persona import BARS, Persona
from flowui_sandbox.sandbox.review.browser.proxy import Tap
from flowui_sandbox.sandbox.review.browser.run import NARROW, TAIL, Lane, Recording

CHROMIUM = Engine("chromium", "playwright", None, "playwright")
FIREFOX = Engine("firefox", "playwright", "/usr/bin/firefox-esr", "debian")
WEBKIT = Engine("webkit", "webdriver", "/usr/lib/x/webkit2gtk-4.1/MiniBrowser", "debian")


def run(coroutine):
    return asyncio.run(coroutine)


async def _page(*capabilities: Capability):
    return await FakeSession(capabilities=capabilities).new_page()


# ------------------------------------------------------------------------ the declarations


def test_a_fake_page_without_clock_raises_unsupported_from_the_clock_methods():
    async def go():
        page = await _page()
        assert not page.supports(Capability.CLOCK)
        for call in (page.clock_install(), page.clock_fast_forward(1000), page.clock_set_system_time(0.0)):
            with pytest.raises(Unsupported, match="has no clock"):
                await call
        assert page.actions() == []  # refused before reaching the browser

    run(go())


def test_a_declared_capability_reaches_the_driver():
    async def go():
        page = await _page(Capability.CLOCK)
        await page.clock_install()
        await page.clock_fast_forward(6000)
        return page

    page = run(go())
    assert page.actions() == ["clock_install", "clock_fast_forward"]
    assert page.calls[1].args == (6000,)


def test_the_drivers_errors_are_kinds_of_engine_error():
    # Callers that catch EngineError keep catching a missing capability and a timeout.
    assert issubclass(Unsupported, EngineError) and issubclass(ScriptTimeout, EngineError)

    async def go():
        page = await _page()  # every evaluate answers None: never truthy
        with pytest.raises(ScriptTimeout, match="timed out after 0.1s"):
            await page.wait_for("() => window.ready", timeout=0.1, interval=0.01)

    run(go())


def test_each_driver_declares_its_capabilities_per_engine():
    assert CHROMIUM.supports(Capability.VIRTUAL_TIME) and not FIREFOX.supports(Capability.VIRTUAL_TIME)  # CDP is Chromium's
    assert FIREFOX.supports(Capability.CLOCK) and FIREFOX.supports(Capability.EVENT_WATCH)
    assert not WEBKIT.supports(Capability.EVENT_WATCH) and not WEBKIT.supports(Capability.CONCURRENT_CALLS)
    assert WEBKIT.supports(Capability.WINDOW_STATE) and not CHROMIUM.supports(Capability.WINDOW_STATE)
    assert WEBKIT.capabilities == WebDriverSession.capabilities
    # A remote session is its driver's session: the same capabilities.
    assert RemotePlaywrightSession.capabilities_for(CHROMIUM) == PlaywrightSession.capabilities_for(CHROMIUM)
    assert RemoteWebDriverSession.capabilities_for(WEBKIT) == WebDriverSession.capabilities
    assert Engine("chromium", "no-such-driver", None, "x").capabilities == frozenset()
    assert FAKE_ENGINE.capabilities == frozenset()  # the fake's default; a test gives its session more


def test_the_persona_emulates_in_the_context_only_where_the_driver_can():
    persona = Persona("Europe/Berlin", (1920, 1080), (1912, 950))
    emulated = persona.page_options("chromium", CHROMIUM.capabilities, "130.0.1")
    assert emulated["timezone_id"] == "Europe/Berlin" and emulated["viewport"] == {"width": 1912, "height": 950}
    assert "Chrome/130.0.0.0" in emulated["user_agent"]
    windowed = persona.page_options("webkit", WEBKIT.capabilities)
    # WebKitGTK's time zone and language come from its environment (under a C locale: navigator.languages ['C']).
    assert windowed == {"env": {"TZ": "Europe/Berlin", "LANG": "en_US.UTF-8", "LANGUAGE": "en_US:en"}, "window": (1280, 1024 - (1080 - 950))}
    # Firefox's pointer is a mouse (fine, hovering) by its launch preferences; the others need none.
    assert persona.launch_prefs("firefox") == {"ui.primaryPointerCapabilities": 6, "ui.allPointerCapabilities": 6}
    assert persona.launch_prefs("chromium") == persona.launch_prefs("webkit") == {}
    # Chromium's screen keeps a strip for a desktop's bar: a headless screen's availHeight equals its
    # height (evade_no_taskbar stayed quiet in every engine before).
    assert persona.launch_args("chromium")[0] == "--screen-info={1920x1080 workAreaBottom=48}"
    assert {Persona.draw().bar for _ in range(200)} == set(BARS)


# ------------------------------------------------------------- the review's call sites


class _Requests:
    """A slot's proxy whose block keeps sending until ``until`` (monotonic seconds): the real
    :meth:`Tap.fence` over a scripted :meth:`Tap.settled`."""

    fence = Tap.fence

    def __init__(self, until: float):
        self.until = until

    def settled(self, idle: float) -> bool:
        return time.monotonic() >= self.until


def _reviewed_page(stopped: str = "", status: str = "connected"):
    """A page whose host answers (the block's ``status``), whose block has no frame to act in, and
    whose virtual time stops with ``stopped`` the first time (""): the budget spent). Records when
    virtual time started."""
    started: list[float] = []

    def answer(call):
        if call.action == "virtual_time":
            started.append(time.monotonic())
            return stopped if len(started) == 1 else ""
        if call.action == "evaluate":
            script = call.args[0]
            return {LOADED: True, READ: {"status": status}, FRAME_STATE: {"frame": False}}.get(script)
        return None

    return FakeSession(answer, capabilities=[Capability.VIRTUAL_TIME]), started


@pytest.mark.parametrize("sending", [1.0, 60.0], ids=["stop", "never stop"])
def test_the_review_waits_for_the_blocks_requests_before_its_clock_runs_ahead(sending):
    """A block that leaks once the 900th image of a flood has loaded: its review waits until its
    requests stop, up to the review's deadline, and only then runs the frame's virtual time (whose
    spent budget would freeze the loads still pending)."""
    async def go():
        session, started = _reviewed_page()
        page = await session.new_page()
        obs = _recording()
        t0 = time.monotonic()
        tap = _Requests(t0 + sending)
        lane = _lane()
        lane.settle = 0.3
        await lane.drive(_works(1)[0], page, obs, "http://127.0.0.1/", "", Canaries(), {}, shots=False,
                         tap=tap, end=t0 + 1.6 + TAIL)
        return obs, started[0] - t0

    obs, virtual_at = run(go())
    # The glance at the block's end (0.25 s) and the settle window (0.3 s here) end first; the
    # wait runs from there.
    if sending < 1.6:
        assert "requests stopped" in obs.steps and sending <= virtual_at < 1.6, (obs.steps, virtual_at)
    else:  # the deadline came first: virtual time runs all the same, and the steps say the block went on
        assert "requests went on" in obs.steps and virtual_at >= 1.6, (obs.steps, virtual_at)
    assert "virtual time" in obs.steps


@pytest.mark.parametrize(("status", "driven"), [("loading", True), ("navigated", False), ("unmounted", False)])
def test_a_block_not_connected_within_5_s_is_reviewed_all_the_same(status, driven):
    """A block with no hello within 5 s whose document still runs ("loading": the host takes a late
    hello) gets the whole review, virtual time included: a block that spun 6.5 s at its start and
    then sent its state hid from Chromium's review when it stopped there. Another document in the
    frame, or no block, ends the review at once."""
    async def go():
        session, started = _reviewed_page(status=status)
        page = await session.new_page()
        obs = _recording()
        lane = _lane()
        lane.settle = 0.1
        await lane.drive(_works(1)[0], page, obs, "http://127.0.0.1/", "", Canaries(), {}, shots=False)
        return obs, started

    obs, started = run(go())
    assert ("virtual time" in obs.steps and len(started) == 1) is driven, obs.steps
    assert ("not connected within 5 s; the review goes on" in obs.steps) is (status == "loading"), obs.steps


@pytest.mark.parametrize(("stopped", "left", "requests"), [("", 60, [True]), ("TimeoutError: ", 60, [True, False]),
                                                         ("TimeoutError: ", 1.1, [True])],
                         ids=["spent", "held", "held at the limit"])
def test_virtual_time_waits_for_requests_and_runs_ahead_without_them_when_they_hold_it(stopped, left, requests):
    """The frame's virtual time waits for its pending requests; when it could not spend its budget
    in time (a flood in a timer keeps requests pending, or an image from a port that never
    answers, which no proxy sees), it runs again without waiting, so they do not hold the block's
    later timers back; unless that would take the review past its time limit (``left`` seconds)."""
    async def go():
        session, _ = _reviewed_page(stopped=stopped)
        page = await session.new_page()
        obs = _recording()
        await _lane()._virtual_time(page, obs, time.monotonic() + left)
        return page, obs

    page, obs = run(go())
    calls = [c for c in page.calls if c.action == "virtual_time"]
    assert [c.args[1] for c in calls] == requests
    assert ("virtual time held" in obs.steps) is bool(stopped)
    assert ("no time left" in obs.steps.get("virtual time held", "")) is (left < 2)


def _lane() -> Lane:
    lane = Lane(FAKE_ENGINE, ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER), time_limit=5)
    lane.persona = Persona("Europe/Berlin", (1920, 1080), (1912, 950))
    return lane


def _recording() -> Recording:
    from flowui_sandbox.sandbox.review.browser.canaries import Canaries

    return Recording(FAKE_ENGINE.name, Canaries())


@pytest.mark.parametrize(("capabilities", "calls", "note"), [
    ((), [], []),
    # Playwright's: the context's viewport, narrowed and widened back.
    ((Capability.RESIZE, Capability.CONTEXT_EMULATION), [("resize", (NARROW, 950)), ("evaluate", None), ("resize", (1912, 950)), ("evaluate", None)],
     ["resize"]),
    # WebDriver's: the window on Xvfb's screen, narrowed, widened, minimised and restored.
    ((Capability.RESIZE, Capability.WINDOW_STATE), [("resize", (NARROW, 894)), ("resize", (1280, 894)), ("minimise", ()), ("restore", (1280, 894))],
     ["resize, hidden and shown"]),
], ids=["no resize", "viewport", "window"])
def test_the_review_resizes_and_hides_the_window_only_as_the_driver_can(capabilities, calls, note):
    async def go():
        page = await _page(*capabilities)
        obs = _recording()
        await _lane()._window(page, obs)
        return page, obs

    page, obs = run(go())
    assert [(c.action, c.args if c.action != "evaluate" else None) for c in page.calls] == calls
    assert obs.actions == note  # a driver without RESIZE: the step is skipped, nothing failed


def test_the_review_moves_the_clock_only_where_the_driver_has_one():
    # Lane._host's end of a review in Firefox: the leaps go to the page's clock where it has CLOCK.
    async def go(*capabilities: Capability):
        page = await _page(*capabilities)
        lane = _lane()
        lane.engine = FIREFOX
        await lane._prepare_page(page)
        return page

    assert run(go()).actions() == []
    assert run(go(Capability.CLOCK, Capability.INIT_SCRIPT)).actions() == ["add_init_script", "clock_install"]


def test_the_review_without_input_records_that_it_could_not_act():
    from flowui_sandbox.sandbox.review.browser.run import Action

    async def go():
        page = await _page()
        obs = _recording()
        await _lane().perform(page, [Action("click", 0, "", "<button> #0", False)], obs)
        shot = await _lane().screenshot(page)
        return page, obs, shot

    page, obs, shot = run(go())
    assert obs.actions == ["no actions: the driver has no user input"]
    assert shot == "" and page.actions() == []


@pytest.mark.parametrize(("failure", "frame_calls"), [(ScriptTimeout("the frame did not answer"), 1), (EngineError("frame detached"), 2)])
def test_a_silent_frame_is_a_hang_at_once_and_a_frame_that_went_is_asked_about_again(failure, frame_calls):
    """The watchdog's question: a block's frame that is there and does not answer within the probe's
    time is hung (asking again only waited as long once more, a core spinning meanwhile); a frame
    the driver lost may have gone between the two questions, so the host page is asked again."""
    from flowui_sandbox.sandbox.review.browser.hostpage import FRAME_STATE

    def answer(call):
        if call.action == "evaluate" and call.args[0] == FRAME_STATE:
            return {"frame": True, "loads": 1}
        if call.action == "evaluate" and call.frame is not None:
            raise failure
        return None

    async def go():
        page = await FakeSession(answer).new_page()
        return page, await _lane()._alive(page, lambda: False, timeout=0.1)

    page, alive = run(go())
    assert alive is False
    assert sum(1 for c in page.calls if c.frame is not None) == frame_calls


@pytest.mark.parametrize(("beating", "hangs"), [(False, True), (True, False)])
def test_where_calls_do_not_overlap_the_watchdog_hears_the_host_pages_heartbeat(monkeypatch, beating, hangs):
    """WebDriver takes one call at a time, so the watchdog cannot ask the page while a call hangs:
    it reads the host page's heartbeat instead. A call that does not come back while the heartbeat
    stops ends the review as a hang long before the time limit; a call that takes as long while
    the page's thread runs (the heartbeat goes on) is let finish."""
    from flowui_sandbox.sandbox.review.browser import run as review_run

    monkeypatch.setattr(review_run, "HANG_PROBE", 0.2)  # silent for 0.4 s is a hang
    started = 0.0

    async def go():
        nonlocal started
        page = await _page()  # no CONCURRENT_CALLS: a WebDriver page
        obs = _recording()
        started = asyncio.get_running_loop().time()

        async def drive():
            obs.steps["load"] = 0.0
            await asyncio.sleep(1.5)  # a WebDriver call that takes its time

        beat = (lambda: asyncio.get_running_loop().time()) if beating else (lambda: started)
        try:
            await _lane().watched(page, obs, lambda: False, drive(), beat)
        except TimeoutError:
            return obs, True, asyncio.get_running_loop().time() - started
        return obs, False, asyncio.get_running_loop().time() - started

    obs, hung, took = run(go())
    assert hung is hangs
    if hangs:
        assert obs.steps["watchdog"] == "no heartbeat for 0.4 s" and took < 1.5
    else:
        assert "watchdog" not in obs.steps and took >= 1.5


def test_without_a_heartbeat_a_page_whose_calls_do_not_overlap_has_no_watchdog():
    async def go():
        page = await _page()
        obs = _recording()

        async def drive():
            await asyncio.sleep(0.3)
            obs.steps["done"] = 1

        await _lane().watched(page, obs, lambda: False, drive())
        return page, obs

    page, obs = run(go())
    assert obs.steps == {"done": 1} and page.calls == []  # the page was never asked


# ------------------------------------------------------------- lanes lend their pages


class _Nothing:
    """A page or a proxy that does nothing."""

    def watch(self, watch=None) -> None: ...

    async def stop(self) -> None: ...

    async def close(self) -> None: ...

    async def abandon(self) -> None: ...

    async def recycle(self) -> bool:
        return True


def _scripted_lane(monkeypatch, name: str, review) -> Lane:
    """A lane whose browser, proxies and pages are nothing, and whose review of a block is ``review``."""
    lane = Lane(Engine(name, "fake", None, "test"), ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER), time_limit=5, slots=2,
                differential=False)

    async def nothing(*args, **kwargs) -> _Nothing:
        return _Nothing()

    async def open_page(session) -> tuple[_Nothing, _Nothing]:
        return _Nothing(), _Nothing()  # a page and its proxy

    monkeypatch.setattr(lane, "_launch", nothing)
    monkeypatch.setattr(lane, "_open", open_page)
    monkeypatch.setattr(lane, "review", review)
    return lane


def _works(count: int) -> list:
    from flowui_sandbox.sandbox.review.browser.run import Work

    return [Work(i, f"b{i}", "", [], [], {}, None, {}, {}, ("", "")) for i in range(count)]


def test_a_lane_that_is_done_lends_its_pages_to_the_lanes_still_reviewing(monkeypatch):
    """Two engines, two pages each: the quick one's pages go to the slow one once it is done, so
    the slow lane reviews on four pages at once (before: two, and the cores half idle)."""
    from flowui_sandbox.sandbox.review.browser import run_lanes

    busy = {"quick": 0, "slow": 0}
    most = {"quick": 0, "slow": 0}

    def timed(name: str, seconds: float):
        async def review(work, page, tap):
            busy[name] += 1
            most[name] = max(most[name], busy[name])
            await asyncio.sleep(seconds)
            busy[name] -= 1
            return Recording(name, Canaries()), True

        return review

    quick, slow = _scripted_lane(monkeypatch, "quick", timed("quick", 0.001)), _scripted_lane(monkeypatch, "slow", timed("slow", 0.05))
    seen = asyncio.run(run_lanes([quick, slow], _works(12)))
    assert [sorted(r) for r in seen] == [list(range(12))] * 2  # every block reviewed once in each lane
    assert most == {"quick": 2, "slow": 4}


def test_a_block_whose_differential_review_stopped_on_a_hung_run_is_reviewed_again_alone(monkeypatch):
    """A differential run that hung (starved by a block spinning on another page) leaves the block's
    verdict without the leaks the runs after it would have found: the block is reviewed once more,
    alone, as a block that hung is. A page given up by design (a popup: "page lost") is not."""
    from flowui_sandbox.sandbox.review.browser import run_lanes
    from flowui_sandbox.sandbox.review.browser.observation import DifferentialOutcome

    class Unexplained(Recording):
        def unexplained(self) -> list:
            return [object()]  # something went out that no canary explains: the differential review runs

    reviewed: list[int] = []
    differed: list[int] = []

    async def review(work, page, tap):
        reviewed.append(work.index)
        return Unexplained("x", Canaries()), True

    async def differ(work, page, tap, first):
        differed.append(work.index)
        stopped = {1: "timed out", 2: "page lost"}.get(work.index, "") if differed.count(work.index) == 1 else ""
        return DifferentialOutcome(3, (), (), None, None, None, stopped, 0.1), not stopped

    lane = _scripted_lane(monkeypatch, "x", review)
    lane.differential = True
    monkeypatch.setattr(lane, "differ", differ)
    seen = asyncio.run(asyncio.wait_for(run_lanes([lane], _works(4)), 10))[0]
    assert sorted(seen) == [0, 1, 2, 3]
    assert sorted(reviewed) == [0, 1, 1, 2, 3]
    assert seen[1].differential is not None and seen[1].differential.stopped == ""  # the retry's verdict stands
    assert seen[2].differential is not None and seen[2].differential.stopped == "page lost"


def test_starved_blocks_are_reviewed_again_side_by_side_and_the_hangs_alone_after_them(monkeypatch):
    """Blocks 0 and 4 hang (the watchdog ends them; 0 floods too); 1, 2 and 3 ran out of time beside
    them. The three are reviewed again side by side on the lane's pages, without the hangs; then
    block 4, block 3 (short again there) and, last, the flood, alone, one after the other (a browser
    slow to let a flood's page go delays no block after it). Each block's last verdict stands."""
    from flowui_sandbox.sandbox.review.browser import run_lanes

    busy = 0
    starts: list[tuple[int, int, int]] = []  # (block, its review's number, reviews running as it started)

    async def review(work, page, tap):
        nonlocal busy
        busy += 1
        nth = 1 + sum(1 for b, _, _ in starts if b == work.index)
        starts.append((work.index, nth, busy))
        await asyncio.sleep(0.02)
        busy -= 1
        obs = Recording("x", Canaries())
        if work.index in (0, 4):
            obs.timed_out, obs.steps["watchdog"] = True, "no answer 2 times in a row"
            obs.dropped = 5000 if work.index == 0 else 0
        elif work.index in (1, 2, 3) and nth == 1 or work.index == 3 and nth == 2:
            obs.timed_out = True
        obs.steps["review"] = nth
        return obs, not obs.timed_out

    lane = _scripted_lane(monkeypatch, "x", review)
    seen = asyncio.run(asyncio.wait_for(run_lanes([lane], _works(6)), 10))[0]
    later = starts[6:]  # after the first pass over the six blocks
    assert [b for b, _, _ in later[:3]] == [1, 2, 3] and max(n for _, _, n in later[:3]) == 2  # side by side
    assert later[3:] == [(4, 2, 1), (3, 3, 1), (0, 2, 1)]  # then alone, the flood last
    assert {i: (o.timed_out, o.steps["review"]) for i, o in seen.items()} == {
        0: (True, 2), 1: (False, 2), 2: (False, 2), 3: (False, 3), 4: (True, 2), 5: (False, 1)}


def test_a_fault_of_the_harness_on_one_block_is_that_blocks_error_and_the_rest_go_on(monkeypatch):
    from flowui_sandbox.sandbox.review.browser import run_lanes

    async def review(work, page, tap):
        if work.file == "b3":
            raise IndexError("list index out of range")
        return Recording("x", Canaries()), True

    seen = asyncio.run(asyncio.wait_for(run_lanes([_scripted_lane(monkeypatch, "x", review)], _works(8)), 10))[0]
    assert sorted(seen) == list(range(8))
    assert {i for i, o in seen.items() if o.error} == {3}
    assert seen[3].error == "the review failed: IndexError: list index out of range"


class _Tracked(_Nothing):
    """A page or a proxy that remembers being closed or stopped."""

    def __init__(self) -> None:
        self.ended = False

    async def stop(self) -> None:
        self.ended = True

    async def close(self) -> None:
        self.ended = True

    async def abandon(self) -> None:
        self.ended = True


def test_a_hung_block_costs_its_slot_the_page_and_its_proxy_and_the_retry_pass_opens_a_new_one(monkeypatch):
    """The lane's pages come from the browser's page pool (verify's too), each behind its own proxy:
    a block that hung takes both with it (dropped: abandoned, then the proxy stopped), the slot
    opens a new pair for its next block, and the retry pass reviews the hung block on a new pair
    too (the slots closed theirs when the queue was empty)."""
    from flowui_sandbox.sandbox.review.browser import run_lanes

    opened: list[tuple[_Tracked, _Tracked]] = []
    seen_on: dict[int, list] = {}

    async def open_page(session) -> tuple[_Tracked, _Tracked]:
        opened.append((_Tracked(), _Tracked()))
        return opened[-1]

    async def review(work, page, tap):
        seen_on.setdefault(work.index, []).append((page, tap))
        hung = work.index == 1 and len(seen_on[1]) == 1
        await asyncio.sleep(0.01)
        return Recording("x", Canaries(), timed_out=hung), not hung

    lane = _scripted_lane(monkeypatch, "x", review)
    monkeypatch.setattr(lane, "_open", open_page)
    seen = asyncio.run(asyncio.wait_for(run_lanes([lane], _works(4)), 10))[0]
    assert sorted(seen) == [0, 1, 2, 3] and not seen[1].timed_out  # the retry's verdict stands
    assert len(opened) == 4  # two slots, one new pair after the hang, one for the retry pass
    retry_page, retry_proxy = seen_on[1][1]
    assert (retry_page, retry_proxy) == opened[-1]
    assert all(page.ended and proxy.ended for page, proxy in opened)  # every page and proxy ended with the lane
    assert all(pool.companion(p) is None for pool in lane.pools for p, _ in opened) and not any(pool.all for pool in lane.pools)


@pytest.mark.parametrize("scrolls", [True, False], ids=["the page scrolls", "it does not"])
def test_the_review_scrolls_to_the_blocks_end_once_the_frame_is_sized_and_back_once_the_frame_saw_it(scrolls):
    """On a loaded machine the frame's height came after the scroll (the end stayed inside the frame)
    and the frame learnt of the scroll after the dwell: `evade_scrolled_into_view` missed its
    sentinel. The frame is asked first whether it is sized, and after the scroll whether it saw its
    end (where the page scrolls), before the host page scrolls back."""
    from flowui_sandbox.sandbox.review.browser.hostpage import END_SEEN, FRAME, SCROLL_BACK, SCROLL_END, SIZED

    async def go():
        session = FakeSession(lambda call: scrolls if call.action == "evaluate" and call.args[0] == SCROLL_END else True)
        page = await session.new_page()
        await Lane._scroll_end(page)
        return page

    page = run(go())
    calls = [(c.args[0], c.frame) for c in page.calls if c.action == "evaluate"]
    assert calls == [(SIZED, FRAME), (SCROLL_END, None), *([(END_SEEN, FRAME)] if scrolls else []), (SCROLL_BACK, None)]
