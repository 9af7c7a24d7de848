"""The harness's own logic through the fake driver (sandbox/engines/fake.py), no browser: the
page pool, the retry policy, the watchdog around a run, kept host pages and their reloads.

What a browser does is proved in tests/browser/; these prove what the harness does with what
a browser answers (an error, a hang, a page that cannot be cleaned), in milliseconds."""

from __future__ import annotations

import asyncio

import pytest

from flowui_sandbox.sandbox.engines import EngineError
from flowui_sandbox.sandbox.engines.fake import HANG, Call, FakeSession
from flowui_sandbox.sandbox.harness.pages import PagePool
from flowui_sandbox.sandbox.harness.remote import SessionLost
from flowui_sandbox.sandbox.verify import attempt
from flowui_sandbox.sandbox.verify.attempt import KEPT_HISTORY, KEPT_RUNS, MOUNT, READY, Run, attempt_probe
from flowui_sandbox.sandbox.verify.generators import Generator
from flowui_sandbox.sandbox.verify.host_page import NOT_KEPT
from flowui_sandbox.sandbox.verify.probes import Expect, load_catalogue
from flowui_sandbox.sandbox.verify.servers import Servers

CATALOGUE = {p.id: p for p in load_catalogue()}
#: A probe whose run mounts in a kept host page, and one that loads a host page of its own.
MOUNTABLE = CATALOGUE["base.relative_image"]
OWN_PAGE = next(p for p in CATALOGUE.values() if not p.mountable and not p.click and p.category != "dos" and not p.fresh_page)
#: A probe that asks for a page no earlier run used.
FRESH = next(p for p in CATALOGUE.values() if p.fresh_page)


def run(coroutine):
    return asyncio.run(coroutine)


# ------------------------------------------------------------------------------ the pool


def test_a_page_given_back_is_cleaned_and_reused():
    async def go():
        session = FakeSession()
        pages = PagePool(session, 2)
        await pages.warm()
        first = await pages.acquire()
        await pages.release(first)
        again = await pages.acquire()
        return session, first, again
    session, first, again = run(go())
    assert again is first and len(session.pages) == 2
    assert first.actions() == ["recycle"]


def test_a_run_that_leaves_marks_gets_a_page_no_run_used_where_the_driver_has_them():
    async def go(fresh_pages: bool):
        session = FakeSession(fresh_pages=fresh_pages)
        pages = PagePool(session, 1)
        await pages.warm()
        page = await pages.acquire(fresh=True)
        return session, page
    session, page = run(go(True))
    assert len(session.pages) == 2 and page is session.pages[1]
    # WebDriver hands out windows from its own pool: an idle one is as fresh as a new one.
    session, page = run(go(False))
    assert len(session.pages) == 1 and page is session.pages[0]


def test_a_page_not_reused_is_closed_and_leaves_the_pool():
    async def go():
        pages = PagePool(FakeSession(), 1)
        await pages.warm()
        page = await pages.acquire()
        await pages.release(page, reuse=False)
        return pages, page
    pages, page = run(go())
    assert page.closed and page not in pages.all and page not in pages.idle


def test_a_page_that_cannot_be_cleaned_leaves_the_pool():
    def answer(call: Call):
        if call.action == "recycle":
            raise EngineError("chromium: the page is gone")
        return None

    async def go():
        pages = PagePool(FakeSession(answer), 1)
        await pages.warm()
        page = await pages.acquire()
        await pages.release(page)
        return pages, page
    pages, page = run(go())
    assert page not in pages.all and not pages.idle


def test_a_kept_host_page_goes_back_uncleaned_and_is_preferred_by_a_run_that_mounts():
    async def go():
        pages = PagePool(FakeSession(), 3)
        await pages.warm()
        kept = pages.idle[0]
        pages.kept[kept] = 1
        taken = await pages.acquire(kept=True)
        await pages.release(taken, keep_host=True)
        other = await pages.acquire(kept=False)
        return kept, taken, other
    kept, taken, other = run(go())
    assert taken is kept and "recycle" not in kept.actions()
    assert other is not kept


class _Proxy:
    """A page's companion (review's logging proxy): stopped when its page leaves the pool."""

    def __init__(self, page_closed=lambda: True):
        self.stopped = False
        self.page_closed = page_closed
        self.page_was_closed = False

    async def stop(self) -> None:
        self.page_was_closed = self.page_closed()
        self.stopped = True


