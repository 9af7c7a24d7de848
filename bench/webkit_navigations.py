"""Stress of WebKitGTK's navigations: how many stall, with what a navigation asks again and without.

    .venv/bin/python bench/webkit_navigations.py [--rounds N] [--load K] [--bounds 4,120] [--ask-again 5,60]

Starts an editor server (``flowui-sandbox edit``'s, over a small block) and a page of another
site (localhost, not the editor's 127.0.0.1) whose frames post forms to the editor, as the
editor's tests in WebKit do; then, for each bound on the answer to one read of the document
(``NAVIGATE_READ_ANSWER``; 120 s is the HTTP limit of every other call, i.e. never asked again),
and for each wait before a navigation whose window kept the old document is asked for again
(``NAVIGATE_ASK_AGAIN``; past the 15 s deadline: never), N rounds of one MiniBrowser window going
editor → other site → editor. ``--load K`` keeps K processes spinning beside it, as the other half
of a CI run does. Prints, per pair, the navigations that failed, those that asked a read or the
navigation again or went to a fresh window, and the median and longest navigation.

The stall it counts is rare (3 of 120 navigations under load on a 2-core machine) and comes
only under load: the figures are counts, not timings, and run to run they vary.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from flowui_sandbox.sandbox.editor.server import EditorServer, EditorSession
from flowui_sandbox.sandbox.engines import select_engines
from flowui_sandbox.sandbox.engines import webdriver as driver_module
from flowui_sandbox.sandbox.engines.webdriver import WebDriverSession
from flowui_sandbox.sandbox.errors import Recovered, SandboxError
from flowui_sandbox.sandbox.harness.server import LocalServer

BLOCK = '<p id="name" data-bind="customer.name"></p>'
OTHER_SITE = """<!DOCTYPE html><meta charset="utf-8"><title>another site</title>
<iframe name="a"></iframe><iframe name="b"></iframe>
<script>
for (const target of ["a", "b"]) {
  const form = document.createElement("form");
  form.method = "POST"; form.action = SAVE; form.target = target; form.enctype = "text/plain";
  form.append(Object.assign(document.createElement("input"), {name: "source", value: "x"}));
  document.body.append(form);
  form.submit();
}
</script>"""


async def rounds(session: WebDriverSession, urls: list[str], count: int) -> tuple[int, int, int, int, list[float]]:
    failed, asked_again, navigated_again, fresh, times = 0, 0, 0, 0, []
    for _ in range(count):
        page = await session.new_page()
        for url in urls:
            started = time.monotonic()
            try:
                with warnings.catch_warnings(record=True) as seen:
                    warnings.simplefilter("always")
                    await page.goto(url, 15)
                notes = [str(w.message) for w in seen if issubclass(w.category, Recovered)]
                asked_again += sum("asked again" in note for note in notes)
                navigated_again += sum("asked for again" in note for note in notes)
                fresh += sum("fresh window" in note for note in notes)
            except SandboxError as exc:
                failed += 1
                print(f"  failed: {str(exc)[:300]}", flush=True)
                break
            finally:
                times.append(time.monotonic() - started)
        await page.close()
    return failed, asked_again, navigated_again, fresh, times


async def main(args: argparse.Namespace) -> None:
    engine = select_engines(["webkit"])[0]
    folder = Path(tempfile.mkdtemp(prefix="flowui-bench-"))
    (folder / "block.html").write_text(BLOCK, encoding="utf-8")
    editor = EditorServer(EditorSession(file=folder / "block.html", state={"customer": {"name": "Anna"}}, fields=[]))
    await editor.start()
    # Served as localhost: another site than the editor's 127.0.0.1.
    other = await LocalServer(public_host="localhost").start()
    urls = [editor.url, other.add_page(OTHER_SITE.replace("SAVE", repr(editor.url + "api/save"))), editor.url]
    load = [await asyncio.create_subprocess_exec(sys.executable, "-c", "while True: pass") for _ in range(args.load)]
    try:
        for bound in args.bounds:
            for wait in args.ask_again:
                driver_module.NAVIGATE_READ_ANSWER, driver_module.NAVIGATE_ASK_AGAIN = bound, wait
                session = await WebDriverSession.start(engine)
                try:
                    failed, asked_again, navigated_again, fresh, times = await rounds(session, urls, args.rounds)
                finally:
                    await session.close()
                print(f"read answer bound {bound:g}s, navigation asked again after {wait:g}s: {failed} of {len(times)} "
                      f"navigations failed, {asked_again} asked a read again, {navigated_again} asked for the navigation again, "
                      f"{fresh} done again in a fresh window; "
                      f"median {statistics.median(times):.2f}s, longest {max(times):.1f}s", flush=True)
    finally:
        for process in load:
            process.kill()
            await process.wait()
        await other.stop()
        await editor.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--load", type=int, default=2, help="spinning processes beside it (default 2)")
    parser.add_argument("--bounds", type=lambda s: [float(x) for x in s.split(",")], default=[4.0, 120.0])
    parser.add_argument("--ask-again", type=lambda s: [float(x) for x in s.split(",")], default=[5.0])
    asyncio.run(main(parser.parse_args()))
