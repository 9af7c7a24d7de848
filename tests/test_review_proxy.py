"""The review's logging proxy (sandbox/review/browser/proxy.py) over real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio

import aiohttp

from flowui_sandbox.sandbox.review.browser.proxy import MAX_KEPT, Seen, Tap
from flowui_sandbox.sandbox.server import tls_context


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
