"""The editor page's answer time while its block floods the bridge log, per engine.

    .venv/bin/python bench/editor_log_flood.py [--engines chromium,firefox,webkit] [--interval MS] [--seconds S]

The editor server runs in this process. The block sends a message and throws an error every
``--interval`` ms (a log entry each, and a rate-limit entry per refused send: far over the host's
rate limit and the log's 200 entries). With the log tab shown, this process asks the editor page
for a trivial script (``() => 1``) every 0.2 s for ``--seconds`` and times each answer, as a test
or an author's click would wait for the page.

The peer, in the same run, engine and page kind: the same reads with a quiet block. The ratio says
what the flood costs the page. (Before the log drew its entries once per frame, Firefox answered
in a median of 4.7 s at a 5 ms interval against 0.05 s once it did, on a 2-core machine at half
its usual speed; Chromium answered in 0.03 s either way.)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flowui_sandbox.sandbox.editor.server import EditorServer, EditorSession  # noqa: E402
from flowui_sandbox.sandbox.engines import find_engines, launch  # noqa: E402

FLOOD = """<p id="flood">flooding</p><script>
  setInterval(function () {
    flowUi.send('tick', {}).catch(function () {});
    setTimeout(function () { throw new Error('flood'); }, 0);
  }, %d);
</script>"""
QUIET = "<p>quiet</p>"


async def answer_times(engine, source: str, seconds: float) -> tuple[list[float], int]:
    """Seconds per answer of the editor page over ``seconds``, and the log's dropped count at the end."""
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "block.html"
        file.write_text(source, encoding="utf-8")
        server = await EditorServer(EditorSession(file=file, state={}, fields=[])).start()
        session = await launch(engine)
        try:
            page = await session.new_page()
            await page.goto(server.url)
            await page.wait_for("() => Number(document.querySelector('[data-testid=preview]').dataset.ready) >= 1", timeout=60)
            await page.click('[role=tab][data-tab="log"]', timeout=120)
            times: list[float] = []
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                start = time.monotonic()
                await page.evaluate("() => 1", timeout=120)
                times.append(time.monotonic() - start)
                await asyncio.sleep(0.2)
            dropped = await page.evaluate("() => Number(document.querySelector('[data-testid=log-dropped]').dataset.dropped)", timeout=120)
        finally:
            await session.close()
            await server.stop()
    return times, dropped


async def main(names: list[str], interval: int, seconds: float) -> None:
    engines = {e.name: e for e in find_engines()}
    for name in names:
        if name not in engines:
            sys.exit(f"bench/editor_log_flood.py: {name} is not installed (make setup)")
    print(f"a message and an error every {interval} ms; the page asked every 0.2 s for {seconds:.0f} s")
    for name in names:
        flood, dropped = await answer_times(engines[name], FLOOD % interval, seconds)
        quiet, _ = await answer_times(engines[name], QUIET, seconds)
        f50, q50 = statistics.median(flood), statistics.median(quiet)
        print(f"{name:9} flooded: p50 {f50 * 1e3:7.1f} ms, max {max(flood) * 1e3:7.1f} ms ({len(flood)} answers, {dropped} entries dropped)"
              f" | quiet peer: p50 {q50 * 1e3:6.1f} ms, max {max(quiet) * 1e3:6.1f} ms | ratio p50 {f50 / q50:.1f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="chromium,firefox,webkit")
    parser.add_argument("--interval", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=15)
    options = parser.parse_args()
    asyncio.run(main(options.engines.split(","), options.interval, options.seconds))
