"""The review's logging proxy (sandbox/review/browser/proxy.py) over real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio

import aiohttp

from flowui_sandbox.sandbox.harness.server import tls_context
from flowui_sandbox.sandbox.review.browser.proxy import MAX_KEPT, Seen, Tap


async def _through(tap: Tap, url: str) -> int:
    async with aiohttp.ClientSession() as session, session.get(url, proxy=tap.proxy_url) as response:
        await response.read()
        return response.status


def test_each_block_has_its_own_log_and_limit():
    """A slot's earlier blocks neither fill the next block's MAX_KEPT nor show in its log."""

    async def run() -> None:
        _, context = tls_context("127.0.0.1", "localhost")
        tap = await Tap(context).start()
        try:
            assert tap.quiet_for() == float("inf")
            mark = tap.mark()
            for i in range(MAX_KEPT + 5):  # a flood in the first block
                tap.add(Seen("https", "flood.example", "GET", f"/{i}", "", {}))
            seen, _, dropped = tap.since(mark)
            assert (len(seen), dropped) == (MAX_KEPT, 5)
            mark = tap.mark()  # the next block
            assert await _through(tap, "http://leak.example/x.gif?t=canary") == 200
            seen, _, dropped = tap.since(mark)
            assert [(s.host, s.path, s.query) for s in seen] == [("leak.example", "/x.gif", "t=canary")] and dropped == 0
            assert tap.quiet_for() < 5
        finally:
            await tap.stop()

    asyncio.run(run())


def test_a_request_logged_after_its_block_ended_is_still_that_blocks():
    """The block's log is the live one until the next mark, and the fence waits for a request
    still being handled, up to its bound."""

    async def run() -> None:
        _, context = tls_context("127.0.0.1", "localhost")
        tap = await Tap(context).start()
        catch = tap.http._catch
        came = asyncio.Event()

        async def slow(request):
            came.set()
            await asyncio.sleep(0.3)  # a loaded machine: the request came, its log is late
            return await catch(request)

        tap.http._catch = slow  # type: ignore[method-assign]
        try:
            mark = tap.mark()
            sent = asyncio.ensure_future(_through(tap, "http://late.example/x.gif"))
            await came.wait()
            seen, _, _ = tap.since(mark)
            assert seen == [] and not tap.settled(0.05)
            assert await tap.fence(0.05, 5)
            assert [s.host for s in seen] == ["late.example"]  # the list read before the request was logged
            await sent
            # One that takes longer than the bound: the fence says so (the harness lets the proxy go
            # with its page, never marking it again), and the request still lands in the block's log.
            came.clear()
            sent = asyncio.ensure_future(_through(tap, "http://later.example/y.gif"))
            await came.wait()
            assert not await tap.fence(0.05, 0.1)
            await sent
            assert [s.host for s in seen] == ["late.example", "later.example"]
        finally:
            await tap.stop()

    asyncio.run(run())


def test_a_request_line_as_long_as_a_browser_sends_is_logged():
    """A URL far past a web server's default limit (8 KB) reaches the log whole: the state at its
    end must not be answered 400 unlogged (fixtures/review/exfil_long_url.html)."""

    async def run() -> None:
        _, context = tls_context("127.0.0.1", "localhost")
        tap = await Tap(context).start()
        try:
            mark = tap.mark()
            query = "p=" + "x" * 300_000 + "&n=canary"
            assert await _through(tap, f"http://long.example/t.gif?{query}") == 200
            seen, _, _ = tap.since(mark)
            assert [(s.host, s.query) for s in seen] == [("long.example", query)]
        finally:
            await tap.stop()

    asyncio.run(run())


def test_the_host_pages_heartbeat_is_heard_and_never_logged_as_the_blocks():
    """The heartbeat (on the host server, whose key only the host page holds) moves ``beat`` and
    nothing else: no request in the block's log, no activity that would keep the fence waiting; a
    request to another path of the host server, a wrong key's included, is the block's."""

    async def run() -> None:
        _, context = tls_context("127.0.0.1", "localhost")
        tap = await Tap(context).start()
        try:
            mark = tap.mark()
            active = tap.active
            wrong = tap.beat_url.replace(tap.beat_key, "0" * len(tap.beat_key))
            async with aiohttp.ClientSession() as session:
                async with session.get(tap.beat_url, ssl=False) as response:
                    assert response.status == 204
                assert tap.beat > active and tap.active == active and tap.since(mark)[0] == []
                async with session.get(wrong, ssl=False) as response:
                    await response.read()
            assert [s.path for s in tap.since(mark)[0]] == ["/beat/" + "0" * len(tap.beat_key)]
        finally:
            await tap.stop()

    asyncio.run(run())


def test_the_heartbeat_through_the_proxy_under_the_host_name_keeps_no_fence_waiting():
    """With a host name (every review: the host page is served under one), the heartbeat goes through
    the proxy like the host page (every request does, loopback included): it reaches the host
    server, moves ``beat``, is never the block's, and a fence settles while it goes on every 20 ms;
    a request of the block's to this machine (``https://127.0.0.1:1/``) is logged as any other."""

    async def run() -> None:
        _, context = tls_context("127.0.0.1", "localhost")
        tap = await Tap(context, "orders.example.test").start()
        assert tap.beat_url.startswith("https://orders.example.test/beat/")
        try:
            mark = tap.mark()
            async with aiohttp.ClientSession() as session:

                async def beat() -> None:
                    while True:
                        async with session.get(tap.beat_url, proxy=tap.proxy_url, ssl=False) as response:
                            assert response.status == 204
                        await asyncio.sleep(0.02)

                beating = asyncio.ensure_future(beat())
                try:
                    await asyncio.sleep(0.2)
                    assert tap.beat > 0 and await tap.fence(0.1, 2)
                    async with session.get("https://127.0.0.1:1/c?t=canary", proxy=tap.proxy_url, ssl=False) as response:
                        await response.read()
                    assert await tap.fence(0.1, 2)
                finally:
                    beating.cancel()
            assert [(s.host, s.path, s.query) for s in tap.since(mark)[0]] == [("127.0.0.1:1", "/c", "t=canary")]
        finally:
            await tap.stop()

    asyncio.run(run())
