"""Run by test_engines.py in a process of its own (so its Xvfb is not the test worker's): WebKit's
first navigation in a window whose X display stopped answering, done again in a fresh window on a
new display. Prints one JSON line of what it saw."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys

from flowui_sandbox.sandbox.engines import find_engines, launch
from flowui_sandbox.sandbox.engines.webdriver import Xvfb, x_display_answers


async def main() -> dict:
    (engine,) = [e for e in find_engines() if e.name == "webkit"]
    session = await launch(engine)
    try:
        await session.warm(2)  # two windows in the pool, both on the display about to stop
        display, server = Xvfb.display(), Xvfb.server()
        assert server is not None, "the environment's DISPLAY is set: this needs a display of our own"
        seen: dict = {"answered_before": x_display_answers(display)}
        os.kill(server.pid, signal.SIGSTOP)  # the X server answers nothing from now on, as in the stall CI saw
        seen["answered_stopped"] = x_display_answers(display)
        page = await session.new_page()
        await page.goto("data:text/html,<title>first</title>", timeout=3)
        seen["title"] = await page.evaluate("() => document.title")
        seen["new_display"] = Xvfb.server() is not server and x_display_answers(Xvfb.display())
        await page.close()
        # The other window the pool held was on the stopped display: not handed out again.
        again = await session.new_page()
        await again.goto("data:text/html,<title>again</title>", timeout=3)
        seen["again"] = await again.evaluate("() => document.title")
        await again.close()
        return seen
    finally:
        await session.close()


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
    sys.exit(0)