def _pool_with_companions(session: FakeSession, size: int) -> tuple[PagePool, dict]:
    proxies: dict = {}

    async def opener(on):
        page = await on.new_page(proxy="http://127.0.0.1:1")
        proxies[page] = _Proxy(lambda: page.closed)
        return page, proxies[page]

    return PagePool(session, size, opener=opener), proxies


def test_a_page_opened_with_a_companion_takes_it_along_when_it_leaves_the_pool():
    """Review's slots: a page behind its own proxy. The proxy outlives no page (a flood's backlog
    would land in a later block's log) and goes only after its page (what the page sends as it
    goes is still logged): released without reuse, dropped after a hang, or closed with the pool."""
    async def go():
        session = FakeSession()
        pool, proxies = _pool_with_companions(session, 3)
        await pool.warm()
        a, b, c = [await pool.acquire() for _ in range(3)]
        assert {pool.companion(p) for p in (a, b, c)} == set(proxies.values()) and len(proxies) == 3
        await pool.release(a, reuse=False)
        pool.drop(b)
        dropped_at_once = b not in pool.all and pool.companion(b) is None
        await pool.settle(5)
        await pool.release(c, keep_host=False)  # cleaned and kept: its proxy stays
        kept_proxy = proxies[c].stopped
        await pool.close()
        return proxies, (a, b, c), dropped_at_once, kept_proxy

    proxies, (a, b, c), dropped_at_once, kept_proxy = run(go())
    assert dropped_at_once and not kept_proxy
    assert all(proxies[p].stopped and proxies[p].page_was_closed for p in (a, b, c))
    assert b.actions()[-1] == "close"  # abandoned: the fake's abandon is its close


def test_a_relaunched_browser_s_idle_pages_are_dropped_and_new_pages_come_from_it():
    async def go():
        old, new = FakeSession(), FakeSession()
        pool, proxies = _pool_with_companions(old, 2)
        await pool.warm()
        idle = list(pool.idle)
        pool.renew(new)
        await pool.settle(5)
        page = await pool.acquire(kept=True)
        return old, new, idle, page, proxies, pool

    old, new, idle, page, proxies, pool = run(go())
    assert all(p.closed and proxies[p].stopped for p in idle) and not pool.idle
    assert page in new.pages and page not in old.pages and pool.all == [page]


def test_a_page_held_while_its_browser_was_replaced_is_dropped_when_given_back_not_handed_out_again():
    async def go():
        old, new = FakeSession(), FakeSession()
        pool, proxies = _pool_with_companions(old, 1)
        held = await pool.acquire()
        pool.renew(new)
        stale = pool.stale(held)
        await pool.release(held, keep_host=True)
        await pool.settle(5)
        page = await pool.acquire(kept=True)
        return held, stale, page, proxies, pool

    held, stale, page, proxies, pool = run(go())
    assert stale and held.closed and proxies[held].stopped
    assert page is not held and not pool.stale(page) and pool.all == [page]


def test_a_probe_that_asks_for_a_fresh_page_runs_on_a_new_one_not_an_idle_one(servers):
    loop, srv = servers
    # The host page says it is ready at once; then it shows nothing, and each run watches the
    # probe's whole window (a short one here).
    session = FakeSession(lambda call: True if call.action == "recycle" or (call.action == "evaluate" and call.args[0] == READY) else None)

    async def go():
        pages = PagePool(session, 2)
        await pages.warm()
        idle = list(pages.idle)
        await attempt_probe(FRESH.model_copy(update={"wait": 0.05}), pages, srv, Generator())
        return idle

    idle = loop.run_until_complete(go())
    assert not FRESH.mountable
    assert len(session.pages) > len(idle)
    assert all(not any(c.action == "goto" for c in p.calls) for p in idle), "a fresh-page probe ran on an idle page"


# ------------------------------------------------------------------------------ retries and the watchdog


@pytest.fixture
def servers():
    loop = asyncio.new_event_loop()
    started = loop.run_until_complete(Servers().start())
    yield loop, started
    loop.run_until_complete(started.stop())
    loop.close()


