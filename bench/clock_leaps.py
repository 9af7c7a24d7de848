"""The review's clock leaps in Firefox: the driver's ``clock_fast_forward`` against Playwright's
``clock.fast_forward``, on the same page, in turn.

    .venv/bin/python bench/clock_leaps.py [--rounds N]

A host page with a sandboxed srcdoc frame that keeps an interval and a timer (what a block
under review has), Playwright's clock installed. One round: the date set to now, then the ten
leaps of the review (``LEAPS``), once through each. Prints the median and spread of each and
their ratio (the driver's over Playwright's).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flowui_sandbox.sandbox.engines import launch, select_engines
from flowui_sandbox.sandbox.review.browser.run import LEAPS

PAGE = ('<!doctype html><iframe sandbox="allow-scripts" srcdoc="<script>let n = 0; setInterval(() => n++, 1000);'
        ' setTimeout(() => n++, 100 * 86400000);</script>"></iframe>')


async def run(rounds: int) -> None:
    session = await launch(select_engines(["firefox"])[0])
    try:
        page = await session.new_page()
        await page.clock_install()
        await page.raw.set_content(PAGE)
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(rounds):
            for took, leap in ((ours, page.clock_fast_forward), (theirs, page.raw.clock.fast_forward)):
                await page.clock_set_system_time(time.time())
                started = time.perf_counter()
                for ms in LEAPS:
                    await leap(ms)
                took.append(time.perf_counter() - started)
    finally:
        await session.close()
    for name, took in (("clock_fast_forward (the driver's)", ours), ("Playwright's clock.fast_forward", theirs)):
        print(f"{name:36} median {statistics.median(took) * 1000:7.1f} ms  ({min(took) * 1000:.1f}-{max(took) * 1000:.1f}) for {len(LEAPS)} leaps")
    print(f"ratio (driver / Playwright): {statistics.median(ours) / statistics.median(theirs):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    asyncio.run(run(parser.parse_args().rounds))


if __name__ == "__main__":
    main()