def test_a_run_broken_by_the_driver_is_retried_twice_and_the_earlier_attempts_are_kept(servers):
    loop, srv = servers

    def answer(call: Call):
        if call.action == "evaluate" and call.args[0] == MOUNT:
            raise EngineError("chromium: Target page, context or browser has been closed")
        return True if call.action == "recycle" else None

    session = FakeSession(answer)
    result = loop.run_until_complete(attempt_probe(MOUNTABLE, PagePool(session, 1), srv, Generator()))
    assert result.status == "error" and "EngineError" in result.reason
    assert [e["status"] for e in result.observed["earlier_attempts"]] == ["error", "error"]
    mounts = [c for p in session.pages for c in p.calls if c.action == "evaluate" and c.args[0] == MOUNT]
    assert len(mounts) == 3


def test_a_retry_stops_at_the_first_run_that_exercised_the_probe(servers):
    loop, srv = servers
    broken = {"left": 1}

    def answer(call: Call):
        if call.action == "evaluate" and call.args[0] == MOUNT and broken["left"]:
            broken["left"] -= 1
            raise EngineError("chromium: the page crashed")
        if call.action == "evaluate" and call.args[0] == READY:
            return True
        return True if call.action == "recycle" else None  # the host page then answers nothing

    result = loop.run_until_complete(attempt_probe(MOUNTABLE, PagePool(FakeSession(answer), 1), srv, Generator()))
    # A host page that does not answer is a verdict (the attack may have hung it), not a lost run.
    assert result.status == "timeout" and "did not answer" in " ".join(result.evidence)
    assert [e["status"] for e in result.observed["earlier_attempts"]] == ["error"]


def test_the_watchdog_ends_a_hung_run_and_a_hung_run_is_retried(servers, monkeypatch):
    loop, srv = servers
    monkeypatch.setattr(attempt, "RUN_SLACK", 0.05)
    probe = MOUNTABLE.model_copy(update={"wait": 0.05})

    def answer(call: Call):
        if call.action == "evaluate" and call.args[0] == MOUNT:
            return HANG  # a block in a busy loop: the page never answers
        return True if call.action == "recycle" else None

    result = loop.run_until_complete(attempt_probe(probe, PagePool(FakeSession(answer), 1), srv, Generator()))
    assert result.status == "timeout" and "did not finish" in " ".join(result.evidence)
    assert [e["status"] for e in result.observed["earlier_attempts"]] == ["timeout", "timeout"]
    # A probe that expects the page to hang keeps its first verdict.
    expects_hang = probe.model_copy(update={"expect": {"default": Expect(outcome="timeout", why="a busy loop")}})
    result = loop.run_until_complete(attempt_probe(expects_hang, PagePool(FakeSession(answer), 1), srv, Generator()))
    assert result.status == "timeout" and "earlier_attempts" not in result.observed


def test_a_browser_that_went_away_is_raised_not_retried(servers):
    loop, srv = servers

    def answer(call: Call):
        if call.action == "goto":
            raise EngineError("chromium: Browser has been closed")
        return True if call.action == "recycle" else None

    async def gone() -> bool:
        return False

    with pytest.raises(SessionLost, match=OWN_PAGE.id):
        loop.run_until_complete(attempt_probe(OWN_PAGE, PagePool(FakeSession(answer), 1), srv, Generator(), alive=gone))


# ------------------------------------------------------------------------------ kept host pages


def _mount_runs(servers, histories: list[int]) -> tuple[list[Run], list[Call]]:
    """Runs of MOUNTABLE mounted one after another in one page whose tab history is ``histories[i]``
    after run i's mount; the page's calls."""
    loop, srv = servers
    answers = iter(histories)

    def answer(call: Call):
        if call.action == "evaluate" and call.args[0] == MOUNT:
            return next(answers)
        return None

    async def go():
        pages = PagePool(FakeSession(answer), 1)
        await pages.warm()
        page = pages.idle[0]
        runs = []
        for _ in histories:
            r = Run(MOUNTABLE, pages, srv, Generator())
            r.mount = {"url": "https://127.0.0.1/host/x", "init": {}}
            await r.mount_blocks(page)
            runs.append(r)
        return runs, page.calls
    return loop.run_until_complete(go())


@pytest.mark.parametrize("misses", [1, 2])
def test_a_kept_page_that_shows_another_document_is_loaded_again(servers, misses):
    """A window that no longer shows its kept host page (WebKitGTK: three runs in a row found no
    ``__hostMount``, each a harness error) is loaded again, once; a second miss is the run's error."""
    loop, srv = servers
    left = {"misses": misses}

    def answer(call: Call):
        if call.action == "evaluate" and call.args[0] == MOUNT:
            if left["misses"]:
                left["misses"] -= 1
                return NOT_KEPT
            return 3
        return None

    async def go():
        pages = PagePool(FakeSession(answer), 1)
        await pages.warm()
        page = pages.idle[0]
        pages.kept[page] = 2  # a page kept from earlier runs, whose document went meanwhile
        run = Run(MOUNTABLE, pages, srv, Generator())
        run.mount = {"url": "https://127.0.0.1/host/x", "init": {}}
        try:
            await run.mount_blocks(page)
        except EngineError as exc:
            return run, page, exc
        return run, page, None

    run, page, error = loop.run_until_complete(go())
    gotos = [c for c in page.calls if c.action == "goto"]
    assert len(gotos) == 1 and gotos[0].args[0].endswith("/p/kept")  # the page was kept: loaded once, after the first miss
    if misses == 1:
        assert error is None and run.observed["kept_host_page_run"] == 1 and run.observed["kept_host_page_missing"] == 1
    else:
        assert error is not None and "shows another document" in str(error)


def test_the_kept_host_page_is_loaded_once_and_reloaded_after_its_run_budget(servers):
    runs, calls = _mount_runs(servers, [3] * KEPT_RUNS)
    gotos = [c for c in calls if c.action == "goto"]
    assert len(gotos) == 1 and gotos[0].args[0].endswith("/p/kept")
    assert [r.observed["kept_host_page_run"] for r in runs] == list(range(1, KEPT_RUNS + 1))
    assert [r.reload_kept for r in runs] == [False] * (KEPT_RUNS - 1) + [True]


def test_the_kept_host_page_is_reloaded_when_its_blocks_filled_its_history(servers):
    runs, _ = _mount_runs(servers, [2, 5, 2 + KEPT_HISTORY])
    assert [r.reload_kept for r in runs] == [False, False, True]


# ------------------------------------------------------------------------------ wait_for


def test_wait_for_asks_the_new_document_when_a_navigation_replaced_the_one_it_asked():
    """After a navigation (the editor's page.leave, a frame reloading) a script in flight ends in
    DocumentReplaced (WebKitWebDriver: "Could not parse script result"): wait_for evaluates again
    in the new document; a page that went away (PageGone) ends the wait at once."""
    from flowui_sandbox.sandbox.engines import DocumentReplaced, PageGone

    answers = iter([False, DocumentReplaced("chromium: replaced"), "ready"])

    def navigating(call: Call):
        if call.action != "evaluate":
            return None
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def waited(answer):
        page = await FakeSession(answer).new_page()
        return await page.wait_for("() => ready", timeout=5, interval=0), page

    value, page = run(waited(navigating))
    assert value == "ready" and page.actions().count("evaluate") == 3

    def gone(call: Call):
        if call.action == "evaluate":
            raise PageGone("chromium: the browser quit")

    with pytest.raises(PageGone) as info:
        run(waited(gone))
    assert not isinstance(info.value, DocumentReplaced)


# ------------------------------------------------------------------------------ reading the frames


def test_a_frame_read_for_its_report_alone_gives_up_sooner_than_one_with_checks():
    """Block 0's own report is evidence, never a verdict: its read gets REPORT_READ_TIMEOUT, so a
    frame whose document was replaced (document.open(): the driver's call waits for its whole
    timeout) costs 1.5 s, not 6; a frame with checks to answer keeps FRAME_READ_TIMEOUT."""
    from flowui_sandbox.sandbox.verify.observation import FRAME_READ_TIMEOUT, REPORT_READ_TIMEOUT, frame_checks, read_frames

    async def read(probe):
        page = await FakeSession(lambda call: {"report": {}, "checks": []}).new_page()
        await read_frames(page, probe, {})
        return [(c.frame, c.timeout) for c in page.calls if c.action == "evaluate"]

    report_only = CATALOGUE["host.base_uri_path"]
    assert frame_checks(report_only) == {0: []}
    assert run(read(report_only)) == [("#block-0 iframe", REPORT_READ_TIMEOUT)]
    checked = CATALOGUE["breakout.state_value"]
    assert frame_checks(checked)[0]
    assert run(read(checked))[0] == ("#block-0 iframe", FRAME_READ_TIMEOUT)
    assert REPORT_READ_TIMEOUT < FRAME_READ_TIMEOUT
